"""``McpManager``: every configured server connected concurrently, for the length of a run.

::

    async with McpManager(config, workspace=workspace) as mcp:   # connects all servers at once
        tools = bridge_tools(mcp)                             # bridged tools of connected servers
        ...                                                   # the run
    # every server closed here; stdio children stopped

Structured concurrency: one task per server, in a task group the manager owns. Each task connects
(handshake + ``tools/list``) under its own deadline, publishes the result, then holds the
connection open until the manager exits — so the SDK's cancel scopes and task groups are entered
and left in the same task. A server that fails to start, times out, crashes or is misconfigured
never raises out of here: its state is :class:`Failed` with a reason (and its stderr's tail), its
tools are absent, and the others carry on.

States (seeds 4.9): ``Pending`` → ``Connected`` | ``Failed``; ``Disabled`` (config or deny rule)
never starts. A connection lost later turns ``Connected`` into ``Failed``.

Stdio servers run in a private directory of the manager's, never in the workspace, with a ``PATH``
that names nothing in it; the workspace reaches them as ``${CLAUDE_PROJECT_DIR}`` where the
configuration writes it (``bot.mcp.workdir``).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import anyio
from mcp import Client, MCPError, types
from mcp.shared.dispatcher import ProgressFnT

from bot.errors import ToolExecutionError, ToolInputError
from bot.mcp.config import WORKSPACE_VARIABLES, McpConfig, ServerConfig, StdioTransport, with_workspace
from bot.mcp.limits import MAX_LIST_PAGES, McpLimits
from bot.mcp.names import server_prefixes, server_rule_names, tool_names
from bot.mcp.transport import TransportUnavailable, open_client
from bot.mcp.workdir import RELATIVE_HINT, directory_problem, inherited_path, relative_paths
from bot.permissions.context import PermissionContext
from bot.tools.mcp_resources import McpResource, McpResourceContent

logger = logging.getLogger("bot.mcp")

#: How much of a failed stdio server's stderr goes into its failure reason.
STDERR_TAIL_CHARS = 1_500


@dataclass(frozen=True, slots=True)
class Pending:
    pass


@dataclass(frozen=True, slots=True)
class Connected:
    protocol_version: str
    server_name: str | None
    server_version: str | None
    #: Raw MCP tool → bridged name (``mcp__server__tool``).
    tools: tuple[tuple[types.Tool, str], ...]
    #: Tools left out, with why (e.g. an input schema that is not an object).
    skipped: tuple[tuple[str, str], ...]
    has_resources: bool
    instructions: str | None
    connect_s: float
    list_tools_s: float


@dataclass(frozen=True, slots=True)
class Failed:
    reason: str
    stderr_tail: str = ""


@dataclass(frozen=True, slots=True)
class Disabled:
    reason: str


ConnectionState = Pending | Connected | Failed | Disabled


@dataclass(slots=True)
class ServerConnection:
    """One configured server and where it stands."""

    config: ServerConfig
    #: The server segment of bridged names and of ``mcp__<segment>`` rules.
    segment: str
    state: ConnectionState = field(default_factory=Pending)
    settled: anyio.Event = field(default_factory=anyio.Event)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def label(self) -> str:
        return type(self.state).__name__.lower()


class McpManager:
    """Connects the configured servers and serves calls to them. Not re-entrant."""

    def __init__(
        self,
        config: McpConfig,
        *,
        workspace: Path | None = None,
        limits: McpLimits | None = None,
        permission: PermissionContext | None = None,
        log_dir: Path | None = None,
        wait: bool = True,
    ) -> None:
        """``workspace``: the directory the servers serve,
        which ``${CLAUDE_PROJECT_DIR}`` names. It is *not* where they run: stdio servers run in a
        private directory of the manager's (``bot.mcp.workdir``)."""
        self.limits = limits or McpLimits.from_env()
        self.workspace = workspace
        #: Directories the model may write besides the workspace: no server's PATH names them.
        self._writable = tuple(permission.additional_directories) if permission is not None else ()
        #: Where stdio servers run (made on entry), or why they cannot run.
        self.server_dir: Path | None = None
        self._server_dir_problem: str | None = None
        self._log_dir = log_dir
        self._wait = wait
        segments = server_prefixes(s.name for s in config.servers)
        self.servers: tuple[ServerConnection, ...] = tuple(
            ServerConnection(s, segments[s.name]) for s in config.servers
        )
        for conn in self.servers:
            reason = _disabled_reason(conn, permission)
            if reason is not None:
                conn.state = Disabled(reason)
                conn.settled.set()
        self._clients: dict[str, Client] = {}
        self._closing = anyio.Event()
        self._stack: AsyncExitStack | None = None

    # ----- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> McpManager:
        if self._stack is not None:
            raise RuntimeError("McpManager is not re-entrant")
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            if self._log_dir is None:
                self._log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bot-mcp-")))
            self._log_dir.mkdir(parents=True, exist_ok=True)
            if any(isinstance(c.state, Pending) and c.config.kind == "stdio" for c in self.servers):
                # Entered before the task group: removed once every server has stopped.
                private = tempfile.TemporaryDirectory(prefix="bot-mcp-cwd-", ignore_cleanup_errors=True)
                self.server_dir = Path(stack.enter_context(private))
                self._server_dir_problem = directory_problem(self.server_dir, self.workspace, self._writable)
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(self._closing.set)  # runs first at exit: every server task closes
            for conn in self.servers:
                if isinstance(conn.state, Pending):
                    tg.start_soon(self._serve, conn, name=f"mcp:{conn.name}")
            self._stack = stack
            if self._wait:
                await self.wait_settled()
        except BaseException:
            self._stack = None
            await stack.__aexit__(*sys.exc_info())
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        stack, self._stack = self._stack, None
        assert stack is not None
        try:
            return await stack.__aexit__(exc_type, exc, tb)
        except BaseExceptionGroup as group:
            # The server tasks never raise, so a group holding only the body's own exception is
            # the task group's wrapping of it: give the caller their exception back, unwrapped.
            if exc is not None and len(group.exceptions) == 1 and group.exceptions[0] is exc:
                raise exc from None
            raise

    async def wait_settled(self) -> None:
        """Until no server is pending (each is bounded by its connect timeout)."""
        for conn in self.servers:
            await conn.settled.wait()

    async def _serve(self, conn: ServerConnection) -> None:
        """One server's whole life. Never raises: whatever goes wrong becomes its state."""
        config = conn.config
        assert self._log_dir is not None
        log_path = self._log_dir / f"{conn.segment}.stderr.log"
        connected = False
        launch = config
        try:
            if config.missing_env:
                plural = "s" if len(config.missing_env) > 1 else ""
                conn.state = Failed(
                    f"environment variable{plural} {', '.join(config.missing_env)} not set "
                    f"(referenced in {config.source or 'config'})"
                )
                return
            launch = with_workspace(config, self.workspace)
            if launch.missing_env != config.missing_env:
                names = ", ".join("${" + name + "}" for name in launch.missing_env if name in WORKSPACE_VARIABLES)
                conn.state = Failed(f"{names} names the workspace, and this manager was given none")
                return
            stdio = isinstance(launch.transport, StdioTransport)
            if stdio and self._server_dir_problem is not None:
                conn.state = Failed(self._server_dir_problem)
                return
            if stdio:
                launch = self._launch_environment(launch)
                _warn_relative(conn)
            timeout = config.startup_timeout_s or self.limits.connect_timeout_s
            with _open_log(log_path) as errlog:
                started = anyio.current_time()
                with anyio.CancelScope(deadline=started + timeout) as scope:
                    async with open_client(launch, errlog=errlog, cwd=self.server_dir if stdio else None) as client:
                        handshake_done = anyio.current_time()
                        listed = await _list_tools(client)
                        scope.deadline = math.inf  # connected: the deadline was for connecting only
                        conn.state = _connected(
                            conn, client, listed, handshake_done - started, anyio.current_time() - handshake_done
                        )
                        connected = True
                        self._clients[conn.name] = client
                        conn.settled.set()
                        try:
                            await self._closing.wait()
                        finally:
                            self._clients.pop(conn.name, None)
                if scope.cancelled_caught and not connected:
                    conn.state = Failed(f"did not connect within {timeout:g} s", _tail(log_path))
        except Exception as exc:
            if not (connected and self._closing.is_set()):  # an error while closing changes nothing
                prefix = "connection lost: " if connected else ""
                conn.state = Failed(prefix + _unexpanded(launch, describe_error(exc)), _tail(log_path))
        finally:
            if isinstance(conn.state, Failed) and not connected:
                conn.state = _with_relative_hint(conn.state, config)
            if isinstance(conn.state, Failed):
                _log_failure(conn)
            conn.settled.set()

    def _launch_environment(self, config: ServerConfig) -> ServerConfig:
        """The stdio entry with the ``PATH`` it inherits cleaned of the workspace (the SDK passes our
        ``PATH`` on otherwise). A ``PATH`` the entry's ``env`` sets is the configuration's own."""
        transport = config.transport
        assert isinstance(transport, StdioTransport)
        path = inherited_path(os.environ.get("PATH"), self.workspace, self._writable)
        if path is None or "PATH" in transport.env:
            return config
        return replace(config, transport=replace(transport, env={"PATH": path, **transport.env}))

    # ----- queries -------------------------------------------------------------------------------

    def get(self, name: str) -> ServerConnection | None:
        for conn in self.servers:
            if conn.name == name or conn.segment == name:
                return conn
        return None

    @property
    def connected(self) -> list[ServerConnection]:
        return [c for c in self.servers if isinstance(c.state, Connected)]

    @property
    def failures(self) -> list[ServerConnection]:
        return [c for c in self.servers if isinstance(c.state, Failed)]

    def _client(self, server: str) -> Client:
        conn = self.get(server)
        if conn is None:
            raise ToolInputError(f"No MCP server named {server!r}.")
        client = self._clients.get(conn.name)
        if client is None or not isinstance(conn.state, Connected):
            state = conn.state
            why = f": {state.reason}" if isinstance(state, Failed | Disabled) else ""
            raise ToolExecutionError(f"MCP server {conn.name!r} is not connected ({conn.label}{why}).")
        return client

    def _note_lost(self, server: str, exc: Exception) -> None:
        """A request that found the connection closed: the server is gone (crashed, exited)."""
        leaf = _leaf(exc)
        conn = self.get(server)
        if conn is not None and isinstance(leaf, MCPError) and leaf.code == types.CONNECTION_CLOSED:
            conn.state = Failed(f"connection lost: {describe_error(leaf)}")
            _log_failure(conn)

    def _tool_timeout(self, server: str) -> float:
        conn = self.get(server)
        configured = conn.config.tool_timeout_s if conn is not None else None
        return configured or self.limits.tool_timeout_s

    # ----- calls ---------------------------------------------------------------------------------

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout_s: float | None = None,
        on_progress: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """``tools/call``. Protocol errors, a lost connection and the timeout raise
        :class:`ToolExecutionError` (the model sees an error result); ``isError`` results return."""
        client = self._client(server)
        limit = timeout_s or self._tool_timeout(server)
        with anyio.move_on_after(limit):
            try:
                return await client.call_tool(tool, arguments, progress_callback=on_progress)
            except Exception as exc:
                self._note_lost(server, exc)
                raise ToolExecutionError(f"MCP server {server!r}, tool {tool!r}: {describe_error(exc)}") from exc
        raise ToolExecutionError(f"MCP tool {tool!r} of server {server!r} timed out after {limit:g} seconds")

    def resource_servers(self) -> list[str]:
        return [c.name for c in self.connected if isinstance(c.state, Connected) and c.state.has_resources]

    async def list_resources(self, server: str) -> list[McpResource]:
        client = self._client(server)
        out: list[McpResource] = []
        cursor: str | None = None
        with anyio.move_on_after(self._tool_timeout(server)):
            try:
                for _ in range(MAX_LIST_PAGES):
                    page = await client.list_resources(cursor=cursor)
                    out.extend(McpResource(server, r.uri, r.name, r.description, r.mime_type) for r in page.resources)
                    cursor = page.next_cursor
                    if not cursor:
                        break
            except Exception as exc:
                raise ToolExecutionError(
                    f"MCP server {server!r}: listing resources failed: {describe_error(exc)}"
                ) from exc
            return out
        raise ToolExecutionError(f"MCP server {server!r}: listing resources timed out")

    async def read_resource(self, server: str, uri: str) -> list[McpResourceContent]:
        client = self._client(server)
        with anyio.move_on_after(self._tool_timeout(server)):
            try:
                result = await client.read_resource(uri)
            except Exception as exc:
                raise ToolExecutionError(f"MCP server {server!r}: reading {uri} failed: {describe_error(exc)}") from exc
            out: list[McpResourceContent] = []
            for item in result.contents:
                if isinstance(item, types.TextResourceContents):
                    out.append(McpResourceContent(item.uri, item.mime_type, text=item.text))
                else:
                    out.append(McpResourceContent(item.uri, item.mime_type, blob=item.blob))
            return out
        raise ToolExecutionError(f"MCP server {server!r}: reading {uri} timed out")

    # ----- reporting -----------------------------------------------------------------------------

    def describe(self) -> list[dict[str, Any]]:
        """Servers, states and bridged tools as data (``bot mcp list --json``, the run log)."""
        return [describe_connection(c) for c in self.servers]


def describe_connection(conn: ServerConnection) -> dict[str, Any]:
    config = conn.config
    data: dict[str, Any] = {
        "name": conn.name,
        "segment": conn.segment,
        "transport": config.kind,
        "target": config.display,
        "source": config.source,
        "trusted": config.trusted,
        "state": conn.label,
        "reason": None,
        "tools": [],
    }
    state = conn.state
    match state:
        case Connected():
            data.update(
                server=" ".join(p for p in (state.server_name, state.server_version) if p) or None,
                protocol_version=state.protocol_version,
                connect_ms=round(state.connect_s * 1000, 1),
                list_tools_ms=round(state.list_tools_s * 1000, 1),
                resources=state.has_resources,
                tools=[bridged for _, bridged in state.tools],
                skipped=[{"tool": t, "reason": r} for t, r in state.skipped],
            )
        case Failed():
            data.update(reason=state.reason, stderr=state.stderr_tail or None)
        case Disabled():
            data.update(reason=state.reason)
        case Pending():
            pass
    return data


def describe_error(exc: BaseException) -> str:
    """A short, stable description of why a connection or call failed."""
    leaf = _leaf(exc)
    if isinstance(leaf, MCPError) and leaf.code == types.CONNECTION_CLOSED:
        return "the server closed the connection"
    if isinstance(leaf, MCPError):
        return f"MCP error {leaf.code}: {leaf.message}"
    if isinstance(leaf, TransportUnavailable):
        return str(leaf)
    if isinstance(leaf, FileNotFoundError):
        return f"command not found: {leaf.filename or leaf}"
    if isinstance(leaf, PermissionError):
        return f"permission denied: {leaf.filename or leaf}"
    text = str(leaf).strip().splitlines()[0] if str(leaf).strip() else ""
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def _unexpanded(config: ServerConfig, text: str) -> str:
    """A reason goes to logs and summaries: show the URL as configured, not with ``${VAR}``s
    (tokens, say) expanded."""
    url = getattr(config.transport, "url", None)
    if isinstance(url, str) and url and url != config.display:
        return text.replace(url, config.display)
    return text


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _list_tools(client: Client) -> list[types.Tool]:
    if client.server_capabilities.tools is None:
        return []
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _connected(
    conn: ServerConnection, client: Client, listed: Sequence[types.Tool], connect_s: float, list_s: float
) -> Connected:
    usable: list[types.Tool] = []
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for tool in listed:
        reason = unusable_reason(tool, seen)
        if reason is None:
            usable.append(tool)
            seen.add(tool.name)
        else:
            skipped.append((tool.name, reason))
    names = tool_names(conn.segment, [t.name for t in usable])
    info = client.server_info
    return Connected(
        protocol_version=client.protocol_version,
        server_name=info.name if info else None,
        server_version=info.version if info else None,
        tools=tuple((t, names[t.name]) for t in sorted(usable, key=lambda t: names[t.name])),
        skipped=tuple(skipped),
        has_resources=client.server_capabilities.resources is not None,
        instructions=client.instructions,
        connect_s=connect_s,
        list_tools_s=list_s,
    )


def unusable_reason(tool: types.Tool, seen: set[str]) -> str | None:
    """Why a listed tool cannot be offered to the model (``None``: it can)."""
    if tool.name in seen:
        return "listed twice"
    schema: Mapping[str, Any] = tool.input_schema
    kind = schema.get("type", "object")
    if kind != "object":
        return f"its input schema is of type {kind!r}; the API needs an object"
    return None


def _disabled_reason(conn: ServerConnection, permission: PermissionContext | None) -> str | None:
    if conn.config.disabled:
        return f"disabled in {conn.config.source or 'config'}"
    if permission is None:
        return None
    spellings = server_rule_names(conn.segment)
    for rule in permission.deny:
        if rule.content is None and rule.tool in spellings:
            return f"denied by rule {rule.text}" + (f" ({rule.ref.source})" if rule.ref.source else "")
    return None


def _open_log(path: Path) -> TextIO:
    """Where a stdio server's stderr goes (a real file: the child writes to its descriptor)."""
    return open(path, "a", encoding="utf-8", errors="replace")


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - STDERR_TAIL_CHARS * 4))
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:].strip()


def _relative(config: ServerConfig) -> list[str]:
    transport = config.transport
    return relative_paths(transport.command, transport.args) if isinstance(transport, StdioTransport) else []


def _warn_relative(conn: ServerConnection) -> None:
    paths = _relative(conn.config)
    if paths:
        logger.warning("MCP server %r: %s", conn.name, RELATIVE_HINT.format(paths=", ".join(paths)))


def _with_relative_hint(state: Failed, config: ServerConfig) -> Failed:
    paths = _relative(config)
    if not paths:
        return state
    return Failed(f"{state.reason}; {RELATIVE_HINT.format(paths=', '.join(paths))}", state.stderr_tail)


def _log_failure(conn: ServerConnection) -> None:
    state = conn.state
    if isinstance(state, Failed):
        logger.warning("MCP server %r failed: %s", conn.name, state.reason)
