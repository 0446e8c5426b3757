"""The static path: a turn known at once runs in the seeds' batches; results keep the model's order."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.interface.context import ToolLimits, ToolUseContext, make_context
from bot.interface.messages import ProgressSink, ToolUseBlock, drop_progress
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.scheduler import run_tools
from bot.runtime.single_call import flag_permission_context
from tests.runtime.fakes import CdSafeTool, CdTool, EchoTool, Gates, GateTool


def b(i: int, name: str = "Gate", **inp: object) -> ToolUseBlock:
    return ToolUseBlock(f"t{i}", name, inp)


@pytest.mark.parametrize(
    ("description", "kinds", "expected"),
    [
        ("nothing", [], []),
        ("all safe: all start together", ["s", "s", "s"], [{0, 1, 2}]),
        ("all unsafe: one at a time", ["u", "u"], [{0}, {1}]),
        ("unsafe splits safe runs", ["s", "s", "u", "s"], [{0, 1}, {2}, {3}]),
        ("unparsable input counts as unsafe", ["s", "bad", "s"], [{0}, {1}, {2}]),
        ("unknown tool counts as unsafe", ["s", "unknown", "s"], [{0}, {1}, {2}]),
        ("leading unsafe", ["u", "s", "s"], [{0}, {1, 2}]),
    ],
)
def test_a_turn_known_at_once_runs_in_the_seeds_batches(
    tmp_path: Path, description: str, kinds: list[str], expected: list[set[int]]
) -> None:
    """With every block queued up front, the one scheduler reproduces ``partitionToolCalls``:
    consecutive safe calls start together; an unsafe (or unparsable, or unknown) call runs alone."""
    runner = HeldRunner(Gates())
    blocks = []
    for i, kind in enumerate(kinds):
        match kind:
            case "s":
                blocks.append(b(i, key=f"k{i}"))
            case "u":
                blocks.append(b(i, key=f"k{i}", safe=False))
            case "bad":
                blocks.append(ToolUseBlock(f"t{i}", "Gate", {"nokey": 1}))
            case _:
                blocks.append(ToolUseBlock(f"t{i}", "Missing", {}))
    waves: list[set[int]] = []

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run_tools, blocks, runner, context_for(tmp_path, "Gate"))
            while len(runner.started) < len(blocks):
                await anyio.wait_all_tasks_blocked()  # everything that may start has started
                wave = {int(i[1:]) for i in runner.started} - set().union(*waves)
                waves.append(wave)
                runner.release(*[f"t{i}" for i in wave])
            runner.release(*[blk.id for blk in blocks])

    anyio.run(main)
    assert waves == expected, description


class HeldRunner(ToolRunner):
    """The pipeline, with every call held at its start until the test releases it (an unknown or
    unparsable call too, which would otherwise fail at once)."""

    def __init__(self, gates: Gates) -> None:
        super().__init__(ToolPool([GateTool(gates)]))
        self.started: list[str] = []
        self._held: dict[str, anyio.Event] = {}
        self._tool_gates = gates

    def release(self, *ids: str) -> None:
        """Let the calls through the pipeline, and their tool finish (block ``t3`` waits on ``k3``)."""
        for i in ids:
            self._held.setdefault(i, anyio.Event()).set()
            self._tool_gates.open(f"k{i[1:]}")

    async def run(
        self, block: ToolUseBlock, context: ToolUseContext, sink: ProgressSink = drop_progress
    ) -> ToolCallOutcome:
        self.started.append(block.id)
        await self._held.setdefault(block.id, anyio.Event()).wait()
        return await super().run(block, context, sink)


def context_for(tmp_path: Path, *allow: str, limit: int = 10) -> ToolUseContext:
    return make_context(
        tmp_path,
        scratch_dir=tmp_path / ".s",
        permission=flag_permission_context(allow, [], []),
        limits=ToolLimits(max_tool_use_concurrency=limit),
    )


def test_results_come_back_in_the_models_order_when_completion_is_reversed(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))
    blocks = [b(i, key=f"k{i}") for i in range(3)]

    async def main() -> list[ToolCallOutcome]:
        async with anyio.create_task_group() as tg:
            box: list[list[ToolCallOutcome]] = []

            async def go() -> None:
                box.append((await run_tools(blocks, runner, context_for(tmp_path, "Gate")))[0])

            tg.start_soon(go)
            for key in ("k2", "k1", "k0"):
                await gates.started_event(key).wait()
            for key in ("k2", "k1", "k0"):
                gates.open(key)
                await anyio.wait_all_tasks_blocked()
        return box[0]

    outcomes = anyio.run(main)
    assert gates.order == ["k2", "k1", "k0"]
    assert [o.result.tool_use_id for o in outcomes] == ["t0", "t1", "t2"]
    assert [o.result.content for o in outcomes] == ["done k0", "done k1", "done k2"]


def test_a_safe_batch_runs_at_most_the_concurrency_limit_at_once(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))
    blocks = [b(i, key=f"k{i}") for i in range(5)]

    async def main() -> int:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run_tools, blocks, runner, context_for(tmp_path, "Gate", limit=2))
            await anyio.wait_all_tasks_blocked()
            running = len(gates.started)
            gates.open(*[f"k{i}" for i in range(5)])
        return running

    assert anyio.run(main) == 2


def test_context_modifiers_apply_only_for_unsafe_tools_after_their_batch(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    runner = ToolRunner(ToolPool([CdTool(), CdSafeTool(), EchoTool()]))
    blocks = [ToolUseBlock("1", "Cd", {"to": "a"}), ToolUseBlock("2", "CdSafe", {"to": "b"})]

    async def main() -> ToolUseContext:
        _, ctx = await run_tools(blocks, runner, context_for(tmp_path, "Cd", "CdSafe"))
        return ctx

    assert anyio.run(main).working_directory == tmp_path.resolve() / "a"


def test_the_per_message_budget_applies_to_a_batch(tmp_path: Path) -> None:
    gates = Gates()
    gates.open("a", "b", "c", "d", "e")
    runner = ToolRunner(ToolPool([GateTool(gates)]))
    blocks = [b(i, key=k, size=45_000) for i, k in enumerate("abcde")]

    async def main() -> list[ToolCallOutcome]:
        return (await run_tools(blocks, runner, context_for(tmp_path, "Gate")))[0]

    outcomes = anyio.run(main)
    persisted = [o for o in outcomes if o.result.text.startswith("<persisted-output>")]
    assert len(persisted) == 1
    assert sum(len(o.result.text) for o in outcomes) <= 200_000
