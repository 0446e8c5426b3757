"""Thinking blocks played back over HTTP through the real SDK: they round-trip with their
signatures, and the cache marker never lands on one (the API refuses the request)."""

from __future__ import annotations

import pytest

from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.testing.cassettes import Text, Turn, script_responses
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness
from tests.agent.wire import REDACTED, SIGNATURE, streamed

pytestmark = pytest.mark.anyio


def markers(body: dict[str, object]) -> list[tuple[int, str]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [
        (i, block["type"])
        for i, message in enumerate(messages)
        for block in message["content"]
        if "cache_control" in block
    ]


async def test_a_turn_paused_on_a_thinking_block_goes_back_with_the_marker_before_it(harness: Harness) -> None:
    paused = streamed(
        [
            {"type": "thinking", "thinking": "The user wants the failing test found."},
            {"type": "text", "text": "Searching the docs first."},
            {"type": "thinking", "thinking": "The search is still running; resume after."},
        ],
        "pause_turn",
    )
    done = script_responses([Turn([Text("Found it.")], first_token_s=0)], seed="done")
    model = PacedReplay([paused, *done])

    outcome = await run_agent(AgentTask("Find it."), harness.session(transport=model.transport()), harness.events)

    assert outcome.stop.reason == "completed" and outcome.final_text == "Found it."
    resumed = model.request_json(1)
    sent_back = resumed["messages"][-1]
    assert sent_back["role"] == "assistant"
    assert [b["type"] for b in sent_back["content"]] == ["thinking", "text", "thinking"]
    assert sent_back["content"][0]["signature"] == SIGNATURE  # unchanged, or the API rejects the turn
    assert markers(resumed) == [(1, "text")]


async def test_a_paused_turn_of_redacted_thinking_only_marks_the_message_before(harness: Harness) -> None:
    paused = streamed([{"type": "redacted_thinking"}], "pause_turn")
    done = script_responses([Turn([Text("Done.")], first_token_s=0)], seed="done")
    model = PacedReplay([paused, *done])

    outcome = await run_agent(AgentTask("Go."), harness.session(transport=model.transport()), harness.events)

    assert outcome.stop.reason == "completed"
    resumed = model.request_json(1)
    assert resumed["messages"][-1]["content"] == [{"type": "redacted_thinking", "data": REDACTED}]
    assert markers(resumed) == [(0, "text")]
