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
The transcript a hook reads is the JSON-lines file at ``SessionInfo.transcript_path``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


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

    async def subagent_stop(self, info: SessionInfo, stop_hook_active: bool,
                            agent_transcript_path: Path) -> LifecycleOutcome: ...


class NoLifecycleHooks:
    async def session_start(self, info: SessionInfo, source: str) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def user_prompt_submit(self, info: SessionInfo, prompt: str) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def stop(self, info: SessionInfo, stop_hook_active: bool) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME

    async def subagent_stop(self, info: SessionInfo, stop_hook_active: bool,
                            agent_transcript_path: Path) -> LifecycleOutcome:
        return NO_LIFECYCLE_OUTCOME
