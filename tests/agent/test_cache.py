from __future__ import annotations

from typing import Any

import pytest

from bot.agent.cache import (
    cached_prefix,
    prompt_units,
    shares_cached_prefix,
    system_blocks,
    tool_definitions,
    with_message_breakpoint,
)
from bot.tools.glob import GlobTool
from bot.tools.read import ReadTool
from bot.tools.tool_search import ToolSearchTool
from tests.agent.test_deferred_tools import TrackerTool

TOOLS = [GlobTool(), TrackerTool(), ReadTool(), ToolSearchTool()]


def names(defs: list[dict[str, Any]]) -> list[str]:
    return [d["name"] for d in defs]


def test_loaded_tools_keep_the_pool_order_and_the_breakpoint_is_on_the_last_one() -> None:
    defs = tool_definitions(TOOLS, server_tool_search=True)
    assert names(defs) == ["Glob", "Read", "ToolSearch", TrackerTool.name]
    assert [("cache_control" in d) for d in defs] == [False, False, True, False]
    assert defs[-1]["defer_loading"] is True


def test_without_server_search_only_discovered_deferred_tools_are_sent_after_the_breakpoint() -> None:
    assert names(tool_definitions(TOOLS, server_tool_search=False)) == ["Glob", "Read", "ToolSearch"]
    found = tool_definitions(TOOLS, server_tool_search=False, discovered=[TrackerTool.name, "NotATool"])
    assert names(found) == ["Glob", "Read", "ToolSearch", TrackerTool.name]
    assert "defer_loading" not in found[-1] and "cache_control" in found[2]


def test_the_system_breakpoint_is_on_the_last_block_and_ttl_is_explicit_only_for_an_hour() -> None:
    assert system_blocks(["static", "", "env"]) == [
        {"type": "text", "text": "static"},
        {"type": "text", "text": "env", "cache_control": {"type": "ephemeral"}},
    ]
    assert system_blocks(["a"], "1h")[0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_the_message_breakpoint_is_added_on_a_copy() -> None:
    stored = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    marked = with_message_breakpoint(stored)
    assert marked[0]["content"][1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in stored[0]["content"][1]


def test_string_content_is_refused_because_it_would_change_shape_later() -> None:
    with pytest.raises(ValueError, match="list content"):
        with_message_breakpoint([{"role": "user", "content": "hi"}])


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {
        "tools": tool_definitions(TOOLS[:1], server_tool_search=True),
        "system": system_blocks(["s"]),
        "messages": with_message_breakpoint(list(messages)),
    }


USER = {"role": "user", "content": [{"type": "text", "text": "task"}]}
ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
RESULTS = {"role": "user", "content": [{"type": "text", "text": "more"}]}


@pytest.mark.parametrize(
    ("case", "previous", "current", "shared"),
    [
        ("the next turn extends the conversation", body(USER), body(USER, ASSISTANT, RESULTS), True),
        (
            "an edited earlier message breaks the prefix",
            body(USER),
            body({"role": "user", "content": [{"type": "text", "text": "task!"}]}, ASSISTANT, RESULTS),
            False,
        ),
        (
            "a changed system prompt breaks it",
            body(USER),
            {**body(USER, ASSISTANT, RESULTS), "system": system_blocks(["other"])},
            False,
        ),
    ],
)
def test_the_prefix_check(case: str, previous: dict[str, Any], current: dict[str, Any], shared: bool) -> None:
    assert shares_cached_prefix(previous, current) is shared, case


def test_units_are_rendered_in_prompt_order_without_markers() -> None:
    units, last = prompt_units(body(USER))
    assert [u.split(":", 1)[0] for u in units] == ["tool", "system", "user"]
    assert last == 2 and "cache_control" not in "".join(units)
    assert cached_prefix({"messages": [USER]}) == []


# ----- blocks that take no marker ------------------------------------------------------------------


def test_the_blocks_without_a_marker_are_the_ones_the_sdk_types_give_no_cache_control() -> None:
    import re
    import typing

    import anthropic.types

    from bot.agent.cache import UNMARKABLE_BLOCK_TYPES

    def type_of(param: Any) -> str:  # the annotation reads "Required[Literal['thinking']]"
        found = re.search(r"Literal\['([a-z_]+)'\]", str(param.__annotations__["type"]))
        assert found is not None
        return found.group(1)

    params = typing.get_args(anthropic.types.ContentBlockParam)
    without = {type_of(p) for p in params if "cache_control" not in p.__annotations__}
    assert without == UNMARKABLE_BLOCK_TYPES


@pytest.mark.parametrize(
    ("case", "messages", "marked"),
    [
        (
            "a paused turn that ends on thinking is marked on the block before",
            [
                {"role": "user", "content": [{"type": "text", "text": "task"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Looking."},
                        {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    ],
                },
            ],
            (1, 0),
        ),
        (
            "a reply of thinking only is marked on the message before",
            [
                {"role": "user", "content": [{"type": "text", "text": "task"}]},
                {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "abc"}]},
            ],
            (0, 0),
        ),
        (
            "an empty text block takes no marker either",
            [{"role": "user", "content": [{"type": "text", "text": "task"}, {"type": "text", "text": ""}]}],
            (0, 0),
        ),
        (
            "tool results are marked as before",
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}],
            (0, 0),
        ),
    ],
)
def test_the_breakpoint_goes_on_the_last_block_that_accepts_one(
    case: str, messages: list[dict[str, Any]], marked: tuple[int, int]
) -> None:
    out = with_message_breakpoint(messages)
    where = [(m, b) for m, msg in enumerate(out) for b, block in enumerate(msg["content"]) if "cache_control" in block]
    assert where == [marked], case
    assert all("cache_control" not in b for msg in messages for b in msg["content"])  # the stored ones are untouched
