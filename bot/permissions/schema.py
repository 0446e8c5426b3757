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

The shapes and types are pydantic models (:mod:`bot.permissions.settings_model`, which also gives
the JSON Schema editors use: ``bot policy schema``); this module adds what a model cannot say —
which top-level keys are warnings, rule syntax, hook events, ``bot.env`` names — and turns the
result into a :class:`PolicyFile` whose every setting knows its file and line.

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

from pydantic import ValidationError

from bot.errors import ConfigError, json_type_name
from bot.permissions.context import PermissionMode
from bot.permissions.documents import Document, read_document
from bot.permissions.rules import Behavior, Rule, RuleSyntaxError, make_rule
from bot.permissions.settings_model import (
    CLAUDE_SANDBOX_KEYS,
    Bot,
    ClaudeSandbox,
    Limits,
    Permissions,
    first_error,
    parse_settings,
)

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
_PERMISSION_UNUSED_KEYS = frozenset({"disableAutoMode"})
#: The keys of ``permissions`` and ``bot`` (``bot.limits`` too), their types and their error
#: wording are the pydantic models of :mod:`bot.permissions.settings_model`: a new key goes there.
#: The top-level keys we read. An unknown key close to one of these is an error, not a warning.
_READ_KEYS = ("permissions", "hooks", "disableAllHooks", "mcpServers", "sandbox", "env", "bot")
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
    """The checks pydantic does not do (which keys are warnings, rule syntax, hook events, env
    names), around :func:`~bot.permissions.settings_model.parse_settings`."""

    def __init__(self, doc: Document, source: str) -> None:
        self.doc = doc
        self.source = source
        self.warnings: list[str] = []

    def error(self, message: str, *path: str | int) -> ConfigError:
        return ConfigError(message, path=self.doc.path, line=self.doc.line(*path))

    def origin(self, *path: str | int) -> Origin:
        return Origin(self.source, self.doc.path, self.doc.line(*path))

    def run(self) -> PolicyFile:
        data = self.doc.data
        if not isinstance(data, Mapping):
            raise self.error(f"the document must be an object (a mapping), got {json_type_name(data)}")
        for key in data:
            if not isinstance(key, str):
                raise self.error(f"keys must be strings, got {key!r}")
        unused: list[str] = []
        for key in data:
            if key in _SILENT_KEYS or key in _READ_KEYS:
                continue
            if key in CLAUDE_CODE_UNUSED_KEYS:
                unused.append(key)
                continue
            self.unknown_key(key)
        checked = dict(data)
        if isinstance(data.get("hooks"), Mapping):
            checked["hooks"] = self.known_events(data["hooks"])
        try:
            model = parse_settings(checked)
        except ValidationError as exc:
            loc, message = first_error(exc)
            raise self.error(message, *loc) from None
        out: dict[str, Any] = {}
        if model.permissions is not None:
            out.update(self.permissions(model.permissions, data["permissions"], unused))
        if model.hooks is not None:
            out["hooks"] = self.hooks(checked["hooks"])
        if model.disableAllHooks is not None:
            out["disable_all_hooks"] = Setting(model.disableAllHooks, self.origin("disableAllHooks"))
        if model.mcpServers is not None:
            out["mcp_servers"] = {
                name: Setting(config, self.origin("mcpServers", name)) for name, config in model.mcpServers.items()
            }
        # Claude Code's own `sandbox` and `env` first: our `bot` keys, when written too, win.
        claude: dict[str, Setting[Any]] = {}
        if model.sandbox is not None:
            claude.update(self.claude_sandbox(model.sandbox, data["sandbox"], unused))
        claude_env = self.claude_env(model.env) if model.env is not None else {}
        if model.bot is not None:
            out.update(self.bot(model.bot, data["bot"]))
        if claude:
            out["settings"] = {**claude, **out.get("settings", {})}
        if claude_env:
            out["env"] = {**claude_env, **out.get("env", {})}
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

    def permissions(self, perms: Permissions, raw: Mapping[str, Any], unused: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        unused.extend(f"permissions.{key}" for key in raw if key in _PERMISSION_UNUSED_KEYS)
        rules: list[Rule] = []
        for behavior in ("allow", "deny", "ask"):
            texts = getattr(perms, behavior)
            if texts is not None:
                rules.extend(self.rules(texts, behavior))
        out["rules"] = tuple(rules)
        if perms.defaultMode is not None:
            out["default_mode"] = Setting(perms.defaultMode, self.origin("permissions", "defaultMode"))
        if perms.additionalDirectories is not None:
            out["additional_directories"] = tuple(
                Setting(d, self.origin("permissions", "additionalDirectories", i))
                for i, d in enumerate(perms.additionalDirectories)
            )
        if perms.disableBypassPermissionsMode is not None:
            out["disable_bypass"] = Setting(True, self.origin("permissions", "disableBypassPermissionsMode"))
        return out

    def rules(self, texts: list[str], behavior: Behavior) -> list[Rule]:
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

    # ----- hooks (kept raw for the hooks runner, validated by the model) ------------------------

    def known_events(self, events: Mapping[Any, Any]) -> dict[Any, Any]:
        """The hook events Claude Code has; every other one is warned about and dropped."""
        known: dict[Any, Any] = {}
        for event, groups in events.items():
            if event in HOOK_EVENTS or not isinstance(event, str):
                known[event] = groups  # a non-string key is the model's error
                continue
            self.warnings.append(
                f"{self.doc.path}:{self.doc.line('hooks', event)}: unknown hook event "
                f"{event!r} (not a Claude Code event{did_you_mean(event, HOOK_EVENTS)}): "
                "never fired headless, ignored"
            )
        return known

    def hooks(self, events: Mapping[str, list[Mapping[str, Any]]]) -> HookSet:
        lines: dict[str, int] = {}
        self._line_of(lines, "hooks", ("hooks",))
        for event, groups in events.items():
            self._line_of(lines, f"hooks.{event}", ("hooks", event))
            for i, group in enumerate(groups):
                self._line_of(lines, f"hooks.{event}[{i}]", ("hooks", event, i))
                for j, _ in enumerate(group["hooks"]):
                    self._line_of(lines, f"hooks.{event}[{i}].hooks[{j}]", ("hooks", event, i, "hooks", j))
        return HookSet({event: tuple(groups) for event, groups in events.items()}, self.origin("hooks"), lines)

    def _line_of(self, lines: dict[str, int], key: str, path: tuple[str | int, ...]) -> None:
        """Record the line of ``path`` under the dotted ``key``, when the document has that very path."""
        line = self.doc.positions.lines.get(path)
        if line is not None:
            lines[key] = line

    # ----- Claude Code's sandbox and env ---------------------------------------------------------

    def claude_sandbox(self, sandbox: ClaudeSandbox, raw: Mapping[str, Any], unused: list[str]) -> dict[str, Any]:
        """Claude Code's ``sandbox`` where it has a meaning here (see CLAUDE_SANDBOX_KEYS); the rest is
        reported with the other unused keys. It may make the sandbox stricter, never turn it off."""
        out: dict[str, Setting[Any]] = {}
        if sandbox.enabled and sandbox.failIfUnavailable:
            out["sandbox"] = Setting("required", self.origin("sandbox", "failIfUnavailable"))
        if sandbox.excludedCommands:
            out["excluded_commands"] = Setting(
                tuple(sandbox.excludedCommands), self.origin("sandbox", "excludedCommands")
            )
        if sandbox.allowUnsandboxedCommands is not None:
            out["allow_unsandboxed"] = Setting(
                sandbox.allowUnsandboxedCommands, self.origin("sandbox", "allowUnsandboxedCommands")
            )
        wider = [
            f"sandbox.network.{key}"
            for key, value in (sandbox.network or {}).items()
            if key in ("allowedDomains", "allowUnixSockets", "allowAllUnixSockets", "allowLocalBinding") and value
        ]
        if wider:
            self.warnings.append(
                f"{self.doc.path}:{self.doc.line('sandbox', 'network')}: {', '.join(wider)} not honoured: "
                "sandboxed commands get no network here unless bot.network is true (no per-domain proxy)"
            )
        unused.extend(f"sandbox.{key}" for key in raw if key not in CLAUDE_SANDBOX_KEYS)
        return out

    def claude_env(self, env: Mapping[str, str]) -> dict[str, Setting[str | None]]:
        """Claude Code's ``env``: variables for the session's commands. A name that is not a variable
        name, or a secret, is skipped with a warning (Claude Code files are written for a desktop)."""
        out: dict[str, Setting[str | None]] = {}
        for name, value in env.items():
            where = f"{self.doc.path}:{self.doc.line('env', name)}"
            if not _ENV_NAME.match(name):
                self.warnings.append(f"{where}: env: {name!r} is not an environment variable name; skipped")
            elif SECRET_ENV.match(name):
                self.warnings.append(
                    f"{where}: env: {name} is a secret and never reaches a tool's environment; skipped"
                )
            else:
                out[name] = Setting(value, self.origin("env", name))
        return out

    # ----- bot --------------------------------------------------------------------------------

    def bot(self, bot: Bot, raw: Mapping[str, Any]) -> dict[str, Any]:
        settings: dict[str, Setting[Any]] = {}
        out: dict[str, Any] = {"settings": settings}
        for key in raw:  # in the order written
            origin = self.origin("bot", key)
            value = getattr(bot, key)
            match key:
                case "extends":
                    out["extends"] = Setting(value, origin)
                case "limits":
                    assert isinstance(value, Limits)
                    for name in raw["limits"]:
                        settings[f"limits.{name}"] = Setting(getattr(value, name), self.origin("bot", "limits", name))
                case "env":
                    out["env"] = self.env(raw["env"])
                case "verify" | "excluded_commands" | "secret_env":
                    settings[key] = Setting(tuple(value), origin)
                case _:
                    settings[key] = Setting(value, origin)
        return out

    def env(self, value: Any) -> dict[str, Setting[str | None]]:
        """A list of names (the runner's value passes through) or a mapping name → value (``null``:
        pass through)."""
        items: list[tuple[Any, Any, tuple[str | int, ...]]]
        if isinstance(value, list):
            items = [(n, None, ("bot", "env", i)) for i, n in enumerate(value)]
        elif isinstance(value, Mapping):
            items = [(n, v, ("bot", "env", n)) for n, v in value.items()]
        else:
            raise self.error(f"bot.env must be an object (a mapping), got {json_type_name(value)}", "bot", "env")
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
