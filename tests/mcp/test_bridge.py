"""Bridged tools: named mcp__<server>__<tool>, fail-closed unless trusted, schemas passed through,
and every call through the same eight-stage pipeline as a built-in — errors as results."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types

from bot.interface.context import make_context
from bot.interface.messages import ProgressEvent, ToolUseBlock
from bot.interface.tool import AnyTool
from bot.mcp import McpManager, McpTool, bridge_tools, in_process_server
from bot.mcp.bridge import bridge_tool
from bot.mcp.config import McpConfig
from bot.mcp.limits import McpLimits
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.results import DEFAULT_MAX_RESULT_SIZE_CHARS
from bot.runtime.single_call import flag_permission_context
from tests.mcp.conftest import MCP_FIXTURES
from tests.mcp.servers import FLOOD_WORDS, Probe, error_server

pytestmark = pytest.mark.anyio


def listed(fixture: str) -> dict[str, types.Tool]:
    data = json.loads((MCP_FIXTURES / "server-tool-lists" / f"{fixture}.tools_list.json").read_text())
    tools = [types.Tool.model_validate(t) for r in data["tools_list_responses"] for t in r["result"]["tools"]]
    return {t.name: t for t in tools}


def offline(fixture: str, tool: str, *, trusted: bool) -> McpTool:
    """A bridged tool from a published tool list, not connected (flags and schema only)."""
    return bridge_tool(
        McpManager(McpConfig()),
        fixture,
        f"mcp__x__{tool}",
        listed(fixture)[tool],
        trusted=trusted,
        max_output_tokens=25_000,
    )


@pytest.mark.parametrize(
    ("description", "tool", "trusted", "flags"),
    [
        ("untrusted: a readOnlyHint is ignored", "git_status", False, (False, False, True)),
        ("untrusted: destructiveHint false is ignored", "git_add", False, (False, False, True)),
        ("trusted: readOnlyHint makes it read-only and concurrency-safe", "git_status", True, (True, True, False)),
        ("trusted: destructiveHint false, not read-only", "git_add", True, (False, False, False)),
        ("trusted: a destructive tool stays destructive", "git_reset", True, (False, False, True)),
        ("trusted: git_commit says not destructive", "git_commit", True, (False, False, False)),
    ],
)
def test_flags_are_fail_closed_unless_the_server_is_trusted(
    description: str, tool: str, trusted: bool, flags: tuple[bool, bool, bool]
) -> None:
    bridged = offline("mcp-server-git", tool, trusted=trusted)
    parsed = bridged.parse_input({"repo_path": "."})
    assert (bridged.is_read_only(parsed), bridged.is_concurrency_safe(parsed), bridged.is_destructive(parsed)) == flags
    assert bridged.is_mcp and bridged.should_defer


def test_the_servers_json_schema_goes_to_the_model_unchanged() -> None:
    for name, tool in listed("server-everything").items():
        bridged = offline("server-everything", name, trusted=False)
        assert bridged.input_json_schema() == tool.input_schema
        assert bridged.to_api()["input_schema"]["type"] == "object"
    time_tool = offline("mcp-server-time", "get_current_time", trusted=False)
    assert time_tool.description() == "Get current time in a specific timezone"
    assert time_tool.user_facing_name() == "mcp-server-time - get_current_time (MCP)"


@pytest.mark.parametrize(
    ("description", "raw", "accepted"),
    [
        ("an object is passed on as it is (the server validates)", {"anything": [1, None], "x": {"y": 2}}, True),
        ("an empty object", {}, True),
        ("a string is refused before the server sees it", "UTC", False),
        ("a list is refused", [1], False),
        ("null is refused", None, False),
    ],
)
def test_only_an_object_is_required(description: str, raw: Any, accepted: bool) -> None:
    bridged = offline("mcp-server-time", "get_current_time", trusted=False)
    if accepted:
        assert bridged.parse_input(raw).arguments == raw
    else:
        with pytest.raises(Exception, match="must be a JSON object"):
            bridged.parse_input(raw)


# ----- through the pipeline, against an in-process server ---------------------------------------------


@pytest.fixture(scope="module")
def probe() -> Probe:
    return Probe()


@pytest.fixture(scope="module")
async def errors(probe: Probe) -> AsyncIterator[McpManager]:
    config = McpConfig((in_process_server("errors", error_server(probe), tool_timeout_s=5),))
    async with McpManager(config, limits=McpLimits(max_output_tokens=25_000)) as manager:
        yield manager


async def run(
    manager: McpManager,
    tmp_path: Path,
    name: str,
    raw: Any,
    *,
    allow: tuple[str, ...] = ("mcp__errors",),
    deny: tuple[str, ...] = (),
    abort_on: anyio.Event | None = None,
    timeout_s: float | None = None,
) -> tuple[ToolCallOutcome, list[ProgressEvent]]:
    permission = flag_permission_context(allow, deny, [])
    tools: list[AnyTool] = bridge_tools(manager)
    if timeout_s is not None:
        for tool in tools:
            if isinstance(tool, McpTool):
                tool.timeout_s = timeout_s
    pool = ToolPool(assemble_tool_pool(permission, tools))
    context = make_context(tmp_path, scratch_dir=tmp_path / "scratch", permission=permission)
    events: list[ProgressEvent] = []
    box: list[ToolCallOutcome] = []

    async def call() -> None:
        box.append(await ToolRunner(pool).run(ToolUseBlock("toolu_1", name, raw), context, events.append))

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        if abort_on is not None:
            await abort_on.wait()
            context.abort.abort("the run was cancelled")
    return box[0], events


async def test_a_tool_that_raises_is_an_error_result(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__boom", {"reason": "disk on fire"})
    assert outcome.result.is_error and outcome.record.error_kind == "ToolReportedError"
    assert "boom" in outcome.result.text


async def test_arguments_the_server_rejects_are_an_error_result(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__boom", {"reason": ["not", "a", "string"]})
    assert outcome.result.is_error and "validation error" in outcome.result.text


async def test_a_non_object_input_fails_at_the_schema_stage(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__boom", "disk on fire")
    assert outcome.result.is_error and outcome.record.failed_stage == "schema"


async def test_100k_tokens_are_truncated_in_place_then_persisted(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__flood", {"words": FLOOD_WORDS})
    assert not outcome.result.is_error
    text = outcome.result.text
    # Over 50,000 characters after truncation: the pipeline persisted it and shows a preview.
    assert text.startswith("<persisted-output>")
    saved = next((tmp_path / "scratch" / "tool-results").iterdir()).read_text()
    assert len(saved) < FLOOD_WORDS * 5
    assert "[OUTPUT TRUNCATED - exceeded 25000 token limit]" in saved
    assert saved.startswith("word word") and len(saved) > DEFAULT_MAX_RESULT_SIZE_CHARS


async def test_the_token_limit_follows_the_limits(tmp_path: Path) -> None:
    config = McpConfig((in_process_server("errors", error_server()),))
    async with McpManager(config, limits=McpLimits(max_output_tokens=100)) as manager:
        outcome, _ = await run(manager, tmp_path, "mcp__errors__flood", {"words": 1_000})
    content = outcome.result.content
    assert isinstance(content, list)
    assert content[0]["text"] == "word " * 80
    assert content[-1]["text"].startswith("[OUTPUT TRUNCATED - exceeded 100 token limit]")


async def test_an_image_result_becomes_an_image_block(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__picture", {"width": 40, "height": 30})
    content = outcome.result.content
    assert isinstance(content, list) and content[0]["type"] == "image"
    assert content[0]["source"]["media_type"] == "image/png"


async def test_structured_output_reaches_the_model_as_json(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__weather", {"city": "Lyon"})
    assert json.loads(outcome.result.text) == {"city": "Lyon", "celsius": 21}


async def test_a_normalised_name_still_calls_the_servers_tool(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__dotted_name", {})
    assert outcome.result.text == "dotted"


async def test_a_hanging_tool_times_out_as_an_error_result(errors: McpManager, probe: Probe, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__hang", {}, timeout_s=0.05)
    assert outcome.result.is_error
    assert "timed out after 0.05 seconds" in outcome.result.text
    await probe.hang_cancelled.wait()  # the server's handler was cancelled, not left running


async def test_an_abort_cancels_a_hanging_call(errors: McpManager, tmp_path: Path) -> None:
    probe = Probe()
    config = McpConfig((in_process_server("errors", error_server(probe)),))
    async with McpManager(config) as manager:
        outcome, _ = await run(manager, tmp_path, "mcp__errors__hang", {}, abort_on=probe.hang_started)
        await probe.hang_cancelled.wait()
    assert outcome.result.is_error and outcome.record.error_kind == "Aborted"


async def test_calls_need_an_allow_rule_like_any_tool(errors: McpManager, tmp_path: Path) -> None:
    outcome, _ = await run(errors, tmp_path, "mcp__errors__weather", {"city": "Lyon"}, allow=())
    assert outcome.result.is_error and outcome.record.failed_stage == "permission"
    one, _ = await run(errors, tmp_path, "mcp__errors__weather", {"city": "Lyon"}, allow=("mcp__errors__weather",))
    assert not one.result.is_error


@pytest.mark.parametrize(
    ("description", "deny", "gone", "kept"),
    [
        (
            "mcp__server removes every tool of that server",
            ("mcp__errors",),
            {"mcp__errors__boom", "mcp__errors__flood"},
            {"Read"},
        ),
        ("mcp__server__* does the same", ("mcp__errors__*",), {"mcp__errors__hang"}, {"Read"}),
        ("mcp__server__tool removes one", ("mcp__errors__boom",), {"mcp__errors__boom"}, {"mcp__errors__flood"}),
    ],
)
async def test_deny_rules_remove_tools_before_the_model_sees_them(
    errors: McpManager, description: str, deny: tuple[str, ...], gone: set[str], kept: set[str]
) -> None:
    pool = assemble_tool_pool(flag_permission_context([], deny, []), bridge_tools(errors))
    names = {t.name for t in pool}
    assert not names & gone and kept <= names


async def test_bridged_tools_form_a_sorted_suffix_after_the_built_ins(errors: McpManager) -> None:
    pool = assemble_tool_pool(flag_permission_context([], [], []), bridge_tools(errors))
    mcp_part = [t.name for t in pool if t.is_mcp]
    assert [t.name for t in pool][-len(mcp_part) :] == mcp_part == sorted(mcp_part)
    assert "ListMcpResources" in {t.name for t in pool}  # the server offers resources


async def test_untrusted_tools_are_never_run_in_parallel(errors: McpManager) -> None:
    runner = ToolRunner(ToolPool(bridge_tools(errors)))
    assert not runner.is_concurrency_safe(ToolUseBlock("t", "mcp__errors__weather", {"city": "x"}))


# ----- a real server, end to end ----------------------------------------------------------------------


async def test_a_real_server_call_runs_through_the_whole_pipeline(tmp_path: Path) -> None:
    from bot.mcp import parse_mcp_config
    from tests.mcp.conftest import python_server

    config = parse_mcp_config({"mcpServers": {"time": {"command": python_server("mcp-server-time")}}}, environ={})
    async with McpManager(config) as manager:
        outcome, _ = await run(
            manager, tmp_path, "mcp__time__get_current_time", {"timezone": "UTC"}, allow=("mcp__time",)
        )
        bad, _ = await run(
            manager, tmp_path, "mcp__time__convert_time", {"source_timezone": "UTC"}, allow=("mcp__time",)
        )
    assert outcome.record.decision is not None and outcome.record.decision.rule is not None
    assert outcome.record.decision.rule.text == "mcp__time"
    assert json.loads(outcome.result.text)["timezone"] == "UTC"
    assert bad.result.is_error  # missing arguments: the server's validation, an error result
