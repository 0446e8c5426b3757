"""The eight-stage execution pipeline (seeds 4.4), the same for every tool.

1. lookup by name or alias (a deprecated alias adds a notice; an unknown tool is an error result);
2. schema validation with coercion, then the tool's ``validate_input``;
3. pre-tool hooks and the tool's own (speculative) permission check, started in parallel;
4. the permission chain (:mod:`bot.permissions.chain`): hook, tool, rules, mode;
5. execution, with progress events, a timeout and the abort signal;
6. result mapping to a ``tool_result`` block, redacted by the run's secret guard
   (:mod:`bot.core.guard`) before large results are persisted (:mod:`.results`);
7. post-tool hooks: ``PostToolUse`` on success, ``PostToolUseFailure`` on failure;
8. the ``tool_result``, with a record for the run log.

Errors are data: whatever fails at whatever stage, :meth:`ToolRunner.run` returns an ``is_error``
result and a classified error kind; it does not raise (cancellation of the caller aside) — with one
exception: a secret canary seen in the call's input or output raises
:class:`~bot.errors.CanaryTripped`, which ends the run instead of becoming a result.

Every result the model receives — a tool's mapped output, an error text, a hook's added context —
passes the guard here, in this one place: known secrets in all their encodings are redacted, and the
call is counted on the guard (``record.redacted``) for the run's summary.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio

from bot.core.bounded import check_input_bounds
from bot.core.guard import SecretGuard, guard_of
from bot.errors import ToolError, canary_tripped_in, classify_tool_error, describe_os_error, first_error
from bot.interface.context import ContextModifier, ToolUseContext
from bot.interface.messages import (
    ContentBlock,
    Progress,
    ProgressSink,
    ToolResultBlock,
    ToolUseBlock,
    drop_progress,
)
from bot.interface.tool import AnyTool, InputSchemaError, ToolResult, ValidationReject
from bot.permissions.chain import PermissionEngine, PermissionRequest
from bot.permissions.decision import Allow, Ask, Decision, Deny, Passthrough, PermissionResult, denial_message
from bot.permissions.engine import PolicyEngine
from bot.runtime.hooks import NO_PRE_OUTCOME, HookRunner, NoHooks, PreToolHookOutcome
from bot.runtime.results import limit_result
from bot.tools.tool_search import TOOL_SEARCH_SERVICE, is_deferred

#: Where a call failed: the pipeline's stages (seeds 4.4), "aborted" when it never ran, and
#: "internal" for an exception in our own code.
Stage = Literal["lookup", "schema", "validation", "hook", "permission", "execution", "aborted", "internal"]


@dataclass(slots=True)
class ToolCallRecord:
    """One line of the run log: what was called, what was decided, how it ended."""

    tool_use_id: str
    tool_name: str
    input: Any
    decision: Decision | None = None
    is_error: bool = False
    #: The stage that failed, and the classified error kind (``classify_tool_error``).
    failed_stage: Stage | None = None
    error_kind: str | None = None
    duration_s: float = 0.0
    called_as: str | None = None
    summary: str = ""
    #: The secret guard redacted something from what the model received of this call.
    redacted: bool = False

    @property
    def denied(self) -> bool:
        return isinstance(self.decision, Deny)


@dataclass(slots=True)
class ToolCallOutcome:
    result: ToolResultBlock
    record: ToolCallRecord
    new_messages: list[ContentBlock] = field(default_factory=list)
    context_modifier: ContextModifier | None = None
    #: A hook asked the run to stop (``continue: false``).
    stop_reason: str | None = None
    #: ``result`` has been through the secret guard already (the success path screens it before
    #: persisting a large result, so it is not screened twice).
    screened: bool = False


@dataclass(slots=True)
class PermissionOutcome:
    """Stages 3–4: the decision (or an error text when a rewritten input was invalid), what the
    hooks said, and the input the call proceeds with."""

    decision: Decision | str
    hook: PreToolHookOutcome
    parsed: Any


def tool_use_error(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


class ToolPool:
    """An ordered, name-unique set of tools with lookup by name or alias (seeds ``findToolByName``)."""

    def __init__(self, tools: Iterable[AnyTool]) -> None:
        self.tools: tuple[AnyTool, ...] = tuple(tools)
        self._by_name: dict[str, AnyTool] = {}
        self._by_alias: dict[str, AnyTool] = {}
        for tool in self.tools:
            self._by_name.setdefault(tool.name, tool)
        for tool in self.tools:
            for alias in tool.aliases:
                if alias not in self._by_name:
                    self._by_alias.setdefault(alias, tool)

    def lookup(self, name: str) -> tuple[AnyTool | None, bool]:
        """``(tool, called_by_alias)``."""
        tool = self._by_name.get(name)
        if tool is not None:
            return tool, False
        tool = self._by_alias.get(name)
        return tool, tool is not None

    def __iter__(self) -> Any:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]


class ToolRunner:
    """Runs one ``tool_use`` block through the eight stages."""

    def __init__(self, pool: ToolPool, engine: PermissionEngine | None = None, hooks: HookRunner | None = None) -> None:
        self.pool = pool
        self.engine: PermissionEngine = engine or PolicyEngine()
        self.hooks: HookRunner = hooks or NoHooks()

    # Used by both schedulers: an input that does not parse counts as unsafe (seeds 4.5).
    def is_concurrency_safe(self, block: ToolUseBlock) -> bool:
        tool, _ = self.pool.lookup(block.name)
        if tool is None:
            return False
        try:
            parsed = tool.parse_input(block.input)
            return bool(tool.is_concurrency_safe(parsed))
        except Exception:
            return False

    def pages_itself(self, block: ToolUseBlock) -> bool:
        """Tools with ``max_result_chars = inf`` are exempt from the per-message budget (seeds 4.8)."""
        tool, _ = self.pool.lookup(block.name)
        return tool is not None and math.isinf(tool.max_result_chars)

    def aborts_siblings(self, block: ToolUseBlock) -> bool:
        tool, _ = self.pool.lookup(block.name)
        return tool is not None and tool.aborts_siblings_on_error

    async def run(
        self, block: ToolUseBlock, context: ToolUseContext, sink: ProgressSink = drop_progress
    ) -> ToolCallOutcome:
        """Raises :class:`~bot.errors.CanaryTripped` (and nothing else) when a secret canary is in
        the call's input or output: the run must end, not hear about it."""
        started = time.perf_counter()
        record = ToolCallRecord(block.id, block.name, block.input)
        guard = guard_of(context.services)
        guard.check_input(block.name, block.input)
        try:
            outcome = await self._run(block, context, sink, record, guard)
        except Exception as exc:  # a bug in a stage, not in the tool: still data, never a crash
            tripped = canary_tripped_in(exc)
            if tripped is not None:
                raise tripped from None
            leaf = first_error(exc)
            exc = leaf if isinstance(leaf, Exception) else exc
            record.failed_stage = record.failed_stage or "internal"
            outcome = self._error(block, record, f"Internal error while running {block.name}: {exc}", exc, wrap=True)
        self._screen_outcome(outcome, guard)
        record.duration_s = time.perf_counter() - started
        return outcome

    @staticmethod
    def _screen(guard: SecretGuard, record: ToolCallRecord, content: Any, what: str = "output") -> Any:
        """Stage 6's secret screening of one piece of what the model will receive."""
        screened, changed = guard.screen(record.tool_name, content, what=what)
        if changed and not record.redacted:
            record.redacted = True
            guard.count(record.tool_name)
        return screened

    def _screen_outcome(self, outcome: ToolCallOutcome, guard: SecretGuard) -> None:
        """Whatever the success path did not screen: error results, hooks' and tools' added messages."""
        record = outcome.record
        if not outcome.screened:
            outcome.result = replace(outcome.result, content=self._screen(guard, record, outcome.result.content))
            outcome.screened = True
        if outcome.new_messages:
            outcome.new_messages = self._screen(guard, record, outcome.new_messages, "added context")

    async def _run(
        self,
        block: ToolUseBlock,
        context: ToolUseContext,
        sink: ProgressSink,
        record: ToolCallRecord,
        guard: SecretGuard,
    ) -> ToolCallOutcome:
        # ---- 1. lookup --------------------------------------------------------------------
        tool, by_alias = self.pool.lookup(block.name)
        if tool is None:
            record.failed_stage = "lookup"
            available = ", ".join(self.pool.names[:40])
            return self._error(
                block,
                record,
                f"Error: No such tool available: {block.name}. Available tools: {available}",
                kind="UnknownTool",
                wrap=True,
            )
        record.tool_name = tool.name
        record.called_as = block.name if by_alias else None
        if not deferred_tool_loaded(tool, context):
            record.failed_stage = "lookup"
            return self._error(
                block,
                record,
                f"Error: {tool.name} is a deferred tool and is not loaded yet: only its name is known. "
                f'Load it first with ToolSearch (query "select:{tool.name}"), then call it.',
                kind="DeferredToolNotLoaded",
                wrap=True,
            )
        notices: list[str] = []
        if by_alias:
            notices.append(
                f"Note: `{block.name}` is a deprecated name of the `{tool.name}` tool; call `{tool.name}` from now on."
            )

        if context.abort.aborted:
            record.failed_stage = "aborted"
            return self._error(block, record, f"Interrupted: {context.abort.reason}", kind="Aborted", wrap=True)

        # ---- 2. schema + validate_input -----------------------------------------------------
        prepared = await self._prepare(tool, block.input, context, record)
        if isinstance(prepared, str):
            return self._error(block, record, prepared, kind=record.error_kind)
        parsed = prepared
        record.summary = tool.summarize_input(parsed)

        # ---- 3.-4. pre-tool hooks ∥ the tool's own check, then the permission chain -----------
        permitted = await self._permission(tool, parsed, block, context, record)
        hook_outcome = permitted.hook
        if isinstance(permitted.decision, str):
            return self._error(block, record, permitted.decision, kind=record.error_kind)
        if isinstance(permitted.decision, Deny):
            message = denial_message(tool.name, permitted.decision)
            return self._error(
                block,
                record,
                message,
                kind="PermissionDenied",
                extra=_texts(hook_outcome.additional_context),
                stop=hook_outcome.stop_reason,
            )
        parsed = permitted.parsed

        # ---- 5. execution ----------------------------------------------------------------------
        progress = Progress(block.id, tool.name, sink)
        observable = tool.observable_input(parsed, context)
        executed = await self._execute(tool, parsed, context, progress, record)

        # ---- 6.-8. result, post hooks, emission -------------------------------------------
        extra = _texts(hook_outcome.additional_context)
        if isinstance(executed, str):
            post = await self.hooks.post_tool_use_failure(tool.name, observable, executed, block.id, context)
            extra += _texts(post.additional_context)
            if post.feedback:
                extra.append({"type": "text", "text": post.feedback})
            return self._error(
                block,
                record,
                executed,
                kind=record.error_kind,
                extra=extra,
                stop=hook_outcome.stop_reason or post.stop_reason,
            )

        # Redacted before anything else sees it: the model, the persisted copy of a large result,
        # the post-tool hooks.
        content = self._screen(guard, record, tool.map_result(executed.data))
        if notices:
            content = _append_text(content, "\n\n" + "\n".join(notices))
        result = limit_result(tool, ToolResultBlock(block.id, content, is_error=executed.is_error), context.scratch_dir)
        record.is_error = executed.is_error
        if executed.is_error:
            record.failed_stage = "execution"
            record.error_kind = record.error_kind or "ToolReportedError"
            post = await self.hooks.post_tool_use_failure(tool.name, observable, result.text, block.id, context)
        else:
            post = await self.hooks.post_tool_use(
                tool.name, observable, _response_for_hooks(executed.data), block.id, context
            )
        extra += _texts(post.additional_context)
        if post.feedback:
            extra.append({"type": "text", "text": post.feedback})
        return ToolCallOutcome(
            result=result,
            record=record,
            new_messages=[*executed.new_messages, *extra],
            context_modifier=executed.context_modifier,
            stop_reason=hook_outcome.stop_reason or post.stop_reason,
            screened=True,
        )

    async def decide(self, block: ToolUseBlock, context: ToolUseContext) -> PermissionOutcome:
        """Stages 1–4 only: what the pipeline would decide for this call, without running it
        (``bot policy check``). ``validate_input`` is skipped: a decision about a file that does not
        exist yet is still a decision."""
        record = ToolCallRecord(block.id, block.name, block.input)
        tool, _ = self.pool.lookup(block.name)
        if tool is None:
            return PermissionOutcome(Deny(f"no tool named {block.name}", source="validation"), NO_PRE_OUTCOME, None)
        try:
            parsed = tool.parse_input(block.input)
        except InputSchemaError as exc:
            return PermissionOutcome(Deny(f"invalid input: {exc}", source="validation"), NO_PRE_OUTCOME, None)
        outcome = await self._permission(tool, parsed, block, context, record, validate=False)
        if isinstance(outcome.decision, str):
            outcome.decision = Deny(outcome.decision, source="validation")
        return outcome

    async def _permission(
        self,
        tool: AnyTool,
        parsed: Any,
        block: ToolUseBlock,
        context: ToolUseContext,
        record: ToolCallRecord,
        *,
        validate: bool = True,
    ) -> PermissionOutcome:
        """Stages 3 and 4. A hook's ``updatedInput`` is re-validated and re-checked."""
        hook_outcome, tool_check = await self._hooks_and_check(tool, parsed, block, context)
        if hook_outcome.updated_input is not None and not isinstance(hook_outcome.decision, Deny):
            reprepared = await self._prepare(tool, dict(hook_outcome.updated_input), context, record, validate=validate)
            if isinstance(reprepared, str):
                return PermissionOutcome(
                    f"A PreToolUse hook rewrote the input into an invalid one: {reprepared}", hook_outcome, None
                )
            parsed = reprepared
            tool_check = await tool.check_permissions(parsed, context)
        tool_check = hook_answers_tool_check(hook_outcome.decision, tool_check)
        request = PermissionRequest(
            tool_name=tool.name,
            input=parsed.model_dump(mode="json", exclude_none=True),
            workspace=context.workspace,
            aliases=tool.aliases,
            subject=tool.permission_subject(parsed),
            cwd=context.working_directory,
            read_only=tool.is_read_only(parsed),
            edits_files=tool.is_edit_tool,
            self_matching=tool.matches_own_rule_content,
            hook=hook_outcome.decision,
            tool_check=tool_check,
        )
        decision = self.engine.decide(request, context.permission)
        record.decision = decision
        if isinstance(decision, Deny):
            record.failed_stage = "permission"
            await self.hooks.permission_denied(tool.name, request.input, decision.reason, block.id, context)
            return PermissionOutcome(decision, hook_outcome, parsed)
        if decision.updated_input is not None:
            reprepared = await self._prepare(tool, dict(decision.updated_input), context, record, validate=validate)
            if isinstance(reprepared, str):
                return PermissionOutcome(reprepared, hook_outcome, None)
            parsed = reprepared
        return PermissionOutcome(decision, hook_outcome, parsed)

    async def _prepare(
        self, tool: AnyTool, raw: Any, context: ToolUseContext, record: ToolCallRecord, *, validate: bool = True
    ) -> Any:
        """Stage 2. Returns the parsed input, or the model-readable error text."""
        too_deep = check_input_bounds(raw)  # before anything recursive (validation, hooks' JSON) sees it
        if too_deep is not None:
            record.failed_stage, record.error_kind = "schema", "InputValidationError"
            return tool_use_error(too_deep)
        try:
            parsed = tool.parse_input(raw)
        except InputSchemaError as exc:
            record.failed_stage, record.error_kind = "schema", "InputValidationError"
            return tool_use_error(f"InputValidationError: {exc}")
        if not validate:
            return parsed
        try:
            validation = await tool.validate_input(parsed, context)
        except Exception as exc:
            record.failed_stage, record.error_kind = "validation", classify_tool_error(exc)
            return tool_use_error(_exception_text(exc))
        if isinstance(validation, ValidationReject):
            record.failed_stage, record.error_kind = "validation", f"ValidationError:{validation.code}"
            return tool_use_error(validation.message)
        return parsed

    async def _hooks_and_check(
        self, tool: AnyTool, parsed: Any, block: ToolUseBlock, context: ToolUseContext
    ) -> tuple[PreToolHookOutcome, PermissionResult]:
        """Stage 3: both started at once, so the wait is the slower of the two, not the sum."""
        if isinstance(self.hooks, NoHooks):  # nothing to overlap with: skip the task group
            return NO_PRE_OUTCOME, await tool.check_permissions(parsed, context)
        hook_box: list[PreToolHookOutcome] = [NO_PRE_OUTCOME]
        check_box: list[PermissionResult] = []

        async def run_hooks() -> None:
            observable = tool.observable_input(parsed, context)
            hook_box[0] = await self.hooks.pre_tool_use(tool.name, observable, block.id, context)

        async def run_check() -> None:
            check_box.append(await tool.check_permissions(parsed, context))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run_hooks)
            tg.start_soon(run_check)
        return hook_box[0], check_box[0]

    async def _execute(
        self, tool: AnyTool, parsed: Any, context: ToolUseContext, progress: Progress, record: ToolCallRecord
    ) -> ToolResult[Any] | str:
        """Stage 5, bounded by the call timeout and the abort signal. Returns an error text on failure."""
        box: list[ToolResult[Any]] = []
        errors: list[BaseException] = []
        timeout = context.limits.call_timeout_s
        with anyio.move_on_after(timeout) as deadline, anyio.CancelScope() as scope:
            unregister = context.abort.on_abort(scope.cancel)
            try:
                box.append(await tool.call(parsed, context, progress))
            except Exception as exc:
                if canary_tripped_in(exc) is not None:
                    raise  # not a tool failure the model may retry: the run ends (see ``run``)
                errors.append(exc)
            finally:
                unregister()
        if box:
            return box[0]
        record.failed_stage = "execution"
        if errors:
            record.error_kind = classify_tool_error(errors[0])
            return tool_use_error(_exception_text(errors[0]))
        if context.abort.aborted:
            record.error_kind = "Aborted"
            return tool_use_error(f"Interrupted: {context.abort.reason}")
        if deadline.cancelled_caught:
            record.error_kind = "Timeout"
            return tool_use_error(f"{tool.name} timed out after {timeout:g} seconds")
        record.error_kind = "UnknownError"
        return tool_use_error(f"{tool.name} ended without a result")

    def _error(
        self,
        block: ToolUseBlock,
        record: ToolCallRecord,
        message: str,
        exc: BaseException | None = None,
        *,
        kind: str | None = None,
        wrap: bool = False,
        extra: list[ContentBlock] | None = None,
        stop: str | None = None,
    ) -> ToolCallOutcome:
        record.is_error = True
        record.error_kind = kind or record.error_kind or (classify_tool_error(exc) if exc else "Error")
        text = tool_use_error(message) if wrap else message
        return ToolCallOutcome(
            ToolResultBlock(block.id, text, is_error=True), record, new_messages=list(extra or []), stop_reason=stop
        )


def deferred_tool_loaded(tool: AnyTool, context: ToolUseContext) -> bool:
    """Seeds 4.10: until ToolSearch finds a deferred tool, the model knows only its name, so a
    call of it is a guess at its input and an error (one that says how to load it). Deferral is
    the agent loop's (it attaches the :class:`DeferredTools` state); a context without it — a
    single ``bot tools call`` — defers nothing."""
    state = context.services.get(TOOL_SEARCH_SERVICE)
    return state is None or not is_deferred(tool) or tool.name in state.discovered


def hook_answers_tool_check(hook: Allow | Deny | Ask | None, tool_check: PermissionResult) -> PermissionResult:
    """Seeds 4.4 stage 4a: a PreToolUse hook's decision comes before the tool's own check.

    So a hook's ``allow`` answers the question the tool would have put to a person: "no allow rule
    covers this" — Bash's check asks it (a Read inside the workspace passes on instead, which is
    why a hook's allow approved a Read and not a Bash command). The chain then sees no opinion
    from the tool, and its later links decide: deny rules and ask rules still win over the hook
    (``docs/hooks.md``), plan mode still refuses writes, and the hook's allow approves the rest.

    What a hook's allow does not answer: an ask that came from a rule the tool matched itself
    (Bash matches ask rules per subcommand), a security check (``check_id``) or a command the
    analysis could not judge (``safety``) — those are about what the command hides, which the hook
    may not have seen either — and any deny (a path outside the workspace, a device file).
    """
    if not isinstance(hook, Allow) or not isinstance(tool_check, Ask):
        return tool_check
    if tool_check.rule is not None or tool_check.check_id is not None or tool_check.source != "tool":
        return tool_check
    return Passthrough(tool_check.reason, warnings=tool_check.warnings)


def _exception_text(exc: BaseException) -> str:
    if isinstance(exc, ToolError):
        return exc.message
    if isinstance(exc, OSError):
        return f"Error: {describe_os_error(exc)}"
    return f"Error: {type(exc).__name__}: {exc}"


def _texts(items: Iterable[str]) -> list[ContentBlock]:
    return [{"type": "text", "text": t} for t in items if t]


def _append_text(content: Any, text: str) -> Any:
    if isinstance(content, str):
        return content + text
    return [*content, {"type": "text", "text": text.strip()}]


def _response_for_hooks(data: Any) -> Any:
    """The tool's output as JSON-able data for PostToolUse hooks (``tool_response``)."""
    if isinstance(data, str | int | float | bool) or data is None:
        return data
    if isinstance(data, Mapping | list):
        try:
            json.dumps(data)
            return data
        except (TypeError, ValueError):
            return str(data)
    dump = getattr(data, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return str(data)


__all__ = ["Allow", "ToolCallOutcome", "ToolCallRecord", "ToolPool", "ToolRunner", "tool_use_error"]
