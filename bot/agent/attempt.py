"""One streamed attempt of a turn: the model's response read event by event, each complete
``tool_use`` block handed to the streaming executor at its ``content_block_stop`` so tools run while
the model is still writing, and the results collected in order.

An attempt that fails (a cut stream, an overload event) aborts the tools it had started and reports
the error with what it billed; the loop's retry policy decides whether to try again. The pipeline
is wrapped (:class:`ObservedRunner`) so the run's events say when each call really starts and ends,
and repeated denials add guidance (seeds 4f).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field

import anyio

from bot.agent.events import RunEvent, TextDelta, ToolFinished, ToolStarted
from bot.agent.model import (
    Block,
    ModelClient,
    ModelError,
    ModelRequest,
    StreamFinished,
    StreamStarted,
    TextChunk,
    ToolUseReady,
)
from bot.agent.session import SetupGate
from bot.agent.usage import ZERO_USAGE, Usage
from bot.interface.context import ToolUseContext
from bot.interface.messages import ProgressSink, ToolResultBlock, ToolUseBlock, drop_progress
from bot.permissions.chain import PermissionEngine
from bot.permissions.decision import Deny
from bot.permissions.denials import DenialTracker
from bot.runtime.hooks import HookRunner
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner, tool_use_error
from bot.runtime.streaming import StreamingToolExecutor

#: How long after the request is handed to the client ``stream_attempt``'s ``begin`` is called: by
#: then the request is out (a connection to a nearby server takes milliseconds), so what ``begin``
#: starts does not hold it back, and it has the model's time to its first token.
BEGIN_AFTER_S = 0.05


@dataclass(slots=True)
class Attempt:
    """What one streamed attempt produced."""

    finished: StreamFinished | None = None
    usage: Usage = ZERO_USAGE
    request_id: str | None = None
    truncated: list[ToolUseBlock] = field(default_factory=list)
    outcomes: list[ToolCallOutcome] = field(default_factory=list)
    context: ToolUseContext | None = None
    #: Why the attempt failed (its tools were aborted); ``None`` when it did not.
    error: ModelError | None = None

    def results_content(self) -> list[Block]:
        """The user message's content that answers this response: each result in call order, an
        error result for each call cut off before its input was complete, then what the calls
        added (hook context, denial guidance)."""
        content: list[Block] = [o.result.to_api() for o in self.outcomes]
        for block in self.truncated:
            text = tool_use_error(
                f"The {block.name} call was cut off by the output token limit before its input "
                "was complete, so it did not run. Send it again, smaller if needed."
            )
            content.append(ToolResultBlock(block.id, text, is_error=True).to_api())
        for outcome in self.outcomes:
            content += outcome.new_messages
        return content


async def stream_attempt(
    client: ModelClient,
    request: ModelRequest,
    runner: ToolRunner,
    context: ToolUseContext,
    progress: ProgressSink,
    emit: Callable[[RunEvent], None],
    turn: int,
    *,
    setup: SetupGate | None = None,
) -> Attempt:
    """Stream one response and run its tools. Never raises :class:`ModelError`: a failure is in
    ``Attempt.error``, after the attempt's tools were aborted and collected (their log is kept).
    The session's pending ``setup`` is begun :data:`BEGIN_AFTER_S` after the request was handed
    over, and awaited before the response's first event is read (what it raises ends the attempt
    before any of its tools started)."""
    state = Attempt()
    async with StreamingToolExecutor(runner, context, progress) as executor:
        try:
            await _consume(client, request, context, executor, state, emit, turn, setup)
        except ModelError as exc:
            state.error = exc
            executor.abort(f"the model's response failed ({exc.kind}); the turn is retried")
        executor.finish()
        state.outcomes = await executor.collect()
        state.context = executor.context
    return state


async def _consume(
    client: ModelClient,
    request: ModelRequest,
    context: ToolUseContext,
    executor: StreamingToolExecutor,
    state: Attempt,
    emit: Callable[[RunEvent], None],
    turn: int,
    setup: SetupGate | None,
) -> None:
    """Read the stream until ``message_stop``; return early (``state.finished`` is None) on abort."""
    abort = context.abort
    if abort.aborted:
        return
    failure: ModelError | None = None
    async with anyio.create_task_group() as tg:

        async def watch_abort() -> None:
            await abort.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(watch_abort)
        if setup is not None and setup.begin is not None:
            tg.start_soon(_after, BEGIN_AFTER_S, setup.begin)
        ready = setup is not None
        try:
            async with aclosing(client.stream(request)) as stream:
                async for event in stream:
                    if setup is not None and ready:
                        await setup.passed(context)
                        ready = False
                    match event:
                        case StreamStarted():
                            state.usage, state.request_id = event.usage, event.request_id
                        case TextChunk():
                            emit(TextDelta(turn, event.text))
                        case ToolUseReady(block=block, complete=True):
                            executor.add_tool(block)
                        case ToolUseReady(block=block):
                            state.truncated.append(block)
                        case StreamFinished():
                            state.finished, state.usage = event, event.usage
        except ModelError as exc:
            failure = exc
        finally:
            tg.cancel_scope.cancel()
    if failure is not None:
        raise failure


async def _after(seconds: float, call: Callable[[], object]) -> None:
    await anyio.sleep(seconds)
    call()


class ObservedRunner(ToolRunner):
    """The pipeline, reporting when each call really starts and ends (not in FIFO order), and
    adding the denial tracker's guidance to a result when the model keeps hitting denials."""

    def __init__(
        self,
        pool: ToolPool,
        engine: PermissionEngine,
        hooks: HookRunner,
        denials: DenialTracker,
        emit: Callable[[RunEvent], None],
        turn: int,
    ) -> None:
        super().__init__(pool, engine, hooks)
        self._denials = denials
        self._emit = emit
        self._turn = turn

    async def run(
        self, block: ToolUseBlock, context: ToolUseContext, sink: ProgressSink = drop_progress
    ) -> ToolCallOutcome:
        self._emit(ToolStarted(self._turn, block.id, block.name, block.input))
        outcome = await super().run(block, context, sink)
        record = outcome.record
        denial = None
        if isinstance(record.decision, Deny):
            rule = f" (rule {record.decision.rule.describe()})" if record.decision.rule else ""
            denial = f"{record.decision.reason}{rule}"
            guidance = self._denials.record_denial(record.tool_name, record.summary, record.decision)
            if guidance:
                outcome.new_messages.append({"type": "text", "text": guidance})
        elif record.decision is not None:
            self._denials.record_allowed(record.tool_name)
        self._emit(
            ToolFinished(
                self._turn,
                block.id,
                record.tool_name,
                record.summary,
                outcome.result.is_error,
                record.denied,
                denial,
                record.duration_s,
            )
        )
        return outcome


__all__ = ["Attempt", "ObservedRunner", "stream_attempt"]
