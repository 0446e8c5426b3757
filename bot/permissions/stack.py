"""Where a run's policy comes from, and the merged result.

Sources, weakest first (:data:`~bot.permissions.schema.SOURCE_RANK`): a shipped **preset**
(``policies/<name>.json``) < the **repository** policy (read from the default branch) < the
**organisation** policy given by the workflow < policy files given with ``--policy`` (**flag**)
< rules and mode given as CLI flags (**cliArg**); and the run itself (**session**) for grants made
while it runs. A file's ``bot.extends`` (a preset name, or a path next to the file) is loaded as
a weaker layer just below the file.

How they combine:

* rules: deny > ask > allow across every source, so nothing overrides a deny — a session grant
  never beats an organisation's deny. Rules are kept strongest source first, so the rule named in
  a decision is the strongest one that matched. An allow rule that a deny or ask rule covers
  entirely can never allow anything: it is warned about, naming both rules
  (:mod:`bot.permissions.shadows`);
* scalars (mode, limits, model, sandbox, verify, ...): the strongest source that sets one wins;
* ``additionalDirectories``: the union; ``env``, ``mcpServers``: merged by name, strongest wins;
  hooks: every file's, weakest first.
* ``bypassPermissions`` only when the workflow itself sets it (organisation policy, ``--policy``,
  ``--mode``) and no source has ``disableBypassPermissionsMode``; it is then loudly logged.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from bot.errors import ConfigError
from bot.permissions.context import PERMISSION_MODES, PermissionContext, PermissionMode
from bot.permissions.documents import FORMATS, parse_document
from bot.permissions.rules import Behavior, Rule, RuleSyntaxError, make_rule
from bot.permissions.schema import (
    BYPASS_SOURCES,
    SOURCE_RANK,
    HookSet,
    Origin,
    PolicyFile,
    PolicySource,
    Setting,
    load_policy_file,
    validate_document,
)
from bot.permissions.shadows import shadowed_allows

log = logging.getLogger("bot.permissions")

#: The shipped presets: ``policies/`` at the top of the checkout, reached through the package's
#: ``_presets`` symlink so that an installed wheel (which copies it) finds them too.
PRESETS_DIR = Path(__file__).resolve().parents[1] / "_presets"
_PRESET_NAME = re.compile(r"^[a-z0-9][a-z0-9\-]*$")
#: ``extends`` chains longer than this are a mistake, not a design.
MAX_EXTENDS_DEPTH = 8

#: Where a repository keeps its policy (first found wins), read from the default branch.
REPOSITORY_POLICY_CANDIDATES = (
    ".github/bot-policy.yml",
    ".github/bot-policy.yaml",
    ".github/bot-policy.json",
    ".github/bot-policy.toml",
    ".claude/settings.json",
)


@dataclass(frozen=True, slots=True)
class PolicyLayer:
    """One policy to load: a file (``path``), a preset (``preset``), or contents already read
    elsewhere (``text``, e.g. from the default branch; ``path`` is then its label)."""

    source: PolicySource
    path: str | None = None
    preset: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class EffectivePolicy:
    """Every source merged. :meth:`permission_context` is what the pipeline uses."""

    files: tuple[PolicyFile, ...]
    mode: Setting[PermissionMode]
    allow: tuple[Rule, ...]
    deny: tuple[Rule, ...]
    ask: tuple[Rule, ...]
    additional_directories: tuple[Setting[str], ...] = ()
    settings: Mapping[str, Setting[Any]] = field(default_factory=dict)
    env: Mapping[str, Setting[str | None]] = field(default_factory=dict)
    hooks: tuple[HookSet, ...] = ()
    hooks_disabled: Setting[bool] | None = None
    mcp_servers: Mapping[str, Setting[Mapping[str, Any]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def setting(self, name: str, default: Any = None) -> Any:
        found = self.settings.get(name)
        return default if found is None else found.value

    def permission_context(self, workspace: Path) -> PermissionContext:
        dirs: list[Path] = []
        for entry in self.additional_directories:
            raw = Path(os.path.expanduser(entry.value))
            path = (raw if raw.is_absolute() else workspace / raw).resolve(strict=False)
            if path not in dirs:
                dirs.append(path)
        return PermissionContext(
            mode=self.mode.value,
            allow=self.allow,
            deny=self.deny,
            ask=self.ask,
            additional_directories=tuple(dirs),
            allow_git_dir_writes=bool(self.setting("allow_git_dir_writes", False)),
            allow_workflow_writes=bool(self.setting("allow_workflow_writes", False)),
            extra=self.shell_settings(),
        )

    def shell_settings(self) -> dict[str, object]:
        """The knobs the shell layer reads from ``PermissionContext.extra`` (``bot.shell.sandbox.status``,
        ``bot.shell.execute.env``, ``bot.shell.api``), under the names it reads them by."""
        extra: dict[str, object] = {
            "sandbox": self.setting("sandbox", "auto"),
            "network": bool(self.setting("network", False)),
            "allow_unsandboxed": bool(self.setting("allow_unsandboxed", False)),
            "excluded_commands": tuple(self.setting("excluded_commands", ())),
            "secret_env": tuple(self.setting("secret_env", ())),
            "bash_install_scripts": bool(self.setting("install_scripts", True)),
            "env": {name: s.value for name, s in self.env.items() if s.value is not None},
            "env_passthrough": tuple(name for name, s in self.env.items() if s.value is None),
        }
        return extra


def layer_for(value: str, source: PolicySource) -> PolicyLayer:
    """``--policy VALUE``: a policy file, or — when no such file exists — a shipped preset's name."""
    if not Path(value).exists() and _PRESET_NAME.match(value) and not Path(value).suffix:
        return PolicyLayer("preset", preset=value)
    return PolicyLayer(source, path=value)


def preset_path(name: str) -> Path:
    if not _PRESET_NAME.match(name):
        raise ConfigError(f"{name!r} is not a preset name")
    for suffix in FORMATS:
        candidate = PRESETS_DIR / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    raise ConfigError(f"no preset named {name!r} (available: {', '.join(list_presets()) or 'none'})")


def list_presets() -> list[str]:
    if not PRESETS_DIR.is_dir():
        return []
    # `bot-policy.schema.json` lives beside the presets and is not one (its name is not a preset name).
    return sorted(
        {p.stem for p in PRESETS_DIR.iterdir() if p.suffix in FORMATS and p.is_file() and _PRESET_NAME.match(p.stem)}
    )


def find_repository_policy(root: Path) -> Path | None:
    for candidate in REPOSITORY_POLICY_CANDIDATES:
        path = root / candidate
        if path.is_file():
            return path
    return None


def load_policy_stack(
    layers: Sequence[PolicyLayer] = (),
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    mode: str | None = None,
    session: Sequence[tuple[Behavior, str]] = (),
) -> EffectivePolicy:
    """Load and merge. ``allow``/``deny``/``ask``/``mode`` are CLI flags (source ``cliArg``);
    ``session`` are grants made by the run itself. Raises :class:`ConfigError`."""
    ordered = sorted(layers, key=lambda layer: SOURCE_RANK[layer.source])
    files: list[PolicyFile] = []
    for layer in ordered:
        files.extend(_expand(layer))
    cli_rules = _flag_rules([("deny", deny), ("ask", ask), ("allow", allow)], "cliArg")
    session_rules = _flag_rules([(b, [t]) for b, t in session], "session")
    cli_mode: Setting[PermissionMode] | None = None
    if mode is not None:
        cli_mode = Setting(_as_mode(mode), Origin("cliArg"))
    return merge(files, cli_rules=cli_rules, session_rules=session_rules, cli_mode=cli_mode)


def merge(
    files: Sequence[PolicyFile],
    *,
    cli_rules: Sequence[Rule] = (),
    session_rules: Sequence[Rule] = (),
    cli_mode: Setting[PermissionMode] | None = None,
) -> EffectivePolicy:
    """Merge loaded files (weakest first) with CLI rules and session grants."""
    strongest_first = [
        f for _, f in sorted(enumerate(files), key=lambda item: (-SOURCE_RANK[item[1].source], -item[0]))
    ]
    rules: list[Rule] = [*cli_rules]
    for file in strongest_first:
        rules.extend(file.rules)
    rules.extend(session_rules)
    warnings: list[str] = [w for f in files for w in f.warnings]

    settings: dict[str, Setting[Any]] = {}
    env: dict[str, Setting[str | None]] = {}
    servers: dict[str, Setting[Mapping[str, Any]]] = {}
    dirs: list[Setting[str]] = []
    hooks: list[HookSet] = []
    mode: Setting[PermissionMode] | None = None
    hooks_disabled: Setting[bool] | None = None
    disable_bypass: Setting[bool] | None = None
    for file in files:
        settings.update(file.settings)
        env.update(file.env)
        servers.update(file.mcp_servers)
        seen = {d.value for d in dirs}
        dirs.extend(d for d in file.additional_directories if d.value not in seen)
        if file.hooks is not None:
            hooks.append(file.hooks)
        hooks_disabled = file.disable_all_hooks or hooks_disabled
        disable_bypass = file.disable_bypass or disable_bypass
        if file.default_mode is not None:
            mode = _checked_mode(file.default_mode, warnings)
    if cli_mode is not None:
        mode = cli_mode
    mode = mode or Setting("default", Origin("default"))
    if mode.value == "bypassPermissions":
        if disable_bypass is not None:
            warnings.append(
                f"bypassPermissions (set by {mode.origin.where()}) is refused: "
                f"disableBypassPermissionsMode is set at {disable_bypass.origin.where()}; "
                "the mode is default"
            )
            mode = Setting("default", disable_bypass.origin)
        else:
            message = (
                f"PERMISSIONS BYPASSED: bypassPermissions mode set by {mode.origin.where()}; every call "
                "that no deny or ask rule, hook or safety check stops is allowed"
            )
            log.warning(message)
            warnings.append(message)
    allow = tuple(r for r in rules if r.behavior == "allow")
    deny = tuple(r for r in rules if r.behavior == "deny")
    ask = tuple(r for r in rules if r.behavior == "ask")
    # An allow rule that a deny or ask rule shadows is dead: say so, naming both rules.
    warnings.extend(shadow.message() for shadow in shadowed_allows(allow, (*deny, *ask)))
    return EffectivePolicy(
        files=tuple(files),
        mode=mode,
        allow=allow,
        deny=deny,
        ask=ask,
        additional_directories=tuple(dirs),
        settings=settings,
        env=env,
        hooks=tuple(hooks),
        hooks_disabled=hooks_disabled,
        mcp_servers=servers,
        warnings=tuple(warnings),
    )


def add_session_rules(context: PermissionContext, behavior: Behavior, texts: Iterable[str]) -> PermissionContext:
    """A permission context with grants made during the run (source ``session``, weakest): they
    never override a deny or an ask from any policy."""
    from dataclasses import replace

    new = tuple(make_rule(t, behavior, "session") for t in texts)
    match behavior:
        case "allow":
            return replace(context, allow=(*context.allow, *new))
        case "deny":
            return replace(context, deny=(*context.deny, *new))
        case "ask":
            return replace(context, ask=(*context.ask, *new))


# ---------------------------------------------------------------------------------------------


def _as_mode(mode: str) -> PermissionMode:
    for known in PERMISSION_MODES:
        if known == mode:
            return known
    raise ConfigError(f"--mode {mode!r} is not one of {', '.join(PERMISSION_MODES)}")


def _checked_mode(setting: Setting[PermissionMode], warnings: list[str]) -> Setting[PermissionMode]:
    if setting.value == "bypassPermissions" and setting.origin.source not in BYPASS_SOURCES:
        warnings.append(
            f"{setting.origin.where()}: bypassPermissions is ignored in a {setting.origin.source} "
            "policy; only the workflow (organisation policy or command line) can set it"
        )
        return Setting("default", setting.origin)
    return setting


def _flag_rules(groups: Sequence[tuple[Behavior, Sequence[str]]], source: str) -> list[Rule]:
    rules = []
    for behavior, texts in groups:
        for text in texts:
            try:
                rules.append(make_rule(text, behavior, source))
            except RuleSyntaxError as exc:
                raise ConfigError(f"--{behavior} {text!r}: {exc}") from None
    return rules


def _expand(layer: PolicyLayer) -> list[PolicyFile]:
    """The layer's file, preceded by what it extends (weaker), recursively."""
    if layer.preset is not None:
        return _expand_file(str(preset_path(layer.preset)), "preset", [], text=None)
    if layer.path is None:
        raise ConfigError(f"a {layer.source} policy layer needs a path or a preset")
    return _expand_file(layer.path, layer.source, [], text=layer.text)


def _expand_file(path: str, source: str, chain: list[str], *, text: str | None) -> list[PolicyFile]:
    key = path if text is not None else os.path.realpath(path)
    if key in chain:
        cycle = " → ".join([*chain, key])
        raise ConfigError(f"bot.extends forms a cycle: {cycle}", path=path)
    if len(chain) >= MAX_EXTENDS_DEPTH:
        raise ConfigError(f"bot.extends is nested more than {MAX_EXTENDS_DEPTH} deep", path=path)
    file = _load_text(text, path, source) if text is not None else _load(path, source)
    if file.extends is None:
        return [file]
    target = file.extends.value
    origin = file.extends.origin
    if _PRESET_NAME.match(target) and not Path(target).suffix:
        try:
            base_path, base_source = str(preset_path(target)), "preset"
        except ConfigError as exc:
            raise ConfigError(f"bot.extends: {exc.detail}", path=origin.file, line=origin.line) from None
    else:
        if text is not None:
            raise ConfigError(
                "bot.extends: a policy read from the default branch may extend only a preset",
                path=origin.file,
                line=origin.line,
            )
        base = Path(os.path.expanduser(target))
        base_path = str(base if base.is_absolute() else Path(path).parent / base)
        base_source = source
        if not Path(base_path).is_file():
            raise ConfigError(f"bot.extends: no such file {base_path}", path=origin.file, line=origin.line)
    return [*_expand_file(base_path, base_source, [*chain, key], text=None), file]


def _load(path: str, source: str) -> PolicyFile:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        raise ConfigError("no such policy file", path=path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the policy file: {exc.strerror}", path=path) from None
    return _load_cached(os.path.abspath(path), stat.st_mtime_ns, stat.st_size, source)


@lru_cache(maxsize=256)
def _load_cached(absolute: str, mtime_ns: int, size: int, source: str) -> PolicyFile:
    """Parsed files, by path and version: a batch of thousands of checks parses each file once."""
    return load_policy_file(absolute, source)


@lru_cache(maxsize=64)
def _load_text(text: str, label: str, source: str) -> PolicyFile:
    return validate_document(parse_document(text, label), source)
