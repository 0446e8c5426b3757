"""Pipeline overhead and streaming overlap (issue: foundation).

1. Pipeline overhead: median time of a trivial tool called through all eight stages vs the same
   tool's ``call`` invoked directly, over N calls. Target: ≤ 1 ms per call of overhead.
2. Streaming overlap: a simulated model stream of S seconds in which three ``tool_use`` blocks
   complete at S/5, 2S/5 and 3S/5, each tool taking S/5: the turn's wall time vs the stream time,
   with the StreamingToolExecutor and with the sequential baseline (run tools after the stream).
   Target ≤ 1.1× (sequential would be 1.6×).

    python bench/pipeline.py [--calls 10000] [--stream-seconds 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
from _common import median_us, report

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.runtime.pipeline import ToolPool, ToolRunner
from bot.runtime.scheduler import run_tools
from bot.runtime.single_call import flag_permission_context
from bot.runtime.streaming import StreamingToolExecutor


class TrivialInput(ToolInput):
    text: str


class Trivial(Tool[TrivialInput, str]):
    """Returns its input."""

    name = "Trivial"
    input_model = TrivialInput

    def is_concurrency_safe(self, input: TrivialInput) -> bool:
        return True

    async def call(self, input: TrivialInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        return ToolResult(input.text)


class SleepInput(ToolInput):
    seconds: float


class Sleeper(Tool[SleepInput, str]):
    """Takes a while (stands for a 1 s tool)."""

    name = "Sleeper"
    input_model = SleepInput

    def is_concurrency_safe(self, input: SleepInput) -> bool:
        return True

    async def call(self, input: SleepInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        await anyio.sleep(input.seconds)
        return ToolResult("slept")


def pipeline_overhead(calls: int, workspace: Path) -> None:
    tool = Trivial()
    context = make_context(
        workspace, scratch_dir=workspace / ".s", permission=flag_permission_context(["Trivial"], [], [])
    )
    runner = ToolRunner(ToolPool([tool]))
    raw = {"text": "hello"}

    async def main() -> tuple[list[float], list[float]]:
        direct: list[float] = []
        piped: list[float] = []
        progress = Progress("t", "Trivial")
        for i in range(calls):
            t0 = time.perf_counter()
            await tool.call(tool.parse_input(raw), context, progress)
            direct.append(time.perf_counter() - t0)
            block = ToolUseBlock(f"t{i}", "Trivial", raw)
            t0 = time.perf_counter()
            outcome = await runner.run(block, context)
            piped.append(time.perf_counter() - t0)
            assert not outcome.result.is_error
        return direct, piped

    direct, piped = anyio.run(main)
    d, p = median_us(direct), median_us(piped)
    print(f"pipeline overhead over {calls:,} calls (median):")
    report("  direct call (parse + call)", d, "µs")
    report("  through the 8-stage pipeline", p, "µs", baseline=d)
    report("  overhead per call", (p - d) / 1000, "ms", target="≤ 1 ms")


def streaming_overlap(stream_s: float, workspace: Path) -> None:
    step = stream_s / 5
    context = make_context(
        workspace, scratch_dir=workspace / ".s", permission=flag_permission_context(["Sleeper"], [], [])
    )
    runner = ToolRunner(ToolPool([Sleeper()]))
    blocks = [ToolUseBlock(f"t{i}", "Sleeper", {"seconds": step}) for i in range(3)]

    async def model_stream(on_block: object) -> None:
        """The model writes for 5 steps; tool_use blocks complete at steps 1, 2 and 3."""
        for i in range(5):
            await anyio.sleep(step)
            if i < 3:
                on_block(blocks[i])  # type: ignore[operator]

    async def streaming_turn() -> float:
        t0 = time.perf_counter()
        async with StreamingToolExecutor(runner, context) as ex:
            await model_stream(ex.add_tool)
            ex.finish()
            outcomes = await ex.collect()
        assert len(outcomes) == 3
        return time.perf_counter() - t0

    async def sequential_turn() -> float:
        t0 = time.perf_counter()
        await model_stream(lambda b: None)
        for block in blocks:  # the naive loop: wait for the stream, then run each tool
            await runner.run(block, context)
        return time.perf_counter() - t0

    async def batched_turn() -> float:
        t0 = time.perf_counter()
        await model_stream(lambda b: None)
        await run_tools(blocks, runner, context)  # static path: after the stream, one parallel batch
        return time.perf_counter() - t0

    streamed = anyio.run(streaming_turn)
    sequential = anyio.run(sequential_turn)
    batched = anyio.run(batched_turn)
    print(
        f"streaming overlap: a {stream_s:g} s stream, tool_use blocks complete at "
        f"{step:g}/{2 * step:g}/{3 * step:g} s, each tool takes {step:g} s:"
    )
    report("  stream time", stream_s, "s")
    report("  streaming executor: turn wall time", streamed, "s", baseline=stream_s, target="≤ 1.1×")
    report("  static batch after the stream", batched, "s", baseline=stream_s)
    report("  sequential after the stream", sequential, "s", baseline=stream_s, target="would be 1.6×")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--stream-seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pipeline_overhead(args.calls, Path(tmp))
        streaming_overlap(args.stream_seconds, Path(tmp))


if __name__ == "__main__":
    main()
