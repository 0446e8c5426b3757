"""The one tool scheduler (seeds 4.5), used by the streaming path and the static path alike.

Calls are queued in the model's order and started by one rule, :func:`can_execute_tool`:
anything may start when nothing runs; otherwise only a concurrency-safe call, beside calls that are
all safe, and only while fewer than the cap are running. The first queued call that may not start
holds back every call after it, so calls start in the model's order. Results are yielded strictly
in that order (FIFO) even when a later call finishes first; consumers are woken by an event, never
by polling. Each tracked call goes ``queued → executing → completed → yielded``.

The two paths differ only in when blocks arrive:

- streaming (:mod:`bot.runtime.streaming`): the agent loop calls :meth:`ToolScheduler.add_tool` at
  each ``tool_use`` block's ``content_block_stop``, so tools run while the model still writes;
- static (:func:`run_tools`): a turn whose blocks are all known at once (a replayed turn, a
  benchmark's baseline) adds them all, then finishes. With every block queued up front, the rule
  above reproduces the seeds' ``partitionToolCalls`` batches: consecutive safe calls run together,
  an unsafe call runs alone.

The cap (:func:`max_tool_use_concurrency`, default 10) applies on both paths. The seeds cap only
the static path; their reason for the cap — a model issuing 20 reads at once exhausts file handles
and contends for I/O — holds for the streaming path just as much.

Sibling abort: when a call whose tool ``aborts_siblings_on_error`` (Bash) fails, the other running
calls of the turn are aborted and queued ones are cancelled with a synthetic error; other tools'
errors do not cascade. Context modifiers of unsafe tools apply as soon as they complete (an unsafe
call always runs alone, so "after its batch" is "when it completes").
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from bot.errors import ConfigError
from bot.interface.abort import AbortSignal
from bot.interface.context import ToolLimits, ToolUseContext
from bot.interface.messages import ProgressSink, ToolResultBlock, ToolUseBlock, drop_progress
from bot.runtime.pipeline import ToolCallOutcome, ToolCallRecord, ToolRunner, tool_use_error
from bot.runtime.results import enforce_message_budget

#: Seeds 4.5: ``getMaxToolUseConcurrency()`` defaults to 10 (``ToolLimits`` carries it per context).
DEFAULT_MAX_TOOL_USE_CONCURRENCY = ToolLimits().max_tool_use_concurrency
#: Ours first, then the seeds' name, so a workflow written for Claude Code keeps its setting.
MAX_TOOL_USE_CONCURRENCY_ENV = "BOT_MAX_TOOL_USE_CONCURRENCY"
SEEDS_MAX_TOOL_USE_CONCURRENCY_ENV = "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY"

Status = Literal["queued", "executing", "completed", "yielded"]


def max_tool_use_concurrency(limits: ToolLimits, environ: Mapping[str, str] | None = None) -> int:
    """The cap: ``BOT_MAX_TOOL_USE_CONCURRENCY``, else ``CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY``, else
    the context's limit. An empty variable counts as unset.

    A value that is not a whole number of at least 1 raises :class:`ConfigError` rather than falling
    back: whoever sets the variable means to change the cap (usually to lower it on a small runner),
    and a typo such as ``1O`` quietly running ten calls at once is the failure they would not see.
    The executor reads it when a turn's scheduler is built, which is before the turn's model request.
    """
    env = os.environ if environ is None else environ
    for name in (MAX_TOOL_USE_CONCURRENCY_ENV, SEEDS_MAX_TOOL_USE_CONCURRENCY_ENV):
        raw = env.get(name, "").strip()
        if not raw:
            continue
        try:
            value = int(raw, 10)
        except ValueError:
            value = 0
        if value < 1:
            raise ConfigError(
                f"{name}={raw!r} must be a whole number of at least 1 (the most tool calls "
                f"that run at once; unset, it is {limits.max_tool_use_concurrency})"
            )
        return value
    return max(1, limits.max_tool_use_concurrency)


@dataclass(slots=True)
class TrackedTool:
    block: ToolUseBlock
    is_concurrency_safe: bool
    status: Status = "queued"
    outcome: ToolCallOutcome | None = None


def can_execute_tool(
    is_concurrency_safe: bool, executing: Sequence[TrackedTool], limit: int = DEFAULT_MAX_TOOL_USE_CONCURRENCY
) -> bool:
    """Seeds 4.5 plus the cap: anything may start when nothing runs; otherwise only a safe tool,
    only beside tools that are all safe, and only while fewer than ``limit`` run."""
    if not executing:
        return True
    return is_concurrency_safe and len(executing) < limit and all(t.is_concurrency_safe for t in executing)


class ToolScheduler:
    """Use as ``async with ToolScheduler(runner, context, sink) as scheduler:``; add blocks, then
    :meth:`finish`, then :meth:`collect` (or iterate :meth:`results`).

    Raises :class:`ConfigError` when the cap's environment variable is bad (before any call starts).
    """

    def __init__(self, runner: ToolRunner, context: ToolUseContext, sink: ProgressSink = drop_progress) -> None:
        self._runner = runner
        self.context = context
        self._sink = sink
        self.limit = max_tool_use_concurrency(context.limits)
        self._tools: list[TrackedTool] = []
        self._changed = anyio.Event()
        self._finished_adding = False
        self._sibling = AbortSignal(context.abort)
        self._errored_sibling: str | None = None
        self._tg: TaskGroup | None = None

    async def __aenter__(self) -> ToolScheduler:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        assert self._tg is not None
        if exc is not None:
            self._sibling.abort("the turn ended before this tool finished")
        return await self._tg.__aexit__(exc_type, exc, tb)

    # ----- producer side ------------------------------------------------------------------------

    def add_tool(self, block: ToolUseBlock) -> None:
        """A ``tool_use`` block is complete: queue it and start it if the rule allows."""
        if self._finished_adding:
            raise RuntimeError("add_tool after finish()")
        self._tools.append(TrackedTool(block, self._runner.is_concurrency_safe(block)))
        self._process_queue()

    def finish(self) -> None:
        """No more tools will be added (the model's stream has ended, or the turn was all queued)."""
        self._finished_adding = True
        self._notify()

    def abort(self, reason: str) -> None:
        """Abort running tools; queued ones are cancelled (a stream that must be retried, say)."""
        self._sibling.abort(reason)
        self._process_queue()

    # ----- scheduling -----------------------------------------------------------------------------

    def _process_queue(self) -> None:
        executing = [t for t in self._tools if t.status == "executing"]
        for tracked in self._tools:
            if tracked.status != "queued":
                continue
            if self._sibling.aborted:
                self._cancel(tracked)
                continue
            if not can_execute_tool(tracked.is_concurrency_safe, executing, self.limit):
                break  # FIFO: a call that must wait (for exclusivity or a slot) holds back those after it
            tracked.status = "executing"
            executing.append(tracked)
            assert self._tg is not None, "use the scheduler as an async context manager"
            self._tg.start_soon(self._execute, tracked)
        self._notify()

    async def _execute(self, tracked: TrackedTool) -> None:
        context = self.context.with_(abort=self._sibling.child())
        outcome = await self._runner.run(tracked.block, context, self._sink)
        tracked.outcome = outcome
        tracked.status = "completed"
        if not tracked.is_concurrency_safe and outcome.context_modifier is not None:
            self.context = outcome.context_modifier(self.context)
        if outcome.result.is_error and self._runner.aborts_siblings(tracked.block) and not self._sibling.aborted:
            self._errored_sibling = f"{tracked.block.name} ({outcome.record.summary or tracked.block.id})"
            self._sibling.abort(f"a parallel {self._errored_sibling} call errored")
        self._process_queue()

    def _cancel(self, tracked: TrackedTool) -> None:
        reason = self._sibling.reason or "cancelled"
        text = tool_use_error(f"Cancelled: {reason}; this call did not run.")
        record = ToolCallRecord(
            tracked.block.id,
            tracked.block.name,
            tracked.block.input,
            is_error=True,
            failed_stage="aborted",
            error_kind="SiblingAborted",
        )
        tracked.outcome = ToolCallOutcome(ToolResultBlock(tracked.block.id, text, is_error=True), record)
        tracked.status = "completed"

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    # ----- consumer side ----------------------------------------------------------------------

    def completed_results(self) -> list[ToolCallOutcome]:
        """Results that can be yielded now without waiting (the head of the queue, in order)."""
        ready: list[ToolCallOutcome] = []
        for tracked in self._tools:
            if tracked.status == "yielded":
                continue
            if tracked.status != "completed" or tracked.outcome is None:
                break
            tracked.status = "yielded"
            ready.append(tracked.outcome)
        return ready

    async def results(self) -> AsyncIterator[ToolCallOutcome]:
        """Every result in order; returns once :meth:`finish` was called and all were yielded."""
        while True:
            changed = self._changed
            for outcome in self.completed_results():
                yield outcome
            if self._finished_adding and all(t.status == "yielded" for t in self._tools):
                return
            await changed.wait()

    async def collect(self) -> list[ToolCallOutcome]:
        """All results in order, with the per-message budget applied (seeds 4.8)."""
        outcomes = [o async for o in self.results()]
        exempt = {
            o.result.tool_use_id
            for o, t in zip(outcomes, self._tools, strict=True)
            if self._runner.pages_itself(t.block)
        }
        blocks = enforce_message_budget([o.result for o in outcomes], self.context.scratch_dir, exempt_ids=exempt)
        for outcome, block in zip(outcomes, blocks, strict=True):
            outcome.result = block
        return outcomes


async def run_tools(
    blocks: Sequence[ToolUseBlock], runner: ToolRunner, context: ToolUseContext, sink: ProgressSink = drop_progress
) -> tuple[list[ToolCallOutcome], ToolUseContext]:
    """The static path: a turn's calls, all known at once, through the one scheduler. Returns the
    outcomes in the model's order and the context after the unsafe calls' modifiers."""
    async with ToolScheduler(runner, context, sink) as scheduler:
        for block in blocks:
            scheduler.add_tool(block)
        scheduler.finish()
        outcomes = await scheduler.collect()
    return outcomes, scheduler.context
