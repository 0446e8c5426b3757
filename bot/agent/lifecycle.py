"""The run's lifecycle hook points (Claude Code's ``SessionStart``, ``UserPromptSubmit``, ``Stop``,
``SubagentStop``), as a Protocol with a no-op default.

The hooks layer implements :class:`LifecycleHooks` by running the policy's hook commands; the loop
calls it at these points:

* ``session_start`` — once, before the first request; ``additional_context`` is added to the first
  user message (hooks are trusted policy, so their text is not quoted as data);
* ``user_prompt_submit`` — with the task prompt; ``block_reason`` refuses the prompt (the run
  stops as ``aborted``), ``additional_context`` is added;
* ``stop`` / ``subagent_stop`` — when the model ends its turn without tool calls; ``block_reason``
  makes the model continue with that reason as a user message (``stop_hook_active`` is then true
  on the next call, so a hook can avoid looping forever).

Every outcome may carry ``stop_reason`` (``continue: false``): the run stops as ``aborted``.
The transcript a hook reads is the JSON-lines file at ``SessionInfo.transcript_path`` (the main
agent's, :func:`bot.agent.transcript.transcript_path_for` ``(scratch_dir, None)``; a sub-agent's own
is passed to ``subagent_stop``).

:class:`CommandLifecycle` adapts a hook runner that has Claude Code–style lifecycle methods (the
hooks layer's ``CommandHookRunner``) to this Protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """The common fields of every hook input."""

    session_id: str
    transcript_path: Path
    cwd: Path
    permission_mode: str
    #: ``None`` for the main agent.
    agent_id: str | None = None
    agent_type: str | None = None


@dataclass(frozen=True, slots=True)
class LifecycleOutcome:
    additional_context: tuple[str, ...] = ()
    block_reason: str | None = None
    stop_reason: str | None = None


NO_LIFECYCLE_OUTCOME = LifecycleOutcome()


class LifecycleHooks(Protocol):
    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome: ...

    async def user_prompt_submit(self, info: SessionInfo, prompt: str) -> LifecycleOutcome: ...

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome: ...

    async def subagent_stop(
        self, info: SessionInfo, stop_hook_active: bool, agent_transcript_path: Path
    ) -> LifecycleOutcome: ...


class NoLifecycleHooks:
    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def user_prompt_submit(self, info: SessionInfo, prompt: str) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def subagent_stop(
        self, info: SessionInfo, stop_hook_active: bool, agent_transcript_path: Path
    ) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME


async def open_session(hooks: LifecycleHooks, info: SessionInfo, prompt: str) -> str | tuple[str, ...]:
    """SessionStart, then UserPromptSubmit with the task: why the run must not start (a hook
    stopped it or blocked the prompt), or the context the hooks add to the first message."""
    started = await hooks.session_start(info, "startup")
    submitted = await hooks.user_prompt_submit(info, prompt)
    for outcome, event in ((started, "SessionStart"), (submitted, "UserPromptSubmit")):
        if outcome.stop_reason:
            return f"a {event} hook stopped the run: {outcome.stop_reason}"
    if submitted.block_reason:
        return f"a UserPromptSubmit hook blocked the task: {submitted.block_reason}"
    return (*started.additional_context, *submitted.additional_context)


async def stop_hooks(
    hooks: LifecycleHooks, info: SessionInfo, stop_hook_active: bool, agent_transcript: Path | None
) -> LifecycleOutcome:
    """Stop for the main agent; SubagentStop (with its own transcript) for a sub-agent."""
    if agent_transcript is None:
        return await hooks.stop(info, stop_hook_active)
    return await hooks.subagent_stop(info, stop_hook_active, agent_transcript)


class _PromptVerdict(Protocol):
    blocked: str | None
    additional_context: tuple[str, ...]
    stop_reason: str | None


class _StopVerdict(Protocol):
    continue_with: str | None
    stop_reason: str | None


class LifecycleCommandRunner(Protocol):
    """The lifecycle half of the hooks layer's command runner, as this module uses it."""

    async def session_start(self, cwd: Path, source: str = ...) -> tuple[str, ...]: ...

    async def user_prompt_submit(self, prompt: str, cwd: Path) -> Any: ...

    async def stop(
        self, cwd: Path, *, stop_hook_active: bool, agent_id: str | None = ..., agent_transcript_path: Path | None = ...
    ) -> Any: ...


class CommandLifecycle:
    """:class:`LifecycleHooks` over a command hook runner (SessionStart, UserPromptSubmit, Stop,
    SubagentStop hook commands from the policy)."""

    def __init__(self, runner: LifecycleCommandRunner) -> None:
        self._runner = runner

    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome:
        return LifecycleOutcome(additional_context=tuple(await self._runner.session_start(info.cwd, source)))

    async def user_prompt_submit(self, info: SessionInfo, prompt: str) -> LifecycleOutcome:
        verdict: _PromptVerdict = await self._runner.user_prompt_submit(prompt, info.cwd)
        return LifecycleOutcome(tuple(verdict.additional_context), verdict.blocked, verdict.stop_reason)

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome:
        verdict: _StopVerdict = await self._runner.stop(info.cwd, stop_hook_active=stop_hook_active)
        return LifecycleOutcome(block_reason=verdict.continue_with, stop_reason=verdict.stop_reason)

    async def subagent_stop(
        self, info: SessionInfo, stop_hook_active: bool, agent_transcript_path: Path
    ) -> LifecycleOutcome:
        verdict: _StopVerdict = await self._runner.stop(
            info.cwd,
            stop_hook_active=stop_hook_active,
            agent_id=info.agent_id,
            agent_transcript_path=agent_transcript_path,
        )
        return LifecycleOutcome(block_reason=verdict.continue_with, stop_reason=verdict.stop_reason)
