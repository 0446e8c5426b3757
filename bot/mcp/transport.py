"""Open an ``mcp.Client`` for one configured server: the only place that picks a transport.

* stdio — ``stdio_client``: the child runs in its own process group, in ``cwd`` (the manager's
  private directory, never the workspace: ``bot.mcp.workdir``), with the SDK's minimal environment
  plus the entry's ``env``; its stderr goes to a log file of ours; at exit its stdin is closed,
  then it is terminated, then killed (the SDK's bounded shutdown, shielded from cancellation so no
  child outlives the run);
* streamable HTTP — ``streamable_http_client`` over an ``httpx2`` client that carries the entry's
  headers (and that we close);
* SSE — ``sse_client`` with the headers; the legacy ``initialize`` handshake (SSE predates the
  2026 protocol, so no discovery probe);
* in-process — an ``mcp`` ``Server``/``MCPServer`` object, connected directly.

The client's response cache is off: the pool is built from one fresh ``tools/list``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.types import Implementation

from bot.mcp.config import (
    HttpTransport,
    InProcessTransport,
    ServerConfig,
    SseTransport,
    StdioTransport,
    UnsupportedTransport,
)

CLIENT_INFO = Implementation(name="headless-bot", version="0.1.0")
#: The SDK's own HTTP defaults: 30 s to connect or write, 300 s between bytes of a response stream
#: (a server may hold a stream open while a tool works).
HTTP_TIMEOUT_S = 30.0
HTTP_READ_TIMEOUT_S = 300.0


class TransportUnavailable(Exception):
    """The configuration names a transport this runner does not run."""


@asynccontextmanager
async def open_client(config: ServerConfig, *, errlog: TextIO, cwd: Path | None = None) -> AsyncIterator[Client]:
    """Connect (handshake included) and yield the client; close everything on exit."""
    match config.transport:
        case StdioTransport(command=command, args=args, env=env):
            params = StdioServerParameters(
                command=command, args=list(args), env=dict(env) or None, cwd=None if cwd is None else str(cwd)
            )
            async with Client(stdio_client(params, errlog=errlog), cache=None, client_info=CLIENT_INFO) as client:
                yield client
        case HttpTransport(url=url, headers=headers):
            timeout = httpx2.Timeout(HTTP_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S)
            async with (
                httpx2.AsyncClient(headers=dict(headers), timeout=timeout) as http,
                Client(streamable_http_client(url, http_client=http), cache=None, client_info=CLIENT_INFO) as client,
            ):
                yield client
        case SseTransport(url=url, headers=headers):
            transport = sse_client(url, headers=dict(headers) or None)
            async with Client(transport, mode="legacy", cache=None, client_info=CLIENT_INFO) as client:
                yield client
        case InProcessTransport(server=server):
            if not isinstance(server, Server | MCPServer):
                raise TransportUnavailable(f"not an MCP server object: {type(server).__name__}")
            target: Any = server
            async with Client(target, cache=None, client_info=CLIENT_INFO) as client:
                yield client
        case UnsupportedTransport(type=kind):
            raise TransportUnavailable(f"transport {kind!r} is not supported by this runner (use stdio, http or sse)")
