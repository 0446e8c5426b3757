"""The stages every run goes through, in either mode: :func:`drive`.

1. the adapter checks out the work branch (:meth:`RunAdapter.prepare`); nothing the model wrote has
   run yet, so the git directory is sealed as it is now;
2. the run is prepared from trusted files (policy, MCP, hooks, model) and the agent works, with the
   adapter's progress; verification runs when it finished;
3. whatever happened, the work is committed (a checkpoint when unfinished) and the adapter publishes
   it;
4. one finaliser (:func:`bot.orchestration.finish.finish`) reports the ending.

An exception anywhere in 1-3, our own bugs included, still reaches step 4 as a failure that says
what raised, with the work kept; a canary tripped anywhere ends with the alert alone.
"""

from __future__ import annotations

import sys
import traceback
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio

from bot.agent.events import RunEvent
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.session import AgentSession
from bot.core.host_git import GitDirTampered
from bot.errors import BotError, CanaryTripped, canary_tripped_in, first_error
from bot.interface.abort import AbortSignal
from bot.orchestration.adapter import Checkout, Ending, EventSink, RunAdapter, Work
from bot.orchestration.conclusion import Conclusion
from bot.orchestration.continuity import keep_session, resume_into, run_config_for
from bot.orchestration.finish import build_ending, finish, stopped_by_canary
from bot.orchestration.git_records import DiffStats
from bot.orchestration.preflight import preflight
from bot.orchestration.provenance import with_policy
from bot.orchestration.render import Provenance, RunReport
from bot.orchestration.report import RunFacts, diff_paths, sensitive_changes
from bot.orchestration.safety import RunSafety
from bot.orchestration.session import PreparedRun, RunConfig, prepare_run, replaying
from bot.orchestration.signals import cancel_on_signals


@dataclass(slots=True)
class _State:
    """What the stages learnt so far: whatever stage fails, the ending is built from this."""

    provenance: Provenance
    checkout: Checkout | None = None
    outcome: AgentOutcome | None = None
    error: str | None = None
    verification: tuple[tuple[str, bool], ...] = ()
    notes: list[str] = field(default_factory=list)
    hook_files: tuple[str, ...] = ()
    image_hosts: tuple[str, ...] = ()
    cancelled: bool = False
    facts: RunFacts | None = None
    session: AgentSession | None = None
    diff: DiffStats | None = None


async def drive(adapter: RunAdapter, config: RunConfig, safety: RunSafety, *, replay: Path | None = None) -> int:
    """One run through ``adapter``; returns the exit code (see :func:`bot.orchestration.conclusion.exit_code`)."""
    state = _State(adapter.provenance())
    try:
        await _stages(adapter, config, safety, replay, state)
    except CanaryTripped as tripped:
        return await stopped_by_canary(adapter, safety, tripped)
    except Exception as exc:  # our own bug past the stages' own handling: still one ending
        inner = canary_tripped_in(exc)
        if inner is not None:
            return await stopped_by_canary(adapter, safety, inner)
        state.error = state.error or _internal(exc, adapter, safety)
    if safety.tripped is not None:
        return await stopped_by_canary(adapter, safety, safety.tripped)
    try:
        ending = _ending(adapter, state)
    except Exception as exc:  # a bug in building the report: the ending still says the run failed
        ending = _bare_ending(state.error or _internal(exc, adapter, safety), state)
    return await finish(adapter, ending, safety)


async def _stages(
    adapter: RunAdapter, config: RunConfig, safety: RunSafety, replay: Path | None, state: _State
) -> None:
    try:
        # Checked before the repository is touched: the whole list, one line each.
        trusted = await anyio.to_thread.run_sync(adapter.trusted_files)
        problems = await anyio.to_thread.run_sync(lambda: preflight(config, trusted, replay=replay))
        if problems:
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            state.error = "the run did not start: " + "; ".join(problems)
            return
        checkout = await anyio.to_thread.run_sync(adapter.prepare)
    except BotError as exc:
        state.error = str(exc)
        return
    state.checkout = checkout
    state.notes += checkout.notes
    git = checkout.git
    # From here on the model may run commands: the git directory is sealed as it is now.
    seal = git.seal()
    guard = safety.guard()
    config = replace(
        run_config_for(checkout.continuity, config),
        workspace=git.root,
        scratch_dir=adapter.output_dir / "scratch",
        untrusted_paths=checkout.untrusted_paths,
        guard=guard,
        git_seal=seal,
    )
    abort = AbortSignal()
    with ExitStack() as replay_stack:
        if replay is not None:
            cassette, config = replaying(replay, config)
            replay_stack.enter_context(cassette)
        try:
            await _agent_stage(adapter, config, checkout, abort, state)
        except Exception as exc:  # a setup failure is reported as itself; anything else is a bug
            tripped = canary_tripped_in(exc)
            if tripped is not None:
                raise tripped from None
            state.error = _failure_text(exc, adapter, safety)
    state.cancelled = abort.aborted
    if state.outcome is not None and state.outcome.final_text:
        safety.canaries.observe(state.outcome.final_text, "the model's final message")
    if safety.tripped is not None:  # nothing more is committed, pushed or posted but the alert
        raise safety.tripped
    if guard.counter.summary():
        state.notes.append(str(guard.counter.summary()) + ".")
    try:
        work = await anyio.to_thread.run_sync(_commit, adapter, checkout, state, safety)
        state.facts = await anyio.to_thread.run_sync(adapter.publish, checkout, work)
        state.notes += await anyio.to_thread.run_sync(_keep_session, checkout, work, state, safety)
        state.diff = await anyio.to_thread.run_sync(git.diff, checkout.before)
    except GitDirTampered as exc:  # nothing is committed or pushed from a reconfigured repository
        state.facts = RunFacts(branch=checkout.branch, error=str(exc))


async def _agent_stage(
    adapter: RunAdapter, config: RunConfig, checkout: Checkout, abort: AbortSignal, state: _State
) -> None:
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(cancel_on_signals(abort))
        prepared: PreparedRun = await stack.enter_async_context(
            prepare_run(config, checkout.trusted, abort=abort, on_warning=_warn)
        )
        for warning in prepared.warnings:
            _warn(warning)
        warned = len(state.notes)
        try:
            state.provenance = with_policy(state.provenance, prepared, checkout.git.root)
            state.hook_files = prepared.hook_files()
            state.image_hosts = prepared.image_hosts()
            slot = checkout.continuity
            task, notes = await anyio.to_thread.run_sync(
                resume_into, slot, prepared, checkout.git, adapter.task(checkout)
            )
            state.notes += notes
            state.session = prepared.session
            async with adapter.progress() as sink:
                tracked = sink if slot is None else _both(slot.todos, sink)
                state.outcome = await run_agent(task, prepared.session, tracked)
            if state.outcome.completed and not abort.aborted:
                from bot.orchestration.verify import run_verification  # the sandbox's code: after the request

                state.verification = await run_verification(prepared, checkout.git.root)
            state.notes += prepared.run_log_notes()
        finally:  # the sandbox's warnings come once its self-test is done, while the first request is out
            state.notes[warned:warned] = [f"Policy warning: {w}" for w in prepared.warnings]


def _warn(warning: str) -> None:
    print(f"warning: {warning}", file=sys.stderr)


def _keep_session(checkout: Checkout, work: Work, state: _State, safety: RunSafety) -> list[str]:
    """The session the run leaves for a follow-up (a question posted first, when it ended on one)."""
    facts = state.facts
    pr = checkout.pr_number
    if facts is not None and facts.pr_url:  # the PR the work is on (a fresh branch has a new one)
        pr = int(facts.pr_url.rstrip("/").rsplit("/", 1)[-1])
    return keep_session(
        checkout.continuity,
        state.outcome,
        state.session,
        # Where the work went: a refused push moves it to a fresh branch, a rebase to a new commit.
        branch=facts.branch if facts is not None and facts.branch else checkout.branch,
        head=facts.commit if facts is not None and facts.commit else work.commit,
        pr_number=pr,
        egress=safety.egress,
    )


def _both(first: EventSink, second: EventSink) -> EventSink:
    def sink(event: RunEvent) -> None:
        first(event)
        second(event)

    return sink


def _commit(adapter: RunAdapter, checkout: Checkout, state: _State, safety: RunSafety) -> Work:
    """Whatever happened, keep the work: a commit when the agent finished, else a checkpoint."""
    git = checkout.git
    outcome = state.outcome
    finished = outcome is not None and outcome.completed and not state.cancelled
    co_authors = adapter.co_authors()
    if git.has_changes():
        if finished:
            message = safety.egress.text(adapter.commit_message(outcome, checkout), "the commit message")
            git.commit_all(message, co_authors=co_authors)
        else:
            reason = outcome.stop.reason if outcome is not None else "the run failed"
            git.checkpoint(reason, co_authors=co_authors)
    # What the run itself changed (not what a PR's head already did) among the bot's and CI's config.
    sensitive = tuple(sensitive_changes(diff_paths(git.diff(checkout.before)), hook_scripts=state.hook_files))
    return Work(outcome, finished, git.head_sha(), state.verification, sensitive)


def _ending(adapter: RunAdapter, state: _State) -> Ending:
    checkout = state.checkout
    facts = state.facts or RunFacts(branch=checkout.branch if checkout else None)
    facts = replace(
        facts,
        error=facts.error or state.error,
        notes=tuple(state.notes) + facts.notes,
        provenance=state.provenance,
        verification=state.verification,
        cancelled=state.cancelled,
        artifact_hint=adapter.artifact_hint,
    )
    return build_ending(adapter, state.outcome, state.diff, facts, checkout, state.image_hosts)


def _bare_ending(error: str, state: _State) -> Ending:
    """The least report there is: that the run failed and why, and the branch when there is one."""
    checkout = state.checkout
    report = RunReport(
        conclusion=Conclusion.FAILURE,
        headline=f"The run failed: {error}",
        branch=checkout.branch if checkout else None,
        provenance=state.provenance,
    )
    return Ending(report, state.outcome, f"### ❌ {report.headline}\n")


def _failure_text(exc: BaseException, adapter: RunAdapter, safety: RunSafety) -> str:
    leaf = first_error(exc)
    if isinstance(leaf, BotError):
        return str(leaf)
    return _internal(exc, adapter, safety)


def _internal(exc: BaseException, adapter: RunAdapter, safety: RunSafety) -> str:
    """A bug of ours: said as one line, the traceback kept in the output directory."""
    leaf = first_error(exc)
    try:
        adapter.output_dir.mkdir(parents=True, exist_ok=True)
        safety.egress.write_file(adapter.output_dir / "error.txt", "".join(traceback.format_exception(exc)))
    except OSError:
        pass
    return f"internal error ({type(leaf).__name__}: {leaf}); the traceback is in error.txt of the run's output"


__all__ = ["drive"]
