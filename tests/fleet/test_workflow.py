"""workflows/fleet.yml against SchemaStore's Actions workflow schema, and the promises it makes:
a reusable workflow also run on a schedule and by hand, a matrix that does not stop at the first
failed leg, App tokens for the checkouts, and a report job that runs whatever the legs did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "workflows" / "fleet.yml"
SCHEMA = ROOT / "tests" / "fixtures" / "upstream" / "schemastore" / "github-workflow.json"


def _workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text())
    # YAML 1.1 reads the key `on` as True; GitHub (and the schema) mean the string.
    data["on"] = data.pop(True)
    return data


def test_the_fleet_workflow_is_valid_under_the_actions_workflow_schema() -> None:
    import json

    schema = json.loads(SCHEMA.read_text())
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(_workflow()), key=lambda e: list(e.path))
    assert [f"{list(e.path)}: {e.message}" for e in errors] == []


def test_the_schema_rejects_what_github_would_reject() -> None:
    """The check above can fail: a matrix job with a misspelt strategy key is refused."""
    import json

    schema = json.loads(SCHEMA.read_text())
    broken = _workflow()
    broken["jobs"]["legs"]["strategy"]["fail_fast"] = False
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))


def test_it_is_reusable_scheduled_and_dispatchable() -> None:
    on = _workflow()["on"]
    assert {"workflow_call", "workflow_dispatch", "schedule"} <= set(on)


@pytest.mark.parametrize(
    ("description", "check"),
    [
        ("legs never cancel each other", lambda j: j["legs"]["strategy"]["fail-fast"] is False),
        (
            "the plan's max_parallel bounds the matrix",
            lambda j: "max_parallel" in j["legs"]["strategy"]["max-parallel"],
        ),
        (
            "the matrix is the plan's",
            lambda j: "fromJSON(needs.plan.outputs.matrix)" in j["legs"]["strategy"]["matrix"],
        ),
        ("the report runs after failed legs too", lambda j: j["report"]["if"].startswith("always()")),
        ("only the report may write issues", lambda j: j["report"]["permissions"]["issues"] == "write"),
    ],
)
def test_the_jobs_keep_their_promises(description: str, check: Any) -> None:
    assert check(_workflow()["jobs"]), description


def test_checkouts_of_fleet_repositories_use_an_app_token_and_keep_no_credentials() -> None:
    steps = _workflow()["jobs"]["legs"]["steps"]
    app = next(s for s in steps if s.get("uses", "").startswith("actions/create-github-app-token@"))
    assert app["with"]["repositories"] == "${{ matrix.name }}"
    target = next(s for s in steps if s.get("with", {}).get("repository") == "${{ matrix.repository }}")
    assert target["with"]["token"] == "${{ steps.app.outputs.token }}"
    assert target["with"]["persist-credentials"] is False
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()"
