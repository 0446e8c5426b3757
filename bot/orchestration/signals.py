"""Cancellation: SIGTERM (a cancelled workflow run) and SIGINT abort the run cleanly.

The abort signal stops the loop and the running tools; the caller then commits and pushes what
the workspace holds and says in the comment that the run was cancelled. GitHub gives a cancelled
job a few seconds between SIGINT/SIGTERM and SIGKILL, so the first signal must be enough.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from bot.interface.abort import AbortSignal

SIGNALS = (signal.SIGTERM, signal.SIGINT)


@asynccontextmanager
async def cancel_on_signals(abort: AbortSignal) -> AsyncIterator[None]:
    async def watch() -> None:
        with anyio.open_signal_receiver(*SIGNALS) as received:
            async for number in received:
                abort.abort(f"cancelled by {signal.Signals(number).name}")

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The watcher never fails: an error here is the body's own. Re-raise it as it was raised,
        # so callers catch our errors by their type, not inside a group.
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
