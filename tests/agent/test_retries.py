"""A cut stream, an overload mid-stream and a 529 are retried as whole turns; other errors are not."""

from __future__ import annotations

import re

import pytest

from bot.agent.events import ModelRetrying
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.agent.retry import RetryPolicy
from bot.testing.cassettes import HttpError, Text, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness
from tests.agent.wire import error_page
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


async def test_the_outcome_counts_the_retries(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    outcome, _ = await harness.run("retries", harness.session(allow=("Read",)))

    assert outcome.model_retries == 3


# A CDN's error page, as Cloudflare serves one when the origin does not answer (trimmed styles).
CDN_502 = """<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US">
<head>
<title>api.anthropic.com | 502: Bad gateway</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<style>body{margin:0;padding:0}#cf-wrapper .cf-error-overview{padding:2rem}</style>
</head>
<body>
<div id="cf-wrapper">
  <div id="cf-error-details" class="p-0">
    <header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
      <h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
        <span class="inline-block">Bad gateway</span>
        <span class="code-label">Error code 502</span>
      </h1>
    </header>
    <p>The web server reported a bad gateway error.</p>
    <span class="cf-footer-item">Cloudflare Ray ID: <strong class="font-semibold">8f1a2b3c4d5e6f70</strong></span>
  </div>
</div>
</body>
</html>
"""


async def test_a_proxy_html_error_page_is_reduced_to_its_status_and_a_one_line_reason(harness: Harness) -> None:
    model = PacedReplay([error_page(502, CDN_502, "text/html; charset=UTF-8"), error_page(502, CDN_502)])
    session = harness.session(transport=model.transport(), retry=RetryPolicy(max_attempts=2, sleep=harness.sleep))

    outcome = await run_agent(AgentTask("Say done."), session, harness.events)

    assert outcome.stop.reason == "error"
    detail = outcome.stop.detail
    assert "\n" not in detail and "<" not in detail and len(detail) < 300, detail
    assert "(HTTP 502)" in detail and "api.anthropic.com | 502: Bad gateway" in detail and "cloudflare" in detail
    assert "<" not in harness.events.of(ModelRetrying)[0].reason


async def test_a_retry_after_longer_than_the_time_left_says_that_is_why_it_gave_up(harness: Harness) -> None:
    model = PacedReplay.from_script(
        [HttpError(529, "overloaded_error", "Overloaded", retry_after=120), Turn([Text("Done.")], first_token_s=0)]
    )
    session = harness.session(transport=model.transport(), limits=RunLimits(wall_time_s=60))

    outcome = await run_agent(AgentTask("Say done."), session, harness.events)

    assert outcome.stop.reason == "error" and len(model.requests) == 1
    assert outcome.stop.detail.startswith("the model API failed once; last error: overloaded (HTTP 529)")
    assert re.search(
        r"gave up because the API asked to wait 120 s .* only \d+ s of the run's wall time", outcome.stop.detail
    )
    assert harness.sleep.delays == []  # it did not wait for a retry that could not happen
