"""Tool-pool assembly (seeds 4.2): base tools → runtime filters → merged, cache-stable pool.

* :func:`get_tools` — SIMPLE mode (only Bash, Read, Edit: the policy's ``simple_mode`` or the
  seeds' ``CLAUDE_CODE_SIMPLE`` variable), blanket deny rules remove a tool before the model ever
  sees it (``mcp__server`` removes a whole server), then each tool's ``is_enabled``.
* :func:`assemble_tool_pool` — built-ins sorted by name as one contiguous prefix, MCP tools sorted
  as a suffix, de-duplicated by name with the built-in winning. Adding or removing an MCP tool
  never changes the built-in prefix, so the prompt cache keeps hitting (seeds 4.11 point 7).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from bot.interface.tool import AnyTool
from bot.permissions.context import PermissionContext

#: Seeds 4.2: SIMPLE mode keeps only the minimal core.
SIMPLE_MODE_TOOLS = frozenset({"Bash", "Read", "Edit"})
#: Seeds 4.2: the variable that switches SIMPLE mode on (Claude Code's ``--bare`` does the same).
SIMPLE_MODE_ENV = "CLAUDE_CODE_SIMPLE"
#: Claude Code's ``isEnvTruthy``.
_TRUTHY = frozenset({"1", "true", "yes", "on"})


def simple_mode(permission: PermissionContext, environ: Mapping[str, str] | None = None) -> bool:
    """SIMPLE mode is on when the policy says so or ``CLAUDE_CODE_SIMPLE`` is truthy. The variable
    is the operator's (the workflow's ``env:``), never the model's: tools' processes never set ours."""
    environ = os.environ if environ is None else environ
    return permission.simple_mode or environ.get(SIMPLE_MODE_ENV, "").strip().lower() in _TRUTHY


def filter_tools_by_deny_rules(tools: Iterable[AnyTool], permission: PermissionContext) -> list[AnyTool]:
    return [t for t in tools if not permission.is_blanket_denied(t.name, t.aliases)]


def get_tools(
    permission: PermissionContext,
    base_tools: Sequence[AnyTool] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    keep: frozenset[str] = frozenset(),
) -> list[AnyTool]:
    """The built-ins this run offers. ``keep`` names tools SIMPLE mode keeps besides its core."""
    if base_tools is None:
        from bot.tools.registry import all_base_tools

        base_tools = all_base_tools()
    tools = list(base_tools)
    if simple_mode(permission, environ):
        tools = [t for t in tools if t.name in SIMPLE_MODE_TOOLS | keep]
    tools = filter_tools_by_deny_rules(tools, permission)
    return [t for t in tools if t.is_enabled()]


def assemble_tool_pool(
    permission: PermissionContext,
    mcp_tools: Sequence[AnyTool] = (),
    base_tools: Sequence[AnyTool] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> list[AnyTool]:
    allowed_mcp = sorted(
        (t for t in filter_tools_by_deny_rules(mcp_tools, permission) if t.is_enabled()),
        key=lambda t: t.name,
    )
    # SIMPLE mode cuts the built-ins, not the MCP servers the operator configured (as Claude Code's
    # getTools, the MCP tools are merged after it). A deferred MCP tool is reachable only through
    # ToolSearch, so ToolSearch stays when one is deferred.
    keep = frozenset({"ToolSearch"}) if any(t.should_defer and not t.always_load for t in allowed_mcp) else frozenset()
    built_in = sorted(get_tools(permission, base_tools, environ=environ, keep=keep), key=lambda t: t.name)
    seen: set[str] = set()
    pool: list[AnyTool] = []
    for tool in [*built_in, *allowed_mcp]:
        if tool.name in seen:
            continue
        seen.add(tool.name)
        pool.append(tool)
    return pool
