"""In-process MCP servers written for the error paths: a tool that raises, one that floods, one
that returns an image, one that hangs until cancelled; resources of each kind."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ToolAnnotations
from PIL import Image as PILImage

#: "word " is 5 characters: 80,000 of them are 400,000 characters, 100,000 estimated tokens.
FLOOD_WORDS = 80_000


def png_bytes(width: int, height: int, color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


@dataclass
class Probe:
    """What the hanging tool reports, so tests wait on events instead of sleeping."""

    hang_started: anyio.Event = field(default_factory=anyio.Event)
    hang_cancelled: anyio.Event = field(default_factory=anyio.Event)
    calls: list[str] = field(default_factory=list)


def error_server(probe: Probe | None = None) -> MCPServer:
    probe = probe or Probe()
    server = MCPServer("errors", log_level="CRITICAL")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False))
    def boom(reason: str) -> str:
        """Raises."""
        probe.calls.append("boom")
        raise RuntimeError(f"kaboom: {reason}")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def flood(words: int = FLOOD_WORDS) -> str:
        """Returns a lot of text."""
        return "word " * words

    @server.tool()
    def picture(width: int = 64, height: int = 48) -> Image:
        """Returns a PNG image."""
        return Image(data=png_bytes(width, height), format="png")

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        probe.hang_started.set()
        try:
            await anyio.sleep_forever()
        finally:
            probe.hang_cancelled.set()
        return "unreachable"

    @server.tool()
    def weather(city: str) -> dict[str, Any]:
        """Structured output."""
        return {"city": city, "celsius": 21}

    @server.tool(name="dotted.name")
    def dotted() -> str:
        """A name the API refuses, normalised by the bridge."""
        return "dotted"

    @server.resource("memo://notes/today", mime_type="text/plain")
    def notes() -> str:
        return "buy milk"

    @server.resource("memo://pictures/red.png", mime_type="image/png")
    def red() -> bytes:
        return png_bytes(8, 8)

    @server.resource("memo://archive.bin", mime_type="application/octet-stream")
    def archive() -> bytes:
        return b"\x00\x01\x02binary"

    return server


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def paged_server() -> Any:
    """A low-level server: tools only (no resources capability), listed over two pages, one tool
    listed twice."""
    from mcp import types
    from mcp.server import Server

    def tool(name: str) -> types.Tool:
        return types.Tool(
            name=name,
            description=f"{name} tool",
            input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
        )

    pages = {
        None: ([tool("first")], "page-2"),
        "page-2": ([tool("second"), tool("first")], None),
    }

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools, cursor = pages[params.cursor if params else None]
        return types.ListToolsResult(tools=tools, next_cursor=cursor)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name} {params.arguments}")])

    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)
