"""The streaming executor (seeds 4.5, ``StreamingToolExecutor``): tools start while the model writes.

The agent loop calls :meth:`StreamingToolExecutor.add_tool` at each ``tool_use`` block's
``content_block_stop``; the tool starts at once if :func:`can_execute_tool` says so. Each tracked
tool goes ``queued → executing → completed → yielded``. Progress events go to the sink the moment
they happen; results are yielded strictly in the model's order (FIFO) even when a later tool
finishes first. Consumers are woken by an event, never by polling.

Sibling abort: when a tool that ``aborts_siblings_on_error`` (Bash) fails, the other running calls
of this turn are aborted and queued ones are cancelled with a synthetic error; other tools'
errors do not cascade. Context modifiers of unsafe tools apply as soon as they complete (an unsafe
tool always runs alone, so "after its batch" is "when it completes").
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from bot.runtime.pipeline import ToolCallOutcome, ToolCallRecord, ToolRunner, tool_use_error
from bot.runtime.results import enforce_message_budget
from bot.tools.abort import AbortSignal
from bot.tools.context import ToolUseContext
from bot.tools.messages import ProgressSink, ToolResultBlock, ToolUseBlock, drop_progress

Status = Literal["queued", "executing", "completed", "yielded"]


@dataclass(slots=True)
class TrackedTool:
    block: ToolUseBlock
    is_concurrency_safe: bool
    status: Status = "queued"
    outcome: ToolCallOutcome | None = None


def can_execute_tool(is_concurrency_safe: bool, executing: Sequence[TrackedTool]) -> bool:
    """Seeds 4.5: anything may start when nothing runs; otherwise only a safe tool, and only beside
    tools that are all safe."""
    return not executing or (is_concurrency_safe and all(t.is_concurrency_safe for t in executing))


class StreamingToolExecutor:
    """Use as ``async with StreamingToolExecutor(runner, context, sink) as ex:``."""

    def __init__(self, runner: ToolRunner, context: ToolUseContext, sink: ProgressSink = drop_progress) -> None:
        self._runner = runner
        self.context = context
        self._sink = sink
        self._tools: list[TrackedTool] = []
        self._changed = anyio.Event()
        self._finished_adding = False
        self._sibling = AbortSignal(context.abort)
        self._errored_sibling: str | None = None
        self._tg: TaskGroup | None = None

    async def __aenter__(self) -> StreamingToolExecutor:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
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
        """The model's stream has ended: no more tools will be added."""
        self._finished_adding = True
        self._notify()

    def abort(self, reason: str) -> None:
        """Abort running tools; queued ones are cancelled (a stream that must be retried, say)."""
        self._sibling.abort(reason)
        self._process_queue()

    # ----- scheduling -----------------------------------------------------------------------------

    def _executing(self) -> list[TrackedTool]:
        return [t for t in self._tools if t.status == "executing"]

    def _process_queue(self) -> None:
        for tracked in self._tools:
            if tracked.status != "queued":
                continue
            if self._sibling.aborted:
                self._cancel(tracked)
                continue
            if can_execute_tool(tracked.is_concurrency_safe, self._executing()):
                tracked.status = "executing"
                assert self._tg is not None, "use StreamingToolExecutor as an async context manager"
                self._tg.start_soon(self._execute, tracked)
            elif not tracked.is_concurrency_safe:
                break  # an unsafe tool waits for exclusivity, and everything after it waits too
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
        record = ToolCallRecord(tracked.block.id, tracked.block.name, tracked.block.input, is_error=True,
                                failed_stage="aborted", error_kind="SiblingAborted")
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
        exempt = {o.result.tool_use_id for o, t in zip(outcomes, self._tools, strict=True)
                  if self._runner.pages_itself(t.block)}
        blocks = enforce_message_budget([o.result for o in outcomes], self.context.scratch_dir, exempt_ids=exempt)
        for outcome, block in zip(outcomes, blocks, strict=True):
            outcome.result = block
        return outcomes
