"""The concurrency cap holds on both paths (streaming and static), read from the environment once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from bot.errors import ConfigError
from bot.interface.context import ToolLimits, ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.scheduler import (
    DEFAULT_MAX_TOOL_USE_CONCURRENCY,
    max_tool_use_concurrency,
    run_tools,
)
from bot.runtime.single_call import flag_permission_context
from bot.runtime.streaming import StreamingToolExecutor


@dataclass
class Occupancy:
    """How many calls are inside the tool now, the most there ever were, and events to drive them."""

    limit_reached_at: int
    running: int = 0
    peak: int = 0
    finished: int = 0
    release: anyio.Event = field(default_factory=anyio.Event)
    full: anyio.Event = field(default_factory=anyio.Event)


class CountInput(ToolInput):
    n: int


class CountingTool(Tool[CountInput, str]):
    """A concurrency-safe tool (think Read) that counts its concurrent calls and waits for a release."""

    name = "Count"
    input_model = CountInput

    def __init__(self, occupancy: Occupancy) -> None:
        self.occupancy = occupancy

    def is_concurrency_safe(self, input: CountInput) -> bool:
        return True

    async def call(self, input: CountInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        occ = self.occupancy
        # One event loop thread: the read-modify-write below cannot interleave with another call's.
        occ.running += 1
        occ.peak = max(occ.peak, occ.running)
        if occ.running >= occ.limit_reached_at:
            occ.full.set()
        try:
            await occ.release.wait()
        finally:
            occ.running -= 1
            occ.finished += 1
        return ToolResult(f"read {input.n}")


def counting_context(tmp_path: Path, limit: int = DEFAULT_MAX_TOOL_USE_CONCURRENCY) -> ToolUseContext:
    return make_context(
        tmp_path,
        scratch_dir=tmp_path / ".s",
        permission=flag_permission_context(["Count"], [], []),
        limits=ToolLimits(max_tool_use_concurrency=limit),
    )


async def through_streaming(
    blocks: Sequence[ToolUseBlock], runner: ToolRunner, context: ToolUseContext
) -> list[ToolCallOutcome]:
    async with StreamingToolExecutor(runner, context) as ex:
        for blk in blocks:
            ex.add_tool(blk)
        ex.finish()
        return await ex.collect()


async def through_static(
    blocks: Sequence[ToolUseBlock], runner: ToolRunner, context: ToolUseContext
) -> list[ToolCallOutcome]:
    return (await run_tools(blocks, runner, context))[0]


Path_ = Callable[[Sequence[ToolUseBlock], ToolRunner, ToolUseContext], Awaitable[list[ToolCallOutcome]]]


def run_25_calls(tmp_path: Path, through: Path_, cap: int) -> tuple[Occupancy, int, list[ToolCallOutcome]]:
    """25 concurrency-safe calls; returns the occupancy, how many ran once the cap filled, the outcomes."""
    occupancy = Occupancy(limit_reached_at=cap)
    runner = ToolRunner(ToolPool([CountingTool(occupancy)]))
    blocks = [ToolUseBlock(f"t{i}", "Count", {"n": i}) for i in range(25)]
    box: list[list[ToolCallOutcome]] = []

    async def main() -> int:
        async with anyio.create_task_group() as tg:

            async def go() -> None:
                box.append(await through(blocks, runner, counting_context(tmp_path)))

            tg.start_soon(go)
            await occupancy.full.wait()
            # Every task that could start has now had the chance to: nothing is runnable but waiters.
            await anyio.wait_all_tasks_blocked()
            running_when_full = occupancy.running
            occupancy.release.set()
        return running_when_full

    running_when_full = anyio.run(main)
    return occupancy, running_when_full, box[0]


@pytest.mark.parametrize(
    ("description", "through"),
    [
        ("the streaming executor", through_streaming),
        ("the static path", through_static),
    ],
)
def test_25_safe_calls_never_have_more_than_10_running_at_once(
    tmp_path: Path, description: str, through: Path_
) -> None:
    occupancy, running_when_full, outcomes = run_25_calls(tmp_path, through, cap=10)
    assert running_when_full == 10, description
    assert occupancy.peak == 10, description
    assert occupancy.finished == 25
    assert [o.result.content for o in outcomes] == [f"read {i}" for i in range(25)]


@pytest.mark.parametrize(
    ("description", "through"),
    [
        ("the streaming executor", through_streaming),
        ("the static path", through_static),
    ],
)
def test_the_environment_variable_sets_the_cap_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, description: str, through: Path_
) -> None:
    monkeypatch.setenv("BOT_MAX_TOOL_USE_CONCURRENCY", "3")
    occupancy, running_when_full, outcomes = run_25_calls(tmp_path, through, cap=3)
    assert (running_when_full, occupancy.peak, len(outcomes)) == (3, 3, 25), description


@pytest.mark.parametrize(
    ("description", "environ", "expected"),
    [
        ("nothing set: the context's limit (default 10)", {}, 10),
        ("ours alone", {"BOT_MAX_TOOL_USE_CONCURRENCY": "4"}, 4),
        ("the seeds' variable alone", {"CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "6"}, 6),
        ("both set: ours wins", {"BOT_MAX_TOOL_USE_CONCURRENCY": "4", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "6"}, 4),
        (
            "ours set: a bad seeds' value is not even read",
            {"BOT_MAX_TOOL_USE_CONCURRENCY": "4", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "lots"},
            4,
        ),
        ("surrounding whitespace is tolerated", {"BOT_MAX_TOOL_USE_CONCURRENCY": " 2 "}, 2),
        ("an empty value counts as unset", {"BOT_MAX_TOOL_USE_CONCURRENCY": ""}, 10),
        ("one: calls run one at a time", {"BOT_MAX_TOOL_USE_CONCURRENCY": "1"}, 1),
    ],
)
def test_the_cap_comes_from_our_variable_then_the_seeds_then_the_context(
    description: str, environ: dict[str, str], expected: int
) -> None:
    assert max_tool_use_concurrency(ToolLimits(), environ) == expected, description


@pytest.mark.parametrize(
    ("description", "environ", "named"),
    [
        ("not a number", {"BOT_MAX_TOOL_USE_CONCURRENCY": "nonsense"}, "BOT_MAX_TOOL_USE_CONCURRENCY"),
        ("a typo that would silently mean 10", {"BOT_MAX_TOOL_USE_CONCURRENCY": "1O"}, "BOT_MAX_TOOL_USE_CONCURRENCY"),
        ("zero would start nothing", {"BOT_MAX_TOOL_USE_CONCURRENCY": "0"}, "BOT_MAX_TOOL_USE_CONCURRENCY"),
        ("negative", {"BOT_MAX_TOOL_USE_CONCURRENCY": "-3"}, "BOT_MAX_TOOL_USE_CONCURRENCY"),
        ("a fraction", {"BOT_MAX_TOOL_USE_CONCURRENCY": "2.5"}, "BOT_MAX_TOOL_USE_CONCURRENCY"),
        (
            "the seeds' variable, bad",
            {"CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY": "many"},
            "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY",
        ),
    ],
)
def test_a_bad_value_is_a_config_error_naming_the_variable(
    description: str, environ: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        max_tool_use_concurrency(ToolLimits(), environ)


def test_a_bad_value_stops_the_streaming_executor_before_any_tool_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_MAX_TOOL_USE_CONCURRENCY", "ten")
    runner = ToolRunner(ToolPool([CountingTool(Occupancy(limit_reached_at=1))]))
    with pytest.raises(ConfigError, match="BOT_MAX_TOOL_USE_CONCURRENCY='ten'"):
        StreamingToolExecutor(runner, counting_context(tmp_path))
