"""ListMcpResources and ReadMcpResource: created with the MCP tools, only when a connected server
offers resources; text, images and binary blobs each handled; errors as results."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.errors import ToolExecutionError
from bot.interface.context import make_context
from bot.interface.messages import ToolUseBlock
from bot.mcp import McpManager, bridge_tools, in_process_server, parse_mcp_config
from bot.mcp.config import McpConfig
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from bot.tools.mcp_resources import (
    NO_RESOURCES,
    ListMcpResourcesInput,
    ListMcpResourcesTool,
    McpResource,
    McpResourceContent,
    ReadMcpResourceTool,
)
from tests.mcp.conftest import EVERYTHING_JS, NODE, needs_everything
from tests.mcp.servers import error_server, paged_server

pytestmark = pytest.mark.anyio

ALLOW = ("ListMcpResources", "ReadMcpResource")


async def run(tools: Sequence[Any], tmp_path: Path, name: str, raw: Any) -> ToolCallOutcome:
    permission = flag_permission_context(ALLOW, [], [])
    pool = ToolPool(assemble_tool_pool(permission, tools))
    context = make_context(tmp_path, scratch_dir=tmp_path / "scratch", permission=permission)
    return await ToolRunner(pool).run(ToolUseBlock("toolu_1", name, raw), context)


@pytest.fixture(scope="module")
async def memo() -> AsyncIterator[McpManager]:
    async with McpManager(McpConfig((in_process_server("memo", error_server()),))) as manager:
        yield manager


async def test_listing_shows_every_resource_with_its_server(memo: McpManager, tmp_path: Path) -> None:
    outcome = await run(bridge_tools(memo), tmp_path, "ListMcpResources", {})
    listed = json.loads(outcome.result.text)
    assert {(r["server"], r["uri"]) for r in listed} == {
        ("memo", "memo://notes/today"),
        ("memo", "memo://pictures/red.png"),
        ("memo", "memo://archive.bin"),
    }
    assert ListMcpResourcesTool(memo).is_read_only(ListMcpResourcesInput())


@pytest.mark.parametrize(
    ("description", "uri", "check"),
    [
        (
            "text comes back as text",
            "memo://notes/today",
            lambda c: c == [{"type": "text", "text": "[Resource from memo at memo://notes/today] buy milk"}],
        ),
        (
            "an image comes back as an image",
            "memo://pictures/red.png",
            lambda c: [b["type"] for b in c] == ["text", "image"] and c[1]["source"]["media_type"] == "image/png",
        ),
        (
            "another blob is saved to the scratch directory",
            "memo://archive.bin",
            lambda c: "application/octet-stream, 9 bytes of binary contents saved to" in c[0]["text"],
        ),
    ],
)
async def test_reading_handles_each_kind_of_contents(
    memo: McpManager, tmp_path: Path, description: str, uri: str, check: Any
) -> None:
    outcome = await run(bridge_tools(memo), tmp_path, "ReadMcpResource", {"server": "memo", "uri": uri})
    assert not outcome.result.is_error, outcome.result.text
    assert check(outcome.result.content)
    if uri.endswith(".bin"):
        saved = next((tmp_path / "scratch" / "mcp-resources").iterdir())
        assert saved.read_bytes() == b"\x00\x01\x02binary"


async def test_an_unknown_server_or_uri_is_an_error_result(memo: McpManager, tmp_path: Path) -> None:
    tools = bridge_tools(memo)
    unknown = await run(tools, tmp_path, "ReadMcpResource", {"server": "nope", "uri": "memo://x"})
    assert unknown.result.is_error and "Servers with resources: memo" in unknown.result.text
    assert unknown.record.failed_stage == "validation"
    missing = await run(tools, tmp_path, "ReadMcpResource", {"server": "memo", "uri": "memo://missing"})
    assert missing.result.is_error and "reading memo://missing failed" in missing.result.text


async def test_no_resource_tools_when_no_connected_server_offers_resources() -> None:
    config = McpConfig(
        (
            in_process_server("paged", paged_server()),
            *parse_mcp_config({"mcpServers": {"gone": {"command": "bot-no-such-server"}}}).servers,
        )
    )
    async with McpManager(config) as manager:
        names = {t.name for t in bridge_tools(manager)}
    assert names == {"mcp__paged__first", "mcp__paged__second"}


class FakeSource:
    def __init__(self) -> None:
        self.servers = ["good", "broken", "empty"]

    def resource_servers(self) -> Sequence[str]:
        return self.servers

    async def list_resources(self, server: str) -> Sequence[McpResource]:
        if server == "broken":
            raise ToolExecutionError("MCP server 'broken': listing resources failed: boom")
        if server == "empty":
            return []
        return [McpResource("good", "x://1", "one", "the first", "text/plain")]

    async def read_resource(self, server: str, uri: str) -> Sequence[McpResourceContent]:
        return [McpResourceContent(uri, "image/png", blob="bm90IGEgcG5n")]


async def test_one_broken_server_does_not_hide_the_others_resources(tmp_path: Path) -> None:
    source = FakeSource()
    outcome = await run([ListMcpResourcesTool(source)], tmp_path, "ListMcpResources", {})
    assert json.loads(outcome.result.text) == [
        {"uri": "x://1", "name": "one", "server": "good", "mimeType": "text/plain", "description": "the first"},
        {"server": "broken", "error": "MCP server 'broken': listing resources failed: boom"},
    ]
    only_broken = await run([ListMcpResourcesTool(source)], tmp_path, "ListMcpResources", {"server": "broken"})
    assert only_broken.result.is_error
    empty = await run([ListMcpResourcesTool(source)], tmp_path, "ListMcpResources", {"server": "empty"})
    assert empty.result.text == NO_RESOURCES
    read = await run([ReadMcpResourceTool(source)], tmp_path, "ReadMcpResource", {"server": "good", "uri": "x://1"})
    assert read.result.content[1]["type"] == "image"  # type: ignore[index]


@needs_everything
async def test_the_reference_servers_documents_can_be_listed_and_read(tmp_path: Path) -> None:
    config = parse_mcp_config(
        {"mcpServers": {"everything": {"command": NODE, "args": [str(EVERYTHING_JS)]}}}, environ={}
    )
    async with McpManager(config) as manager:
        tools = bridge_tools(manager)
        listed = json.loads((await run(tools, tmp_path, "ListMcpResources", {"server": "everything"})).result.text)
        uri = next(r["uri"] for r in listed if r["uri"].endswith("architecture.md"))
        read = await run(tools, tmp_path, "ReadMcpResource", {"server": "everything", "uri": uri})
    assert read.result.text.startswith(f"[Resource from everything at {uri}] # Everything Server")
