"""The sandbox's probe and self-test run while the first model request is out; a run still uses the
sandbox the session prepared, and a policy that requires a sandbox that cannot run still ends the
run before any command (or any other tool) runs, whatever the model answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.shell.sandbox import status as sandbox_status
from bot.shell.sandbox.probe import BwrapProbe
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from tests.local.demo import run_demo


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    async def probe(environ: Any = None) -> BwrapProbe:
        return BwrapProbe(None, False, "bwrap is not installed")

    monkeypatch.setattr(sandbox_status, "probe_bwrap", probe)


@pytest.mark.usefixtures("no_bwrap")
@pytest.mark.parametrize(
    "first",
    [
        Turn(
            [
                ToolCall("Write", {"file_path": "written.txt", "content": "x"}),
                ToolCall("Bash", {"command": "touch ran.txt", "description": "Touch a file"}),
            ]
        ),
        Turn([Text("Nothing to change.")]),
    ],
    ids=["tool calls", "a final answer"],
)
def test_a_required_sandbox_that_cannot_run_fails_the_run_before_anything_runs(tmp_path: Path, first: Turn) -> None:
    cassette = write_cassette(tmp_path / "c.yaml", [first, Turn([Text("Done.")])], seed="sandbox")
    out = tmp_path / "out"

    result = run_demo(out, "--policy", "fix", cassette=cassette)

    assert result.exit_code == 1, result.output
    outcome = json.loads((out / "outcome.json").read_text())
    assert outcome["conclusion"] == "failure"
    assert (
        "requires the sandbox (`sandbox: required`), and it cannot run here: bwrap is not installed"
        in (out / "comment.md").read_text()
    )
    workspace = out / "workspace"
    assert not (workspace / "written.txt").exists() and not (workspace / "ran.txt").exists()


def test_the_bash_tool_runs_in_the_sandbox_the_session_prepared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo runs two commands: the probe and self-test ran once, begun while the first model
    request was out (not again at the first command, as a context without the session's sandbox
    would)."""
    from bot.agent.client import AnthropicModel

    calls: list[str] = []
    prepare, stream = sandbox_status.prepare_sandbox, AnthropicModel.stream

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("sandbox")
        return await prepare(*args, **kwargs)

    def streamed(self: AnthropicModel, request: Any) -> Any:
        calls.append("model request")
        return stream(self, request)

    monkeypatch.setattr(sandbox_status, "prepare_sandbox", counted)
    monkeypatch.setattr(AnthropicModel, "stream", streamed)
    out = tmp_path / "out"

    result = run_demo(out)

    assert result.exit_code == 0, result.output
    assert "**Bash** `python3 -m unittest -q` ❌" in (out / "comment.md").read_text()  # the commands ran
    assert calls.count("sandbox") == 1
    assert calls[:2] == ["model request", "sandbox"]  # begun once the first request was on its way
