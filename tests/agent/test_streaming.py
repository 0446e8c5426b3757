"""Paced replays: events arrive at their recorded times, so overlap of tools and stream is real."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import ClassVar

import anyio
import httpx2
import pytest
from pydantic import Field

from bot.agent.events import LimitReached, TextDelta, ToolFinished, ToolProgressed
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.testing.cassettes import Text, ToolCall, Turn
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness

pytestmark = pytest.mark.anyio


class GateInput(ToolInput):
    name: str = Field(description="This call's name")
    wait_for: str | None = Field(default=None, description="Another call that must be running too")


class GateTool(Tool[GateInput, str]):
    """Opens a gate, then waits (bounded) for another call's gate: proves two calls overlap."""

    name = "Gate"
    input_model = GateInput
    gates: ClassVar[dict[str, anyio.Event]] = {}

    def is_concurrency_safe(self, input: GateInput) -> bool:
        return True  # test-only: touches nothing

    async def call(self, input: GateInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        self.gates.setdefault(input.name, anyio.Event()).set()
        progress("opened", gate=input.name)
        if input.wait_for is not None:
            with anyio.fail_after(2):
                await self.gates.setdefault(input.wait_for, anyio.Event()).wait()
        return ToolResult(f"{input.name} done")


class HangTool(Tool[GateInput, str]):
    """Never finishes on its own."""

    name = "Hang"
    input_model = GateInput

    async def call(self, input: GateInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


@pytest.fixture(autouse=True)
def fresh_gates() -> None:
    GateTool.gates = {}


def paced(*turns: Turn) -> PacedReplay:
    return PacedReplay.from_script(list(turns))


def index_of(events: list[object], match: Callable[[object], bool]) -> int:
    return next(i for i, e in enumerate(events) if match(e))


class HeldAfterFirstBlock(httpx2.AsyncBaseTransport):
    """The first response's stream pauses after its first block stops until ``release`` is set: what
    follows is still unsent, so whatever happens meanwhile happened while the model was writing
    (by order, not by a race between the stream's pace and the tool's speed on a busy machine)."""

    def __init__(self, replay: PacedReplay, release: anyio.Event) -> None:
        self._inner = replay.transport()
        self._release = release
        self._held = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if self._held:
            return response
        self._held = True
        inner, release = response.stream, self._release

        class Held(httpx2.AsyncByteStream):
            async def __aiter__(self) -> AsyncIterator[bytes]:
                async for chunk in inner:  # type: ignore[union-attr]
                    yield chunk
                    if b"event: content_block_stop" in chunk and b'"index":0' in chunk:
                        # Bounded only against a hang: a tool that waits for the message's end never finishes.
                        with anyio.fail_after(60):
                            await release.wait()

        return httpx2.Response(response.status_code, headers=response.headers, stream=Held())


async def test_a_tool_starts_at_its_block_stop_while_the_model_is_still_writing(harness: Harness) -> None:
    replay = paced(
        Turn(
            [ToolCall("Gate", {"name": "a"}), Text("and now a long explanation " * 4, seconds=0.2)], first_token_s=0.01
        ),
        Turn([Text("Done.")], first_token_s=0.01),
    )
    tool_finished = anyio.Event()

    def sink(event: object) -> None:
        harness.events(event)  # type: ignore[arg-type]
        if isinstance(event, ToolFinished):
            tool_finished.set()

    transport = HeldAfterFirstBlock(replay, tool_finished)
    session = harness.session(allow=("Gate",), extra_tools=[GateTool()], transport=transport)

    outcome = await run_agent(AgentTask("Go."), session, sink)

    assert outcome.stop.reason == "completed"
    events = harness.events.events
    finished = index_of(events, lambda e: isinstance(e, ToolFinished))
    last_text_of_turn_1 = max(i for i, e in enumerate(events) if isinstance(e, TextDelta) and e.turn == 1)
    assert finished < last_text_of_turn_1  # the call was done while the model was still writing


async def test_concurrency_safe_calls_of_one_response_run_at_the_same_time(harness: Harness) -> None:
    replay = paced(
        Turn(
            [
                ToolCall("Gate", {"name": "a", "wait_for": "b"}),
                Text("meanwhile", seconds=0.05),
                ToolCall("Gate", {"name": "b", "wait_for": "a"}),
            ],
            first_token_s=0.01,
        ),
        Turn([Text("Both ran.")], first_token_s=0.01),
    )
    session = harness.session(allow=("Gate",), extra_tools=[GateTool()], transport=replay.transport())

    outcome = await run_agent(AgentTask("Go."), session, harness.events)

    results = outcome.messages[2]["content"]
    assert [r["content"] for r in results] == ["a done", "b done"]  # neither timed out waiting for the other
    opened = [e.data["gate"] for e in harness.events.of(ToolProgressed) if e.kind == "opened"]
    assert sorted(opened) == ["a", "b"]  # progress reaches the sink while the calls run


async def test_the_wall_time_limit_aborts_a_streaming_turn_and_its_running_tool(harness: Harness) -> None:
    replay = paced(
        Turn([ToolCall("Hang", {"name": "x"}), Text("a very slow answer " * 10, seconds=30)], first_token_s=0.01)
    )
    session = harness.session(
        allow=("Hang",), extra_tools=[HangTool()], transport=replay.transport(), limits=RunLimits(wall_time_s=0.3)
    )

    with anyio.fail_after(5):
        outcome = await run_agent(AgentTask("Go."), session, harness.events)

    assert outcome.stop.reason == "wall_time" and "the limit is 0.3 s" in outcome.stop.detail
    [call] = outcome.tool_calls
    assert call.record.error_kind == "Aborted" and not call.discarded
    assert [e.limit for e in harness.events.of(LimitReached)] == ["wall_time"]
    assert outcome.turns[0].usage.input_tokens > 0  # the aborted turn's input is still accounted


async def test_an_abort_from_the_caller_stops_the_run_as_aborted(harness: Harness) -> None:
    replay = paced(Turn([Text("thinking about it " * 10, seconds=30)], first_token_s=0.01))
    session = harness.session(transport=replay.transport())

    async with anyio.create_task_group() as tg:

        async def cancel_soon() -> None:
            await anyio.sleep(0.1)
            session.context.abort.abort("the workflow was cancelled")

        tg.start_soon(cancel_soon)
        outcome = await run_agent(AgentTask("Go."), session, harness.events)

    assert outcome.stop.reason == "aborted" and outcome.stop.detail == "the workflow was cancelled"
