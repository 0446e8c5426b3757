"""How a turn ends, played back over HTTP through the real SDK: an empty response, and every stop
reason the SDK lists (the window filling up, a refusal, a reason nobody knows)."""

from __future__ import annotations

import typing
from typing import Any

import anthropic.types
import pytest

from bot.agent.events import ContextCompacted, LimitReached
from bot.agent.lifecycle import NO_LIFECYCLE_OUTCOME, LifecycleOutcome, NoLifecycleHooks, SessionInfo
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.agent.stop_reasons import STOP_REASONS, turn_ending
from bot.testing.cassettes import Text, ToolCall, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness
from tests.cassettes.scripts import CALC_BUGGY

pytestmark = pytest.mark.anyio


class BlockOnce(NoLifecycleHooks):
    """A Stop hook that sends the model back once (``decision: block``)."""

    def __init__(self) -> None:
        self.blocked = False

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome:
        if self.blocked:
            return NO_LIFECYCLE_OUTCOME
        self.blocked = True
        return LifecycleOutcome(block_reason="Run the tests before finishing.")


def api_problem(body: dict[str, Any]) -> str | None:
    """The Messages API's own check (it answers 400): every message has content, except an
    optional final assistant message; roles alternate, the first one is the user's."""
    messages = body["messages"]
    for i, message in enumerate(messages):
        last_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if not message["content"] and not last_assistant:
            return f"messages.{i}: all messages must have non-empty content except for the optional final assistant"
        if i and message["role"] == messages[i - 1]["role"]:
            return f"messages.{i}: roles must alternate"
    return None


def turns(*items: Turn) -> PacedReplay:
    return PacedReplay.from_script(list(items))


async def test_an_empty_response_followed_by_a_stop_hook_never_sends_an_empty_assistant_message(
    harness: Harness,
) -> None:
    model = turns(Turn([], first_token_s=0), Turn([Text("Tests pass. Done.")], first_token_s=0))

    outcome = await run_agent(
        AgentTask("Fix it."), harness.session(transport=model.transport(), lifecycle=BlockOnce()), harness.events
    )

    assert outcome.stop.reason == "completed" and outcome.final_text == "Tests pass. Done."
    second = model.request_json(1)
    assert api_problem(second) is None, second["messages"]
    # The hook's feedback follows the task in the same user turn.
    feedback = second["messages"][-1]["content"][-1]["text"]
    assert feedback == "A Stop hook asks you to continue: Run the tests before finishing."


async def test_an_empty_response_after_tool_results_keeps_the_conversation_valid(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    model = turns(
        Turn([ToolCall("Read", {"file_path": "calc.py"})], first_token_s=0),
        Turn([], first_token_s=0),
        Turn([Text("Read it.")], first_token_s=0),
    )

    outcome = await run_agent(
        AgentTask("Read calc.py."),
        harness.session(allow=("Read",), transport=model.transport(), lifecycle=BlockOnce()),
        harness.events,
    )

    assert outcome.stop.reason == "completed"
    for i in range(len(model.requests)):
        assert api_problem(model.request_json(i)) is None, i


def test_every_stop_reason_the_sdk_lists_has_a_meaning() -> None:
    listed = set(typing.get_args(anthropic.types.StopReason))
    assert listed <= set(STOP_REASONS), f"stop reasons without a handling: {listed - set(STOP_REASONS)}"
    assert turn_ending("model_context_window_exceeded") == "window_full"
    assert turn_ending("a_reason_from_the_future") == "unknown" and turn_ending(None) == "unknown"


async def test_a_full_context_window_is_a_limit_not_done_when_compacting_cannot_help(harness: Harness) -> None:
    # The task alone fills the window: there is nothing to compact.
    model = turns(Turn([Text("Reading.")], stop_reason="model_context_window_exceeded", first_token_s=0))

    outcome = await run_agent(AgentTask("Fix it."), harness.session(transport=model.transport()), harness.events)

    assert outcome.stop.reason == "context_window" and outcome.stop.is_limit
    assert "model_context_window_exceeded" in outcome.stop.detail
    assert [e.limit for e in harness.events.of(LimitReached)] == ["context_window"]


async def test_a_full_context_window_compacts_the_conversation_and_the_run_goes_on(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    model = turns(
        Turn([ToolCall("Read", {"file_path": "calc.py"})], first_token_s=0),
        Turn([Text("`add` subtracts; I will")], stop_reason="model_context_window_exceeded", first_token_s=0),
        Turn([Text("## Summary\nRead calc.py: add() subtracts.")], first_token_s=0),  # the compaction's summary
        Turn([Text("add() subtracts instead of adding.")], first_token_s=0),
    )

    outcome = await run_agent(
        AgentTask("Read calc.py."), harness.session(allow=("Read",), transport=model.transport()), harness.events
    )

    assert outcome.stop.reason == "completed" and outcome.final_text == "add() subtracts instead of adding."
    assert [c.kind for c in harness.events.of(ContextCompacted)] == ["summary"]
    assert [t.compaction for t in outcome.turns] == [False, False, True, False]


async def test_the_window_filling_again_right_after_a_compaction_ends_the_run_as_a_limit(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    full = Turn([Text("Still reading")], stop_reason="model_context_window_exceeded", first_token_s=0)
    model = turns(
        Turn([ToolCall("Read", {"file_path": "calc.py"})], first_token_s=0),
        full,
        Turn([Text("## Summary\nRead calc.py.")], first_token_s=0),
        full,
    )

    outcome = await run_agent(
        AgentTask("Read calc.py."), harness.session(allow=("Read",), transport=model.transport()), harness.events
    )

    assert outcome.stop.reason == "context_window"
    assert len(model.requests) == 4


@pytest.mark.parametrize(
    ("case", "stop_reason", "expected"),
    [
        ("a refusal is an error", "refusal", "error"),
        ("a stop sequence ends the turn", "stop_sequence", "completed"),
        ("a reason nobody knows is not reported as done", "a_reason_from_the_future", "error"),
    ],
)
async def test_other_stop_reasons(harness: Harness, case: str, stop_reason: str, expected: str) -> None:
    model = turns(Turn([Text("Done.")], stop_reason=stop_reason, first_token_s=0))

    outcome = await run_agent(AgentTask("Go."), harness.session(transport=model.transport()), harness.events)

    assert outcome.stop.reason == expected, case
