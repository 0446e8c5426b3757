"""Red team: the set-up that finishes while the first request is out (``AgentSession.pending_setup``,
the sandbox's probe and self-test) against responses that try to get something run before it has
passed — retried responses, responses cut or failing after their first event, a set-up that hangs
or raises something that is not a run error. Each test here is a defence that holds."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.core.services import ServiceKey, Services
from bot.errors import RunError, first_error
from bot.testing.cassettes import HttpError, Text, ToolCall, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness

pytestmark = pytest.mark.anyio

PREPARED: ServiceKey[str] = ServiceKey("prepared-by-the-setup")
WRITE = ToolCall("Write", {"file_path": "out.txt", "content": "ran"})


class SetupFailed(RunError):
    pass


def _replay(*items: Any) -> PacedReplay:
    return PacedReplay.from_script([*items, Turn([Text("Done.")], first_token_s=0)], seed="redteam-setup")


@pytest.mark.parametrize(
    "before",
    [
        HttpError(529, "overloaded_error", "Overloaded", should_retry=True),
        Turn([WRITE], first_token_s=0, error_after_block=-1),
        Turn([WRITE], first_token_s=0, cut_after_block=-1),
    ],
    ids=["an overloaded answer, no event", "an error event after message_start", "a cut after message_start"],
)
async def test_a_failed_setup_stops_a_retried_first_turn_before_its_tool_calls(harness: Harness, before: Any) -> None:
    """The first attempt fails (before or after its first event) and is retried; the retry's
    response has a tool call. The set-up fails: nothing runs, and the run ends with its error."""
    model = _replay(before, Turn([WRITE], first_token_s=0))
    awaited: list[int] = []

    async def setup() -> Services:
        awaited.append(len(model.requests))
        raise SetupFailed("the sandbox self-test failed")

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    with pytest.raises(BaseExceptionGroup) as caught:
        await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert isinstance(first_error(caught.value), SetupFailed)
    assert not (harness.workspace / "out.txt").exists()
    assert awaited and len(model.requests) <= 2


async def test_a_setup_awaited_once_even_when_the_first_response_is_cut_and_retried(harness: Harness) -> None:
    """A passing set-up is awaited once (one self-test per run), its services reach the retried
    attempt's tool calls."""
    model = _replay(Turn([WRITE], first_token_s=0, cut_after_block=-1), Turn([WRITE], first_token_s=0))
    awaited: list[int] = []

    async def setup() -> Services:
        awaited.append(len(model.requests))
        return Services({PREPARED: "the sandbox"})

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    outcome = await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert outcome.stop.reason == "completed"
    assert awaited == [1]
    assert (harness.workspace / "out.txt").read_text() == "ran"


async def test_a_hanging_setup_lets_no_tool_run(harness: Harness) -> None:
    """The response (a tool call) is in; the set-up never ends: the call waits, however long."""
    model = _replay(Turn([WRITE], first_token_s=0))
    never = anyio.Event()

    async def setup() -> Services:
        await never.wait()
        return Services()

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    with anyio.move_on_after(1.0) as waited:
        await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert waited.cancelled_caught
    assert not (harness.workspace / "out.txt").exists()
    assert len(model.requests) == 1


@pytest.mark.parametrize("error", [OSError("bwrap vanished"), KeyError("a bug")], ids=["OSError", "KeyError"])
async def test_a_setup_that_raises_something_else_still_ends_the_run_before_any_tool(
    harness: Harness, error: Exception
) -> None:
    model = _replay(Turn([WRITE], first_token_s=0))

    async def setup() -> Services:
        raise error

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    with pytest.raises(BaseExceptionGroup) as caught:
        await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert first_error(caught.value) is error
    assert not (harness.workspace / "out.txt").exists()
    assert len(model.requests) == 1


async def test_a_slow_setup_still_runs_the_tool_calls_after_it_with_the_request_already_out(harness: Harness) -> None:
    """The response arrives long before the set-up ends: the tool call waits for it."""
    model = _replay(Turn([WRITE], first_token_s=0))
    order: list[str] = []

    async def setup() -> Services:
        await asyncio.sleep(0.3)
        order.append(f"set-up done, out.txt there: {(harness.workspace / 'out.txt').exists()}")
        return Services()

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    outcome = await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert outcome.stop.reason == "completed"
    assert order == ["set-up done, out.txt there: False"]
    assert (harness.workspace / "out.txt").exists()


async def test_a_run_stopped_by_a_limit_before_any_request_still_ends_with_the_setups_failure(
    harness: Harness,
) -> None:
    limits = RunLimits(max_budget_usd=0.0)
    model = _replay(Turn([WRITE], first_token_s=0))

    async def setup() -> Services:
        await asyncio.sleep(0.2)
        raise SetupFailed("the sandbox self-test failed")

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup, limits=limits)
    with pytest.raises(BaseExceptionGroup) as caught:
        await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert isinstance(first_error(caught.value), SetupFailed)
    assert model.requests == []


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
async def test_a_sub_agent_asked_for_in_the_first_response_starts_only_after_the_setup(
    harness: Harness, background: bool
) -> None:
    """The sub-agent is a tool call of the first response: with the set-up failed, it never starts
    (its request never leaves), in the foreground or the background."""
    call = ToolCall(
        "Agent",
        {"description": "Write a file", "prompt": "Write out.txt.", "run_in_background": background},
    )
    model = _replay(Turn([call], first_token_s=0))

    async def setup() -> Services:
        await asyncio.sleep(0.2)
        raise SetupFailed("the sandbox self-test failed")

    session = harness.session(allow=("Agent", "Write"), transport=model.transport(), pending_setup=setup)
    with pytest.raises(BaseExceptionGroup) as caught:
        await run_agent(AgentTask("Delegate."), session, harness.events)

    assert isinstance(first_error(caught.value), SetupFailed)
    assert len(model.requests) == 1  # the sub-agent's request never left
    assert not (harness.workspace / "out.txt").exists()
