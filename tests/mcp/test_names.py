"""Bridged names: mcp__<server>__<tool>, API-valid, unique, unambiguous for mcp__server rules."""

from __future__ import annotations

import json
import random

import pytest

from bot.mcp.names import VALID_TOOL_NAME, server_prefixes, tool_names
from bot.permissions.rules import rule_names_tool
from tests.mcp.conftest import MCP_FIXTURES


@pytest.mark.parametrize(
    ("description", "raw", "segment"),
    [
        ("a plain name is kept", "time", "time"),
        ("dots and spaces become underscores", "my.server name", "my_server_name"),
        ("runs of underscores collapse so the segment never holds __", "a__b", "a_b"),
        ("edge underscores are stripped", "_git_", "git"),
        ("hyphens are allowed", "server-everything", "server-everything"),
        ("nothing usable left", "...", "server"),
        ("non-ASCII becomes an underscore", "wetter-ü-1", "wetter-_-1"),
    ],
)
def test_server_segments(description: str, raw: str, segment: str) -> None:
    assert server_prefixes([raw]) == {raw: segment}


@pytest.mark.parametrize(
    ("description", "server", "tool", "name"),
    [
        ("the usual case", "time", "get_current_time", "mcp__time__get_current_time"),
        ("hyphens kept", "everything", "get-tiny-image", "mcp__everything__get-tiny-image"),
        ("dots normalised", "fs", "read.file", "mcp__fs__read_file"),
        ("slashes and spaces normalised", "fs", "a/b c", "mcp__fs__a_b_c"),
    ],
)
def test_tool_names(description: str, server: str, tool: str, name: str) -> None:
    assert tool_names(server, [tool]) == {tool: name}


def test_colliding_server_names_are_resolved_by_sorted_raw_name_whatever_the_order() -> None:
    raws = ["a b", "a.b", "a_b", "a__b"]
    expected = {"a b": "a_b", "a.b": "a_b_2", "a__b": "a_b_3", "a_b": "a_b_4"}
    for _ in range(5):
        random.shuffle(raws)
        assert server_prefixes(raws) == expected


def test_colliding_tool_names_get_numbered_suffixes() -> None:
    assert tool_names("s", ["get_time", "get.time", "get time"]) == {
        "get time": "mcp__s__get_time",
        "get.time": "mcp__s__get_time_2",
        "get_time": "mcp__s__get_time_3",
    }


def test_long_names_are_cut_to_64_with_a_hash_and_stay_unique() -> None:
    segment = server_prefixes(["a-very-long-server-name-that-goes-on-and-on"])
    (seg,) = segment.values()
    assert len(seg) <= 24
    long_tools = ["x" * 80 + "_one", "x" * 80 + "_two", "x" * 80 + ".one"]
    names = tool_names(seg, long_tools)
    assert len(set(names.values())) == 3
    assert all(VALID_TOOL_NAME.match(n) and n.startswith(f"mcp__{seg}__") for n in names.values())


def test_a_server_rule_names_exactly_that_servers_tools() -> None:
    segments = server_prefixes(["a", "a__b", "a.", "ab"])
    named = {raw: tool_names(seg, ["t"])["t"] for raw, seg in segments.items()}
    covered = [raw for raw, tool in named.items() if rule_names_tool("mcp__a", tool)]
    assert covered == ["a"]
    assert rule_names_tool("mcp__a__*", named["a"]) and not rule_names_tool("mcp__a__*", named["a__b"])


@pytest.mark.parametrize("fixture", sorted(p.name for p in (MCP_FIXTURES / "server-tool-lists").glob("*.json")))
def test_every_real_tool_list_bridges_to_valid_unique_names(fixture: str) -> None:
    data = json.loads((MCP_FIXTURES / "server-tool-lists" / fixture).read_text())
    raw = [t["name"] for r in data["tools_list_responses"] for t in r["result"]["tools"]]
    (segment,) = server_prefixes([data["server"]]).values()
    names = tool_names(segment, raw)
    assert len(set(names.values())) == len(raw)
    assert all(VALID_TOOL_NAME.match(n) for n in names.values())
