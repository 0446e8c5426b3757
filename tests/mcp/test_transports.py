"""The reference server "everything" (npm) over stdio, streamable HTTP and SSE on loopback: the
same tools, the same bridged results, whatever the transport."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bot.interface.context import make_context
from bot.interface.messages import ProgressEvent, ToolUseBlock
from bot.mcp import Connected, McpManager, bridge_tools, parse_mcp_config
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from tests.mcp.conftest import EVERYTHING_JS, MCP_FIXTURES, NODE, needs_everything

pytestmark = [pytest.mark.anyio, needs_everything]

EXPECTED_TOOLS = {
    t["name"]
    for r in json.loads((MCP_FIXTURES / "server-tool-lists" / "server-everything.tools_list.json").read_text())[
        "tools_list_responses"
    ]
    for t in r["result"]["tools"]
}


@pytest.fixture(params=["stdio", "http", "sse"])
def entry(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.param == "stdio":
        return {"command": NODE, "args": [str(EVERYTHING_JS), "stdio"], "env": {"PASSED_ON": "${BOT_TEST_VALUE}"}}
    if request.param == "http":
        url = request.getfixturevalue("everything_http")
        return {"type": "http", "url": url, "headers": {"X-Run": "${BOT_TEST_VALUE}"}}
    return {"type": "sse", "url": request.getfixturevalue("everything_sse"), "headers": {"X-Run": "test"}}


async def call(manager: McpManager, workspace: Path, name: str, raw: dict[str, Any]) -> ToolCallOutcome:
    permission = flag_permission_context(["mcp__everything"], [], [])
    pool = ToolPool(assemble_tool_pool(permission, bridge_tools(manager)))
    context = make_context(workspace, scratch_dir=workspace / ".scratch", permission=permission)
    return await ToolRunner(pool).run(ToolUseBlock("toolu_1", name, raw), context)


async def test_every_transport_bridges_the_same_tools_and_results(entry: dict[str, Any], tmp_path: Path) -> None:
    config = parse_mcp_config({"mcpServers": {"everything": entry}}, environ={"BOT_TEST_VALUE": "v"})
    async with McpManager(config, workspace=tmp_path) as manager:
        state = manager.servers[0].state
        assert isinstance(state, Connected), state
        assert {t.name for t, _ in state.tools} >= EXPECTED_TOOLS
        assert state.has_resources

        echo = await call(manager, tmp_path, "mcp__everything__echo", {"message": "hi"})
        assert echo.result.text == "Echo: hi"

        image = await call(manager, tmp_path, "mcp__everything__get-tiny-image", {})
        content = image.result.content
        assert isinstance(content, list)
        assert [b["type"] for b in content] == ["text", "image", "text"]
        assert content[1]["source"]["media_type"] == "image/png"

        resource = await call(
            manager, tmp_path, "mcp__everything__get-resource-reference", {"resourceType": "Text", "resourceId": 1}
        )
        assert "[Resource from everything at demo://resource/dynamic/text/1] Resource 1:" in resource.result.text

        structured = await call(manager, tmp_path, "mcp__everything__get-structured-content", {"location": "Chicago"})
        assert set(json.loads(structured.result.text)) == {"temperature", "conditions", "humidity"}

        links = await call(manager, tmp_path, "mcp__everything__get-resource-links", {"count": 2})
        assert "[Resource link: " in links.result.text

        bad = await call(manager, tmp_path, "mcp__everything__get-sum", {"a": "one"})
        assert bad.result.is_error


async def test_over_stdio_the_server_sees_only_the_env_its_config_names(tmp_path: Path) -> None:
    os.environ["GITHUB_TOKEN"] = "ghp_never-to-a-server"
    try:
        config = parse_mcp_config(
            {
                "mcpServers": {
                    "everything": {
                        "command": NODE,
                        "args": [str(EVERYTHING_JS), "stdio"],
                        "env": {"PASSED_ON": "${BOT_TEST_VALUE}"},
                    }
                }
            },
            environ={"BOT_TEST_VALUE": "visible"},
        )
        async with McpManager(config, workspace=tmp_path) as manager:
            result = await manager.call_tool("everything", "get-env", {})
    finally:
        os.environ.pop("GITHUB_TOKEN", None)
    env = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert env["PASSED_ON"] == "visible"
    assert "GITHUB_TOKEN" not in env
    assert set(env) <= {"PASSED_ON", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}


async def test_server_progress_reaches_the_pipelines_progress_events(tmp_path: Path) -> None:
    config = parse_mcp_config(
        {"mcpServers": {"everything": {"command": NODE, "args": [str(EVERYTHING_JS)]}}}, environ={}
    )
    events: list[ProgressEvent] = []
    async with McpManager(config, workspace=tmp_path) as manager:
        permission = flag_permission_context(["mcp__everything"], [], [])
        pool = ToolPool(assemble_tool_pool(permission, bridge_tools(manager)))
        context = make_context(tmp_path, scratch_dir=tmp_path / ".scratch", permission=permission)
        block = ToolUseBlock(
            "toolu_1", "mcp__everything__trigger-long-running-operation", {"duration": 0.02, "steps": 2}
        )
        outcome = await ToolRunner(pool).run(block, context, events.append)
    assert not outcome.result.is_error
    assert [(e.kind, e.data["progress"], e.data["total"]) for e in events] == [
        ("mcp_progress", 1, 2),
        ("mcp_progress", 2, 2),
    ]
