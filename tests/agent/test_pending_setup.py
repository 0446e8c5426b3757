"""Set-up that finishes while the first request is out (``AgentSession.pending_setup``: a run's
sandbox self-test). The request does not wait for it; nothing the model asked for runs, no hook
runs and no run ends until it has passed, and what it raises ends the run."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bot.agent.lifecycle import NO_LIFECYCLE_OUTCOME, LifecycleOutcome, NoLifecycleHooks, SessionInfo
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.core.services import ServiceKey, Services
from bot.errors import RunError, first_error
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.testing.cassettes import HttpError, Text, ToolCall, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness

pytestmark = pytest.mark.anyio

PREPARED: ServiceKey[str] = ServiceKey("prepared-by-the-setup")


class ProbeInput(ToolInput):
    pass


class ProbeTool(Tool[ProbeInput, str]):
    """Says what the set-up left in the call's context."""

    name = "Probe"
    input_model = ProbeInput

    def is_read_only(self, input: ProbeInput) -> bool:
        return True

    async def call(self, input: ProbeInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        return ToolResult(f"prepared: {context.services.get(PREPARED)}")


class SetupFailed(RunError):
    pass


def _replay(*turns: Any) -> PacedReplay:
    return PacedReplay.from_script([*turns, Turn([Text("Done.")], first_token_s=0)], seed="setup")


async def test_the_first_request_leaves_before_the_setup_and_the_tools_run_after_it_with_its_services(
    harness: Harness,
) -> None:
    model = _replay(Turn([ToolCall("Probe", {})], first_token_s=0))
    requests_when_awaited: list[int] = []

    async def setup() -> Services:
        requests_when_awaited.append(len(model.requests))
        return Services({PREPARED: "the sandbox"})

    session = harness.session(
        allow=("Probe",), extra_tools=(ProbeTool(),), transport=model.transport(), pending_setup=setup
    )
    outcome = await run_agent(AgentTask("Probe."), session, harness.events)

    assert outcome.stop.reason == "completed"
    assert requests_when_awaited == [1]  # once, with the first request already out
    [result] = model.request_json(1)["messages"][-1]["content"]
    assert "prepared: the sandbox" in str(result["content"])


@pytest.mark.parametrize(
    "reply",
    [
        Turn([ToolCall("Write", {"file_path": "out.txt", "content": "ran"})], first_token_s=0),
        Turn([Text("Nothing to do.")], first_token_s=0),
        HttpError(400, "invalid_request_error", "messages: at least one message is required", should_retry=False),
    ],
    ids=["a tool call", "a final answer", "a failed request"],
)
async def test_a_failed_setup_ends_the_run_before_anything_runs_whatever_the_first_response(
    harness: Harness, reply: Any
) -> None:
    model = _replay(reply)

    async def setup() -> Services:
        raise SetupFailed("the sandbox self-test failed")

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    with pytest.raises(BaseExceptionGroup) as caught:  # out of the run's task groups
        await run_agent(AgentTask("Write out.txt."), session, harness.events)

    assert isinstance(first_error(caught.value), SetupFailed)
    assert len(model.requests) == 1
    assert not (harness.workspace / "out.txt").exists()


class RecordingLifecycle(NoLifecycleHooks):
    def __init__(self, order: list[str], model: PacedReplay) -> None:
        self.order = order
        self.model = model

    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome:
        self.order.append(f"SessionStart hook, {len(self.model.requests)} requests out")
        return NO_LIFECYCLE_OUTCOME


async def test_with_lifecycle_hooks_the_setup_passes_before_the_first_hook_runs(harness: Harness) -> None:
    model = _replay()
    order: list[str] = []

    async def setup() -> Services:
        order.append("set-up")
        return Services()

    session = harness.session(
        transport=model.transport(), pending_setup=setup, lifecycle=RecordingLifecycle(order, model)
    )
    outcome = await run_agent(AgentTask("Say done."), session, harness.events)

    assert outcome.stop.reason == "completed"
    assert order == ["set-up", "SessionStart hook, 0 requests out"]


async def test_a_run_aborted_while_it_waits_for_the_setup_still_ends_with_the_setups_failure(
    harness: Harness,
) -> None:
    """The abort (the wall-time limit, a signal) cuts the wait at the first response short; the
    run's end takes it up again, so it neither ends before the set-up nor hides its failure."""
    import asyncio

    from bot.orchestration.session import PendingSandbox

    model = _replay(Turn([ToolCall("Write", {"file_path": "out.txt", "content": "ran"})], first_token_s=0))
    waiting = anyio.Event()
    finished: list[str] = []
    boxes: list[Any] = []

    async def slow_test() -> object:
        await waiting.wait()
        boxes[0].context.abort.abort("the run's wall-time limit was reached")
        await asyncio.sleep(0.2)
        finished.append("self-test")
        raise SetupFailed("the sandbox self-test failed")

    pending = PendingSandbox(slow_test, [], lambda warning: None)

    async def setup() -> Services:
        waiting.set()
        return await pending()

    session = harness.session(allow=("Write",), transport=model.transport(), pending_setup=setup)
    boxes.append(session)
    try:
        with pytest.raises(BaseExceptionGroup) as caught:
            await run_agent(AgentTask("Write out.txt."), session, harness.events)
    finally:
        await pending.close()
    assert finished == ["self-test"]
    assert isinstance(first_error(caught.value), SetupFailed)
    assert not (harness.workspace / "out.txt").exists()


async def test_the_setup_begins_once_the_first_request_is_out_and_before_the_response(harness: Harness) -> None:
    """``start_pending_setup`` is called while the first response is awaited (its CPU then does not
    hold the request back); an await begins it too when the response came first."""
    slow = _replay(Turn([ToolCall("Probe", {})], first_token_s=0.5))
    events: list[str] = []

    def begin() -> None:
        events.append(f"begun, {len(slow.requests)} request out")

    async def setup() -> Services:
        events.append("awaited")
        return Services({PREPARED: "the sandbox"})

    session = harness.session(
        allow=("Probe",),
        extra_tools=(ProbeTool(),),
        transport=slow.transport(),
        pending_setup=setup,
        start_pending_setup=begin,
    )
    outcome = await run_agent(AgentTask("Probe."), session, harness.events)
    assert outcome.stop.reason == "completed"
    assert events == ["begun, 1 request out", "awaited"]


async def test_a_pending_sandbox_begins_when_started_or_awaited_and_only_once() -> None:
    from bot.orchestration.session import PendingSandbox

    began: list[int] = []

    async def prepare() -> object:
        began.append(1)
        return None

    idle = PendingSandbox(prepare, [], lambda warning: None)
    await anyio.sleep(0.01)
    assert began == [] and idle.status is None
    await idle.close()  # never begun: nothing to stop

    started = PendingSandbox(prepare, [], lambda warning: None)
    assert started.start() is started.start()
    await started()
    await started()
    awaited = PendingSandbox(prepare, [], lambda warning: None)
    await awaited()
    assert began == [1, 1]
    await started.close()
    await awaited.close()
