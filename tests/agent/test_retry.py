from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.agent.model import ModelError, ModelRetriesExhausted
from bot.agent.retry import RetryNotice, RetryPolicy
from tests.agent.conftest import NoSleep

pytestmark = pytest.mark.anyio


def overloaded(retry_after: float | None = None) -> ModelError:
    return ModelError("overloaded", "Overloaded", retryable=True, status=529, retry_after_s=retry_after)


@pytest.mark.parametrize(
    ("case", "attempt", "error", "low", "high"),
    [
        ("first back-off", 1, overloaded(), 1.0, 1.25),
        ("doubles", 3, overloaded(), 4.0, 5.0),
        ("capped", 10, overloaded(), 32.0, 40.0),
        ("retry-after wins", 3, overloaded(retry_after=7), 7.0, 7.0),
        ("retry-after of zero is honoured", 1, overloaded(retry_after=0), 0.0, 0.0),
    ],
)
def test_the_wait_before_a_retry(case: str, attempt: int, error: ModelError, low: float, high: float) -> None:
    assert low <= RetryPolicy().delay(attempt, error) <= high, case


async def test_a_retryable_error_is_retried_until_it_succeeds_and_each_retry_is_told() -> None:
    sleep, notices, calls = NoSleep(), list[RetryNotice](), [0]

    async def flaky() -> str:
        calls[0] += 1
        if calls[0] < 3:
            raise overloaded(retry_after=1)
        return "ok"

    result = None
    async for attempt in RetryPolicy(sleep=sleep).retrying(notices.append):
        with attempt:
            result = await flaky()
    assert result == "ok" and calls[0] == 3
    assert [n.attempt for n in notices] == [1, 2] and sleep.delays == [1.0, 1.0]


async def always_failing(
    policy: RetryPolicy, error: ModelError, calls: list[int], time_left: Callable[[], float | None] = lambda: None
) -> None:
    async for attempt in policy.retrying(time_left=time_left):
        with attempt:
            calls.append(1)
            raise error


async def test_a_non_retryable_error_is_raised_at_once() -> None:
    calls: list[int] = []
    with pytest.raises(ModelError, match="bad request"):
        await always_failing(
            RetryPolicy(sleep=NoSleep()),
            ModelError("invalid_request", "bad request", retryable=False, status=400),
            calls,
        )
    assert len(calls) == 1


async def test_giving_up_says_how_many_attempts_and_the_last_error() -> None:
    with pytest.raises(ModelRetriesExhausted) as info:
        await always_failing(RetryPolicy(max_attempts=3, sleep=NoSleep()), overloaded(), [])
    assert info.value.attempts == 3 and info.value.last.kind == "overloaded"
    assert "failed 3 times" in str(info.value)


async def test_a_retry_that_would_wait_past_the_deadline_is_not_attempted() -> None:
    sleep = NoSleep()
    with pytest.raises(ModelRetriesExhausted) as info:
        await always_failing(RetryPolicy(sleep=sleep), overloaded(retry_after=30), [], time_left=lambda: 5.0)
    assert info.value.attempts == 1 and sleep.delays == []
