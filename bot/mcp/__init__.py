"""MCP: servers from a trusted ``.mcp.json``, connected for a run, their tools bridged into the pool.

The only package that imports ``mcp``. The public surface:

* :func:`load_mcp_config` / :func:`parse_mcp_config` — Claude Code's format, ``${VAR}`` expansion,
  ``ConfigError`` naming the file; :func:`config_from_policy` — the same block in a policy file;
* :class:`McpManager` — connects every server concurrently, states, calls, closes;
* :func:`bridge_tools` — ``mcp__<server>__<tool>`` tools (plus the resource tools) for assembly;
* :func:`mcp_tools_from_file`, :func:`inspect_servers` — for the CLI and the run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.mcp.bridge import McpTool, bridge_tools
    from bot.mcp.config import (
        McpConfig,
        ServerConfig,
        config_from_policy,
        in_process_server,
        load_mcp_config,
        parse_mcp_config,
    )
    from bot.mcp.limits import McpLimits
    from bot.mcp.manager import Connected, ConnectionState, Disabled, Failed, McpManager, Pending, ServerConnection
    from bot.mcp.report import servers_markdown, servers_text
    from bot.mcp.session import inspect_servers, mcp_tools_from_file

#: Where each public name lives. The names load on first use (PEP 562): reading a config
#: (``parse_mcp_config``, ``config_from_policy``) must not import the ``mcp`` SDK and the manager,
#: which take over a second; connecting to a server does.
_HOME = {
    **dict.fromkeys(("McpTool", "bridge_tools"), "bridge"),
    **dict.fromkeys(
        ("McpConfig", "ServerConfig", "config_from_policy", "in_process_server", "load_mcp_config", "parse_mcp_config"),
        "config",
    ),
    "McpLimits": "limits",
    **dict.fromkeys(
        ("Connected", "ConnectionState", "Disabled", "Failed", "McpManager", "Pending", "ServerConnection"), "manager"
    ),
    **dict.fromkeys(("servers_markdown", "servers_text"), "report"),
    **dict.fromkeys(("inspect_servers", "mcp_tools_from_file"), "session"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Connected",
    "ConnectionState",
    "Disabled",
    "Failed",
    "McpConfig",
    "McpLimits",
    "McpManager",
    "McpTool",
    "Pending",
    "ServerConfig",
    "ServerConnection",
    "bridge_tools",
    "config_from_policy",
    "in_process_server",
    "inspect_servers",
    "load_mcp_config",
    "mcp_tools_from_file",
    "parse_mcp_config",
    "servers_markdown",
    "servers_text",
]
