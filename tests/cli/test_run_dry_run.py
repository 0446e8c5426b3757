"""`bot run --dry-run --json` answers every event GitHub can send with one JSON object: a workflow
that also listens to `pull_request` or `installation` must not fail its job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.github.events import SUPPORTED_EVENTS
from tests.conftest import FIXTURES

runner = CliRunner()

#: The project's captures plus octokit/webhooks' example of every other event type.
PAYLOADS = sorted([*(FIXTURES / "events").glob("*.json"), *(FIXTURES / "webhooks").glob("*.json")])


def event_name(path: Path) -> str:
    return path.name.split(".", 1)[0]


def test_the_fixtures_cover_every_event_type_octokit_has_an_example_for() -> None:
    names = {event_name(p) for p in PAYLOADS}
    assert len(names) >= 60
    assert {"pull_request", "installation", "push", "workflow_run", *SUPPORTED_EVENTS} - {"schedule"} <= names


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_every_payload_answers_json_with_a_reason(path: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "--dry-run",
            "--json",
            "--event-name",
            event_name(path),
            "--event-path",
            str(path),
            "-C",
            str(tmp_path),
        ],
        env={"GITHUB_RUN_ID": "7"},
    )
    assert result.exit_code == 0, result.output
    decision = json.loads(result.stdout)
    assert isinstance(decision["triggered"], bool)
    assert decision["reason"].strip()
    assert decision["kind"]
    if event_name(path) not in SUPPORTED_EVENTS:
        assert decision["triggered"] is False
        assert f"does not run on {event_name(path)}" in decision["reason"]


def test_pull_request_and_installation_say_which_events_start_a_run() -> None:
    for name, event in (("pull_request", "pull_request.opened"), ("installation", "installation.created")):
        result = runner.invoke(
            app,
            [
                "run",
                "--dry-run",
                "--json",
                "--event-name",
                name,
                "--event-path",
                str(FIXTURES / "events" / f"{event}.json"),
            ],
        )
        assert result.exit_code == 0, result.output
        decision = json.loads(result.stdout)
        assert decision["triggered"] is False
        assert "issue_comment" in decision["reason"]
