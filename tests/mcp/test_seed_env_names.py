"""The seeds' variable names mean the same here as ours (a workflow written for Claude Code works)."""

from __future__ import annotations

import pytest

from bot.interface.context import ToolLimits
from bot.mcp.limits import McpLimits
from bot.runtime.scheduler import max_tool_use_concurrency


@pytest.mark.parametrize(
    ("description", "environ", "tokens"),
    [
        ("the seeds' name", {"MAX_MCP_OUTPUT_TOKENS": "500"}, 500),
        ("ours wins over the seeds'", {"BOT_MAX_MCP_OUTPUT_TOKENS": "700", "MAX_MCP_OUTPUT_TOKENS": "500"}, 700),
        (
            "a bad value of ours falls back to the seeds'",
            {"BOT_MAX_MCP_OUTPUT_TOKENS": "x", "MAX_MCP_OUTPUT_TOKENS": "500"},
            500,
        ),
        ("neither: the default", {}, 25_000),
        ("a bad seeds' value: the default", {"MAX_MCP_OUTPUT_TOKENS": "-1"}, 25_000),
    ],
)
def test_max_mcp_output_tokens(description: str, environ: dict[str, str], tokens: int) -> None:
    assert McpLimits.from_env(environ).max_output_tokens == tokens, description


def test_claude_code_max_tool_use_concurrency() -> None:
    limits = ToolLimits()
    assert max_tool_use_concurrency(limits, {"CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "3"}) == 3
    both = {"BOT_MAX_TOOL_USE_CONCURRENCY": "4", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "3"}
    assert max_tool_use_concurrency(limits, both) == 4
