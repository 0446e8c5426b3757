"""Prompt-cache layout (seeds 4.11 point 7): what goes where in a request so that each request's
prefix, up to its last cache breakpoint, is byte-identical to the previous request's.

The prompt is rendered ``tools → system → messages``. Breakpoints (at most 4 per request; we use 3):

1. on the last always-loaded tool — tools in the assembly's stable order (built-ins sorted, then
   MCP tools sorted), deferred tools after them;
2. on the last system block;
3. on the last block of the conversation that accepts one (the newest tool results), so the next
   request reads the whole conversation so far from the cache. Thinking blocks and empty text take
   no marker (the API refuses the request): a turn paused on a thinking block is marked on the
   block before it.

Nothing before a breakpoint is rewritten turn by turn: messages are stored once, with list content,
and markers are added on copies when a request is built. The one exception is a conversation that
outgrows the context window (:mod:`bot.agent.compaction`): old tool results are cleared in one
batch, or the conversation is replaced by a compacted one, so the prefix breaks once and is stable
again from the next request. Deferred tools (seeds 4.10): where the provider
supports server-side tool search, every tool is sent and deferred ones carry ``defer_loading``, so
discovering one changes nothing in the prefix; otherwise a discovered tool is appended after the
tools breakpoint, in discovery order, so the tools' cache entry still hits.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from bot.agent.model import Block, Message
from bot.interface.tool import AnyTool
from bot.tools.tool_search import is_deferred

CacheTTL = Literal["5m", "1h"]


def cache_marker(ttl: CacheTTL = "5m") -> dict[str, str]:
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def tool_definitions(
    tools: Sequence[AnyTool], *, server_tool_search: bool, discovered: Sequence[str] = (), ttl: CacheTTL = "5m"
) -> list[Block]:
    """The request's ``tools``. Pool order is kept within the loaded and the deferred groups."""
    loaded = [t for t in tools if not is_deferred(t)]
    defs: list[Block] = [dict(t.to_api()) for t in loaded]
    if defs:
        defs[-1] = {**defs[-1], "cache_control": cache_marker(ttl)}
    if server_tool_search:
        defs += [{**t.to_api(), "defer_loading": True} for t in tools if is_deferred(t)]
    else:
        by_name = {t.name: t for t in tools if is_deferred(t)}
        defs += [dict(by_name[name].to_api()) for name in discovered if name in by_name]
    return defs


def system_blocks(texts: Sequence[str], ttl: CacheTTL = "5m") -> list[Block]:
    blocks: list[Block] = [{"type": "text", "text": t} for t in texts if t]
    if blocks:
        blocks[-1] = {**blocks[-1], "cache_control": cache_marker(ttl)}
    return blocks


#: Block types whose request params have no ``cache_control`` (the SDK's ``ThinkingBlockParam``
#: and ``RedactedThinkingBlockParam``; a test compares this with the SDK's types).
UNMARKABLE_BLOCK_TYPES = frozenset({"thinking", "redacted_thinking"})


def accepts_marker(block: Block) -> bool:
    """May this block carry ``cache_control``? Not a thinking block, nor an empty text block."""
    kind = block.get("type")
    if kind in UNMARKABLE_BLOCK_TYPES:
        return False
    return not (kind == "text" and not block.get("text"))


def with_message_breakpoint(messages: Sequence[Message], ttl: CacheTTL = "5m") -> list[Message]:
    """The messages with a breakpoint on the last block that accepts one (copies; the stored
    conversation is never changed)."""
    out = list(messages)
    if out and isinstance(out[-1]["content"], str):
        raise ValueError("stored messages must have list content, or the cached prefix would change shape")
    for m in range(len(out) - 1, -1, -1):
        content = out[m]["content"]
        if isinstance(content, str):
            continue  # only the newest message must be a list; an older string one is left unmarked
        for b in range(len(content) - 1, -1, -1):
            if accepts_marker(content[b]):
                marked = [*content[:b], {**content[b], "cache_control": cache_marker(ttl)}, *content[b + 1 :]]
                out[m] = {**out[m], "content": marked}
                return out
    return out


# ----- checking the layout (tests, benchmarks, debugging cache misses) ------------------------------


def prompt_units(body: Mapping[str, Any]) -> tuple[list[str], int | None]:
    """A request body as the sequence the prompt is rendered in — each tool, each system block,
    each message block (with its role) — canonically serialised *without* cache markers, and the
    index of the last unit that carried a marker."""
    units: list[str] = []
    last_marker: int | None = None

    def add(item: Any, prefix: str = "") -> None:
        nonlocal last_marker
        if isinstance(item, Mapping) and "cache_control" in item:
            last_marker = len(units)
        units.append(prefix + canonical(strip_cache_control(item)))

    for tool in body.get("tools") or ():
        add(tool, "tool:")
    system = body.get("system") or ()
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        add(block, "system:")
    for message in body.get("messages") or ():
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            add(block, f"{message['role']}:")
    return units, last_marker


def cached_prefix(body: Mapping[str, Any]) -> list[str]:
    units, last = prompt_units(body)
    return [] if last is None else units[: last + 1]


def shares_cached_prefix(previous: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Is ``previous``'s prefix up to its last breakpoint rendered identically at the start of
    ``current``? (What makes ``current`` a cache hit for everything ``previous`` wrote.)"""
    prefix = cached_prefix(previous)
    units, _ = prompt_units(current)
    return bool(prefix) and units[: len(prefix)] == prefix


def strip_cache_control(item: Any) -> Any:
    if isinstance(item, Mapping):
        return {k: strip_cache_control(v) for k, v in item.items() if k != "cache_control"}
    if isinstance(item, list):
        return [strip_cache_control(v) for v in item]
    return item


def canonical(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))
