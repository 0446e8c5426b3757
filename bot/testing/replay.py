"""Transports for testing and benchmarking the model client without a network.

* :class:`PacedReplay` — an ``httpx2.MockTransport`` handler that answers each request with the next
  scripted response and releases every SSE event at its recorded offset from the request, so a
  5-second stream takes 5 seconds and tools can overlap it as they would in production (vcrpy
  cannot do this: it serves a recorded body at once).
* :class:`CapturingTransport` — wraps another transport and keeps the bytes of every request body
  (to check the prompt-cache prefix on the wire); wrap ``httpx2.AsyncHTTPTransport()`` under vcrpy.

Both plug into the client with ``make_model_client(config, http_client=httpx2.AsyncClient(transport=...))``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio
import httpx2

from bot.testing.cassettes import ScriptedResponse, ScriptItem, script_responses


class _PacedStream(httpx2.AsyncByteStream):
    def __init__(
        self,
        chunks: Sequence[tuple[float, bytes]],
        start: float,
        clock: Callable[[], float],
        done: Callable[[float], None],
    ) -> None:
        self._chunks = chunks
        self._start = start
        self._clock = clock
        self._done = done

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for at_s, data in self._chunks:
            delay = self._start + at_s - self._clock()
            if delay > 0:
                await anyio.sleep(delay)
            yield data
        self._done(self._clock())


class PacedReplay:
    """Serve scripted responses in order, each event at its time. Extra requests get a 500."""

    def __init__(
        self,
        responses: Sequence[ScriptedResponse],
        *,
        speed: float = 1.0,
        clock: Callable[[], float] = anyio.current_time,
    ) -> None:
        self._responses = list(responses)
        self._speed = speed
        self._clock = clock
        self.requests: list[bytes] = []
        #: When each request arrived, and when each streamed body's last byte was sent, on the clock.
        self.served_at: list[float] = []
        self.finished_at: list[float] = []

    @classmethod
    def from_script(cls, script: Sequence[ScriptItem], seed: str | int = 0, **kwargs: Any) -> PacedReplay:
        return cls(script_responses(script, seed), **kwargs)

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handle)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=self.transport())

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(await request.aread())
        start = self._clock()
        self.served_at.append(start)
        if len(self.requests) > len(self._responses):
            return httpx2.Response(
                500, json={"type": "error", "error": {"type": "api_error", "message": "no scripted response left"}}
            )
        response = self._responses[len(self.requests) - 1]
        headers = [(k, v) for k, values in response.headers.items() for v in values if k != "transfer-encoding"]
        if not response.events:
            return httpx2.Response(response.status, headers=headers, content=response.body)
        chunks = [(e.at_s / self._speed, e.encode()) for e in response.events]
        if response.cut_at is not None:
            half = chunks[response.cut_at][1] if response.cut_at < len(chunks) else b""
            chunks = [*chunks[: response.cut_at], (chunks[response.cut_at - 1][0], half[: len(half) // 2])]
        stream = _PacedStream(chunks, start, self._clock, self.finished_at.append)
        return httpx2.Response(response.status, headers=headers, stream=stream)

    def request_json(self, index: int) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.requests[index])
        return body


class CapturingTransport(httpx2.AsyncBaseTransport):
    """Keeps every request body, then lets ``inner`` answer (vcrpy patches ``AsyncHTTPTransport``)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx2.AsyncHTTPTransport()
        self.requests: list[bytes] = []
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(await request.aread())
        self.paths.append(request.url.path)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def request_json(self, index: int) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.requests[index])
        return body
