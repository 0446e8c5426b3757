"""Bridged tool names: ``mcp__<server>__<tool>``, within the API's ``^[a-zA-Z0-9_-]{1,64}$``.

Pure functions. Every character outside ``[a-zA-Z0-9_-]`` becomes ``_`` (Claude Code's
``normalizeNameForMCP``). Two rules of ours keep rules unambiguous and names unique:

* the server segment never contains ``__`` and never starts or ends with ``_`` (runs of ``_``
  collapse, edges are stripped), so ``mcp__a`` — "every tool of server a" — can never also name a
  tool of a server called ``a__b`` or ``a.``; it is at most
  :data:`MAX_SERVER_SEGMENT` characters, so every tool keeps room for its own name;
* collisions (``a.b`` and ``a b`` both give ``a_b``; ``get.time`` and ``get_time``) are resolved by
  sorting the raw names: the first keeps the plain name, the next ones get ``_2``, ``_3``…;
  a name too long is cut and given 8 hex digits of a hash of the raw name.

The result depends only on the *set* of raw names, never on the order a server lists them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

#: The Anthropic API's limit on a tool name.
MAX_TOOL_NAME = 64
#: Room kept for the server part of ``mcp__<server>__<tool>``.
MAX_SERVER_SEGMENT = 24
PREFIX = "mcp__"
SEPARATOR = "__"

_INVALID = re.compile(r"[^a-zA-Z0-9_-]")
_UNDERSCORES = re.compile(r"_{2,}")
VALID_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def normalize(raw: str) -> str:
    """Characters the API refuses become ``_``."""
    return _INVALID.sub("_", raw)


def _server_segment(raw: str) -> str:
    segment = _UNDERSCORES.sub("_", normalize(raw)).strip("_") or "server"
    return _fit(segment, MAX_SERVER_SEGMENT, raw)


def _fit(name: str, limit: int, raw: str) -> str:
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
    return f"{name[: limit - 9]}_{digest}"


def _unique(base: str, taken: set[str], limit: int, raw: str) -> str:
    candidate = base
    n = 2
    while candidate in taken:
        candidate = _fit(f"{base}_{n}", limit, f"{raw}#{n}")
        n += 1
    taken.add(candidate)
    return candidate


def server_prefixes(raw_names: Iterable[str]) -> dict[str, str]:
    """Raw server name → the server segment used in tool names and ``mcp__<server>`` rules."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    for raw in sorted(set(raw_names)):
        out[raw] = _unique(_server_segment(raw), taken, MAX_SERVER_SEGMENT, raw)
    return out


def tool_names(server_segment: str, raw_tool_names: Iterable[str]) -> dict[str, str]:
    """Raw tool name → ``mcp__<server>__<tool>``, unique, at most 64 characters."""
    head = f"{PREFIX}{server_segment}{SEPARATOR}"
    room = MAX_TOOL_NAME - len(head)
    taken: set[str] = set()
    out: dict[str, str] = {}
    for raw in sorted(set(raw_tool_names)):
        part = _fit(normalize(raw) or "_", room, raw)
        out[raw] = head + _unique(part, taken, room, raw)
    return out


def server_rule_names(server_segment: str) -> tuple[str, str]:
    """The two spellings of a rule that names every tool of a server."""
    return f"{PREFIX}{server_segment}", f"{PREFIX}{server_segment}{SEPARATOR}*"
