"""``ListMcpResources`` and ``ReadMcpResource`` (seeds 4.9): the resources of connected MCP servers.

These are tools of the design layer: they know nothing of the ``mcp`` package. They talk to a
:class:`McpResourceSource` — the MCP layer's connection manager in a run, a fake in a test — and
are *created by the MCP layer* together with the bridged tools (``bot.mcp.bridge_tools``), only
when a connected server offers resources. Why not a registry entry disabled by ``is_enabled``:
they need the live connections of this run, which a registry-built, argument-less tool could only
reach through global state; and, placed with the MCP tools in the pool's suffix, they never shift
the built-in prefix that the prompt cache depends on.

Trust model: resource contents are untrusted server output, like any MCP result. Reading is a
read by the protocol's definition, so these tools are read-only and concurrency-safe (the rules
still decide whether a call is allowed).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import Field

from bot.errors import ToolInputError
from bot.interface.context import ToolUseContext
from bot.interface.messages import ContentBlock, Progress, ToolResultContent
from bot.interface.tool import Tool, ToolInput, ToolResult, ValidationOk, ValidationReject, ValidationResult

#: The image types the Messages API accepts.
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
#: Where non-image blobs of a read are saved, under the run's scratch directory.
RESOURCE_BLOBS_DIR = "mcp-resources"
NO_RESOURCES = "No resources found. MCP servers may still provide tools even if they have no resources."


@dataclass(frozen=True, slots=True)
class McpResource:
    server: str
    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"uri": self.uri, "name": self.name, "server": self.server}
        if self.mime_type:
            data["mimeType"] = self.mime_type
        if self.description:
            data["description"] = self.description
        return data


@dataclass(frozen=True, slots=True)
class McpResourceContent:
    uri: str
    mime_type: str | None = None
    text: str | None = None
    #: Base64, as the protocol carries it.
    blob: str | None = None


class McpResourceSource(Protocol):
    """What the resource tools need from the MCP layer."""

    def resource_servers(self) -> Sequence[str]:
        """Connected servers that offer resources, by their configured names."""
        ...

    async def list_resources(self, server: str) -> Sequence[McpResource]: ...

    async def read_resource(self, server: str, uri: str) -> Sequence[McpResourceContent]: ...


def _unknown_server(server: str, source: McpResourceSource) -> ValidationResult:
    servers = list(source.resource_servers())
    if server in servers:
        return ValidationOk()
    known = ", ".join(servers) or "none"
    return ValidationReject(
        f"Server {server!r} not found or offers no resources. Servers with resources: {known}", code=1
    )


class ListMcpResourcesInput(ToolInput):
    server: str | None = Field(None, description="Only this server's resources (default: every server)")


class ListMcpResourcesTool(Tool[ListMcpResourcesInput, list[dict[str, Any]]]):
    """Lists the resources (files, documents, data) that connected MCP servers offer. Each entry has
    the server's name, the resource's URI, name, MIME type and description; read one with
    ReadMcpResource."""

    name = "ListMcpResources"
    search_hint = "mcp resources list files documents server"
    input_model = ListMcpResourcesInput
    max_result_chars = 100_000

    def __init__(self, source: McpResourceSource) -> None:
        self._source = source

    def is_concurrency_safe(self, input: ListMcpResourcesInput) -> bool:
        return True  # resources/list is a read; calls share nothing

    def is_read_only(self, input: ListMcpResourcesInput) -> bool:
        return True  # resources/list is a read by the protocol's definition

    def is_destructive(self, input: ListMcpResourcesInput) -> bool:
        return False  # a listing changes nothing

    def permission_subject(self, input: ListMcpResourcesInput) -> str | None:
        return input.server

    async def validate_input(self, input: ListMcpResourcesInput, context: ToolUseContext) -> ValidationResult:
        if input.server is None:
            return ValidationOk()
        return _unknown_server(input.server, self._source)

    async def call(
        self, input: ListMcpResourcesInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[list[dict[str, Any]]]:
        servers = [input.server] if input.server is not None else list(self._source.resource_servers())
        out: list[dict[str, Any]] = []
        for server in servers:
            try:
                out.extend(r.to_json() for r in await self._source.list_resources(server))
            except ToolInputError:
                raise
            except Exception as exc:
                if input.server is not None:
                    raise
                # One broken server must not hide the others' resources.
                out.append({"server": server, "error": _message(exc)})
        return ToolResult(out)

    def map_result(self, output: list[dict[str, Any]]) -> ToolResultContent:
        if not output:
            return NO_RESOURCES
        return json.dumps(output, ensure_ascii=False, indent=1)


class ReadMcpResourceInput(ToolInput):
    server: str = Field(description="The MCP server's name, as ListMcpResources shows it")
    uri: str = Field(description="The resource's URI")


class ReadMcpResourceTool(Tool[ReadMcpResourceInput, list[ContentBlock]]):
    """Reads one resource of an MCP server by its URI. Text comes back as text, images as images;
    other binary contents are saved to a file whose path is returned."""

    name = "ReadMcpResource"
    search_hint = "mcp resource read uri content"
    input_model = ReadMcpResourceInput
    max_result_chars = 100_000

    def __init__(self, source: McpResourceSource) -> None:
        self._source = source

    def is_concurrency_safe(self, input: ReadMcpResourceInput) -> bool:
        return True  # resources/read is a read; calls share nothing

    def is_read_only(self, input: ReadMcpResourceInput) -> bool:
        return True  # resources/read is a read by the protocol's definition

    def is_destructive(self, input: ReadMcpResourceInput) -> bool:
        return False  # reading changes nothing on our side; blobs go to the scratch directory

    def permission_subject(self, input: ReadMcpResourceInput) -> str | None:
        return input.uri

    async def validate_input(self, input: ReadMcpResourceInput, context: ToolUseContext) -> ValidationResult:
        return _unknown_server(input.server, self._source)

    async def call(
        self, input: ReadMcpResourceInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[list[ContentBlock]]:
        contents = await self._source.read_resource(input.server, input.uri)
        blocks: list[ContentBlock] = []
        for item in contents:
            blocks.extend(_content_blocks(input.server, item, context))
        return ToolResult(blocks or [{"type": "text", "text": f"Resource {input.uri} has no contents."}])


def _content_blocks(server: str, item: McpResourceContent, context: ToolUseContext) -> list[ContentBlock]:
    header = f"[Resource from {server} at {item.uri}]"
    if item.text is not None:
        return [{"type": "text", "text": f"{header} {item.text}"}]
    if item.blob is None:
        return [{"type": "text", "text": f"{header} (empty)"}]
    try:
        data = base64.b64decode(item.blob, validate=True)
    except (binascii.Error, ValueError):
        return [{"type": "text", "text": f"{header} binary contents that are not valid base64, not shown"}]
    mime = item.mime_type or "application/octet-stream"
    if mime in _IMAGE_TYPES:
        return [
            {"type": "text", "text": header},
            {"type": "image", "source": {"type": "base64", "media_type": mime, "data": item.blob}},
        ]
    directory = context.scratch_dir / RESOURCE_BLOBS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(f"{server}\0{item.uri}".encode()).hexdigest()[:16]
    path = directory / f"{digest}{mimetypes.guess_extension(mime) or '.bin'}"
    path.write_bytes(data)
    return [{"type": "text", "text": f"{header} {mime}, {len(data):,} bytes of binary contents saved to {path}"}]


def _message(exc: Exception) -> str:
    return str(getattr(exc, "message", None) or exc) or type(exc).__name__
