"""A cut stream, an overload mid-stream and a 529 are retried as whole turns; other errors are not."""

from __future__ import annotations

import pytest

from bot.agent.events import ModelRetrying
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.agent.retry import RetryPolicy
from bot.testing.cassettes import HttpError, Text, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness
from tests.cassettes.scripts import CALC_BUGGY

pytestmark = pytest.mark.anyio


async def test_a_cut_stream_an_overload_event_and_a_529_are_retried_and_the_turn_completes(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    outcome, cassette = await harness.run("retries", harness.session(allow=("Read",)))

    assert outcome.stop.reason == "completed"
    assert cassette.all_played
    assert outcome.final_text == "calc.py defines `add`, which subtracts."
    assert [t.attempts for t in outcome.turns] == [4, 1]
    retries = harness.events.of(ModelRetrying)
    assert [r.reason.split(":")[0] for r in retries] == ["stream_cut", "overloaded", "overloaded (HTTP 529)"]
    assert "request-id req_" in retries[2].reason


async def test_the_wait_honours_retry_after_and_backs_off_otherwise(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    await harness.run("retries", harness.session(allow=("Read",)))

    first, second, third = harness.sleep.delays
    assert 1.0 <= first <= 1.25 and 2.0 <= second <= 2.5  # exponential back-off with jitter
    assert third == 2.0  # the 529's retry-after


async def test_tools_started_by_a_failed_attempt_are_logged_as_discarded(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    outcome, _ = await harness.run("retries", harness.session(allow=("Read",)))

    reads = [(c.turn, c.discarded) for c in outcome.tool_calls if c.record.tool_name == "Read"]
    assert reads == [(1, True), (1, False)]
    # The conversation has the successful attempt only: one Read result.
    assert sum(1 for b in outcome.messages[2]["content"] if b["type"] == "tool_result") == 1


async def test_failed_attempts_still_count_their_billed_input(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    outcome, _ = await harness.run("retries", harness.session(allow=("Read",)))

    # message_start of the cut and of the overloaded attempt, then the good attempt (the 529 billed nothing).
    assert outcome.turns[0].usage.input_tokens == 3 * 3_000


async def test_when_every_attempt_fails_the_run_stops_with_an_error_that_says_why(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    session = harness.session(allow=("Read",), retry=RetryPolicy(max_attempts=2, sleep=harness.sleep))

    outcome, _ = await harness.run("retries", session)

    assert outcome.stop.reason == "error"
    assert outcome.stop.detail.startswith("the model API failed 2 times; last error: overloaded")
    assert outcome.turns[0].attempts == 2


@pytest.mark.parametrize(
    ("case", "error", "retried"),
    [
        (
            "a bad request is our fault",
            HttpError(400, "invalid_request_error", "prompt is too long", should_retry=None),
            False,
        ),
        (
            "a bad key is the operator's to fix",
            HttpError(401, "authentication_error", "invalid x-api-key", should_retry=None),
            False,
        ),
        ("the server may veto a retry", HttpError(529, should_retry=False), False),
        (
            "a rate limit is retried",
            HttpError(429, "rate_limit_error", "rate limited", retry_after=0, should_retry=None),
            True,
        ),
        ("a 500 is retried", HttpError(500, "api_error", "Internal server error", should_retry=None), True),
    ],
)
async def test_which_http_errors_are_retried(harness: Harness, case: str, error: HttpError, retried: bool) -> None:
    replay = PacedReplay.from_script([error, Turn([Text("Done.")], first_token_s=0)])
    session = harness.session(transport=replay.transport())

    outcome = await run_agent(AgentTask("Say done."), session, harness.events)

    assert (outcome.stop.reason == "completed") is retried, case
    if not retried:
        assert outcome.stop.reason == "error" and error.message in outcome.stop.detail
        assert len(replay.requests) == 1
