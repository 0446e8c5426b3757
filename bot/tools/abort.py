"""An abort signal that can be awaited and chained (parent → child), like an AbortController.

Aborting a parent aborts every child; a child (a sub-agent's, or the sibling signal of a batch of
tool calls) can be aborted alone. Waiters are woken by an event, never by polling.
"""

from __future__ import annotations

import anyio


class AbortSignal:
    def __init__(self, parent: AbortSignal | None = None) -> None:
        self._event = anyio.Event()
        self._reason: str | None = None
        self._children: list[AbortSignal] = []
        if parent is not None:
            parent._children.append(self)
            if parent.aborted:
                self.abort(parent.reason or "aborted")

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> str | None:
        return self._reason

    def abort(self, reason: str = "aborted") -> None:
        if self._event.is_set():
            return
        self._reason = reason
        self._event.set()
        for child in self._children:
            child.abort(reason)

    def child(self) -> AbortSignal:
        return AbortSignal(self)

    async def wait(self) -> str:
        await self._event.wait()
        return self._reason or "aborted"
