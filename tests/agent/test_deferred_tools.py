"""ToolSearch in a run: a deferred tool is found, loaded and called, and the cached prefix holds."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from pydantic import Field

from bot.agent.cache import prompt_units, shares_cached_prefix
from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.engine import PolicyEngine
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from bot.tools.tool_search import TOOL_SEARCH_SERVICE, DeferredTools
from tests.agent.conftest import Harness
from tests.cassettes.scripts import TRACKER_TOOL

pytestmark = pytest.mark.anyio


class TicketInput(ToolInput):
    title: str = Field(description="The ticket's title")
    body: str = Field(description="What is wrong")


class TrackerTool(Tool[TicketInput, str]):
    """Create a ticket in the team's issue tracker."""

    name = TRACKER_TOOL
    should_defer = True
    is_mcp = True
    search_hint = "ticket issue tracker bug report file"
    input_model = TicketInput

    def __init__(self) -> None:
        self.created: list[str] = []

    async def call(self, input: TicketInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        self.created.append(input.title)
        return ToolResult(f"Created TCK-{len(self.created)}")


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body["tools"]]


async def test_with_server_side_tool_search_the_tools_never_change_and_the_result_is_a_tool_reference(
    harness: Harness,
) -> None:
    tracker = TrackerTool()

    outcome, _ = await harness.run("tool_search", harness.session(allow=("mcp__tracker",), extra_tools=[tracker]))

    assert outcome.stop.reason == "completed"
    assert tracker.created == ["add() subtracts"]
    bodies = [harness.request(i) for i in range(3)]
    assert len({json.dumps(b["tools"]) for b in bodies}) == 1
    deferred = next(t for t in bodies[0]["tools"] if t["name"] == TRACKER_TOOL)
    assert deferred["defer_loading"] is True and "cache_control" not in deferred
    search_result = bodies[1]["messages"][-1]["content"][0]
    assert search_result["content"] == [{"type": "tool_reference", "tool_name": TRACKER_TOOL}]
    assert shares_cached_prefix(bodies[0], bodies[1]) and shares_cached_prefix(bodies[1], bodies[2])


async def test_tool_search_itself_is_loaded_and_never_deferred(harness: Harness) -> None:
    await harness.run("tool_search", harness.session(allow=("mcp__tracker",), extra_tools=[TrackerTool()]))

    search = next(t for t in harness.request(0)["tools"] if t["name"] == "ToolSearch")
    assert "defer_loading" not in search


async def test_without_server_side_search_a_found_tool_is_appended_after_the_cached_tools(harness: Harness) -> None:
    tracker = TrackerTool()

    outcome, _ = await harness.run(
        "tool_search", harness.session(allow=("mcp__tracker",), extra_tools=[tracker], tool_search=False)
    )

    assert outcome.stop.reason == "completed" and tracker.created
    first, second, third = (harness.request(i) for i in range(3))
    assert TRACKER_TOOL not in tool_names(first)
    assert tool_names(second) == [*tool_names(first), TRACKER_TOOL]
    loaded = len(first["tools"])
    assert "cache_control" in first["tools"][-1] and "cache_control" in second["tools"][loaded - 1]
    # The always-loaded tools, up to their breakpoint, are the same bytes: that cache entry still hits.
    assert prompt_units(first)[0][:loaded] == prompt_units(second)[0][:loaded]
    assert shares_cached_prefix(second, third)
    search_text = second["messages"][-1]["content"][0]["content"]
    assert isinstance(search_text, str) and TRACKER_TOOL in search_text


def _pipeline_call(
    tracker: TrackerTool, state: DeferredTools | None, name: str, raw: dict[str, Any]
) -> ToolCallOutcome:
    from pathlib import Path
    from tempfile import mkdtemp

    from bot.tools.tool_search import ToolSearchTool

    pool = ToolPool([ToolSearchTool(), tracker])
    context = make_context(
        Path(mkdtemp()), permission=flag_permission_context(("mcp__tracker",), (), ()), tools=tuple(pool)
    )
    if state is not None:
        context.services[TOOL_SEARCH_SERVICE] = state
    return anyio.run(ToolRunner(pool, PolicyEngine()).run, ToolUseBlock("toolu_t", name, raw), context)


TICKET = {"title": "add() subtracts", "body": "1 + 1 == 0"}


def test_a_deferred_tool_called_before_tool_search_loaded_it_is_an_error_that_says_how_to_load_it() -> None:
    tracker, state = TrackerTool(), DeferredTools(server_side=True)
    outcome = _pipeline_call(tracker, state, TRACKER_TOOL, TICKET)
    assert outcome.result.is_error and tracker.created == []
    assert outcome.record.error_kind == "DeferredToolNotLoaded"
    assert f'ToolSearch (query "select:{TRACKER_TOOL}")' in outcome.result.text

    found = _pipeline_call(tracker, state, "ToolSearch", {"query": f"select:{TRACKER_TOOL}"})
    assert not found.result.is_error and state.discovered == [TRACKER_TOOL]
    called = _pipeline_call(tracker, state, TRACKER_TOOL, TICKET)
    assert not called.result.is_error and tracker.created == ["add() subtracts"]


def test_without_an_agent_loop_nothing_is_deferred() -> None:
    tracker = TrackerTool()
    outcome = _pipeline_call(tracker, None, TRACKER_TOOL, TICKET)
    assert not outcome.result.is_error and tracker.created == ["add() subtracts"]
