"""Running sub-agents for the Agent tool (seeds 4.7 stages 1–6, 8.3.2–8.3.3).

For each call: find the definition; resolve the model (call > definition > parent); set up the
worktree when isolated; build the sub-agent's session — a fresh read-file state, its own abort
signal (a child of the parent's: aborting the parent aborts it, not the other way round), the
parent's permission context made stricter by the definition if it says so (never looser), the
parent's pool through the definition's allow and deny lists (never the Agent tool), its own system
prompt, the run's shared ledger (one budget, one deadline); run the loop; return the final text
(and the worktree's diff) as the tool result.

Background runs are tasks of the run's :class:`~bot.shell.execute.background.BackgroundTasks`, like Bash's:
the report is written to the task's output file (read with TaskOutput), and the loop tells the model
when one finishes.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path

import anyio

from bot.agent.events import EventSink
from bot.agent.limits import RunLimits
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import SUBAGENT_SYSTEM_PROMPT, AgentTask
from bot.agent.session import AgentSession, RunLedger
from bot.agent.worktree import Worktree, create_worktree, remove_worktree, worktree_diff
from bot.core.host_git import GIT_SEAL_SERVICE, GitDirSeal
from bot.errors import ToolExecutionError, ToolInputError
from bot.interface.abort import AbortSignal
from bot.interface.context import ReadFileState, ToolUseContext
from bot.interface.messages import Progress
from bot.runtime.pipeline import ToolPool
from bot.runtime.results import write_persisted
from bot.shell.execute.background import SERVICE_KEY as TASKS_KEY
from bot.shell.execute.background import BackgroundTask, BackgroundTasks, TaskLimitReached
from bot.tools.agent_definitions import AgentDefinition, find_definition, resolve_model, stricter_mode
from bot.tools.agent_tool import (
    SUBAGENT_SERVICE,
    AgentTool,
    SubagentReport,
    SubagentRequest,
    WorktreeReport,
    render_report,
)
from bot.tools.files.persisted import results_dir

#: The kind of background task a sub-agent is (task ids read ``agent-1``, ``agent-2``...).
BACKGROUND_KIND = "agent"
#: At the end of a run, background agents are told to stop and given this long to wrap up.
BACKGROUND_STOP_GRACE_S = 30.0

RunAgent = Callable[[AgentTask, AgentSession, EventSink], Awaitable[AgentOutcome]]


def with_agent_definitions(pool: ToolPool, definitions: Sequence[AgentDefinition]) -> ToolPool:
    """The pool with its Agent tool describing these definitions, at the same position (the tools'
    order, and so the cached prefix, is unchanged)."""
    wanted = tuple(definitions)
    if not any(isinstance(t, AgentTool) and t.definitions != wanted for t in pool.tools):
        return pool
    return ToolPool(AgentTool(wanted) if isinstance(t, AgentTool) else t for t in pool.tools)


class SubagentRunner:
    """The run's :class:`~bot.tools.agent_tool.SubagentLauncher` (``services["subagents"]``)."""

    def __init__(self, session: AgentSession, ledger: RunLedger, events: EventSink, run_agent: RunAgent) -> None:
        self._session = session
        self._ledger = ledger
        self._events = events
        self._run_agent = run_agent
        self._background: dict[str, AbortSignal] = {}

    async def launch(self, request: SubagentRequest, context: ToolUseContext, progress: Progress) -> SubagentReport:
        definitions = self._session.agent_definitions
        definition = find_definition(definitions, request.subagent_type)
        if definition is None:
            known = ", ".join(d.agent_type for d in definitions)
            raise ToolInputError(f"Unknown subagent_type {request.subagent_type!r}. Available: {known}")
        model = resolve_model(request.model, definition, self._session.model, self._session.model_aliases)
        agent_id = secrets.token_hex(4)
        if not request.run_in_background:
            return await self._run(agent_id, definition, model, request, context, context.abort.child())
        tasks = context.services.get(TASKS_KEY)
        if not isinstance(tasks, BackgroundTasks):
            raise ToolExecutionError("Background agents are not available in this run; run it in the foreground.")
        # A child of the run's signal, not of this call's: the call ends now, the agent does not.
        abort = self._session.context.abort.child()

        async def body(task: BackgroundTask) -> int:
            report = await self._run(agent_id, definition, model, request, context, abort)
            _write(task.output_path, render_report(report))
            return 0 if report.stop_reason == "completed" else 1

        try:
            task = tasks.start(BACKGROUND_KIND, request.description, body)
        except TaskLimitReached as exc:
            raise ToolExecutionError(str(exc)) from None
        self._background[task.id] = abort
        return SubagentReport(agent_id, definition.agent_type, model, "", "running", background_task_id=task.id)

    def stop_background(self, reason: str) -> None:
        for abort in self._background.values():
            abort.abort(reason)

    async def _run(
        self,
        agent_id: str,
        definition: AgentDefinition,
        model: str,
        request: SubagentRequest,
        parent: ToolUseContext,
        abort: AbortSignal,
    ) -> SubagentReport:
        worktree: Worktree | None = None
        workspace = parent.workspace
        if request.isolation == "worktree":
            seal = parent.services.get(GIT_SEAL_SERVICE)
            worktree = await create_worktree(
                parent.workspace,
                parent.scratch_dir / "worktrees" / agent_id,
                f"bot/agent-{agent_id}",
                seal=seal if isinstance(seal, GitDirSeal) else None,
            )
            workspace = worktree.workspace
        report: WorktreeReport | None = None
        try:
            session = self._child_session(agent_id, definition, model, parent, workspace, abort)
            outcome = await self._run_agent(AgentTask(_task_prompt(request, worktree)), session, self._events)
            if worktree is not None:
                diff = await worktree_diff(worktree)
                # Where the model can read it: the persisted-results grant covers exactly these files.
                path = write_persisted(results_dir(parent.scratch_dir), f"agent-{agent_id}.diff", diff.diff)
                report = WorktreeReport(worktree.base, diff.diff, diff.stat, diff.files_changed, str(path))
        finally:
            if worktree is not None:
                await remove_worktree(worktree)
        return SubagentReport(
            agent_id,
            definition.agent_type,
            model,
            outcome.final_text,
            outcome.stop.reason,
            outcome.stop.detail,
            len(outcome.turns),
            outcome.cost_usd,
            report,
        )

    def _child_session(
        self,
        agent_id: str,
        definition: AgentDefinition,
        model: str,
        parent: ToolUseContext,
        workspace: Path,
        abort: AbortSignal,
    ) -> AgentSession:
        base = self._session
        permission = replace(parent.permission, mode=stricter_mode(parent.permission.mode, definition.permission_mode))
        services = parent.services.without(SUBAGENT_SERVICE)
        context = ToolUseContext(
            workspace=workspace,
            scratch_dir=parent.scratch_dir,
            permission=permission,
            read_file_state=ReadFileState(),
            abort=abort,
            limits=parent.limits,
            agent_id=agent_id,
            services=services,
        )
        limits = RunLimits(
            max_turns=_smaller(definition.max_turns, base.limits.max_turns),
            max_budget_usd=base.limits.max_budget_usd,
            wall_time_s=base.limits.wall_time_s,
            context_window=base.limits.context_window,
        )
        environment = None if base.environment is None else replace(base.environment, working_directory=workspace)
        prompt = SUBAGENT_SYSTEM_PROMPT + (f"\n\n{definition.prompt}" if definition.prompt else "")
        return replace(
            base,
            context=context,
            pool=ToolPool(definition.filter_tools(base.pool.tools)),
            model=model,
            limits=limits,
            environment=environment,
            system_prompt=prompt,
            append_system_prompt="",
            agent_id=agent_id,
            agent_type=definition.agent_type,
            ledger=self._ledger,
        )


async def wait_for_background_agents(tasks: BackgroundTasks, abort: AbortSignal) -> None:
    """Until one running background agent finishes, or the run is aborted."""
    running = [t for t in tasks.all() if t.kind == BACKGROUND_KIND and not t.finished]
    if not running:
        return
    async with anyio.create_task_group() as tg:

        async def until(waiter: Callable[[], Awaitable[object]]) -> None:
            await waiter()
            tg.cancel_scope.cancel()

        for task in running:
            tg.start_soon(until, task.wait)
        tg.start_soon(until, abort.wait)


async def wait_for_all_agents(tasks: BackgroundTasks, timeout_s: float = BACKGROUND_STOP_GRACE_S) -> None:
    with anyio.move_on_after(timeout_s):
        for task in tasks.all():
            if task.kind == BACKGROUND_KIND:
                await task.wait()


def running_agents(tasks: BackgroundTasks) -> int:
    return sum(1 for t in tasks.all() if t.kind == BACKGROUND_KIND and not t.finished)


def task_notification(task: BackgroundTask) -> str:
    """How the model learns a background task ended (the seeds' notification)."""
    exit_code = "" if task.exit_code is None else f" (exit code {task.exit_code})"
    reason = f"\nStopped: {task.stop_reason}" if task.stop_reason else ""
    output = (task.final_output or "").strip()
    return (
        f"<task-notification>\nBackground {task.kind} task {task.id} ({task.description}) "
        f"{task.state}{exit_code}.{reason}\nRead its whole output with TaskOutput (task_id {task.id}).\n"
        f"<output>\n{output}\n</output>\n</task-notification>"
    )


def _task_prompt(request: SubagentRequest, worktree: Worktree | None) -> str:
    if worktree is None:
        return request.prompt
    return (
        f"{request.prompt}\n\n(You work in an isolated git worktree at {worktree.workspace}, created from "
        f"commit {worktree.base[:12]}; uncommitted changes of the main workspace are not in it. Your changes "
        "are returned as a diff when you finish.)"
    )


def _smaller(a: int | None, b: int | None) -> int | None:
    values = [v for v in (a, b) if v is not None]
    return min(values) if values else None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
