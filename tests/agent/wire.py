"""Hand-written responses in the Messages API's stream format for what the cassette scripts cannot
author: thinking blocks with their signatures, redacted thinking, and error pages from a proxy.
Served by :class:`bot.testing.replay.PacedReplay`, so the real SDK parses the bytes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.testing.cassettes import ScriptedResponse, SseEvent, stream_headers

#: Signatures and redacted data are opaque base64 to the client; these have the API's shape.
SIGNATURE = "EqQBCkgIBxABGAIiQJx2Yl8VfJ1mZk3o5t0c2q1W3cmVkYWN0ZWQtc2lnbmF0dXJlLWZvci10ZXN0cxIMc2lnbmF0dXJl"
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"


def _block_events(index: int, block: dict[str, Any]) -> list[SseEvent]:
    kind = block["type"]
    if kind == "thinking":
        start: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            *({"type": "thinking_delta", "thinking": part} for part in _halves(block["thinking"])),
            {"type": "signature_delta", "signature": block.get("signature", SIGNATURE)},
        ]
    elif kind == "redacted_thinking":
        start, deltas = {"type": "redacted_thinking", "data": block.get("data", REDACTED)}, []
    elif kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": part} for part in _halves(block["text"])]
    else:
        raise ValueError(f"no wire form for {kind!r} here")
    events = [SseEvent("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})]
    events += [
        SseEvent("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
    ]
    events.append(SseEvent("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def _halves(text: str) -> list[str]:
    cut = len(text) // 2
    return [p for p in (text[:cut], text[cut:]) if p]


def streamed(
    blocks: Sequence[dict[str, Any]], stop_reason: str, *, message_id: str = "msg_01WireThinking0000000000"
) -> ScriptedResponse:
    """One streamed response of these blocks (``{"type": "thinking", "thinking": ...}``, ...)."""
    usage = {"input_tokens": 2_100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    events = [
        SseEvent(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "model": "claude-sonnet-5-5",
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**usage, "output_tokens": 4, "service_tier": "standard"},
                },
            },
        ),
        SseEvent("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        events += _block_events(index, block)
    events.append(
        SseEvent(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {**usage, "output_tokens": 180},
            },
        )
    )
    events.append(SseEvent("message_stop", {"type": "message_stop"}))
    body = b"".join(e.encode() for e in events)
    headers = stream_headers("req_011CWireThinking00000000")
    return ScriptedResponse("claude-sonnet-5-5", 200, headers, tuple(events), body)


def error_page(status: int, body: str, content_type: str = "text/html", **headers: str) -> ScriptedResponse:
    """A non-streamed error answer: a proxy's HTML page, or the API's JSON error."""
    raw = body.encode()
    all_headers = {"content-type": [content_type], "content-length": [str(len(raw))], "server": ["cloudflare"]}
    all_headers.update({k.replace("_", "-"): [v] for k, v in headers.items()})
    return ScriptedResponse("claude-sonnet-5-5", status, all_headers, (), raw)
