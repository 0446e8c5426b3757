"""Agent-loop benchmarks, on the real SDK over a paced replay transport (no network).

1. Streaming tool execution (seeds 4.5): one turn whose stream takes 5 s and contains three tool
   calls of 1 s each. Figure: turn wall time / stream time (target <= 1.1x). Baselines measured in the
   same run: the static path (all tool_use blocks collected, then the tools run after the stream, as
   a non-streaming executor would), for concurrency-safe and for exclusive tools.
2. Loop overhead per turn, excluding model and tool time: many turns served instantly, each with
   one no-op tool call. Model time (time inside the client's stream: SDK request building, the
   transport, SSE parsing) and tool time (inside ``Tool.call``) are measured and subtracted; the rest
   is ours (request layout, the executor and pipeline, events, transcript). Reported per turn, as
   the conversation grows, with the model-client time as the baseline.

Run: ``python bench/agent_loop.py`` (about 25 s).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import AsyncGenerator, Sequence
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

import anyio
from pydantic import Field

from bot.agent.events import RunEvent, TurnFinished, TurnStarted
from bot.agent.loop import run_agent
from bot.agent.model import ModelClient, ModelRequest, StreamEvent, ToolUseReady
from bot.agent.prompts import AgentTask, Environment
from bot.agent.session import AgentSession
from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress
from bot.interface.tool import AnyTool, Tool, ToolInput, ToolResult
from bot.permissions.chain import RuleEngine
from bot.permissions.context import PermissionContext
from bot.permissions.rules import make_rule
from bot.runtime.pipeline import ToolPool, ToolRunner
from bot.runtime.scheduler import run_tools
from bot.testing.cassettes import Text, ToolCall, Turn, Usage
from bot.testing.model import model_client
from bot.testing.replay import PacedReplay
from bot.tools.read import ReadTool

TOOL_SECONDS = 1.0
STREAM_SECONDS = 5.0
OVERHEAD_TURNS = 60


class WaitInput(ToolInput):
    label: str = Field(description="A label")


class TimedTool(Tool[WaitInput, str]):
    """Waits a fixed time (a stand-in for a 1-second tool); accumulates its own call time."""

    input_model = WaitInput
    seconds: ClassVar[float] = 0.0
    safe: ClassVar[bool] = True
    spent: ClassVar[float] = 0.0

    def is_concurrency_safe(self, input: WaitInput) -> bool:
        return self.safe

    async def call(self, input: WaitInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        started = time.perf_counter()
        if self.seconds:
            await anyio.sleep(self.seconds)
        type(self).spent += time.perf_counter() - started
        return ToolResult(f"{input.label} done")


class SlowSafe(TimedTool):
    name = "SlowSafe"
    seconds = TOOL_SECONDS


class SlowExclusive(TimedTool):
    name = "SlowExclusive"
    seconds = TOOL_SECONDS
    safe = False


class Noop(TimedTool):
    name = "Noop"


class TimedClient:
    """A ModelClient proxy that adds up the time spent inside the real client's stream."""

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner
        self.provider = inner.provider
        self.supports_tool_search = inner.supports_tool_search
        self.seconds = 0.0

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        events = self._inner.stream(request)
        try:
            while True:
                started = time.perf_counter()
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    self.seconds += time.perf_counter() - started
                    return
                self.seconds += time.perf_counter() - started
                yield event
        finally:
            await events.aclose()


def five_second_turn(tool: str) -> Turn:
    """Tool blocks complete at about 1.3 s, 2.5 s and 3.7 s of a 5.0 s stream."""
    return Turn(
        [
            Text("I'll look at the three modules, one at a time as I go. " * 3, seconds=1.0),
            ToolCall(tool, {"label": "first"}, seconds=0.3),
            Text("While that runs, the second one matters for the parser. " * 3, seconds=0.9),
            ToolCall(tool, {"label": "second"}, seconds=0.3),
            Text("And the third covers the command-line entry point. " * 3, seconds=0.9),
            ToolCall(tool, {"label": "third"}, seconds=0.3),
            Text(
                "Once all three are in I will summarise what each one does and how they fit together. " * 4, seconds=1.3
            ),
        ],
        usage=Usage(2_000, 400),
        first_token_s=0.0,
    )


def session_for(workspace: Path, scratch: Path, tools: Sequence[AnyTool], client: ModelClient) -> AgentSession:
    permission = PermissionContext(allow=tuple(make_rule(t.name, "allow", "bench") for t in tools))
    context = make_context(workspace, scratch_dir=scratch, permission=permission)
    return AgentSession(
        context=context,
        pool=ToolPool(tools),
        client=client,
        model="claude-sonnet-5-5",
        engine=RuleEngine(),
        environment=Environment(workspace, "Linux", date(2026, 11, 30)),
    )


class Stamps:
    def __init__(self) -> None:
        self.turn_start: dict[int, float] = {}
        self.turn_end: dict[int, float] = {}

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TurnStarted) and event.agent_id is None:
            self.turn_start[event.turn] = time.perf_counter()
        elif isinstance(event, TurnFinished) and event.agent_id is None:
            self.turn_end[event.turn] = time.perf_counter()


async def streamed_turn(root: Path, tool: type[TimedTool]) -> tuple[float, float]:
    """(turn wall time, stream time) of the 5-second turn run by the agent loop."""
    replay = PacedReplay.from_script(
        [five_second_turn(tool.name), Turn([Text("Done.")], first_token_s=0.0)], clock=time.perf_counter
    )
    stamps = Stamps()
    session = session_for(root, root / "scratch", [tool()], model_client(replay.transport()))
    outcome = await run_agent(AgentTask("Summarise the modules."), session, stamps)
    assert outcome.stop.reason == "completed", outcome.stop
    return stamps.turn_end[1] - stamps.turn_start[1], replay.finished_at[0] - replay.served_at[0]


async def static_turn(root: Path, tool: type[TimedTool]) -> tuple[float, float]:
    """The baseline: read the whole stream, then run the tools (the static scheduler)."""
    replay = PacedReplay.from_script([five_second_turn(tool.name)], clock=time.perf_counter)
    client = model_client(replay.transport())
    instance = tool()
    context = make_context(
        root,
        scratch_dir=root / "scratch-static",
        permission=PermissionContext(allow=(make_rule(tool.name, "allow", "bench"),)),
    )
    runner = ToolRunner(ToolPool([instance]), RuleEngine())
    request = ModelRequest(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        system=[{"type": "text", "text": "s"}],
        messages=[{"role": "user", "content": [{"type": "text", "text": "go"}]}],
    )
    started = time.perf_counter()
    blocks = [e.block async for e in client.stream(request) if isinstance(e, ToolUseReady)]
    await run_tools(blocks, runner, context)
    return time.perf_counter() - started, replay.finished_at[0] - replay.served_at[0]


async def overhead(root: Path, turns: int) -> dict[str, Any]:
    script = [
        Turn(
            [Text("Checking the next file now."), ToolCall("Noop", {"label": f"call {i}"})],
            usage=Usage(1_000 + 50 * i, 60),
            first_token_s=0.0,
        )
        for i in range(turns - 1)
    ]
    script.append(Turn([Text("All done.")], first_token_s=0.0))
    replay = PacedReplay.from_script(script, clock=time.perf_counter)
    client = TimedClient(model_client(replay.transport()))
    Noop.spent = 0.0
    stamps = Stamps()
    session = session_for(root, root / f"scratch-{turns}", [ReadTool(), Noop()], client)
    started = time.perf_counter()
    outcome = await run_agent(AgentTask("Check every file."), session, stamps)
    total = time.perf_counter() - started
    assert outcome.stop.reason == "completed" and len(outcome.turns) == turns, outcome.stop
    per_turn = [stamps.turn_end[t] - stamps.turn_start[t] for t in range(1, turns + 1)]
    return {"total": total, "model": client.seconds, "tool": Noop.spent, "per_turn": per_turn}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"== 1. A {STREAM_SECONDS:g} s stream with three {TOOL_SECONDS:g} s tool calls (paced replay)")
        for tool in (SlowSafe, SlowExclusive):
            kind = "concurrency-safe" if tool.safe else "exclusive"
            wall, stream = await streamed_turn(root, tool)
            base_wall, base_stream = await static_turn(root, tool)
            print(
                f"  {kind:>16} tools | streaming executor: turn {wall:.3f} s / stream {stream:.3f} s = "
                f"{wall / stream:.3f}x | baseline, tools after the stream: {base_wall:.3f} s / "
                f"{base_stream:.3f} s = {base_wall / base_stream:.3f}x"
            )

        print(f"\n== 2. Loop overhead per turn, model and tool time excluded ({OVERHEAD_TURNS} turns)")
        await overhead(root, 5)  # warm-up: imports, first SDK client
        result = await overhead(root, OVERHEAD_TURNS)
        turns = OVERHEAD_TURNS
        ours = result["total"] - result["model"] - result["tool"]
        per_turn = result["per_turn"]
        print(
            f"  run {ms(result['total'])}: model client {ms(result['model'])}, tools {ms(result['tool'])}, "
            f"loop {ms(ours)}"
        )
        print(
            f"  loop overhead per turn: {ms(ours / turns)} (model-client time per turn, the baseline: "
            f"{ms(result['model'] / turns)}; ratio {ours / result['model']:.2f}x)"
        )
        first, last = statistics.median(per_turn[:10]), statistics.median(per_turn[-10:])
        print(
            f"  whole turn (loop + model client + tool), median: turns 1-10 {ms(first)}, "
            f"turns {turns - 9}-{turns} {ms(last)} (the conversation grows each turn)"
        )


if __name__ == "__main__":
    anyio.run(main)
