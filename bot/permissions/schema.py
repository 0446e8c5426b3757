"""The policy file schema: Claude Code's settings, plus our one key, ``bot``.

An existing ``.claude/settings.json`` loads unchanged. What we read:

* ``permissions``: ``allow``, ``deny``, ``ask`` (rules), ``defaultMode``,
  ``additionalDirectories``, ``disableBypassPermissionsMode``;
* ``hooks`` (kept as validated raw data with its file, for the hooks runner), ``disableAllHooks``;
* ``mcpServers`` (kept raw with its file, for the MCP layer);
* ``bot`` — our headless extensions: ``extends`` (a preset name or a path), ``limits``
  (``max_turns``, ``max_budget_usd``, ``timeout_minutes``), ``model``, ``sandbox``
  (``required|auto|off``), ``env`` (variables let into the shell), ``verify`` (commands run at the
  end), ``scheduled_task`` (the prompt of scheduled runs), ``allow_git_dir_writes``,
  ``allow_workflow_writes``.

What is an error and what is a warning follows one principle: ignoring something may only ever
grant *less*. So, as Claude Code does, keys we do not read are warnings (Claude Code keys we do
not use: one warning per file; keys nobody here knows: one warning per key, with its line), an
allow rule we cannot read is skipped with a warning naming its line, and a hook event a headless
run never fires is warned about. A :class:`~bot.errors.ConfigError` naming the file and the line
is kept for a malformed value of a key we read, a deny or ask rule we cannot read (skipping it
would allow more), an unknown key inside our own ``bot`` section or inside ``permissions``, and
a top-level key that looks like a misspelling of one we read (``"permission"``, ``"Hooks"``:
ignoring it would drop the rules or guards it holds).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from bot.errors import ConfigError, json_type_name
from bot.permissions.context import PERMISSION_MODES, PermissionMode
from bot.permissions.documents import Document, read_document
from bot.permissions.rules import Behavior, Rule, RuleSyntaxError, make_rule

#: Where a policy comes from, weakest first (``session``: grants made during the run itself).
PolicySource = Literal["session", "preset", "repository", "organisation", "flag", "cliArg"]
SOURCE_RANK: dict[str, int] = {"session": 0, "preset": 1, "repository": 2, "organisation": 3, "flag": 4, "cliArg": 5}
#: Sources allowed to turn on ``bypassPermissions``: the workflow itself, never a file in the repo.
BYPASS_SOURCES = frozenset({"organisation", "flag", "cliArg"})

SandboxSetting = Literal["required", "auto", "off"]
SANDBOX_SETTINGS: tuple[SandboxSetting, ...] = ("required", "auto", "off")

#: Claude Code settings this bot does not use: accepted, reported in one warning per file.
CLAUDE_CODE_UNUSED_KEYS = frozenset(
    {
        "advisorModel",
        "agent",
        "allowedMcpServers",
        "allowManagedHooksOnly",
        "allowManagedPermissionRulesOnly",
        "alwaysThinkingEnabled",
        "apiKeyHelper",
        "attribution",
        "autoCompactEnabled",
        "autoCompactWindow",
        "autoMemoryEnabled",
        "autoScrollEnabled",
        "autoUpdates",
        "autoUpdatesChannel",
        "awsAuthRefresh",
        "awsCredentialExport",
        "claudeMd",
        "claudeMdExcludes",
        "cleanupPeriodDays",
        "companyAnnouncements",
        "deniedMcpServers",
        "description",
        "disabledMcpjsonServers",
        "editorMode",
        "effortLevel",
        "enableAllProjectMcpServers",
        "enabledMcpjsonServers",
        "enabledPlugins",
        "env",
        "extraKnownMarketplaces",
        "fileSuggestion",
        "forceLoginMethod",
        "forceLoginOrgUUID",
        "includeCoAuthoredBy",
        "includeGitInstructions",
        "language",
        "model",
        "otelHeadersHelper",
        "outputStyle",
        "plansDirectory",
        "preferredNotifChannel",
        "respectGitignore",
        "sandbox",
        "showTurnDuration",
        "skipWebFetchPreflight",
        "spinnerTipsEnabled",
        "spinnerVerbs",
        "statusLine",
        "strictKnownMarketplaces",
        "subagentModel",
        "teammateMode",
        "terminalProgressBarEnabled",
        "theme",
        "verbose",
    }
)
_SILENT_KEYS = frozenset({"$schema"})
_PERMISSION_KEYS = frozenset(
    {"allow", "deny", "ask", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}
)
_PERMISSION_UNUSED_KEYS = frozenset({"disableAutoMode"})
_BOT_KEYS = frozenset(
    {
        "extends",
        "limits",
        "model",
        "sandbox",
        "env",
        "verify",
        "scheduled_task",
        "allow_git_dir_writes",
        "allow_workflow_writes",
        # the shell's knobs (bot.shell reads them from PermissionContext.extra)
        "network",
        "allow_unsandboxed",
        "excluded_commands",
        "secret_env",
        "install_scripts",
    }
)
_LIMIT_KEYS = frozenset({"max_turns", "max_budget_usd", "timeout_minutes", "context_window"})
#: The smallest ``bot.limits.context_window`` (tokens) that still holds a prompt, tools and a summary.
_MIN_CONTEXT_WINDOW = 4_000
#: The top-level keys we read. An unknown key close to one of these is an error, not a warning.
_READ_KEYS = ("permissions", "hooks", "disableAllHooks", "mcpServers", "bot")
#: How close (difflib ratio) an unknown key must be to one we read to count as its misspelling.
MISSPELLING_CUTOFF = 0.85
#: Every hook event Claude Code has (its hooks reference, code.claude.com/docs/en/hooks): the one
#: list both this schema and :mod:`bot.runtime.hook_config` (which says which ones a headless run
#: fires) use. A file may name any of them; a name not here is warned about and ignored.
HOOK_EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Setup",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "SessionStart",
    "SessionEnd",
    "PreModelSwitch",
    "PostModelSwitch",
    "MessageDisplay",
    "DirectoryAdded",
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Never let into a tool's environment, whatever a policy says (design: trust model).
SECRET_ENV = re.compile(r"^(GITHUB_TOKEN|GH_TOKEN|ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|ACTIONS_.*|INPUT_.*)$")

T = TypeVar("T")


def did_you_mean(name: str, known: tuple[str, ...]) -> str:
    """``"; did you mean 'X'?"`` when ``name`` looks like a misspelling of one of ``known``, else ``""``."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=MISSPELLING_CUTOFF)
    return f"; did you mean {close[0]!r}?" if close else ""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a setting was written."""

    source: str
    file: str | None = None
    line: int | None = None

    def where(self) -> str:
        if self.file is None:
            return self.source
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    value: T
    origin: Origin


@dataclass(frozen=True, slots=True)
class HookSet:
    """A file's ``hooks``: event → matcher groups, as written (validated in shape only; events
    Claude Code does not have are left out, with a warning)."""

    events: Mapping[str, tuple[Mapping[str, Any], ...]]
    origin: Origin
    #: Lines by dotted key path, in the form :func:`bot.runtime.hook_config.parse_hooks` reads:
    #: ``hooks``, ``hooks.PreToolUse``, ``hooks.PreToolUse[0]``, ``hooks.PreToolUse[0].hooks[1]``.
    lines: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PolicyFile:
    path: str
    source: str
    rules: tuple[Rule, ...] = ()
    default_mode: Setting[PermissionMode] | None = None
    additional_directories: tuple[Setting[str], ...] = ()
    disable_bypass: Setting[bool] | None = None
    hooks: HookSet | None = None
    disable_all_hooks: Setting[bool] | None = None
    mcp_servers: Mapping[str, Setting[Mapping[str, Any]]] = field(default_factory=dict)
    extends: Setting[str] | None = None
    #: ``bot`` settings by dotted name: ``limits.max_turns``, ``model``, ``sandbox``, ``verify``...
    settings: Mapping[str, Setting[Any]] = field(default_factory=dict)
    env: Mapping[str, Setting[str | None]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def load_policy_file(path: str, source: str) -> PolicyFile:
    """Read, parse and validate one policy file (no ``extends`` resolution)."""
    return validate_document(read_document(path), source)


def validate_document(doc: Document, source: str) -> PolicyFile:
    """The schema check of a parsed document; raises :class:`ConfigError` with file and line."""
    return _Validator(doc, source).run()


class _Validator:
    def __init__(self, doc: Document, source: str) -> None:
        self.doc = doc
        self.source = source
        self.warnings: list[str] = []

    def error(self, message: str, *path: str | int) -> ConfigError:
        return ConfigError(message, path=self.doc.path, line=self.doc.line(*path))

    def origin(self, *path: str | int) -> Origin:
        return Origin(self.source, self.doc.path, self.doc.line(*path))

    def mapping(self, value: Any, *path: str | int) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            where = ".".join(str(p) for p in path) or "the document"
            raise self.error(f"{where} must be an object (a mapping), got {json_type_name(value)}", *path)
        for key in value:
            if not isinstance(key, str):
                raise self.error(f"keys must be strings, got {key!r}", *path)
        return value

    def run(self) -> PolicyFile:
        data = self.mapping(self.doc.data)
        unused: list[str] = []
        for key in data:
            if key in _SILENT_KEYS or key in _READ_KEYS:
                continue
            if key in CLAUDE_CODE_UNUSED_KEYS:
                unused.append(key)
                continue
            self.unknown_key(key)
        out: dict[str, Any] = {}
        if "permissions" in data:
            out.update(self.permissions(self.mapping(data["permissions"], "permissions"), unused))
        if "hooks" in data:
            out["hooks"] = self.hooks(data["hooks"])
        if "disableAllHooks" in data:
            out["disable_all_hooks"] = Setting(
                self.boolean(data["disableAllHooks"], "disableAllHooks"), self.origin("disableAllHooks")
            )
        if "mcpServers" in data:
            out["mcp_servers"] = self.mcp_servers(data["mcpServers"])
        if "bot" in data:
            out.update(self.bot(self.mapping(data["bot"], "bot")))
        if unused:
            self.warnings.append(
                f"{self.doc.path}: Claude Code settings this bot does not use, ignored: " + ", ".join(sorted(unused))
            )
        return PolicyFile(path=self.doc.path, source=self.source, warnings=tuple(self.warnings), **out)

    def unknown_key(self, key: str) -> None:
        """A top-level key nobody here knows: a warning (Claude Code ignores unknown keys too), unless
        it looks like a misspelling of a key we read."""
        meant = [k for k in _READ_KEYS if k.lower() == key.lower()] or difflib.get_close_matches(
            key, _READ_KEYS, n=1, cutoff=MISSPELLING_CUTOFF
        )
        if meant:
            raise self.error(
                f"unknown key {key!r}: did you mean {meant[0]!r}? (ignoring it would drop what it holds)", key
            )
        self.warnings.append(
            f"{self.doc.path}:{self.doc.line(key)}: unknown key {key!r} ignored (not a setting "
            "this bot reads; our own settings go under 'bot')"
        )

    # ----- permissions --------------------------------------------------------------------------

    def permissions(self, perms: Mapping[str, Any], unused: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        rules: list[Rule] = []
        for key in perms:
            if key in _PERMISSION_UNUSED_KEYS:
                unused.append(f"permissions.{key}")
                continue
            if key not in _PERMISSION_KEYS:
                raise self.error(
                    f"unknown key 'permissions.{key}' (expected one of: {', '.join(sorted(_PERMISSION_KEYS))})",
                    "permissions",
                    key,
                )
        for behavior in ("allow", "deny", "ask"):
            if behavior in perms:
                rules.extend(self.rules(perms[behavior], behavior))
        out["rules"] = tuple(rules)
        if "defaultMode" in perms:
            mode = perms["defaultMode"]
            if mode not in PERMISSION_MODES:
                raise self.error(
                    f"permissions.defaultMode {mode!r} is not one of {', '.join(PERMISSION_MODES)}",
                    "permissions",
                    "defaultMode",
                )
            out["default_mode"] = Setting(mode, self.origin("permissions", "defaultMode"))
        if "additionalDirectories" in perms:
            dirs = self.strings(perms["additionalDirectories"], "permissions", "additionalDirectories")
            out["additional_directories"] = tuple(
                Setting(d, self.origin("permissions", "additionalDirectories", i)) for i, d in enumerate(dirs)
            )
        if "disableBypassPermissionsMode" in perms:
            value = perms["disableBypassPermissionsMode"]
            if value != "disable":
                raise self.error(
                    'permissions.disableBypassPermissionsMode must be "disable"',
                    "permissions",
                    "disableBypassPermissionsMode",
                )
            out["disable_bypass"] = Setting(True, self.origin("permissions", "disableBypassPermissionsMode"))
        return out

    def rules(self, value: Any, behavior: Behavior) -> list[Rule]:
        texts = self.strings(value, "permissions", behavior)
        rules = []
        for index, text in enumerate(texts):
            line = self.doc.line("permissions", behavior, index)
            try:
                rules.append(make_rule(text, behavior, self.source, self.doc.path, line))
            except RuleSyntaxError as exc:
                if behavior != "allow":  # skipping a deny or ask rule would allow more
                    raise ConfigError(
                        f"permissions.{behavior}[{index}]: {exc}", path=self.doc.path, line=line
                    ) from None
                self.warnings.append(
                    f"{self.doc.path}:{line}: permissions.allow[{index}]: {exc}; skipped (an "
                    "allow rule that cannot be read allows nothing)"
                )
        return rules

    # ----- hooks and MCP servers (raw, shape-checked) -------------------------------------------

    def hooks(self, value: Any) -> HookSet:
        events = self.mapping(value, "hooks")
        out: dict[str, tuple[Mapping[str, Any], ...]] = {}
        lines: dict[str, int] = {}
        self._line_of(lines, "hooks", ("hooks",))
        for event, groups in events.items():
            if event not in HOOK_EVENTS:
                self.warnings.append(
                    f"{self.doc.path}:{self.doc.line('hooks', event)}: unknown hook event "
                    f"{event!r} (not a Claude Code event{did_you_mean(event, HOOK_EVENTS)}): "
                    "never fired headless, ignored"
                )
                continue
            if not isinstance(groups, list):
                raise self.error(f"hooks.{event} must be a list of matcher groups", "hooks", event)
            self._line_of(lines, f"hooks.{event}", ("hooks", event))
            checked = []
            for i, group in enumerate(groups):
                group = self.mapping(group, "hooks", event, i)
                self._line_of(lines, f"hooks.{event}[{i}]", ("hooks", event, i))
                matcher = group.get("matcher")
                if matcher is not None and not isinstance(matcher, str):
                    raise self.error(f"hooks.{event}[{i}].matcher must be a string", "hooks", event, i, "matcher")
                handlers = group.get("hooks")
                if not isinstance(handlers, list) or not handlers:
                    raise self.error(f"hooks.{event}[{i}].hooks must be a non-empty list", "hooks", event, i)
                for j, handler in enumerate(handlers):
                    handler = self.mapping(handler, "hooks", event, i, "hooks", j)
                    self._line_of(lines, f"hooks.{event}[{i}].hooks[{j}]", ("hooks", event, i, "hooks", j))
                    kind = handler.get("type")
                    if not isinstance(kind, str):
                        raise self.error(f'hooks.{event}[{i}].hooks[{j}] needs a "type"', "hooks", event, i, "hooks", j)
                    if kind == "command" and not (isinstance(handler.get("command"), str) and handler["command"]):
                        raise self.error(
                            f'hooks.{event}[{i}].hooks[{j}] of type command needs a "command"',
                            "hooks",
                            event,
                            i,
                            "hooks",
                            j,
                        )
                checked.append(group)
            out[event] = tuple(checked)
        return HookSet(out, self.origin("hooks"), lines)

    def _line_of(self, lines: dict[str, int], key: str, path: tuple[str | int, ...]) -> None:
        """Record the line of ``path`` under the dotted ``key``, when the document has that very path."""
        line = self.doc.positions.lines.get(path)
        if line is not None:
            lines[key] = line

    def mcp_servers(self, value: Any) -> dict[str, Setting[Mapping[str, Any]]]:
        servers = self.mapping(value, "mcpServers")
        out = {}
        for name, config in servers.items():
            out[name] = Setting(self.mapping(config, "mcpServers", name), self.origin("mcpServers", name))
        return out

    # ----- bot --------------------------------------------------------------------------------

    def bot(self, bot: Mapping[str, Any]) -> dict[str, Any]:
        settings: dict[str, Setting[Any]] = {}
        out: dict[str, Any] = {"settings": settings}
        for key, value in bot.items():
            if key not in _BOT_KEYS:
                raise self.error(
                    f"unknown key 'bot.{key}' (expected one of: {', '.join(sorted(_BOT_KEYS))})", "bot", key
                )
            origin = self.origin("bot", key)
            match key:
                case "extends":
                    out["extends"] = Setting(self.nonempty(value, "bot", key), origin)
                case "limits":
                    for name, limit in self.mapping(value, "bot", "limits").items():
                        settings[f"limits.{name}"] = Setting(
                            self.limit(name, limit), self.origin("bot", "limits", name)
                        )
                case "model" | "scheduled_task":
                    settings[key] = Setting(self.nonempty(value, "bot", key), origin)
                case "sandbox":
                    if value not in SANDBOX_SETTINGS:
                        raise self.error(f"bot.sandbox must be one of {', '.join(SANDBOX_SETTINGS)}", "bot", key)
                    settings[key] = Setting(value, origin)
                case "verify":
                    commands = self.strings(value, "bot", key)
                    if any(not c.strip() for c in commands):
                        raise self.error("bot.verify: empty command", "bot", key)
                    settings[key] = Setting(tuple(commands), origin)
                case (
                    "allow_git_dir_writes"
                    | "allow_workflow_writes"
                    | "network"
                    | "allow_unsandboxed"
                    | "install_scripts"
                ):
                    settings[key] = Setting(self.boolean(value, "bot", key), origin)
                case "excluded_commands" | "secret_env":
                    settings[key] = Setting(tuple(self.strings(value, "bot", key)), origin)
                case "env":
                    out["env"] = self.env(value)
        return out

    def limit(self, name: str, value: Any) -> int | float:
        path = ("bot", "limits", name)
        if name not in _LIMIT_KEYS:
            raise self.error(
                f"unknown limit 'bot.limits.{name}' (expected one of: {', '.join(sorted(_LIMIT_KEYS))})", *path
            )
        if name == "max_turns":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise self.error("bot.limits.max_turns must be a whole number of at least 1", *path)
            return value
        if name == "context_window":
            if isinstance(value, bool) or not isinstance(value, int) or value < _MIN_CONTEXT_WINDOW:
                raise self.error(
                    f"bot.limits.context_window must be a whole number of tokens, at least {_MIN_CONTEXT_WINDOW:,}",
                    *path,
                )
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise self.error(f"bot.limits.{name} must be a number greater than 0", *path)
        return float(value)

    def env(self, value: Any) -> dict[str, Setting[str | None]]:
        """A list of names (the runner's value passes through) or a mapping name → value (``null``:
        pass through)."""
        items: list[tuple[str, Any, tuple[str | int, ...]]]
        if isinstance(value, list):
            items = [(n, None, ("bot", "env", i)) for i, n in enumerate(value)]
        else:
            items = [(n, v, ("bot", "env", n)) for n, v in self.mapping(value, "bot", "env").items()]
        out: dict[str, Setting[str | None]] = {}
        for name, val, path in items:
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                raise self.error(f"bot.env: {name!r} is not an environment variable name", *path)
            if SECRET_ENV.match(name):
                raise self.error(f"bot.env: {name} is a secret and never reaches a tool's environment", *path)
            if isinstance(val, bool) or (val is not None and not isinstance(val, str | int | float)):
                raise self.error(f"bot.env.{name} must be a string (or null to pass the runner's value through)", *path)
            out[name] = Setting(None if val is None else str(val), self.origin(*path))
        return out

    # ----- scalars ----------------------------------------------------------------------------

    def strings(self, value: Any, *path: str | int) -> list[str]:
        name = ".".join(str(p) for p in path)
        if not isinstance(value, list):
            raise self.error(f"{name} must be a list of strings, got {json_type_name(value)}", *path)
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(f"{name}[{i}] must be a string, got {json_type_name(item)}", *path, i)
        return value

    def nonempty(self, value: Any, *path: str | int) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"{'.'.join(str(p) for p in path)} must be a non-empty string", *path)
        return value

    def boolean(self, value: Any, *path: str | int) -> bool:
        if not isinstance(value, bool):
            raise self.error(f"{'.'.join(str(p) for p in path)} must be true or false", *path)
        return value
