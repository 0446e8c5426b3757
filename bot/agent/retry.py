"""The one retry policy for model calls (tenacity), applied to a whole turn attempt.

Retried: whatever :class:`~bot.agent.model.ModelError` marks ``retryable`` — 429, 529 and other
5xx, 408/409, connection failures, an ``overloaded_error`` event mid-stream, and a stream cut before
``message_stop`` (the whole turn is retried; the tools the cut attempt had started are aborted by
the loop). The wait honours the server's ``retry-after``; otherwise it backs off exponentially with
jitter. Attempts are bounded, and a retry never sleeps past the run's wall-time deadline. When the
policy gives up, :class:`~bot.agent.model.ModelRetriesExhausted` says how often and why.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

import anyio
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base

from bot.agent.model import ModelError, ModelRetriesExhausted
from bot.interface.abort import AbortSignal

_T = TypeVar("_T")

#: Attempts per turn, the first included (the SDK's default is 3; overloads can last a minute).
MAX_MODEL_ATTEMPTS = 6
#: Exponential back-off without ``retry-after``: 1, 2, 4, 8, 16 s (+ up to 25 % jitter), capped.
BASE_DELAY_S = 1.0
MAX_DELAY_S = 32.0
JITTER_FRACTION = 0.25


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """Told to the loop before each sleep: which attempt failed, why, and how long we wait."""

    attempt: int
    error: ModelError
    delay_s: float


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = MAX_MODEL_ATTEMPTS
    base_delay_s: float = BASE_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    jitter: float = JITTER_FRACTION
    #: Injected so tests never sleep; ``anyio.sleep`` otherwise.
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep)

    def delay(self, attempt: int, error: BaseException | None) -> float:
        """The wait after failed attempt ``attempt`` (1-based)."""
        if isinstance(error, ModelError) and error.retry_after_s is not None:
            return float(error.retry_after_s)
        backoff = min(self.base_delay_s * 2.0 ** (attempt - 1), self.max_delay_s)
        return backoff * (1 + random.uniform(0, self.jitter))

    def retrying(
        self,
        on_retry: Callable[[RetryNotice], None] = lambda _: None,
        time_left: Callable[[], float | None] = lambda: None,
    ) -> AsyncRetrying:
        """``async for attempt in policy.retrying(...): with attempt: ...``"""

        def wait(state: RetryCallState) -> float:
            return self.delay(state.attempt_number, _exception(state))

        def before_sleep(state: RetryCallState) -> None:
            error = _exception(state)
            assert isinstance(error, ModelError)
            sleep = state.next_action.sleep if state.next_action is not None else 0.0
            on_retry(RetryNotice(state.attempt_number, error, float(sleep)))

        def give_up(state: RetryCallState) -> None:
            error = _exception(state)
            assert isinstance(error, ModelError)
            raise ModelRetriesExhausted(state.attempt_number, error, _why_given_up(error, time_left())) from error

        return AsyncRetrying(
            sleep=self.sleep,
            stop=stop_after_attempt(self.max_attempts) | _StopPastDeadline(self, time_left),
            wait=wait,
            retry=retry_if_exception(lambda e: isinstance(e, ModelError) and e.retryable),
            before_sleep=before_sleep,
            retry_error_callback=give_up,
        )


async def run_retried(
    policy: RetryPolicy,
    attempt: Callable[[], Awaitable[_T]],
    *,
    on_retry: Callable[[RetryNotice], None],
    abort: AbortSignal,
    time_left: Callable[[], float | None],
) -> tuple[_T | None, int, ModelRetriesExhausted | ModelError | None]:
    """``attempt`` under ``policy``: (its result, the attempts made, the error that ended them).
    The wait between attempts is cut short by ``abort`` (the next attempt then sees it at once)."""

    async def abortable_sleep(seconds: float) -> None:
        async with anyio.create_task_group() as tg:

            async def sleep() -> None:
                await policy.sleep(seconds)
                tg.cancel_scope.cancel()

            async def watch() -> None:
                await abort.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(sleep)
            tg.start_soon(watch)

    attempts = 0
    result: _T | None = None
    try:
        async for retrying in replace(policy, sleep=abortable_sleep).retrying(on_retry, time_left):
            with retrying:
                attempts += 1
                result = await attempt()
    except (ModelRetriesExhausted, ModelError) as exc:
        return None, attempts, exc
    return result, attempts, None


def _why_given_up(error: ModelError, left: float | None) -> str | None:
    """Why no further attempt was made, when it was not the attempt limit: the wait the server asked
    for does not fit in what is left of the run's wall time."""
    wait = error.retry_after_s
    if left is None or wait is None or wait < left:
        return None
    return (
        f"the API asked to wait {wait:g} s before retrying, and only {max(0.0, left):.0f} s "
        "of the run's wall time were left"
    )


class _StopPastDeadline(stop_base):
    """Give up when the next wait would end after the run's wall-time deadline."""

    def __init__(self, policy: RetryPolicy, time_left: Callable[[], float | None]) -> None:
        self._policy = policy
        self._time_left = time_left

    def __call__(self, retry_state: RetryCallState) -> bool:
        left = self._time_left()
        if left is None:
            return False
        error = _exception(retry_state)
        wait = error.retry_after_s if isinstance(error, ModelError) and error.retry_after_s is not None else 0.0
        return wait >= left


def _exception(state: RetryCallState) -> BaseException | None:
    return state.outcome.exception() if state.outcome is not None else None
