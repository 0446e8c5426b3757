"""Static scheduling: partitioning is a pure function; results keep the model's order."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.scheduler import Batch, max_tool_use_concurrency, partition_tool_calls, run_tools
from bot.runtime.single_call import flag_permission_context
from bot.tools.context import ToolLimits, ToolUseContext, make_context
from bot.tools.messages import ToolUseBlock
from tests.runtime.fakes import CdSafeTool, CdTool, EchoTool, Gates, GateTool


def b(i: int, name: str = "Gate", **inp: object) -> ToolUseBlock:
    return ToolUseBlock(f"t{i}", name, inp)


SAFE = {"key": "k"}
UNSAFE = {"key": "k", "safe": False}


@pytest.mark.parametrize(
    ("description", "kinds", "expected"),
    [
        ("nothing", [], []),
        ("all safe: one batch", ["s", "s", "s"], [(True, 3)]),
        ("all unsafe: one batch each", ["u", "u"], [(False, 1), (False, 1)]),
        ("unsafe splits safe runs", ["s", "s", "u", "s"], [(True, 2), (False, 1), (True, 1)]),
        ("unparsable input counts as unsafe", ["s", "bad", "s"], [(True, 1), (False, 1), (True, 1)]),
        ("unknown tool counts as unsafe", ["s", "unknown", "s"], [(True, 1), (False, 1), (True, 1)]),
        ("leading unsafe", ["u", "s", "s"], [(False, 1), (True, 2)]),
    ],
)
def test_partition_groups_consecutive_safe_calls(description: str, kinds: list[str],
                                                 expected: list[tuple[bool, int]]) -> None:
    runner = ToolRunner(ToolPool([GateTool(Gates())]))
    blocks = []
    for i, kind in enumerate(kinds):
        match kind:
            case "s":
                blocks.append(b(i, **SAFE))
            case "u":
                blocks.append(b(i, **UNSAFE))
            case "bad":
                blocks.append(ToolUseBlock(f"t{i}", "Gate", {"nokey": 1}))
            case _:
                blocks.append(ToolUseBlock(f"t{i}", "Missing", {}))
    batches = partition_tool_calls(blocks, runner.is_concurrency_safe)
    assert [(x.is_concurrency_safe, len(x.blocks)) for x in batches] == expected, description
    assert [blk for x in batches for blk in x.blocks] == blocks


def test_partition_is_pure_over_its_predicate() -> None:
    blocks = [b(i) for i in range(4)]
    assert partition_tool_calls(blocks, lambda blk: blk.id != "t2") == [
        Batch(True, (blocks[0], blocks[1])), Batch(False, (blocks[2],)), Batch(True, (blocks[3],))]


def context_for(tmp_path: Path, *allow: str, limit: int = 10) -> ToolUseContext:
    return make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(allow, [], []),
                        limits=ToolLimits(max_tool_use_concurrency=limit))


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


def test_the_environment_variable_overrides_the_concurrency_limit(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context_for(tmp_path, limit=10)
    assert max_tool_use_concurrency(ctx) == 10
    monkeypatch.setenv("BOT_MAX_TOOL_USE_CONCURRENCY", "3")
    assert max_tool_use_concurrency(ctx) == 3
    monkeypatch.setenv("BOT_MAX_TOOL_USE_CONCURRENCY", "nonsense")
    assert max_tool_use_concurrency(ctx) == 10


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
