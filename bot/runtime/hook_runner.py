"""Claude Code–compatible hooks: existing hook scripts run here unchanged.

The contract, as Claude Code documents it:

* the hook gets JSON on stdin: ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
  ``hook_event_name`` and the event's fields (``tool_name``, ``tool_input``, ``tool_use_id``,
  ``tool_response`` after a success, ``error`` after a failure, ``prompt``, ``stop_hook_active``…);
* exit 0 is success (stdout parsed as JSON when it is JSON; for ``UserPromptSubmit`` and
  ``SessionStart`` plain stdout is context for the model); exit 2 blocks (stderr is the reason
  the model reads); any other exit, a timeout or a crash is a non-blocking error, logged;
* JSON fields: ``continue``/``stopReason`` (stop the run), ``suppressOutput``, ``systemMessage``
  (logged), ``decision``/``reason`` (``block``; ``approve`` is the legacy allow), and
  ``hookSpecificOutput`` with ``permissionDecision`` (``allow``/``deny``/``ask``),
  ``permissionDecisionReason``, ``updatedInput``, ``additionalContext``.

Headless differences: ``ask`` is a denial (nobody to ask). Several matching hooks run in parallel;
their decisions combine as deny > ask > allow.

A hook's ``if`` (a permission rule) is matched with the rule matching the permission layer uses
(:func:`condition_matches`): paths and domains as rules match them; a ``Bash(...)`` content against
every simple command of a compound command, and every command a wrapper (``timeout``, ``sudo``,
``sh -c``...) launches. It errs toward running the hook: a command the analysis cannot take apart,
or a call whose subject cannot be told, runs it. Where a hook's decision stands in the permission
chain — first, but never above a deny or ask *rule* from any source, the organisation's included —
is documented in :mod:`bot.permissions.chain` and ``docs/hooks.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from bot.core.secrets import full_environ
from bot.interface.context import ToolUseContext
from bot.permissions.chain import PermissionRequest
from bot.permissions.decision import Allow, Ask, Deny
from bot.permissions.matchers import SHELL_TOOLS, RequestFacts, content_covers
from bot.permissions.rules import DOMAIN_TOOLS, PATH_TOOLS, Rule, rule_applies_to
from bot.permissions.schema import HookSet
from bot.runtime.hook_config import TOOL_EVENTS, HookCommand, HooksConfig, merge_hooks, parse_hooks
from bot.runtime.hook_exec import BLOCKING_EXIT_CODE, HookRun, hook_argv, run_hook_command
from bot.runtime.hook_scripts import HookScriptGuard
from bot.runtime.hooks import (
    NO_POST_OUTCOME,
    NO_PRE_OUTCOME,
    HookRunner,
    NoHooks,
    PostToolHookOutcome,
    PreToolHookOutcome,
)

if TYPE_CHECKING:
    # The shell's parser, matcher, environment and sandbox load when a hook runs or an ``if`` is
    # matched, not with this module: most commands (and runs without hooks) never need them.
    from bot.shell.judge.rule_match import BashPattern
    from bot.shell.parse.syntax import Word

#: Environment variables a hook can use to find the project (Claude Code's name, and ours).
PROJECT_DIR_VARS = ("CLAUDE_PROJECT_DIR", "BOT_PROJECT_DIR")
#: Events whose hooks guard what happens next: one that cannot run blocks instead of being skipped.
GUARD_EVENTS = frozenset({"PreToolUse", "UserPromptSubmit"})
#: How deep an ``if`` follows wrappers and ``sh -c`` scripts; deeper, the hook runs.
MAX_IF_NESTING = 4
#: The input keys that hold what a file tool's rule content is matched against.
_PATH_KEYS = ("file_path", "notebook_path", "path")


@dataclass(frozen=True, slots=True)
class HookLogEntry:
    event: str
    command: str
    exit_code: int | None
    duration_s: float
    outcome: str


@dataclass(frozen=True, slots=True)
class PromptHookOutcome:
    #: A ``UserPromptSubmit`` hook refused the task: the run does not start, with this reason.
    blocked: str | None = None
    additional_context: tuple[str, ...] = ()
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class StopHookOutcome:
    #: A ``Stop``/``SubagentStop`` hook asked the agent to keep going, with this instruction.
    continue_with: str | None = None
    stop_reason: str | None = None


@dataclass(slots=True)
class _Verdicts:
    decision: Allow | Deny | Ask | None = None
    updated_input: Mapping[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    stop_reason: str | None = None


class CommandHookRunner:
    """The :class:`~bot.runtime.hooks.HookRunner` of a run whose policy declares hooks."""

    def __init__(
        self,
        config: HooksConfig,
        *,
        session_id: str,
        transcript_path: Path,
        project_dir: Path,
        env: Mapping[str, str],
        permission_mode: str = "default",
        on_log: Callable[[HookLogEntry], None] | None = None,
        context: ToolUseContext | None = None,
        guard: HookScriptGuard | None = None,
    ) -> None:
        self.config = config
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.project_dir = project_dir
        self.permission_mode = permission_mode
        self._env = {**env, **{name: str(project_dir) for name in PROJECT_DIR_VARS}}
        self._on_log = on_log
        self.log: list[HookLogEntry] = []
        #: The run's context: hooks run in its sandbox. Without one (a unit test of the contract),
        #: hooks run as plain processes with the secret-free environment.
        self._context = context
        self._guard = guard

    def files(self) -> tuple[str, ...]:
        """The checkout's files these hooks run (:mod:`bot.runtime.hook_scripts`)."""
        return self._guard.files() if self._guard is not None else ()

    # ----- tool events ----------------------------------------------------------------------------

    async def pre_tool_use(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, context: ToolUseContext
    ) -> PreToolHookOutcome:
        runs = await self._fire(
            "PreToolUse", tool_name, context, tool_name=tool_name, tool_input=dict(tool_input), tool_use_id=tool_use_id
        )
        if not runs:
            return NO_PRE_OUTCOME
        verdicts = self._collect(runs, tool_event=True)
        return PreToolHookOutcome(
            decision=verdicts.decision,
            updated_input=verdicts.updated_input,
            additional_context=tuple(verdicts.context),
            stop_reason=verdicts.stop_reason,
        )

    async def post_tool_use(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_response: Any,
        tool_use_id: str,
        context: ToolUseContext,
    ) -> PostToolHookOutcome:
        runs = await self._fire(
            "PostToolUse",
            tool_name,
            context,
            tool_name=tool_name,
            tool_input=dict(tool_input),
            tool_response=tool_response,
            tool_use_id=tool_use_id,
        )
        return self._post_outcome(runs)

    async def post_tool_use_failure(
        self, tool_name: str, tool_input: Mapping[str, Any], error: str, tool_use_id: str, context: ToolUseContext
    ) -> PostToolHookOutcome:
        runs = await self._fire(
            "PostToolUseFailure",
            tool_name,
            context,
            tool_name=tool_name,
            tool_input=dict(tool_input),
            error=error,
            tool_use_id=tool_use_id,
            is_interrupt=error.startswith("<tool_use_error>Interrupted"),
        )
        return self._post_outcome(runs)

    async def permission_denied(
        self, tool_name: str, tool_input: Mapping[str, Any], reason: str, tool_use_id: str, context: ToolUseContext
    ) -> None:
        runs = await self._fire(
            "PermissionDenied",
            tool_name,
            context,
            tool_name=tool_name,
            tool_input=dict(tool_input),
            reason=reason,
            tool_use_id=tool_use_id,
        )
        self._collect(runs, tool_event=False)

    # ----- lifecycle events -------------------------------------------------------------------------

    async def session_start(self, cwd: Path, source: str = "startup") -> tuple[str, ...]:
        """Context for the model from ``SessionStart`` hooks (plain stdout or ``additionalContext``)."""
        runs = await self._fire("SessionStart", None, None, cwd=cwd, source=source)
        return tuple(self._collect(runs, tool_event=False, plain_stdout_is_context=True).context)

    async def user_prompt_submit(self, prompt: str, cwd: Path) -> PromptHookOutcome:
        runs = await self._fire("UserPromptSubmit", None, None, cwd=cwd, prompt=prompt)
        verdicts = self._collect(runs, tool_event=False, plain_stdout_is_context=True)
        blocked = "; ".join(verdicts.feedback) or None
        return PromptHookOutcome(
            blocked=blocked, additional_context=tuple(verdicts.context), stop_reason=verdicts.stop_reason
        )

    async def stop(
        self,
        cwd: Path,
        *,
        stop_hook_active: bool,
        agent_id: str | None = None,
        agent_transcript_path: Path | None = None,
    ) -> StopHookOutcome:
        event = "Stop" if agent_id is None else "SubagentStop"
        extra: dict[str, Any] = {"stop_hook_active": stop_hook_active}
        if agent_id is not None:
            extra.update(agent_id=agent_id, agent_transcript_path=str(agent_transcript_path or ""))
        runs = await self._fire(event, None, None, cwd=cwd, **extra)
        verdicts = self._collect(runs, tool_event=False)
        return StopHookOutcome(continue_with="\n".join(verdicts.feedback) or None, stop_reason=verdicts.stop_reason)

    # ----- machinery --------------------------------------------------------------------------------

    def _payload(self, event: str, cwd: Path, fields: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript_path),
            "cwd": str(cwd),
            "permission_mode": self.permission_mode,
            "hook_event_name": event,
            **fields,
        }

    async def _fire(
        self, event: str, match_name: str | None, context: ToolUseContext | None, cwd: Path | None = None, **fields: Any
    ) -> list[HookRun]:
        applies = None
        if event in TOOL_EVENTS and match_name is not None:
            tool_input: Mapping[str, Any] = fields.get("tool_input") or {}
            workspace = context.workspace if context is not None else self.project_dir

            def applies(hook: HookCommand) -> bool:
                return hook.condition is None or condition_matches(
                    hook.condition, match_name, tool_input, workspace, context
                )

        commands = self.config.commands_for(event, match_name, applies)
        if not commands:
            return []
        where = cwd or (context.working_directory if context is not None else self.project_dir)
        payload = self._payload(event, where, fields)
        runs: list[HookRun | None] = [None] * len(commands)

        async def one(i: int, hook: HookCommand) -> None:
            runs[i] = await self._run_one(event, hook, payload)

        async with anyio.create_task_group() as tg:
            for i, hook in enumerate(commands):
                tg.start_soon(one, i, hook)
        done = [r for r in runs if r is not None]
        for run in done:
            self._record(event, run)
        return done

    async def _run_one(self, event: str, hook: HookCommand, payload: Mapping[str, Any]) -> HookRun:
        why = self._guard.why_not(hook.command) if self._guard is not None else None
        if why is not None:
            if event in GUARD_EVENTS:  # a guard that cannot run must not let the call through
                return HookRun(
                    hook,
                    BLOCKING_EXIT_CODE,
                    "",
                    f"hook `{hook.command}` was not run: {why}. Restore the file to let the call through.",
                    skipped=why,
                )
            return HookRun(hook, None, "", "", skipped=why)
        env: Mapping[str, str] = self._env
        argv = None
        if self._context is not None:
            from bot.shell.execute.confine import confine
            from bot.shell.sandbox.status import SandboxUnavailable

            try:
                confined = await confine(self._context, hook_argv(hook), self._env)
            except SandboxUnavailable as exc:
                return HookRun(
                    hook, BLOCKING_EXIT_CODE if event in GUARD_EVENTS else None, "", str(exc), error=str(exc)
                )
            argv, env = confined.argv, confined.env
        return await run_hook_command(hook, payload, cwd=self.project_dir, env=env, argv=argv)

    def _record(self, event: str, run: HookRun) -> None:
        if run.skipped:
            outcome = f"not run: {run.skipped}"
        elif run.succeeded:
            outcome = "ok"
        elif run.blocked:
            outcome = "blocked: " + (run.stderr.strip()[:300] or "(no reason given)")
        else:
            outcome = "non-blocking error: " + run.describe_failure()
        entry = HookLogEntry(event, run.command.command, run.exit_code, run.duration_s, outcome)
        self.log.append(entry)
        if self._on_log is not None:
            self._on_log(entry)

    def _collect(self, runs: list[HookRun], *, tool_event: bool, plain_stdout_is_context: bool = False) -> _Verdicts:
        verdicts = _Verdicts()
        decisions: list[Allow | Deny | Ask] = []
        for run in runs:
            if run.blocked:
                reason = run.stderr.strip() or f"blocked by hook `{run.command.command}`"
                verdicts.feedback.append(reason)
                if tool_event:
                    decisions.append(Deny(reason, source="hook"))
                continue
            if not run.succeeded:
                continue  # non-blocking: logged by _record
            data = run.json_output()
            if data is None:
                if plain_stdout_is_context and run.stdout.strip():
                    verdicts.context.append(run.stdout.strip())
                continue
            self._read_json(data, run, verdicts, decisions, tool_event)
        verdicts.decision = _combine(decisions)
        return verdicts

    def _read_json(
        self,
        data: dict[str, Any],
        run: HookRun,
        verdicts: _Verdicts,
        decisions: list[Allow | Deny | Ask],
        tool_event: bool,
    ) -> None:
        if data.get("continue") is False:
            verdicts.stop_reason = str(data.get("stopReason") or f"hook `{run.command.command}` stopped the run")
        message = data.get("systemMessage")
        if isinstance(message, str) and message:
            self.log.append(HookLogEntry("systemMessage", run.command.command, 0, 0.0, message[:1000]))
        specific = data.get("hookSpecificOutput")
        specific = specific if isinstance(specific, Mapping) else {}
        context = specific.get("additionalContext")
        if isinstance(context, str) and context.strip():
            verdicts.context.append(context.strip())
        legacy = data.get("decision")
        reason = str(data.get("reason") or specific.get("permissionDecisionReason") or "")
        permission = specific.get("permissionDecision")
        if tool_event and permission in ("allow", "deny", "ask"):
            why = str(specific.get("permissionDecisionReason") or f"hook `{run.command.command}` said {permission}")
            decisions.append(_decision(permission, why))
        elif tool_event and legacy in ("approve", "allow"):
            decisions.append(Allow(reason or f"approved by hook `{run.command.command}`", source="hook"))
        elif legacy == "block":
            why = reason or f"blocked by hook `{run.command.command}`"
            verdicts.feedback.append(why)
            if tool_event:
                decisions.append(Deny(why, source="hook"))
        updated = specific.get("updatedInput")
        if isinstance(updated, Mapping) and verdicts.updated_input is None:
            verdicts.updated_input = dict(updated)

    def _post_outcome(self, runs: list[HookRun]) -> PostToolHookOutcome:
        if not runs:
            return NO_POST_OUTCOME
        verdicts = self._collect(runs, tool_event=False)
        feedback = "\n".join(verdicts.feedback) or None
        return PostToolHookOutcome(
            additional_context=tuple(verdicts.context), feedback=feedback, stop_reason=verdicts.stop_reason
        )


def _decision(kind: str, reason: str) -> Allow | Deny | Ask:
    match kind:
        case "allow":
            return Allow(reason, source="hook")
        case "deny":
            return Deny(reason, source="hook")
        case _:
            return Ask(reason, source="hook")


def _combine(decisions: list[Allow | Deny | Ask]) -> Allow | Deny | Ask | None:
    """Several hooks answered: deny > ask > allow, as rules combine."""
    for kind in (Deny, Ask, Allow):
        for decision in decisions:
            if isinstance(decision, kind):
                return decision
    return None


def hooks_from_policy(hook_sets: Sequence[HookSet], *, disabled: bool = False) -> HooksConfig:
    """Every trusted policy file's ``hooks``, validated and merged (``disableAllHooks`` turns them off).
    Warnings and errors name the line of the event, group or hook when the file's line map has it."""
    if disabled:
        return HooksConfig()
    return merge_hooks([parse_hooks(dict(h.events), h.origin.file or h.origin.where(), h.lines) for h in hook_sets])


# ----- a hook's ``if`` ----------------------------------------------------------------------------


def condition_matches(
    rule: Rule, tool_name: str, tool_input: Mapping[str, Any], workspace: Path, context: ToolUseContext | None = None
) -> bool:
    """Does a hook's ``if`` rule match this tool call? (Claude Code: the hook runs only if it does.)"""
    if not rule_applies_to(rule.tool, tool_name):
        return False
    if rule.content is None:
        return True
    if tool_name in SHELL_TOOLS:
        command = tool_input.get("command")
        return not isinstance(command, str) or bash_condition_matches(rule.content, command)
    subject = _subject(tool_name, tool_input, context)
    if subject is None:
        return True  # nothing to match the content against: in doubt, the hook runs
    cwd = context.working_directory if context is not None else workspace
    request = PermissionRequest(tool_name=tool_name, input=tool_input, workspace=workspace, subject=subject, cwd=cwd)
    return content_covers(rule, RequestFacts(request))


def bash_condition_matches(content: str, command: str) -> bool:
    """Does ``Bash(content)`` match some simple command of ``command`` (or a command one of them
    launches)? ``True`` when the command cannot be taken apart."""
    from bot.shell.judge.rule_match import compile_pattern

    return _script_matches(compile_pattern(content), command, 0)


def _script_matches(pattern: BashPattern, command: str, depth: int) -> bool:
    from bot.shell.parse.syntax import Parsed
    from bot.shell.parse.walk import parse_command

    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return True
    return any(_argv_matches(pattern, c.argv, depth) for c in outcome.commands if c.kind == "command")


def _argv_matches(pattern: BashPattern, argv: Sequence[Word], depth: int) -> bool:
    if not argv:
        return False
    values = [w.value for w in argv]
    if pattern.matches(" ".join(values)):
        return True
    base = values[0].rsplit("/", 1)[-1]
    if base != values[0] and pattern.matches(" ".join([base, *values[1:]])):
        return True
    from bot.shell.launch.wrappers import unwrap

    inners = unwrap(argv)
    if inners and depth >= MAX_IF_NESTING:
        return True
    for inner in inners:
        if inner.argv is not None and _argv_matches(pattern, inner.argv, depth + 1):
            return True
        if inner.script is not None and _script_matches(pattern, inner.script, depth + 1):
            return True
        if inner.kind == "opaque":
            return True  # a launcher whose command cannot be known
    return False


def _subject(tool_name: str, tool_input: Mapping[str, Any], context: ToolUseContext | None) -> str | None:
    """What a rule's content is matched against for this call: a file tool's path, WebFetch's URL,
    else the tool's own ``permission_subject`` when the tool is in the run's pool."""
    if tool_name in PATH_TOOLS:
        for key in _PATH_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
        return str(context.working_directory) if context is not None else None
    if tool_name in DOMAIN_TOOLS:
        url = tool_input.get("url")
        return url if isinstance(url, str) else None
    for tool in context.tools if context is not None else ():
        if getattr(tool, "name", None) == tool_name:
            try:
                subject = tool.permission_subject(tool.parse_input(dict(tool_input)))
            except Exception:  # an observable input the model would not accept: cannot tell
                return None
            return subject if isinstance(subject, str) else None
    return None


def make_hook_runner(
    config: HooksConfig,
    context: ToolUseContext,
    *,
    session_id: str,
    transcript_path: Path,
    environ: Mapping[str, str] | None = None,
    on_log: Callable[[HookLogEntry], None] | None = None,
    untrusted_paths: Iterable[str] = (),
) -> HookRunner:
    """The run's hook runner: hooks get the same secret-free environment as Bash commands and run in
    the same sandbox; a hook whose files changed (``untrusted_paths``: what a pull request's head
    changes; or anything the run changes) is not run (:mod:`bot.runtime.hook_scripts`). Call it
    before the model runs: the guard records the hooks' files as they are now."""
    if not config:
        return NoHooks()
    from bot.shell.execute.env import build_child_env, policy_env_settings

    env, passthrough, secret_names = policy_env_settings(context.permission.extra)
    child = build_child_env(
        full_environ() if environ is None else environ,
        policy_env=env,
        passthrough=passthrough,
        secret_names=secret_names,
    )
    commands = [hook.command for matchers in config.events.values() for entry in matchers for hook in entry.hooks]
    guard = HookScriptGuard(context.workspace, commands, untrusted_paths)
    return CommandHookRunner(
        config,
        session_id=session_id,
        transcript_path=transcript_path,
        project_dir=context.workspace,
        env=child.env,
        permission_mode=context.permission.mode,
        on_log=on_log,
        context=context,
        guard=guard,
    )
