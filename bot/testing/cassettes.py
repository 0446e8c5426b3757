"""Author model cassettes from a compact script of turns, in the Messages API's exact wire format.

A script is a list of :class:`Turn` (one streamed response) and :class:`HttpError` (a failed
request: 429, 529, 5xx) in the order the client will make requests. Each turn becomes a
``text/event-stream`` body as the API sends it: ``message_start`` with input-side usage, a ``ping``,
``content_block_start`` / ``content_block_delta`` / ``content_block_stop`` with ``index`` fields —
text in word-sized ``text_delta`` chunks, tool input as ``input_json_delta`` chunks split at odd
places (starting with the API's empty first chunk) — then ``message_delta`` with the stop reason
and cumulative usage, and ``message_stop``. Responses carry the API's headers (``request-id``,
rate-limit headers, ``x-should-retry`` on errors). Ids are deterministic for a seed.

The output is a vcrpy cassette (``interactions``: request, response with status, headers and the
body string), replayed with ``match_on=["method", "path"]`` so the real SDK parses real bytes.
The same events, with times, feed the paced replay of :mod:`bot.testing.replay`.

Failure shapes: ``Turn(cut_after_block=i)`` drops the connection after block ``i`` is complete, in
the middle of the next event; ``Turn(error_after_block=i)`` sends an ``event: error``
(``overloaded_error``) there instead, as the API does when it overloads mid-stream.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DEFAULT_MODEL = "claude-sonnet-5-5"
API_URL = "https://api.anthropic.com/v1/messages"
#: Seconds between the request and ``message_start`` in paced replays (time to first token).
DEFAULT_FIRST_TOKEN_S = 0.4
_BASE62 = string.digits + string.ascii_letters


@dataclass(frozen=True, slots=True)
class Text:
    text: str
    #: How long the model takes to write it (paced replay only).
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    input: Mapping[str, Any]
    id: str | None = None
    seconds: float = 0.0
    #: Send only this many characters of the input JSON (a response cut by ``max_tokens``).
    cut_json: int | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 1_200
    output_tokens: int = 150
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Turn:
    blocks: Sequence[Text | ToolCall]
    #: ``None``: ``tool_use`` when the turn calls a tool, else ``end_turn``.
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = DEFAULT_MODEL
    #: Drop the connection right after this block's ``content_block_stop``, the next event half-sent
    #: (``-1``: right after ``message_start``): a stream cut.
    cut_after_block: int | None = None
    #: Send an ``overloaded_error`` event right after this block's ``content_block_stop`` instead of
    #: the rest of the response (``-1``: right after ``message_start``).
    error_after_block: int | None = None
    first_token_s: float = DEFAULT_FIRST_TOKEN_S


@dataclass(frozen=True, slots=True)
class HttpError:
    status: int = 529
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    retry_after: float | None = None
    should_retry: bool | None = True
    #: The model the failed request was for (cassettes can be matched on it).
    model: str = DEFAULT_MODEL


ScriptItem = Turn | HttpError


@dataclass(frozen=True, slots=True)
class SseEvent:
    name: str
    data: dict[str, Any]
    #: Seconds after the request when a paced replay releases it.
    at_s: float = 0.0

    def encode(self) -> bytes:
        data = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return f"event: {self.name}\ndata: {data}\n\n".encode()


class Ids:
    """Deterministic API-looking ids (``msg_01…``, ``toolu_01…``, ``req_011C…``)."""

    def __init__(self, seed: str | int) -> None:
        self._rng = random.Random(f"ids:{seed}")

    def _chars(self, n: int) -> str:
        return "".join(self._rng.choice(_BASE62) for _ in range(n))

    def message(self) -> str:
        return "msg_01" + self._chars(22)

    def tool_use(self) -> str:
        return "toolu_01" + self._chars(22)

    def request(self) -> str:
        return "req_011C" + self._chars(20)


# ----- one turn as events ------------------------------------------------------------------------


def split_json(text: str, rng: random.Random) -> list[str]:
    """Tool input JSON in chunks of 1–12 characters: mid-key, mid-value, between a quote and its
    colon — never inside a ``\\uXXXX`` or two-character escape."""
    chunks: list[str] = []
    i = 0
    while i < len(text):
        end = min(len(text), i + rng.randint(1, 12))
        while end < len(text) and _inside_escape(text, end):
            end += 1
        chunks.append(text[i:end])
        i = end
    return chunks


def _inside_escape(text: str, pos: int) -> bool:
    """Would cutting before ``text[pos]`` split an escape sequence?"""
    start = max(0, pos - 6)
    for j in range(start, pos):
        if text[j] == "\\" and not _escaped(text, j):
            length = 6 if j + 1 < len(text) and text[j + 1] == "u" else 2
            if j < pos < j + length:
                return True
    return False


def _escaped(text: str, j: int) -> bool:
    backslashes = 0
    while j > 0 and text[j - 1] == "\\":
        backslashes += 1
        j -= 1
    return backslashes % 2 == 1


def split_text(text: str, rng: random.Random) -> list[str]:
    """Text in chunks of one to three words, as tokens arrive."""
    words = text.split(" ")
    chunks: list[str] = []
    i = 0
    while i < len(words):
        n = rng.randint(1, 3)
        piece = " ".join(words[i : i + n])
        chunks.append(piece if i == 0 else " " + piece)
        i += n
    return [c for c in chunks if c] or [text]


def turn_events(turn: Turn, ids: Ids, rng: random.Random) -> list[SseEvent]:
    """The events of one streamed response, with their release times."""
    u = turn.usage
    input_side = {
        "input_tokens": u.input_tokens,
        "cache_creation_input_tokens": u.cache_creation_input_tokens,
        "cache_read_input_tokens": u.cache_read_input_tokens,
    }
    t = turn.first_token_s
    events = [
        SseEvent(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "model": turn.model,
                    "id": ids.message(),
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        **input_side,
                        "cache_creation": {
                            "ephemeral_5m_input_tokens": u.cache_creation_input_tokens,
                            "ephemeral_1h_input_tokens": 0,
                        },
                        "output_tokens": 1,
                        "service_tier": "standard",
                    },
                },
            },
            t,
        )
    ]
    calls_tool = False
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            start: dict[str, Any] = {"type": "text", "text": ""}
            pieces = [{"type": "text_delta", "text": c} for c in split_text(block.text, rng)]
        else:
            calls_tool = True
            start = {"type": "tool_use", "id": block.id or ids.tool_use(), "name": block.name, "input": {}}
            raw = json.dumps(dict(block.input), ensure_ascii=False)[: block.cut_json]
            pieces = [{"type": "input_json_delta", "partial_json": c} for c in ["", *split_json(raw, rng)]]
        events.append(
            SseEvent("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}, t)
        )
        if index == 0:
            events.append(SseEvent("ping", {"type": "ping"}, t))
        step = block.seconds / len(pieces)
        for piece in pieces:
            t += step
            events.append(
                SseEvent("content_block_delta", {"type": "content_block_delta", "index": index, "delta": piece}, t)
            )
        events.append(SseEvent("content_block_stop", {"type": "content_block_stop", "index": index}, t))
    stop = turn.stop_reason or ("tool_use" if calls_tool else "end_turn")
    events.append(
        SseEvent(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {**input_side, "output_tokens": u.output_tokens},
            },
            t,
        )
    )
    events.append(SseEvent("message_stop", {"type": "message_stop"}, t))
    if turn.error_after_block is not None:
        keep = _events_through_block(events, turn.error_after_block)
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        events = [*events[:keep], SseEvent("error", error, events[keep - 1].at_s)]
    return events


def _events_through_block(events: Sequence[SseEvent], index: int) -> int:
    """How many events there are up to and including block ``index``'s stop (-1: ``message_start``)."""
    if index < 0:
        return 1
    for n, event in enumerate(events, start=1):
        if event.name == "content_block_stop" and event.data["index"] == index:
            return n
    raise ValueError(f"the turn has no block {index}")


def stream_body(events: Sequence[SseEvent], cut_after: int | None = None) -> bytes:
    if cut_after is None:
        return b"".join(e.encode() for e in events)
    kept = b"".join(e.encode() for e in events[:cut_after])
    half = events[cut_after].encode() if cut_after < len(events) else b""
    return kept + half[: len(half) // 2]


# ----- responses and cassettes -------------------------------------------------------------------

_DATE = "Mon, 30 Nov 2026 09:12:44 GMT"


def stream_headers(request_id: str) -> dict[str, list[str]]:
    return {
        "date": [_DATE],
        "content-type": ["text/event-stream; charset=utf-8"],
        "transfer-encoding": ["chunked"],
        "connection": ["keep-alive"],
        "cache-control": ["no-cache"],
        "anthropic-ratelimit-requests-limit": ["4000"],
        "anthropic-ratelimit-requests-remaining": ["3999"],
        "anthropic-ratelimit-requests-reset": ["2026-11-30T09:12:43Z"],
        "anthropic-ratelimit-input-tokens-limit": ["2000000"],
        "anthropic-ratelimit-input-tokens-remaining": ["1998000"],
        "anthropic-ratelimit-output-tokens-limit": ["400000"],
        "anthropic-ratelimit-output-tokens-remaining": ["400000"],
        "request-id": [request_id],
        "strict-transport-security": ["max-age=31536000; includeSubDomains; preload"],
        "anthropic-organization-id": ["6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],
        "via": ["1.1 google"],
        "cf-cache-status": ["DYNAMIC"],
        "x-robots-tag": ["none"],
        "server": ["cloudflare"],
        "cf-ray": ["9a1b2c3d4e5f6a7b-SJC"],
    }


def error_response(error: HttpError, request_id: str) -> tuple[dict[str, list[str]], bytes]:
    body = json.dumps(
        {"type": "error", "error": {"type": error.error_type, "message": error.message}, "request_id": request_id},
        separators=(",", ":"),
    ).encode()
    headers = {
        "date": [_DATE],
        "content-type": ["application/json"],
        "content-length": [str(len(body))],
        "connection": ["keep-alive"],
        "request-id": [request_id],
        "anthropic-organization-id": ["6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],
        "via": ["1.1 google"],
        "server": ["cloudflare"],
        "cf-ray": ["9a1b2c3d4e5f6a7c-SJC"],
    }
    if error.should_retry is not None:
        headers["x-should-retry"] = ["true" if error.should_retry else "false"]
    if error.retry_after is not None:
        headers["retry-after"] = [f"{error.retry_after:g}"]
    if error.status == 429:
        headers["anthropic-ratelimit-requests-remaining"] = ["0"]
    return headers, body


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "",
}


@dataclass(frozen=True, slots=True)
class ScriptedResponse:
    model: str
    status: int
    headers: dict[str, list[str]]
    events: tuple[SseEvent, ...]
    body: bytes
    #: The connection drops after this many events, the next one half-sent.
    cut_at: int | None = None


def script_responses(script: Sequence[ScriptItem], seed: str | int = 0) -> list[ScriptedResponse]:
    ids = Ids(seed)
    rng = random.Random(f"split:{seed}")
    out: list[ScriptedResponse] = []
    for item in script:
        request_id = ids.request()
        if isinstance(item, HttpError):
            headers, body = error_response(item, request_id)
            out.append(ScriptedResponse(item.model, item.status, headers, (), body))
        else:
            events = turn_events(item, ids, rng)
            cut = None if item.cut_after_block is None else _events_through_block(events, item.cut_after_block)
            out.append(
                ScriptedResponse(
                    item.model, 200, stream_headers(request_id), tuple(events), stream_body(events, cut), cut
                )
            )
    return out


def build_cassette(
    script: Sequence[ScriptItem], seed: str | int = 0, url: str = API_URL, prompt: str | None = None
) -> dict[str, Any]:
    """A vcrpy cassette (as a dict) for a script. The recorded request bodies hold only the model and
    ``stream``: enough to match concurrent agents' requests by model (:func:`bot.testing.model.use_cassette`);
    with ``prompt``, the first also holds it as its user message, so a replay with another prompt can say so."""
    interactions = []
    for n, response in enumerate(script_responses(script, seed)):
        recorded: dict[str, Any] = {"model": response.model, "stream": True}
        if prompt is not None and n == 0:
            recorded["messages"] = [{"role": "user", "content": prompt}]
        request_body = json.dumps(recorded)
        interactions.append(
            {
                "request": {
                    "body": request_body,
                    "headers": {"content-type": ["application/json"]},
                    "method": "POST",
                    "uri": url,
                },
                "response": {
                    "status": {"code": response.status, "message": _REASONS.get(response.status, "")},
                    "headers": response.headers,
                    "body": {"string": response.body.decode("utf-8")},
                },
            }
        )
    return {"interactions": interactions, "version": 1}


class _ReadableDumper(yaml.SafeDumper):
    """Multi-line strings (stream bodies) as literal blocks: one SSE line per YAML line."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_ReadableDumper.add_representer(str, _str)


def cassette_yaml(script: Sequence[ScriptItem], seed: str | int = 0, prompt: str | None = None) -> str:
    header = "# Authored with bot.testing.cassettes from a script of turns; regenerate it, do not edit it.\n"
    body = yaml.dump(
        build_cassette(script, seed, prompt=prompt),
        Dumper=_ReadableDumper,
        sort_keys=False,
        allow_unicode=True,
        width=1000,
    )
    return header + body


def write_cassette(path: Path, script: Sequence[ScriptItem], seed: str | int = 0, prompt: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(cassette_yaml(script, seed, prompt), encoding="utf-8")
    return path
