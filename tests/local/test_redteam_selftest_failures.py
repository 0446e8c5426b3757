"""Red team: a sandbox self-test that fails, raises or takes its time while the first response
(a file write and a shell command) is already in. The run ends with a failure that names the
cause, before anything the model asked for ran — in local mode with ``sandbox: required`` (the
``fix`` preset), and with ``sandbox: auto`` where GitHub Actions makes it ``required``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.shell.sandbox import status as sandbox_status
from bot.shell.sandbox.selftest import Check, SelfTestReport
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from tests.local.demo import run_demo

FIRST = Turn(
    [
        ToolCall("Write", {"file_path": "written.txt", "content": "x"}),
        ToolCall("Bash", {"command": "touch ran.txt", "description": "Touch a file"}),
    ],
    first_token_s=0,
)


def _cassette(tmp_path: Path) -> Path:
    return write_cassette(tmp_path / "c.yaml", [FIRST, Turn([Text("Done.")])], seed="redteam-selftest")


def _nothing_ran(out: Path) -> None:
    workspace = out / "workspace"
    assert not (workspace / "written.txt").exists()
    assert not (workspace / "ran.txt").exists()


def _failed(out: Path, result: Any) -> str:
    assert result.exit_code == 1, result.output
    assert json.loads((out / "outcome.json").read_text())["conclusion"] == "failure"
    return (out / "comment.md").read_text()


@pytest.fixture
def slow_failing_self_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real probe finds bwrap; the self-test reports a hole, after the response is in."""

    async def self_test(*args: Any, **kwargs: Any) -> SelfTestReport:
        await asyncio.sleep(0.5)
        return SelfTestReport((Check("network", False, "example.com was reachable"),))

    monkeypatch.setattr(sandbox_status, "self_test", self_test)


@pytest.mark.usefixtures("slow_failing_self_test")
def test_a_failed_self_test_ends_a_required_run_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_demo(out, "--policy", "fix", cassette=_cassette(tmp_path))
    comment = _failed(out, result)
    assert "the sandbox self-test failed (network: example.com was reachable)" in comment
    _nothing_ran(out)


@pytest.mark.usefixtures("slow_failing_self_test")
def test_in_actions_auto_is_required_and_a_failed_self_test_ends_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps(
            {"permissions": {"allow": ["Write", "Bash(touch:*)"], "defaultMode": "dontAsk"}, "bot": {"sandbox": "auto"}}
        )
    )
    out = tmp_path / "out"
    result = run_demo(out, "--policy", str(policy), cassette=_cassette(tmp_path))
    comment = _failed(out, result)
    assert "`sandbox: auto` refuses to run shell commands without a working sandbox" in comment
    _nothing_ran(out)


def test_a_self_test_that_raises_ends_the_run_as_a_failure_that_says_what_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def self_test(*args: Any, **kwargs: Any) -> SelfTestReport:
        await asyncio.sleep(0.3)
        raise OSError("bwrap vanished mid-test")

    monkeypatch.setattr(sandbox_status, "self_test", self_test)
    out = tmp_path / "out"
    result = run_demo(out, "--policy", "fix", cassette=_cassette(tmp_path))
    comment = _failed(out, result)
    assert "OSError: bwrap vanished mid-test" in comment
    assert "bwrap vanished mid-test" in (out / "error.txt").read_text()
    _nothing_ran(out)
