"""The seam where hooks plug into the pipeline (seeds 4.4 stages 3, 4a and 7).

The pipeline calls a :class:`HookRunner`; the hooks issue provides one that runs Claude Code–style
hook commands. :class:`NoHooks` is the runner of a run without hooks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.interface.context import ToolUseContext
from bot.permissions.decision import Allow, Ask, Deny


@dataclass(frozen=True, slots=True)
class PreToolHookOutcome:
    #: A hook's permission decision, first in the chain (seeds 4a); ``None`` = no opinion.
    decision: Allow | Deny | Ask | None = None
    #: Claude Code's ``updatedInput``: the call continues with this input (re-validated).
    updated_input: Mapping[str, Any] | None = None
    #: Text added to the conversation after the result (``additionalContext``).
    additional_context: tuple[str, ...] = ()
    #: ``continue: false`` — the run stops after this call, with this reason.
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class PostToolHookOutcome:
    additional_context: tuple[str, ...] = ()
    #: ``decision: "block"`` after the fact: the reason is shown to the model with the result.
    feedback: str | None = None
    stop_reason: str | None = None
    log: tuple[str, ...] = field(default=())


NO_PRE_OUTCOME = PreToolHookOutcome()
NO_POST_OUTCOME = PostToolHookOutcome()


class HookRunner(Protocol):
    async def pre_tool_use(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, context: ToolUseContext
    ) -> PreToolHookOutcome: ...

    async def post_tool_use(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_response: Any,
        tool_use_id: str,
        context: ToolUseContext,
    ) -> PostToolHookOutcome: ...

    async def post_tool_use_failure(
        self, tool_name: str, tool_input: Mapping[str, Any], error: str, tool_use_id: str, context: ToolUseContext
    ) -> PostToolHookOutcome: ...

    async def permission_denied(
        self, tool_name: str, tool_input: Mapping[str, Any], reason: str, tool_use_id: str, context: ToolUseContext
    ) -> None: ...


class NoHooks:
    """A run without hooks: every event is a no-op."""

    async def pre_tool_use(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, context: ToolUseContext
    ) -> PreToolHookOutcome:
        return NO_PRE_OUTCOME

    async def post_tool_use(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_response: Any,
        tool_use_id: str,
        context: ToolUseContext,
    ) -> PostToolHookOutcome:
        return NO_POST_OUTCOME

    async def post_tool_use_failure(
        self, tool_name: str, tool_input: Mapping[str, Any], error: str, tool_use_id: str, context: ToolUseContext
    ) -> PostToolHookOutcome:
        return NO_POST_OUTCOME

    async def permission_denied(
        self, tool_name: str, tool_input: Mapping[str, Any], reason: str, tool_use_id: str, context: ToolUseContext
    ) -> None:
        return None
