"""Lifecycle hook points of a run, and the event sink's isolation."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bot.agent.events import RunEvent, RunFinished
from bot.agent.lifecycle import NO_LIFECYCLE_OUTCOME, CommandLifecycle, LifecycleOutcome, SessionInfo
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask, QuotedData
from bot.agent.transcript import transcript_path_for
from bot.runtime.hook_config import parse_hooks
from bot.runtime.hook_runner import CommandHookRunner
from bot.testing.cassettes import Text, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self, *, stop_blocks: int = 0, prompt_block: str | None = None) -> None:
        self.calls: list[tuple[str, object]] = []
        self.stop_blocks = stop_blocks
        self.prompt_block = prompt_block
        self.transcript_existed = False

    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome:
        self.transcript_existed = info.transcript_path.exists()
        self.calls.append(("SessionStart", source))
        return LifecycleOutcome(additional_context=("The CI image has Python 3.11.",))

    async def user_prompt_submit(self, info: SessionInfo, prompt: str) -> LifecycleOutcome:
        self.calls.append(("UserPromptSubmit", prompt))
        return LifecycleOutcome(block_reason=self.prompt_block)

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome:
        self.calls.append(("Stop", stop_hook_active))
        if self.stop_blocks:
            self.stop_blocks -= 1
            return LifecycleOutcome(block_reason="Run the tests before finishing.")
        return NO_LIFECYCLE_OUTCOME

    async def subagent_stop(
        self, info: SessionInfo, stop_hook_active: bool, agent_transcript_path: Path
    ) -> LifecycleOutcome:
        self.calls.append(("SubagentStop", stop_hook_active))
        return NO_LIFECYCLE_OUTCOME


def replay(*texts: str) -> PacedReplay:
    return PacedReplay.from_script([Turn([Text(t)], first_token_s=0) for t in texts])


async def test_session_start_context_joins_the_first_message_and_the_hook_sees_the_prompt(harness: Harness) -> None:
    hooks, model = Recorder(), replay("Done.")
    task = AgentTask("Fix it.", (QuotedData("issue", "It is broken."),), nonce="n1")

    outcome = await run_agent(task, harness.session(transport=model.transport(), lifecycle=hooks), harness.events)

    assert outcome.stop.reason == "completed" and hooks.transcript_existed
    first = model.request_json(0)["messages"][0]["content"]
    assert first[1]["text"] == "<system-reminder>\nThe CI image has Python 3.11.\n</system-reminder>"
    kinds = [c[0] for c in hooks.calls]
    assert kinds == ["SessionStart", "UserPromptSubmit", "Stop"]
    assert hooks.calls[1][1] == first[0]["text"] and "It is broken." in first[0]["text"]


async def test_a_stop_hook_that_blocks_makes_the_model_continue_once(harness: Harness) -> None:
    hooks, model = Recorder(stop_blocks=1), replay("Done.", "Tests pass. Done.")

    outcome = await run_agent(AgentTask("Fix it."), harness.session(transport=model.transport(), lifecycle=hooks))

    assert outcome.stop.reason == "completed" and outcome.final_text == "Tests pass. Done."
    assert [c for c in hooks.calls if c[0] == "Stop"] == [("Stop", False), ("Stop", True)]
    feedback = model.request_json(1)["messages"][-1]["content"][0]["text"]
    assert feedback == "A Stop hook asks you to continue: Run the tests before finishing."


async def test_a_prompt_hook_that_blocks_stops_the_run_before_any_model_call(harness: Harness) -> None:
    hooks, model = Recorder(prompt_block="prompt mentions a secret"), replay("never")

    outcome = await run_agent(AgentTask("Fix it."), harness.session(transport=model.transport(), lifecycle=hooks))

    assert outcome.stop.reason == "aborted" and "prompt mentions a secret" in outcome.stop.detail
    assert model.requests == []


async def test_a_failing_event_sink_never_breaks_the_run(harness: Harness) -> None:
    model, seen = replay("Done."), list[RunEvent]()

    def sink(event: RunEvent) -> None:
        seen.append(event)
        raise RuntimeError("the progress comment is down")

    outcome = await run_agent(AgentTask("Go."), harness.session(transport=model.transport()), sink)

    assert outcome.stop.reason == "completed" and isinstance(seen[-1], RunFinished)


STOP_HOOK = """\
import json, sys
data = json.load(sys.stdin)
if data["stop_hook_active"]:
    sys.exit(0)
with open(data["transcript_path"]) as fh:
    lines = fh.read().splitlines()
print(f"The transcript has {len(lines)} lines; run the tests first.", file=sys.stderr)
sys.exit(2)
"""


async def test_claude_code_hook_commands_run_at_the_lifecycle_points_and_read_the_transcript(harness: Harness) -> None:
    start = harness.write("hooks/start.py", "print('Python 3.11 is installed.')\n")
    stop = harness.write("hooks/stop.py", STOP_HOOK)
    config = parse_hooks(
        {
            "SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {start}"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": f"{sys.executable} {stop}"}]}],
        },
        "policy.yaml",
    )
    model = replay("Done.", "Tests pass.")
    session = harness.session(transport=model.transport())
    runner = CommandHookRunner(
        config,
        session_id=session.session_id,
        project_dir=harness.workspace,
        transcript_path=transcript_path_for(harness.scratch, None),
        env=dict(os.environ),
    )
    session.lifecycle = CommandLifecycle(runner)

    outcome = await run_agent(AgentTask("Fix it."), session)

    assert outcome.stop.reason == "completed" and outcome.final_text == "Tests pass."
    first = model.request_json(0)["messages"][0]["content"]
    assert "Python 3.11 is installed." in first[1]["text"]
    feedback = model.request_json(1)["messages"][-1]["content"][0]["text"]
    assert feedback.endswith("The transcript has 2 lines; run the tests first.")
