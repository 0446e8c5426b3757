"""The agent loop: ``run_agent(task, session, events) -> AgentOutcome``.

One turn: build the request (cache layout, :mod:`bot.agent.cache`), stream the response, hand
each ``tool_use`` block to the streaming executor at its ``content_block_stop`` so tools run while
the model is still writing, collect the results in order, append both messages, repeat — until the
model ends its turn without tool calls, or a limit, an abort, a hook or a fatal error stops the run.

Around it: one streamed attempt with its tools is :mod:`bot.agent.attempt`, the conversation kept in
the shape the API accepts is :mod:`bot.agent.conversation`, what a stop reason means is
:mod:`bot.agent.stop_reasons`, the retry driver is :mod:`bot.agent.retry`.

A failed attempt (a 529, a cut stream) is retried as a whole turn: the attempt's running tools are
aborted and logged as discarded, its streamed text is void (a ``ModelRetrying`` event says so).
Limits stop cleanly between turns; the wall time also aborts a turn in progress. Whatever stops the
run, the outcome keeps everything done so far — files on disk, the tool-call log, usage and cost.

Before every request the conversation is measured against the model's window
(:mod:`bot.agent.context_window`) and shrunk when it grows too big (:mod:`bot.agent.compaction`):
old tool results cleared first, then a summary compaction. A summary that cannot be had (its
request failed through every retry) ends the run as the ``context_window`` limit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import TypeVar, assert_never

import anyio

from bot.agent.attempt import Attempt, ObservedRunner, stream_attempt
from bot.agent.cache import system_blocks, tool_definitions, with_message_breakpoint
from bot.agent.compaction import (
    SUMMARY_MAX_TOKENS,
    Cleared,
    ClientClearing,
    Compaction,
    CompactionKind,
    ToolResultClearing,
    clear_old_tool_results,
    prompt_too_long,
    rebuild_conversation,
    stream_summary,
    summary_request,
    summary_text,
)
from bot.agent.context_window import ContextBudget, estimate_request, window_for
from bot.agent.conversation import Conversation
from bot.agent.events import (
    ContextCompacted,
    EventSink,
    LimitReached,
    ModelRetrying,
    RunEvent,
    RunFinished,
    TodoItemView,
    TodosChanged,
    ToolProgressed,
    TurnFinished,
    TurnStarted,
    drop_events,
    safe_emit,
)
from bot.agent.lifecycle import NoLifecycleHooks, SessionInfo, open_session, stop_hooks
from bot.agent.limits import LimitHit, limit_before_turn, wall_time_hit
from bot.agent.model import (
    Block,
    Message,
    ModelError,
    ModelRequest,
    ModelRetriesExhausted,
    StreamFinished,
    merged_params,
)
from bot.agent.outcome import AgentOutcome, Stop, ToolCallEntry, TurnRecord
from bot.agent.prompts import AgentTask, build_system_prompt, gather_environment, render_task
from bot.agent.resume import opening_messages
from bot.agent.retry import RetryNotice, run_retried
from bot.agent.session import AgentSession, RunLedger, SetupGate
from bot.agent.stop_reasons import turn_ending
from bot.agent.subagents import (
    SubagentRunner,
    running_agents,
    task_notification,
    wait_for_all_agents,
    wait_for_background_agents,
    with_agent_definitions,
)
from bot.agent.transcript import Transcript, transcript_path_for
from bot.agent.usage import ZERO_USAGE, Usage
from bot.core.guard import guard_of, tool_redactor
from bot.errors import canary_tripped_in
from bot.interface.context import ToolUseContext
from bot.interface.messages import ProgressEvent, ProgressSink
from bot.permissions.denials import DenialTracker
from bot.runtime.pipeline import ToolCallOutcome
from bot.shell.execute.background import SERVICE_KEY as TASKS_KEY
from bot.shell.execute.background import BackgroundTasks
from bot.tools.agent_tool import SUBAGENT_SERVICE
from bot.tools.ask_user import QUESTION_SERVICE
from bot.tools.todo_write import TODO_SERVICE, TodoItem, TodoList
from bot.tools.tool_search import TOOL_SEARCH_SERVICE, DeferredTools

_T = TypeVar("_T")

MAX_TOKENS_NOTICE = (
    "Your response was cut off at the output token limit. Continue where you stopped; "
    "split large outputs (a big file) into several smaller tool calls."
)


async def run_agent(task: AgentTask, session: AgentSession, events: EventSink = drop_events) -> AgentOutcome:
    """Run the model on a task until it finishes or something stops it. Never raises for model,
    tool or limit trouble: the outcome's ``stop`` says what happened.

    A tripped secret canary is not such trouble: :class:`~bot.errors.CanaryTripped` is raised (out
    of the task groups it crossed, and at the end when a background task recorded one), so the
    caller pushes and posts nothing more."""
    try:
        outcome = await _AgentRun(task, session, events).run()
    except BaseExceptionGroup as group:
        tripped = canary_tripped_in(group)
        if tripped is None:
            raise
        raise tripped from None
    guard_of(session.context.services).canaries.raise_if_tripped()
    return outcome


class _AgentRun:
    def __init__(self, task: AgentTask, session: AgentSession, events: EventSink) -> None:
        self.task = task
        self.session = session
        self.events = events
        self.agent_id = session.agent_id
        self.is_main = session.agent_id is None
        self.clock = session.clock
        self._setup = SetupGate(session)
        now = self.clock()
        wall = session.limits.wall_time_s
        self.ledger = session.ledger or RunLedger(started_at=now, deadline=None if wall is None else now + wall)
        self.pool = with_agent_definitions(session.pool, session.agent_definitions)
        self.turns = 0
        self.system: list[Block] = []
        self.stop_hook_active = False
        self.deferred = DeferredTools(server_side=session.client.supports_tool_search)
        #: Seeds 4f: repeated denials add guidance so the model stops retrying.
        self.denials = DenialTracker()
        self.tasks: BackgroundTasks | None = None
        self.owns_tasks = False
        self.runner: SubagentRunner | None = None
        self.transcript = Transcript(
            transcript_path_for(session.context.scratch_dir, self.agent_id),
            session_id=session.session_id,
            cwd=session.context.working_directory,
            agent_id=self.agent_id,
        )
        self.convo = Conversation(self.transcript)
        self.context = self._make_context(session.context)
        self._billed = ZERO_USAGE
        self._request_id: str | None = None
        self._limit_reported = False
        self.clearing: ToolResultClearing = session.context_clearing or ClientClearing()
        self.compactions: list[Compaction] = []
        #: The turn that follows a compaction forced by the API's "prompt is too long": not forced twice.
        self._forced_compaction = 0

    def _make_context(self, base: ToolUseContext) -> ToolUseContext:
        services = base.services.copy()
        services[TOOL_SEARCH_SERVICE] = self.deferred
        if self.is_main:
            services[TODO_SERVICE] = TodoList(self._todos_changed)
            self.runner = SubagentRunner(self.session, self.ledger, self.events, run_agent)
            services[SUBAGENT_SERVICE] = self.runner
            tasks = services.get(TASKS_KEY)
            if not isinstance(tasks, BackgroundTasks):  # nobody gave the run one: it owns its own
                tasks = BackgroundTasks(base.scratch_dir / "tasks", redact=tool_redactor(base.services))
                self.owns_tasks = True
            self.tasks = services[TASKS_KEY] = tasks
        return base.with_(tools=self.pool.tools, services=services, agent_id=self.agent_id)

    # ----- the run ------------------------------------------------------------------------------

    async def run(self) -> AgentOutcome:
        async with anyio.create_task_group() as tg, AsyncExitStack() as stack:
            if self.session.ledger is None and self.ledger.deadline is not None:
                tg.start_soon(self._watch_deadline)
            if self.owns_tasks and self.tasks is not None:
                await stack.enter_async_context(self.tasks)
            stop = await self._drive()
            await self._setup.passed(self.context)  # a run that read no response ends only once it passed
            if self.runner is not None and self.tasks is not None:
                # Background agents still running belong to this run: stop them, let them wrap up.
                self.runner.stop_background(f"the run ended ({stop.reason})")
                await wait_for_all_agents(self.tasks)
            tg.cancel_scope.cancel()
        self._emit(RunFinished(stop.reason, stop.detail))
        return self._outcome(stop)

    async def _watch_deadline(self) -> None:
        assert self.ledger.deadline is not None
        await anyio.sleep(max(0.0, self.ledger.deadline - self.clock()))
        limit = self.session.limits.wall_time_s or 0.0
        self.ledger.limit_hit = wall_time_hit(limit, self.clock() - self.ledger.started_at)
        self.context.abort.abort("the run's wall-time limit was reached")

    async def _drive(self) -> Stop:
        env = self.session.environment or await gather_environment(self.context.working_directory)
        prompt = build_system_prompt(
            env,
            self.session.instructions,
            base=self.session.system_prompt,
            append=self.session.append_system_prompt,
            policy=self.session.policy_summary,
        )
        self.system = system_blocks(prompt, self.session.cache_ttl)
        first: list[Block] = [{"type": "text", "text": render_task(self.task)}]
        if self.is_main:
            if type(self.session.lifecycle) is not NoLifecycleHooks:
                await self._setup.passed(self.context)  # hooks run commands: not before it passed
            opened = await open_session(self.session.lifecycle, self._info(), first[0]["text"])
            if isinstance(opened, str):
                return Stop("aborted", opened)
            first += [_reminder(c) for c in opened]
        # A resumed session (bot.agent.resume): the earlier conversation, then the new request.
        self.convo.start(opening_messages(self.session.resumed if self.is_main else (), first))
        while True:
            stop = self._check_limits()
            if stop is not None:
                return stop
            stop = await self._manage_context()
            if stop is not None:
                return stop
            stop = await self._turn()
            if stop is not None:
                return stop

    def _check_limits(self) -> Stop | None:
        if self.context.abort.aborted:
            return self._abort_stop()
        hit = limit_before_turn(
            self.session.limits,
            turns_done=self.turns,
            cost_usd=self.ledger.total_cost_usd,
            elapsed_s=self.clock() - self.ledger.started_at,
        )
        return None if hit is None else self._limit_stop(hit)

    def _limit_stop(self, hit: LimitHit) -> Stop:
        if not self._limit_reported:
            self._limit_reported = True
            self._emit(LimitReached(hit.limit, hit.detail))
        return Stop(hit.limit, hit.detail)

    def _abort_stop(self) -> Stop:
        if self.ledger.limit_hit is not None:
            return self._limit_stop(self.ledger.limit_hit)
        return Stop("aborted", self.context.abort.reason or "aborted")

    # ----- one turn -----------------------------------------------------------------------------

    async def _turn(self) -> Stop | None:
        self.turns += 1
        turn = self.turns
        self._billed, self._request_id = ZERO_USAGE, None
        self._emit(TurnStarted(turn, self.session.model))
        result, attempts, exc = await self._retried(turn, lambda: self._attempt(self._request(), turn))
        if exc is not None:
            self._record_turn(turn, None, attempts)
            if self.context.abort.aborted:
                return self._abort_stop()
            if (
                isinstance(exc, ModelError)
                and prompt_too_long(exc)
                and self._forced_compaction != turn
                and len(self.convo) > 1
            ):
                # The estimate was short of the API's count: compact now, then run the turn again.
                # (A conversation that is only the task has nothing to summarise: that stays an error.)
                # Every clearable result goes first, so the summary request itself is not refused too.
                self._forced_compaction = turn + 1
                size = self._measure()
                cleared = clear_old_tool_results(self.convo.messages, size=size, target=0)
                return await self._compact(self._apply_clearing(cleared, size) if cleared.count else size)
            detail = str(exc) if isinstance(exc, ModelRetriesExhausted) else f"model API error: {exc.describe()}"
            return Stop("error", detail)
        assert result is not None
        self._record_turn(turn, result.finished, attempts)
        self._log_calls(turn, result.outcomes, discarded=False)
        if result.context is not None:
            self.context = result.context
        finished = result.finished
        if finished is None:  # aborted mid-stream (wall time, or the caller's signal)
            return self._abort_stop()
        self.convo.add_reply(finished)
        ending = turn_ending(finished.stop_reason)
        if result.outcomes or result.truncated:
            self.convo.add_user(result.results_content() + self._notifications())
            hook_stop = next((o.stop_reason for o in result.outcomes if o.stop_reason), None)
            if hook_stop:
                return Stop("aborted", f"a hook stopped the run: {hook_stop}")
            box = self.context.services.get(QUESTION_SERVICE) if self.is_main else None
            if box is not None and box.pending is not None:  # AskUserQuestion: the run waits for the answer
                return Stop("needs_input", box.pending.question)
            if ending != "window_full":
                return None
        match ending:
            case "cut_off":
                self.convo.add_user([{"type": "text", "text": MAX_TOKENS_NOTICE}])
                return None
            case "paused":  # a server tool paused the turn: send the conversation back as is
                return None
            case "refused":
                return Stop("error", "the model declined to continue (stop reason: refusal)")
            case "window_full":
                return await self._window_full(turn)
            case "unknown":
                return Stop("error", f"the model stopped for a reason this bot does not know: {finished.stop_reason!r}")
            case "finished":
                return await self._end_of_turn()
            case _ as never:
                assert_never(never)

    async def _window_full(self, turn: int) -> Stop | None:
        """The response filled the model's context window (it is cut off): compact and continue,
        unless this turn already followed such a compaction — then the window is simply too small."""
        # The task and the cut reply alone: there is nothing a summary could shrink.
        if self._forced_compaction == turn or len(self.convo) <= 2:
            return self._limit_stop(
                LimitHit(
                    "context_window",
                    f"the model's {self.budget.window:,}-token context window filled up in turn {turn} "
                    "(stop reason model_context_window_exceeded), and compacting the conversation did not make room",
                )
            )
        self._forced_compaction = turn + 1
        return await self._compact(self._measure())

    async def _end_of_turn(self) -> Stop | None:
        """The model ended its turn without tool calls: wait for background agents, run Stop hooks."""
        if self.tasks is not None:
            if running_agents(self.tasks):
                await wait_for_background_agents(self.tasks, self.context.abort)
            notes = self._notifications()
            if notes:  # a background task ended: the model hears of it before it may finish
                self.convo.add_user(notes)
                return None
            if self.context.abort.aborted:
                return self._abort_stop()
        transcript = None if self.is_main else self.transcript.path
        hook = await stop_hooks(self.session.lifecycle, self._info(), self.stop_hook_active, transcript)
        if hook.stop_reason:
            return Stop("aborted", f"a Stop hook stopped the run: {hook.stop_reason}")
        if hook.block_reason:
            self.stop_hook_active = True
            text = f"A Stop hook asks you to continue: {hook.block_reason}"
            self.convo.add_user([{"type": "text", "text": text}])
            return None
        return Stop("completed")

    def _tools(self) -> list[Block]:
        return tool_definitions(
            self.pool.tools,
            server_tool_search=self.deferred.server_side,
            discovered=self.deferred.discovered,
            ttl=self.session.cache_ttl,
        )

    def _request(self) -> ModelRequest:
        ttl = self.session.cache_ttl
        tools = self._tools()
        extra = merged_params(self.session.extra_params, self.clearing.request_params(self.budget))
        return ModelRequest(
            model=self.session.model,
            max_tokens=self.session.max_tokens,
            system=self.system,
            messages=with_message_breakpoint(self.convo.messages, ttl),
            tools=tools,
            extra=extra,
        )

    # ----- the context window -------------------------------------------------------------------

    @property
    def budget(self) -> ContextBudget:
        window = window_for(self.session.model, self.session.limits.context_window)
        return ContextBudget(window, self.session.max_tokens)

    def _measure(self) -> int:
        return self.convo.measure(self.system, self._tools())

    def _measure_messages(self, messages: list[Message]) -> int:
        """The estimate for a request of these messages (a conversation being built)."""
        return estimate_request(self.system, self._tools(), messages)

    async def _manage_context(self) -> Stop | None:
        """Shrink the conversation, cheapest first, when the next request would come too close to
        the window."""
        budget = self.budget
        size = self._measure()
        if size < budget.clear_at:
            return None
        cleared = self.clearing.clear(self.convo.messages, size, budget)
        if cleared is not None:
            size = self._apply_clearing(cleared, size)
        if size < budget.compact_at:
            return None
        return await self._compact(size)

    def _apply_clearing(self, cleared: Cleared, size: int) -> int:
        self.convo.replace(cleared.messages)
        after = self._measure()
        self._compacted("cleared_tool_results", size, after, cleared.count)
        return after

    async def _compact(self, size: int) -> Stop | None:
        """Ask the model for a summary (retried like a turn), continue from a new conversation."""
        turn = self.turns + 1
        ttl = self.session.cache_ttl
        base = self._request()
        request = replace(
            base,
            max_tokens=min(self.session.max_tokens, SUMMARY_MAX_TOKENS),
            messages=summary_request(self.convo.messages, lambda m: with_message_breakpoint(m, ttl)),
            extra={**base.extra, "tool_choice": {"type": "none"}},
        )
        self._billed, self._request_id = ZERO_USAGE, None
        finished, attempts, exc = await self._retried(
            turn, lambda: stream_summary(self.session.client, request, self.context.abort, self._bill)
        )
        if exc is not None:
            self._record_turn(turn, None, attempts, compaction=True)
            if self.context.abort.aborted:
                return self._abort_stop()
            why = str(exc) if isinstance(exc, ModelRetriesExhausted) else exc.describe()
            return self._limit_stop(
                LimitHit(
                    "context_window",
                    f"the conversation ({size:,} tokens) is close to the "
                    f"{self.budget.window:,}-token context window and the summary to "
                    f"compact it failed: {why}",
                )
            )
        self._record_turn(turn, finished, attempts, compaction=True)
        if finished is None:
            return self._abort_stop()
        summarised = len(self.convo)
        rebuilt = rebuild_conversation(
            self.convo.messages,
            self.convo.first_message,
            summary_text(finished.content),
            self._todo_pairs(),
            self.context,
            self.budget,
            self._measure_messages,
            tool_redactor(self.context.services),
        )
        self.convo.replace(rebuilt, summary=True)
        after = self._measure()
        self._compacted("summary", size, after, summarised)
        if after >= self.budget.usable:
            return self._limit_stop(
                LimitHit(
                    "context_window",
                    f"even compacted, the conversation ({after:,} tokens) "
                    f"does not fit the {self.budget.window:,}-token context window",
                )
            )
        return None

    def _bill(self, usage: Usage, request_id: str | None) -> None:
        self._billed = self._billed + usage
        self._request_id = request_id or self._request_id

    def _compacted(self, kind: CompactionKind, before: int, after: int, items: int) -> None:
        record = Compaction(
            kind,
            self.turns + 1,
            self.clock() - self.ledger.started_at,
            before,
            after,
            items,
            self.agent_id,
            self.clearing.server_side and kind == "cleared_tool_results",
        )
        self.compactions.append(record)
        self.ledger.compactions.append(record)
        self.convo.mark_compaction(record)
        self._emit(ContextCompacted(kind, record.turn, before, after, items))

    def _todo_pairs(self) -> list[tuple[str, str]]:
        todos = self.context.services.get(TODO_SERVICE)
        if not isinstance(todos, TodoList):
            return []
        return [(t.content, t.status) for t in todos.get(self.agent_id)]

    async def _attempt(self, request: ModelRequest, turn: int) -> Attempt:
        """One streamed attempt with its tools. Raises :class:`ModelError` (after the attempt's
        tools were aborted) so the retry policy can decide."""
        runner = ObservedRunner(self.pool, self.session.engine, self.session.hooks, self.denials, self._emit, turn)
        client, sink = self.session.client, self._progress_sink()
        state = await stream_attempt(client, request, runner, self.context, sink, self._emit, turn, setup=self._setup)
        self._bill(state.usage, state.request_id)
        if state.error is not None:
            self._log_calls(turn, state.outcomes, discarded=True)
            raise state.error
        return state

    async def _retried(
        self, turn: int, attempt: Callable[[], Awaitable[_T]]
    ) -> tuple[_T | None, int, ModelRetriesExhausted | ModelError | None]:
        """``attempt`` under the retry policy: (its result, attempts made, the error that ended them)."""

        def on_retry(notice: RetryNotice) -> None:
            self._emit(ModelRetrying(turn, notice.attempt, notice.error.describe(), notice.delay_s))

        return await run_retried(
            self.session.retry, attempt, on_retry=on_retry, abort=self.context.abort, time_left=self._time_left
        )

    def _time_left(self) -> float | None:
        return None if self.ledger.deadline is None else self.ledger.deadline - self.clock()

    # ----- bookkeeping --------------------------------------------------------------------------

    def _notifications(self) -> list[Block]:
        """Background tasks (agents, Bash) that ended since the last turn, told to the model."""
        if self.tasks is None:
            return []
        return [{"type": "text", "text": task_notification(t)} for t in self.tasks.take_finished()]

    def _record_turn(
        self, turn: int, finished: StreamFinished | None, attempts: int, *, compaction: bool = False
    ) -> None:
        model = finished.model if finished is not None else self.session.model
        cost = self.session.prices.cost(model, self._billed)
        record = TurnRecord(
            turn,
            model,
            self._billed,
            cost.usd,
            finished.stop_reason if finished else None,
            attempts,
            self._request_id,
            self.agent_id,
            cost.estimated,
            compaction,
        )
        self.ledger.turns.append(record)
        self._emit(TurnFinished(turn, record.stop_reason, record.usage, record.cost_usd, self.ledger.total_cost_usd))

    def _log_calls(self, turn: int, outcomes: list[ToolCallOutcome], *, discarded: bool) -> None:
        self.ledger.tool_calls += [ToolCallEntry(turn, o.record, self.agent_id, discarded) for o in outcomes]

    def _outcome(self, stop: Stop) -> AgentOutcome:
        # The main agent's outcome includes its sub-agents' turns and calls (tagged with their ids).
        turns = [t for t in self.ledger.turns if self.is_main or t.agent_id == self.agent_id]
        calls = [c for c in self.ledger.tool_calls if self.is_main or c.agent_id == self.agent_id]
        compactions = [c for c in self.ledger.compactions if self.is_main or c.agent_id == self.agent_id]
        return AgentOutcome(
            stop=stop,
            final_text=self.convo.last_text,
            turns=turns,
            tool_calls=calls,
            messages=list(self.convo.messages),
            transcript_path=self.transcript.path,
            agent_id=self.agent_id,
            total_cost_usd=self.ledger.total_cost_usd,
            compactions=compactions,
        )

    def _info(self) -> SessionInfo:
        main_transcript = transcript_path_for(self.session.context.scratch_dir, None)
        return SessionInfo(
            self.session.session_id,
            main_transcript,
            self.context.working_directory,
            self.context.permission.mode,
            self.agent_id,
            self.session.agent_type,
        )

    def _emit(self, event: RunEvent) -> None:
        if self.agent_id is not None and getattr(event, "agent_id", None) is None:
            event = replace(event, agent_id=self.agent_id)
        safe_emit(self.events, event)

    def _progress_sink(self) -> ProgressSink:
        def sink(event: ProgressEvent) -> None:
            self._emit(ToolProgressed(event.tool_use_id, event.tool_name, event.kind, dict(event.data)))

        return sink

    def _todos_changed(self, todos: tuple[TodoItem, ...], agent_id: str | None) -> None:
        views = tuple(TodoItemView(t.content, t.status, t.activeForm) for t in todos)
        safe_emit(self.events, TodosChanged(views, agent_id))


def _reminder(text: str) -> Block:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}


__all__ = ["run_agent"]
