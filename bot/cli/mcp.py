"""``bot mcp list``: the configured MCP servers, their states and their bridged tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.common import WorkspaceOpt, fail
from bot.errors import ConfigError

mcp_app = typer.Typer(help="MCP servers from a trusted .mcp.json.", no_args_is_help=True, rich_markup_mode=None)

#: Where ``bot mcp list`` looks when no ``--config`` is given.
DEFAULT_CONFIG = ".mcp.json"


@mcp_app.command("list")
def mcp_list(
    config: Annotated[
        Path | None,
        typer.Option("--config", help=f"The MCP configuration (default: {DEFAULT_CONFIG} in the workspace)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the servers as JSON.")] = False,
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Connect every server, print states and tools, close. Stdio servers run in a private
    directory; ``${CLAUDE_PROJECT_DIR}`` names the workspace. Exits 0 even when a server failed:
    the failure is part of the listing."""
    from bot.mcp import inspect_servers, load_mcp_config, servers_text

    path = config if config is not None else workspace / DEFAULT_CONFIG
    if not workspace.is_dir():
        raise fail(f"--workspace {workspace}: no such directory")
    try:
        described = inspect_servers(load_mcp_config(path), workspace=workspace.resolve())
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(described, indent=2, ensure_ascii=False))
    else:
        typer.echo(servers_text(described))
