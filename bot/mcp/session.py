"""Entry points for the layers above: MCP tools for a run from a config file, and inspection."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from bot.interface.tool import AnyTool
from bot.mcp.bridge import bridge_tools
from bot.mcp.config import McpConfig, load_mcp_config
from bot.mcp.limits import McpLimits
from bot.mcp.manager import McpManager
from bot.permissions.context import PermissionContext


@asynccontextmanager
async def mcp_tools_from_file(
    path: str | os.PathLike[str],
    *,
    workspace: Path | None = None,
    permission: PermissionContext | None = None,
    limits: McpLimits | None = None,
) -> AsyncIterator[list[AnyTool]]:
    """Connect the servers of a trusted config file; yield their bridged tools; close them.
    Raises ``ConfigError`` for a bad file. A failed server is logged and its tools are absent.
    ``workspace`` is the directory the servers serve (``${CLAUDE_PROJECT_DIR}``), not where they run."""
    config = load_mcp_config(path)
    async with McpManager(config, workspace=workspace, permission=permission, limits=limits) as manager:
        yield bridge_tools(manager)


def inspect_servers(
    config: McpConfig,
    *,
    workspace: Path | None = None,
    limits: McpLimits | None = None,
    permission: PermissionContext | None = None,
) -> list[dict[str, Any]]:
    """Connect every server, describe each (state, reason, bridged tools, timings), close.
    ``workspace`` is the directory the servers serve (``${CLAUDE_PROJECT_DIR}``), not where they run."""

    async def main() -> list[dict[str, Any]]:
        async with McpManager(config, workspace=workspace, limits=limits, permission=permission) as manager:
            return manager.describe()

    return anyio.run(main)
