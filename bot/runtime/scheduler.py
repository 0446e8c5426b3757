"""The static scheduling path (seeds 4.5, ``toolOrchestration.ts``).

Used when all of a turn's ``tool_use`` blocks are known at once (a replayed turn, ``bot tools call``,
a sub-agent without streaming). :func:`partition_tool_calls` is a pure function: consecutive
concurrency-safe calls form one batch; an unsafe call (or one whose input does not parse) is a
batch of its own. Safe batches run concurrently, at most ``max_tool_use_concurrency`` at once;
results come back in the model's order. Context modifiers apply only for unsafe calls, after
their batch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio

from bot.runtime.pipeline import ToolCallOutcome, ToolRunner
from bot.runtime.results import enforce_message_budget
from bot.tools.context import ToolUseContext
from bot.tools.messages import ProgressSink, ToolUseBlock, drop_progress

#: Seeds 4.5: ``getMaxToolUseConcurrency()`` default; our variable overrides it.
DEFAULT_MAX_TOOL_USE_CONCURRENCY = 10
MAX_TOOL_USE_CONCURRENCY_ENV = "BOT_MAX_TOOL_USE_CONCURRENCY"


@dataclass(frozen=True, slots=True)
class Batch:
    is_concurrency_safe: bool
    blocks: tuple[ToolUseBlock, ...]


def partition_tool_calls(blocks: Sequence[ToolUseBlock], is_safe: Callable[[ToolUseBlock], bool]) -> list[Batch]:
    batches: list[Batch] = []
    for block in blocks:
        safe = is_safe(block)
        if safe and batches and batches[-1].is_concurrency_safe:
            batches[-1] = Batch(True, (*batches[-1].blocks, block))
        else:
            batches.append(Batch(safe, (block,)))
    return batches


def max_tool_use_concurrency(context: ToolUseContext) -> int:
    raw = os.environ.get(MAX_TOOL_USE_CONCURRENCY_ENV)
    if raw:
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value > 0:
            return value
    return max(1, context.limits.max_tool_use_concurrency)


async def run_tools(blocks: Sequence[ToolUseBlock], runner: ToolRunner, context: ToolUseContext,
                    sink: ProgressSink = drop_progress) -> tuple[list[ToolCallOutcome], ToolUseContext]:
    """Run a turn's calls batch by batch. Returns the outcomes in order and the updated context."""
    outcomes: list[ToolCallOutcome] = []
    limiter = anyio.CapacityLimiter(max_tool_use_concurrency(context))
    for batch in partition_tool_calls(blocks, runner.is_concurrency_safe):
        if batch.is_concurrency_safe:
            slots: list[ToolCallOutcome | None] = [None] * len(batch.blocks)

            async def run_one(i: int, block: ToolUseBlock, ctx: ToolUseContext,
                              out: list[ToolCallOutcome | None]) -> None:
                async with limiter:
                    out[i] = await runner.run(block, ctx, sink)

            async with anyio.create_task_group() as tg:
                for i, block in enumerate(batch.blocks):
                    tg.start_soon(run_one, i, block, context, slots)
            outcomes.extend(o for o in slots if o is not None)
        else:
            outcome = await runner.run(batch.blocks[0], context, sink)
            outcomes.append(outcome)
            if outcome.context_modifier is not None:
                context = outcome.context_modifier(context)
    exempt = {b.id for b in blocks if runner.pages_itself(b)}
    budgeted = enforce_message_budget([o.result for o in outcomes], context.scratch_dir, exempt_ids=exempt)
    for outcome, result in zip(outcomes, budgeted, strict=True):
        outcome.result = result
    return outcomes, context

