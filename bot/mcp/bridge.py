"""Server tools as :class:`~bot.interface.tool.Tool`\\ s: ``mcp__<server>__<tool>`` (seeds 4.9, 7.2).

Trust model: a server's annotations are claims, not facts (MCP's own ``ToolAnnotations`` say
clients must not trust them from untrusted servers). A bridged tool keeps every fail-closed
default — not concurrency-safe, not read-only, destructive — *unless* the operator's config marks
the server ``"trusted": true``; then ``readOnlyHint`` makes a tool read-only and concurrency-safe
and ``destructiveHint: false`` (or read-only) makes it non-destructive. Either way the permission
rules decide whether a call happens: nothing is allowed because a server says it is harmless.

Inputs: the server's JSON Schema goes to the model as it is; we check only that the input is an
object — the server validates the rest and its refusal comes back as an error result. Outputs are
mapped by :mod:`.content` and cut by :mod:`.truncation`; the pipeline then persists what is still
too large.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, cast

from mcp import types
from pydantic import BaseModel, ConfigDict

from bot.errors import json_type_name
from bot.interface.context import ToolUseContext
from bot.interface.messages import ContentBlock, Progress
from bot.interface.tool import AnyTool, InputSchemaError, Tool, ToolResult
from bot.mcp.content import map_call_result
from bot.mcp.limits import MAX_MCP_DESCRIPTION_CHARS
from bot.mcp.manager import Connected, McpManager
from bot.mcp.truncation import truncate_content
from bot.tools.mcp_resources import ListMcpResourcesTool, ReadMcpResourceTool


class McpArguments(BaseModel):
    """Whatever object the model sent: the server's schema, not ours, governs it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    @property
    def arguments(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.model_extra or {}))


class McpTool(Tool[McpArguments, list[ContentBlock]]):
    """One tool of one MCP server. Each bridged tool is its own subclass (``name`` is a class
    attribute of every Tool); build them with :func:`bridge_tool`."""

    name: ClassVar[str] = "mcp__"
    is_mcp = True
    #: Seeds 4.10: MCP tools are the first to be deferred when tool search is on.
    should_defer = True
    #: Seeds 7.2: ``MCPTool.maxResultSizeChars = 100_000`` (clamped to 50,000 by the pipeline).
    max_result_chars = 100_000
    input_model = McpArguments

    def __init__(
        self,
        manager: McpManager,
        server: str,
        tool: types.Tool,
        *,
        trusted: bool,
        max_output_tokens: int,
        timeout_s: float | None = None,
    ) -> None:
        self.manager = manager
        self.server = server
        self.tool = tool
        self.trusted = trusted
        self.max_output_tokens = max_output_tokens
        self.timeout_s = timeout_s
        self._schema = _object_schema(tool.input_schema)
        hints = tool.annotations or types.ToolAnnotations()
        read_only = trusted and hints.read_only_hint is True
        self._read_only = read_only
        # MCP's default for destructiveHint is true; it means something only when not read-only.
        self._destructive = not (trusted and (read_only or hints.destructive_hint is False))

    # ----- schema and input ------------------------------------------------------------------

    def input_json_schema(self) -> dict[str, Any]:
        return self._schema

    def parse_input(self, raw: Any) -> McpArguments:
        if not isinstance(raw, dict):
            raise InputSchemaError(f"The input must be a JSON object, got {json_type_name(raw)}.")
        return McpArguments.model_validate(raw)

    def description(self) -> str:
        text = (self.tool.description or "").strip() or f"Tool {self.tool.name} of the MCP server {self.server}."
        if len(text) > MAX_MCP_DESCRIPTION_CHARS:
            text = text[: MAX_MCP_DESCRIPTION_CHARS - 15] + "… [truncated]"
        return text

    def user_facing_name(self, input: McpArguments | None = None) -> str:
        return f"{self.server} - {self.tool.title or self.tool.name} (MCP)"

    def observable_input(self, input: McpArguments, context: ToolUseContext) -> dict[str, Any]:
        return input.arguments

    # ----- safety flags ---------------------------------------------------------------------------

    def is_concurrency_safe(self, input: McpArguments) -> bool:
        return self._read_only  # only a trusted server's read-only tool may run beside others

    def is_read_only(self, input: McpArguments) -> bool:
        return self._read_only  # only when a trusted server says so

    def is_destructive(self, input: McpArguments) -> bool:
        return self._destructive

    # ----- execution ------------------------------------------------------------------------------

    async def call(
        self, input: McpArguments, context: ToolUseContext, progress: Progress
    ) -> ToolResult[list[ContentBlock]]:
        report = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            report("mcp_progress", progress=progress, total=total, message=message)

        result = await self.manager.call_tool(
            self.server, self.tool.name, input.arguments, timeout_s=self.timeout_s, on_progress=on_progress
        )
        blocks, _ = truncate_content(map_call_result(result, self.server), self.max_output_tokens)
        return ToolResult(blocks, is_error=bool(result.is_error))


def bridge_tool(
    manager: McpManager,
    server: str,
    bridged_name: str,
    tool: types.Tool,
    *,
    trusted: bool,
    max_output_tokens: int,
    timeout_s: float | None = None,
) -> McpTool:
    """A :class:`McpTool` subclass named ``bridged_name``, instantiated."""
    attrs: dict[str, Any] = {
        "name": bridged_name,
        "search_hint": " ".join(p for p in (server, tool.name, tool.title) if p),
        "always_load": _always_load(tool),
        "__module__": __name__,
    }
    cls = cast(type[McpTool], type(f"McpTool[{bridged_name}]", (McpTool,), attrs))
    return cls(manager, server, tool, trusted=trusted, max_output_tokens=max_output_tokens, timeout_s=timeout_s)


def bridge_tools(manager: McpManager) -> list[AnyTool]:
    """The bridged tools of every connected server, and the resource tools when a connected server
    offers resources. Pass them to assembly as ``mcp_tools``: deny rules apply there."""
    tools: list[AnyTool] = []
    for conn in manager.connected:
        state = conn.state
        assert isinstance(state, Connected)
        for tool, bridged in state.tools:
            tools.append(
                bridge_tool(
                    manager,
                    conn.name,
                    bridged,
                    tool,
                    trusted=conn.config.trusted,
                    max_output_tokens=manager.limits.max_output_tokens,
                    timeout_s=conn.config.tool_timeout_s,
                )
            )
    if manager.resource_servers():
        tools += [ListMcpResourcesTool(manager), ReadMcpResourceTool(manager)]
    return tools


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's schema, copied (it must stay stable for the prompt cache), with the top-level
    ``type: object`` the API requires made explicit."""
    out = copy.deepcopy(dict(schema))
    out.setdefault("type", "object")
    return out


def _always_load(tool: types.Tool) -> bool:
    """Claude Code's ``_meta["anthropic/alwaysLoad"]``: keep this tool out of deferral. It only
    changes what is in the context, never what is allowed."""
    meta = tool.meta or {}
    return meta.get("anthropic/alwaysLoad") is True
