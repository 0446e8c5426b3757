"""MCP server configuration: Claude Code's ``.mcp.json`` format, read only from trusted sources.

Trust model: this module never decides *where* a configuration comes from. The caller hands it a
path or an already-parsed mapping from a trusted source — a file named by the workflow or the
command line, the policy file of the default branch — never a file of a pull request's head. The
GitHub layer is responsible for that choice; here, every error names the file it came from.

The format (``{"mcpServers": {name: entry}}``), one entry per server:

* stdio — ``{"command": "uvx", "args": [...], "env": {...}}`` (``"type": "stdio"`` optional). The
  child gets the SDK's minimal environment (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``,
  ``USER``) plus exactly the ``env`` the entry names: secrets reach a server only where the config
  passes them, e.g. ``"env": {"TOKEN": "${MY_TOKEN}"}``. It runs in a private directory, not in
  the workspace (``bot.mcp.workdir``).
* streamable HTTP — ``{"type": "http", "url": "...", "headers": {...}}``; an entry with a ``url``
  and no ``type`` is streamable HTTP too (the seeds' ``remote-server`` example).
* SSE — ``{"type": "sse", "url": "...", "headers": {...}}``.
* Claude Code's other transports (``ws``, ``sse-ide``, ``ws-ide``, ``sdk``, ``claudeai-proxy``) are
  accepted and reported as a failed server ("transport not supported"): the run goes on.

``${VAR}`` and ``${VAR:-default}`` are expanded in ``command``, ``args``, ``env`` values, ``url``
and ``headers`` values. A variable that is unset (and has no default) does not abort anything:
that server is marked failed with the variable's name, and the others connect.
``${CLAUDE_PROJECT_DIR}`` and ``${BOT_PROJECT_DIR}`` (:data:`WORKSPACE_VARIABLES`) always name the
workspace the servers serve, whatever the environment says: they are left as written here and
expanded when the server starts (:func:`with_workspace`). A stdio server never runs *in* the
workspace (``bot.mcp.workdir``): this is how a configuration hands it the path.

Extensions of ours, all optional in an entry:

* ``"trusted": true`` — the server's tool annotations are believed (``readOnlyHint`` makes a tool
  read-only and concurrency-safe, ``destructiveHint: false`` non-destructive). Without it every
  bridged tool keeps the fail-closed flags, whatever the server claims.
* ``"disabled": true`` — listed, not started.
* ``"startupTimeoutSec"`` / ``"toolTimeoutSec"`` — per-server connect and per-call timeouts.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.core.bounded import load_json
from bot.errors import ConfigError, describe_os_error, json_type_name
from bot.permissions.schema import Setting

#: Claude Code's transports we do not run (reported as failed servers, not config errors).
UNSUPPORTED_TRANSPORTS = frozenset({"ws", "sse-ide", "ws-ide", "sdk", "claudeai-proxy"})

#: Variables that name the workspace (Claude Code's name and the one our hooks also get): expanded
#: when a server starts, to the workspace it serves, never from the environment.
WORKSPACE_VARIABLES = ("CLAUDE_PROJECT_DIR", "BOT_PROJECT_DIR")

_VAR = re.compile(r"\$\{([^}]+)\}")
_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class StdioTransport:
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HttpTransport:
    """Streamable HTTP."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SseTransport:
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class InProcessTransport:
    """An MCP server object in this process (the seeds' ``sdk`` transport). Never from a file:
    built in Python, for embedding and for tests."""

    server: object


@dataclass(frozen=True, slots=True)
class UnsupportedTransport:
    type: str


Transport = StdioTransport | HttpTransport | SseTransport | InProcessTransport | UnsupportedTransport


@dataclass(frozen=True, slots=True)
class ServerConfig:
    name: str
    transport: Transport
    trusted: bool = False
    disabled: bool = False
    startup_timeout_s: float | None = None
    tool_timeout_s: float | None = None
    #: ``${VAR}`` references that were unset: the server is reported failed, not started.
    missing_env: tuple[str, ...] = ()
    #: The file (or other source) the entry came from, for messages.
    source: str | None = None
    #: A one-line description *before* expansion: safe to print (no expanded secrets).
    display: str = ""

    @property
    def kind(self) -> str:
        match self.transport:
            case StdioTransport():
                return "stdio"
            case HttpTransport():
                return "http"
            case SseTransport():
                return "sse"
            case InProcessTransport():
                return "in-process"
            case UnsupportedTransport(type=kind):
                return kind


@dataclass(frozen=True, slots=True)
class McpConfig:
    servers: tuple[ServerConfig, ...] = ()

    def __iter__(self) -> Iterator[ServerConfig]:
        return iter(self.servers)

    def __len__(self) -> int:
        return len(self.servers)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.servers]

    def merged(self, other: McpConfig) -> McpConfig:
        """``other``'s servers replace same-named ones of this config (a later source wins)."""
        theirs = {s.name for s in other.servers}
        return McpConfig((*(s for s in self.servers if s.name not in theirs), *other.servers))


def in_process_server(
    name: str, server: object, *, trusted: bool = False, tool_timeout_s: float | None = None
) -> ServerConfig:
    """A configuration for an MCP server object living in this process (``mcp`` ``Server`` or
    ``MCPServer``)."""
    return ServerConfig(
        name,
        InProcessTransport(server),
        trusted=trusted,
        tool_timeout_s=tool_timeout_s,
        source="<in-process>",
        display=f"in-process {type(server).__name__}",
    )


def load_mcp_config(path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None) -> McpConfig:
    """Read a ``.mcp.json``-style file. Raises :class:`ConfigError` naming the file (and the line
    when it can be found)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(describe_os_error(exc, ""), path=file) from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", path=file) from None
    data = load_json(text, source=str(file))  # bounded: size, nesting (ConfigError names the file and line)
    return parse_mcp_config(data, source=file, environ=environ, text=text)


def parse_mcp_config(
    data: Any,
    *,
    source: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    text: str | None = None,
) -> McpConfig:
    """A parsed document with an ``mcpServers`` object (a ``.mcp.json`` file, or a policy file
    that carries the same block). ``text`` (the file's text) lets errors name a line."""
    where = None if source is None else str(source)
    if not isinstance(data, Mapping):
        raise ConfigError(f"the MCP configuration must be a JSON object, got {json_type_name(data)}", path=where)
    if "mcpServers" not in data:
        raise ConfigError('no "mcpServers" object', path=where)
    return parse_mcp_servers(data["mcpServers"], source=source, environ=environ, text=text)


def parse_mcp_servers(
    servers: Any,
    *,
    source: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    text: str | None = None,
) -> McpConfig:
    """The ``mcpServers`` block itself: ``{name: entry}``."""
    where = None if source is None else str(source)
    env = os.environ if environ is None else environ
    if not isinstance(servers, Mapping):
        raise ConfigError(f'"mcpServers" must be an object, got {json_type_name(servers)}', path=where)
    parsed = []
    for name, entry in servers.items():
        try:
            parsed.append(_parse_entry(str(name), entry, env, where))
        except _EntryError as exc:
            raise ConfigError(f"MCP server {name!r}: {exc}", path=where, line=_line_of(text, str(name))) from None
    return McpConfig(tuple(parsed))


def config_from_policy(
    mcp_servers: Mapping[str, Setting[Mapping[str, Any]]], *, environ: Mapping[str, str] | None = None
) -> McpConfig:
    """The ``mcpServers`` of an effective policy (``EffectivePolicy.mcp_servers``): each entry kept
    with the file and line it was written at, so errors and failures name them."""
    env = os.environ if environ is None else environ
    parsed = []
    for name, setting in mcp_servers.items():
        origin = setting.origin
        where = origin.where()
        try:
            parsed.append(_parse_entry(name, setting.value, env, where))
        except _EntryError as exc:
            raise ConfigError(
                f"MCP server {name!r}: {exc}", path=origin.file or origin.source, line=origin.line
            ) from None
    return McpConfig(tuple(parsed))


class _EntryError(Exception):
    pass


def _parse_entry(name: str, entry: Any, env: Mapping[str, str], source: str | None) -> ServerConfig:
    if not name.strip():
        raise _EntryError("a server needs a non-empty name")
    if not isinstance(entry, Mapping):
        raise _EntryError(f"the entry must be an object, got {json_type_name(entry)}")
    missing: list[str] = []

    def expand(value: str) -> str:
        return expand_env(value, env, missing, deferred=WORKSPACE_VARIABLES)

    kind = entry.get("type")
    if kind is not None and not isinstance(kind, str):
        raise _EntryError(f'"type" must be a string, got {json_type_name(kind)}')
    if kind is None:
        if "command" in entry:
            kind = "stdio"
        elif "url" in entry:
            kind = "http"
        else:
            raise _EntryError('needs a "command" (stdio) or a "url" (http, sse)')

    transport: Transport
    if kind == "stdio":
        command = _string(entry, "command", required=True)
        args = _strings(entry, "args")
        transport = StdioTransport(
            expand(command),
            tuple(expand(a) for a in args),
            {k: expand(v) for k, v in _string_map(entry, "env").items()},
        )
        display = " ".join([command, *args])
    elif kind in ("http", "sse"):
        url = _string(entry, "url", required=True)
        headers = {k: expand(v) for k, v in _string_map(entry, "headers").items()}
        expanded = expand(url)
        if not missing and not re.match(r"^https?://", expanded, re.IGNORECASE):
            raise _EntryError(f'"url" must be an http:// or https:// URL, got {url!r}')
        transport = HttpTransport(expanded, headers) if kind == "http" else SseTransport(expanded, headers)
        display = url
    elif kind in UNSUPPORTED_TRANSPORTS:
        transport = UnsupportedTransport(kind)
        display = f"{kind} transport"
    else:
        raise _EntryError(f'unknown "type" {kind!r} (expected stdio, http or sse)')

    return ServerConfig(
        name=name,
        transport=transport,
        trusted=_bool(entry, "trusted"),
        disabled=_bool(entry, "disabled"),
        startup_timeout_s=_seconds(entry, "startupTimeoutSec"),
        tool_timeout_s=_seconds(entry, "toolTimeoutSec"),
        missing_env=tuple(dict.fromkeys(missing)),
        source=source,
        display=display,
    )


def expand_env(
    value: str, environ: Mapping[str, str], missing: list[str] | None = None, *, deferred: Collection[str] = ()
) -> str:
    """``${VAR}`` and ``${VAR:-default}`` (Claude Code's expansion). An unset variable without a
    default is left as written and its name appended to ``missing``; a ``deferred`` one is left as
    written, default included, for a later expansion."""

    def substitute(match: re.Match[str]) -> str:
        body = match.group(1)
        var, sep, default = body.partition(":-")
        if not _VAR_NAME.match(var) or var in deferred:
            return match.group(0)
        if var in environ:
            return environ[var]
        if sep:
            return default
        if missing is not None:
            missing.append(var)
        return match.group(0)

    return _VAR.sub(substitute, value)


def with_workspace(config: ServerConfig, workspace: str | os.PathLike[str] | None) -> ServerConfig:
    """The entry with :data:`WORKSPACE_VARIABLES` expanded to ``workspace``. Without a workspace a
    reference takes its default (``${CLAUDE_PROJECT_DIR:-/srv}``), else joins ``missing_env``."""
    values = {} if workspace is None else dict.fromkeys(WORKSPACE_VARIABLES, os.fspath(workspace))
    missing: list[str] = []

    def expand(value: str) -> str:
        if "${" not in value:
            return value
        # Only these names: whatever else is left unexpanded was reported at parse time.
        return _VAR.sub(lambda m: _workspace_reference(m, values, missing), value)

    transport = config.transport
    match transport:
        case StdioTransport(command=command, args=args, env=env):
            expanded: Transport = StdioTransport(
                expand(command), tuple(expand(a) for a in args), {k: expand(v) for k, v in env.items()}
            )
        case HttpTransport(url=url, headers=headers):
            expanded = HttpTransport(expand(url), {k: expand(v) for k, v in headers.items()})
        case SseTransport(url=url, headers=headers):
            expanded = SseTransport(expand(url), {k: expand(v) for k, v in headers.items()})
        case _:
            return config
    if expanded == transport and not missing:
        return config
    return replace(config, transport=expanded, missing_env=tuple(dict.fromkeys([*config.missing_env, *missing])))


def _workspace_reference(match: re.Match[str], values: Mapping[str, str], missing: list[str]) -> str:
    var = match.group(1).partition(":-")[0]
    if var not in WORKSPACE_VARIABLES:
        return match.group(0)
    return expand_env(match.group(0), values, missing)


# ----- field readers ---------------------------------------------------------------------------


def _string(entry: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = entry.get(key)
    if value is None:
        if required:
            raise _EntryError(f'"{key}" is required')
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _EntryError(f'"{key}" must be a non-empty string, got {json_type_name(value)}')
    return value


def _strings(entry: Mapping[str, Any], key: str) -> list[str]:
    value = entry.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _EntryError(f'"{key}" must be an array of strings')
    return list(value)


def _string_map(entry: Mapping[str, Any], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise _EntryError(f'"{key}" must be an object of strings')
    return {str(k): v for k, v in value.items()}


def _bool(entry: Mapping[str, Any], key: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise _EntryError(f'"{key}" must be true or false, got {json_type_name(value)}')
    return value


def _seconds(entry: Mapping[str, Any], key: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _EntryError(f'"{key}" must be a positive number of seconds, got {value!r}')
    return float(value)


def _line_of(text: str | None, name: str) -> int | None:
    """The line where the server's key appears (first occurrence after ``mcpServers``)."""
    if not text:
        return None
    start = text.find('"mcpServers"')
    key = re.compile(re.escape(json.dumps(name)) + r"\s*:")
    match = key.search(text, max(start, 0))
    if match is None:
        return None
    return text.count("\n", 0, match.start()) + 1
