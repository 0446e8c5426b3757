"""Hook configuration in Claude Code's settings shape, validated (seeds 4.4 stages 3/4a/7, doc 2 §6).

::

    "hooks": {
      "PreToolUse": [
        {"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}
      ]
    }

Matchers, as Claude Code reads them: ``*``, ``""`` or no matcher match every tool; a matcher made
only of letters, digits, ``_``, ``-``, spaces, ``,`` and ``|`` is an exact name or a list of names;
anything else is an unanchored regular expression (so ``Edit.*`` also matches ``NotebookEdit``).
MCP tools are matched by their full ``mcp__server__tool`` names.

A hook may carry ``"if"``: a permission rule (``"Bash(git commit *)"``, ``"Edit(*.ts)"``) read as
permission rules are read. As in Claude Code it is honoured on tool events only: the hook runs
only for calls the rule matches (:func:`bot.runtime.hook_runner.condition_matches`); on any other
event a hook with an ``if`` never runs (warned here).

Events: Claude Code's list is :data:`bot.permissions.schema.HOOK_EVENTS`; this runner fires
:data:`FIRED_EVENTS`. Any other event — one a headless run never reaches, or a name Claude Code does
not have — is a warning naming its line, never an error.

Hooks come only from trusted policy sources; this module just reads what it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.errors import ConfigError
from bot.permissions.rules import Rule, RuleSyntaxError, make_rule
from bot.permissions.schema import HOOK_EVENTS, did_you_mean

#: Events this runner fires (a subset of Claude Code's :data:`HOOK_EVENTS`).
FIRED_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "SubagentStop",
)
#: Events whose matcher is a tool name. Others ignore the matcher (Claude Code: SessionStart's
#: matcher is its source, which is always "startup" here).
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied"})
#: Where Claude Code evaluates a hook's ``if``; on other events such a hook never runs.
IF_EVENTS = TOOL_EVENTS | {"PermissionRequest"}
#: Claude Code's default hook timeout.
DEFAULT_HOOK_TIMEOUT_S = 60.0
_NAME_LIST = re.compile(r"^[A-Za-z0-9_\-|, ]+$")
#: The ``source`` of the rule an ``if`` is read into (the rule's file and line are the hook's).
IF_RULE_SOURCE = "hook-if"


@dataclass(frozen=True, slots=True)
class HookCommand:
    command: str
    timeout_s: float = DEFAULT_HOOK_TIMEOUT_S
    #: The policy file that declared it (for the run log).
    source: str = ""
    #: The hook's ``if``: it runs only for tool calls this rule matches.
    condition: Rule | None = None


@dataclass(frozen=True, slots=True)
class HookMatcher:
    matcher: str | None
    hooks: tuple[HookCommand, ...]

    def matches(self, tool_name: str | None) -> bool:
        return matcher_matches(self.matcher, tool_name)


@dataclass(frozen=True, slots=True)
class HooksConfig:
    events: Mapping[str, tuple[HookMatcher, ...]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def commands_for(
        self, event: str, tool_name: str | None = None, applies: Callable[[HookCommand], bool] | None = None
    ) -> list[HookCommand]:
        """Every command that applies, de-duplicated by command text (Claude Code runs identical
        commands once), in configuration order. ``applies`` filters further (the ``if`` of each
        hook), before de-duplication."""
        seen: set[str] = set()
        out: list[HookCommand] = []
        for entry in self.events.get(event, ()):
            if event in TOOL_EVENTS and not entry.matches(tool_name):
                continue
            for hook in entry.hooks:
                if applies is not None and not applies(hook):
                    continue
                if hook.command not in seen:
                    seen.add(hook.command)
                    out.append(hook)
        return out

    def __bool__(self) -> bool:
        return any(self.events.values())


def matches_everything(matcher: str | None) -> bool:
    """``*``, ``""`` or no matcher: every tool (Claude Code)."""
    return matcher is None or matcher.strip() in ("", "*")


def matcher_matches(matcher: str | None, tool_name: str | None) -> bool:
    if matcher is None or matches_everything(matcher):
        return True
    if tool_name is None:
        return False
    if _NAME_LIST.match(matcher):
        names = {n.strip() for n in re.split(r"[|,]", matcher) if n.strip()}
        return tool_name in names
    try:
        return re.search(matcher, tool_name) is not None
    except re.error:
        return False


def parse_hooks(raw: Any, source: str, lines: Mapping[str, int] | None = None) -> HooksConfig:
    """Validate a ``hooks`` block. ``lines`` maps dotted key paths to line numbers, when known."""
    if raw is None:
        return HooksConfig()
    if not isinstance(raw, Mapping):
        raise ConfigError("`hooks` must be an object of event names", path=source, line=_line(lines, "hooks"))
    events: dict[str, tuple[HookMatcher, ...]] = {}
    warnings: list[str] = []
    for event, entries in raw.items():
        where = f"hooks.{event}"
        if event not in FIRED_EVENTS:
            warnings.append(f"{_at(source, lines, where)}: {_unfired(str(event))}: never fired headless, ignored")
            continue
        if not isinstance(entries, list | tuple):
            raise ConfigError(
                f"`{where}` must be a list of {{matcher, hooks}} entries", path=source, line=_line(lines, where)
            )
        parsed: list[HookMatcher] = []
        for i, entry in enumerate(entries):
            parsed.append(_parse_entry(entry, source, f"{where}[{i}]", lines, warnings, event))
        events[event] = tuple(parsed)
    return HooksConfig(events=events, warnings=tuple(warnings))


def _unfired(event: str) -> str:
    if event in HOOK_EVENTS:
        return f"hook event {event!r} is one a headless run never reaches"
    return f"unknown hook event {event!r} (not a Claude Code event{did_you_mean(event, HOOK_EVENTS)})"


def _parse_entry(
    entry: Any, source: str, where: str, lines: Mapping[str, int] | None, warnings: list[str], event: str
) -> HookMatcher:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"`{where}` must be an object with `hooks`", path=source, line=_line(lines, where))
    unknown = set(entry) - {"matcher", "hooks"}
    if unknown:
        raise ConfigError(
            f"`{where}` has unknown keys: {', '.join(sorted(unknown))}", path=source, line=_line(lines, where)
        )
    matcher = entry.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        raise ConfigError(f"`{where}.matcher` must be a string", path=source, line=_line(lines, where))
    if matcher is not None and not matches_everything(matcher) and not _NAME_LIST.match(matcher):
        try:
            re.compile(matcher)
        except re.error as exc:
            raise ConfigError(
                f"`{where}.matcher` is not a valid regular expression: {exc}", path=source, line=_line(lines, where)
            ) from None
    hooks = entry.get("hooks")
    if not isinstance(hooks, list | tuple):
        raise ConfigError(f"`{where}.hooks` must be a list", path=source, line=_line(lines, where))
    commands: list[HookCommand] = []
    for j, hook in enumerate(hooks):
        at = f"{where}.hooks[{j}]"
        if not isinstance(hook, Mapping):
            raise ConfigError(f"`{at}` must be an object", path=source, line=_line(lines, at))
        kind = hook.get("type", "command")
        if kind != "command":
            warnings.append(
                f"{_at(source, lines, at)}: `{at}` is a {kind!r} hook; only command hooks run headless; ignored"
            )
            continue
        command = hook.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ConfigError(f"`{at}.command` must be a non-empty string", path=source, line=_line(lines, at))
        timeout = hook.get("timeout", DEFAULT_HOOK_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(
                f"`{at}.timeout` must be a positive number of seconds", path=source, line=_line(lines, at)
            )
        condition = _condition(hook.get("if"), source, at, lines)
        if condition is not None and event not in IF_EVENTS:
            warnings.append(
                f"{_at(source, lines, at)}: `{at}` has an `if`, which only tool events evaluate: "
                f"on {event} such a hook never runs (Claude Code); ignored"
            )
            continue
        commands.append(HookCommand(command, float(timeout), source, condition))
    return HookMatcher(matcher, tuple(commands))


def _condition(raw: Any, source: str, at: str, lines: Mapping[str, int] | None) -> Rule | None:
    """A hook's ``if``, read as a permission rule (escapes and all)."""
    if raw is None:
        return None
    line = _line(lines, at)
    if not isinstance(raw, str) or not raw.strip():
        raise ConfigError(f'`{at}.if` must be a permission rule such as "Bash(git commit *)"', path=source, line=line)
    try:
        # Read as a deny-shaped rule: a path pattern then matches the path as written as well as
        # resolved, so in doubt the hook runs.
        return make_rule(raw, "deny", IF_RULE_SOURCE, source, line)
    except RuleSyntaxError as exc:
        raise ConfigError(f"`{at}.if`: {exc}", path=source, line=line) from None


def merge_hooks(configs: list[HooksConfig]) -> HooksConfig:
    """Hooks from every trusted source run together (Claude Code merges them, it does not override)."""
    events: dict[str, list[HookMatcher]] = {}
    warnings: list[str] = []
    for config in configs:
        warnings.extend(config.warnings)
        for event, entries in config.events.items():
            events.setdefault(event, []).extend(entries)
    return HooksConfig({k: tuple(v) for k, v in events.items()}, tuple(warnings))


def _line(lines: Mapping[str, int] | None, key: str) -> int | None:
    """The line of a dotted key (``hooks.Stop[0].hooks[1]``), else of its nearest parent."""
    if not lines:
        return None
    while key:
        if key in lines:
            return lines[key]
        key = key[: key.rindex("[")] if key.endswith("]") else key.rpartition(".")[0]
    return None


def _at(source: str, lines: Mapping[str, int] | None, key: str) -> str:
    """``file:line`` for warnings, or just the file when the line is not known."""
    line = _line(lines, key)
    return source if line is None else f"{source}:{line}"
