"""The streaming executor: starts tools as blocks complete (within the cap), yields results FIFO,
aborts siblings."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import ProgressEvent, ToolUseBlock
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from bot.runtime.streaming import StreamingToolExecutor, TrackedTool, can_execute_tool
from tests.runtime.fakes import CdTool, Gates, GateTool, ShellLikeTool


def tracked(safe: bool) -> TrackedTool:
    return TrackedTool(ToolUseBlock("x", "Gate", {}), safe, status="executing")


@pytest.mark.parametrize(
    ("description", "candidate_safe", "executing", "expected"),
    [
        ("nothing running: a safe tool starts", True, [], True),
        ("nothing running: an unsafe tool starts", False, [], True),
        ("safe beside safe", True, [True, True], True),
        ("safe beside an unsafe one waits", True, [False], False),
        ("unsafe beside safe ones waits", False, [True], False),
        ("unsafe beside unsafe waits", False, [False], False),
        ("safe beside a mix waits", True, [True, False], False),
        ("safe beside 9 safe ones starts (the cap is 10)", True, [True] * 9, True),
        ("safe beside 10 safe ones waits for a slot", True, [True] * 10, False),
    ],
)
def test_can_execute_tool(description: str, candidate_safe: bool, executing: list[bool], expected: bool) -> None:
    assert can_execute_tool(candidate_safe, [tracked(s) for s in executing], limit=10) is expected, description


@pytest.mark.parametrize(
    ("description", "limit", "executing", "expected"),
    [
        ("a cap of 1: a safe tool waits beside another", 1, 1, False),
        ("a cap of 1: nothing running, it starts", 1, 0, True),
        ("a cap of 3, two running", 3, 2, True),
        ("a cap of 3, three running", 3, 3, False),
    ],
)
def test_the_cap_limits_only_how_many_safe_tools_run_together(
    description: str, limit: int, executing: int, expected: bool
) -> None:
    assert can_execute_tool(True, [tracked(True)] * executing, limit) is expected, description


def ctx(tmp_path: Path) -> ToolUseContext:
    return make_context(
        tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(["Gate", "Shellish", "Cd"], [], [])
    )


def block(i: int, key: str, name: str = "Gate", **extra: object) -> ToolUseBlock:
    return ToolUseBlock(f"t{i}", name, {"key": key, **extra})


def test_results_are_yielded_in_order_even_when_a_later_tool_finishes_first(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))
    yielded: list[str] = []

    async def main() -> None:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            for i, key in enumerate(["a", "b", "c"]):
                ex.add_tool(block(i, key))
            ex.finish()
            await anyio.wait_all_tasks_blocked()
            assert set(gates.started) == {"a", "b", "c"}  # all safe: all started at once

            async def consume() -> None:
                async for outcome in ex.results():
                    yielded.append(outcome.result.tool_use_id)

            async with anyio.create_task_group() as tg:
                tg.start_soon(consume)
                gates.open("c")
                await anyio.wait_all_tasks_blocked()
                assert yielded == []  # c is done, but a is not: nothing may be yielded yet
                gates.open("b")
                await anyio.wait_all_tasks_blocked()
                assert yielded == []
                gates.open("a")
        assert gates.order == ["c", "b", "a"]

    anyio.run(main)
    assert yielded == ["t0", "t1", "t2"]


def test_a_tool_starts_while_the_stream_is_still_open(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))

    async def main() -> None:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.add_tool(block(0, "first"))
            await gates.started_event("first").wait()  # started before finish() was called
            gates.open("first")
            ex.add_tool(block(1, "second"))
            gates.open("second")
            ex.finish()
            assert [o.result.content for o in await ex.collect()] == ["done first", "done second"]

    anyio.run(main)


def test_an_unsafe_tool_waits_for_exclusivity_and_holds_back_the_queue(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))

    async def main() -> None:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.add_tool(block(0, "s1"))
            ex.add_tool(block(1, "u", safe=False))
            ex.add_tool(block(2, "s2"))
            ex.finish()
            await anyio.wait_all_tasks_blocked()
            assert set(gates.started) == {"s1"}
            gates.open("s1")
            await anyio.wait_all_tasks_blocked()
            assert set(gates.started) == {"s1", "u"}
            gates.open("u")
            await anyio.wait_all_tasks_blocked()
            assert set(gates.started) == {"s1", "u", "s2"}
            gates.open("s2")
            await ex.collect()

    anyio.run(main)


def test_progress_is_emitted_at_once_not_with_the_result(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))
    events: list[ProgressEvent] = []

    async def main() -> None:
        async with StreamingToolExecutor(runner, ctx(tmp_path), events.append) as ex:
            ex.add_tool(block(0, "a"))
            await gates.started_event("a").wait()
            assert [(e.kind, e.data) for e in events] == [("started", {"key": "a"})]
            gates.open("a")
            ex.finish()
            await ex.collect()

    anyio.run(main)


def test_a_shell_error_aborts_running_siblings_and_cancels_queued_ones(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates), ShellLikeTool(gates)]))

    async def main() -> list[ToolCallOutcome]:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.add_tool(block(0, "sibling"))
            ex.add_tool(block(1, "shell", name="Shellish", fail=True))
            ex.add_tool(block(2, "later", safe=False))
            ex.finish()
            await anyio.wait_all_tasks_blocked()
            gates.open("shell")
            return await ex.collect()

    outcomes = anyio.run(main)
    assert gates.cancelled == ["sibling"]
    assert "later" not in gates.started
    sibling, shell, later = outcomes
    assert shell.result.is_error and "shell failed" in shell.result.text
    assert sibling.result.is_error and "Interrupted: a parallel Shellish" in sibling.result.text
    assert later.result.is_error and "Cancelled:" in later.result.text
    assert later.record.error_kind == "SiblingAborted"


def test_other_tools_errors_do_not_cascade(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))

    async def main() -> list[ToolCallOutcome]:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.add_tool(block(0, "ok"))
            ex.add_tool(block(1, "bad", fail=True))
            ex.finish()
            gates.open("bad")
            await anyio.wait_all_tasks_blocked()
            gates.open("ok")
            return await ex.collect()

    ok, bad = anyio.run(main)
    assert not ok.result.is_error and bad.result.is_error
    assert gates.cancelled == []


def test_an_unsafe_tools_context_modifier_applies_before_the_next_tool(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    seen: list[Path] = []

    class Probe(GateTool):
        name = "Probe"

        async def call(self, input, context, progress):  # type: ignore[no-untyped-def]
            seen.append(context.working_directory)
            return await super().call(input, context, progress)

    gates = Gates()
    gates.open("p")
    runner = ToolRunner(ToolPool([CdTool(), Probe(gates)]))
    context = make_context(
        tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(["Cd", "Probe"], [], [])
    )

    async def main() -> Path:
        async with StreamingToolExecutor(runner, context) as ex:
            ex.add_tool(ToolUseBlock("1", "Cd", {"to": "sub"}))
            ex.add_tool(ToolUseBlock("2", "Probe", {"key": "p"}))
            ex.finish()
            await ex.collect()
        return ex.context.working_directory

    assert anyio.run(main) == tmp_path.resolve() / "sub"
    assert seen == [tmp_path.resolve() / "sub"]


def test_abort_cancels_what_is_running_and_what_is_queued(tmp_path: Path) -> None:
    gates = Gates()
    runner = ToolRunner(ToolPool([GateTool(gates)]))

    async def main() -> list[ToolCallOutcome]:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.add_tool(block(0, "running", safe=False))
            ex.add_tool(block(1, "queued", safe=False))
            await anyio.wait_all_tasks_blocked()
            ex.abort("the stream was cut; the turn is retried")
            ex.finish()
            return await ex.collect()

    running, queued = anyio.run(main)
    assert "Interrupted: the stream was cut" in running.result.text
    assert "Cancelled: the stream was cut" in queued.result.text
    assert "queued" not in gates.started


def test_add_after_finish_is_a_programming_error(tmp_path: Path) -> None:
    runner = ToolRunner(ToolPool([GateTool(Gates())]))

    async def main() -> None:
        async with StreamingToolExecutor(runner, ctx(tmp_path)) as ex:
            ex.finish()
            with pytest.raises(RuntimeError):
                ex.add_tool(block(0, "x"))

    anyio.run(main)
