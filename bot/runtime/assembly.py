"""Tool-pool assembly (seeds 4.2): base tools → runtime filters → merged, cache-stable pool.

* :func:`get_tools` — SIMPLE mode (only Bash, Read, Edit), blanket deny rules remove a tool before
  the model ever sees it (``mcp__server`` removes a whole server), then each tool's ``is_enabled``.
* :func:`assemble_tool_pool` — built-ins sorted by name as one contiguous prefix, MCP tools sorted
  as a suffix, de-duplicated by name with the built-in winning. Adding or removing an MCP tool
  never changes the built-in prefix, so the prompt cache keeps hitting (seeds 4.11 point 7).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.interface.tool import AnyTool
from bot.permissions.context import PermissionContext

#: Seeds 4.2: SIMPLE mode keeps only the minimal core.
SIMPLE_MODE_TOOLS = frozenset({"Bash", "Read", "Edit"})


def filter_tools_by_deny_rules(tools: Iterable[AnyTool], permission: PermissionContext) -> list[AnyTool]:
    return [t for t in tools if not permission.is_blanket_denied(t.name, t.aliases)]


def get_tools(permission: PermissionContext, base_tools: Sequence[AnyTool] | None = None) -> list[AnyTool]:
    if base_tools is None:
        from bot.tools.registry import all_base_tools

        base_tools = all_base_tools()
    tools = list(base_tools)
    if permission.simple_mode:
        tools = [t for t in tools if t.name in SIMPLE_MODE_TOOLS]
    tools = filter_tools_by_deny_rules(tools, permission)
    return [t for t in tools if t.is_enabled()]


def assemble_tool_pool(
    permission: PermissionContext, mcp_tools: Sequence[AnyTool] = (), base_tools: Sequence[AnyTool] | None = None
) -> list[AnyTool]:
    built_in = sorted(get_tools(permission, base_tools), key=lambda t: t.name)
    allowed_mcp = sorted(
        (t for t in filter_tools_by_deny_rules(mcp_tools, permission) if t.is_enabled()),
        key=lambda t: t.name,
    )
    seen: set[str] = set()
    pool: list[AnyTool] = []
    for tool in [*built_in, *allowed_mcp]:
        if tool.name in seen:
            continue
        seen.add(tool.name)
        pool.append(tool)
    return pool
