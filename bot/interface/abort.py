"""An abort signal that can be awaited and chained (parent → child), like an AbortController.

Aborting a parent aborts every child; a child (a sub-agent's, or the sibling signal of a batch of
tool calls) can be aborted alone. Waiters are woken by an event, never by polling. The signal
holds no event loop state of its own (each waiter makes its event in its own loop), so one
context can serve several ``anyio.run`` calls.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio


class AbortSignal:
    def __init__(self, parent: AbortSignal | None = None) -> None:
        self._aborted = False
        self._reason: str | None = None
        self._children: list[AbortSignal] = []
        self._waiters: list[anyio.Event] = []
        self._callbacks: list[Callable[[], object]] = []
        if parent is not None:
            parent._children.append(self)
            if parent.aborted:
                self.abort(parent.reason or "aborted")

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> str | None:
        return self._reason

    def abort(self, reason: str = "aborted") -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        waiters, self._waiters = self._waiters, []
        for event in waiters:
            event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
        for child in self._children:
            child.abort(reason)

    def on_abort(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` (synchronously, once) when the signal aborts; returns an unregister
        function. Cheaper than a watcher task for cancelling a scope."""
        if self._aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def unregister() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unregister

    def child(self) -> AbortSignal:
        return AbortSignal(self)

    async def wait(self) -> str:
        if not self._aborted:
            event = anyio.Event()
            self._waiters.append(event)
            try:
                await event.wait()
            finally:
                if event in self._waiters:
                    self._waiters.remove(event)
        return self._reason or "aborted"
