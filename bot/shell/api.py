"""The shell layer's public contract, used by the Bash tool and by policy checks.

* :func:`check_bash_permissions` — the Bash tool's ``check_permissions``: runs the 23 security
  checks, parses the command with tree-sitter, splits compound commands, matches every subcommand
  (and every program a wrapper launches) against the context's ``Bash(...)`` deny/ask/allow rules,
  and checks path arguments and redirections against the workspace. Returns

  - ``Allow`` — every subcommand is allowed by a rule (``rule`` is the first; the reason lists all)
    or is neutral (``cd`` inside the workspace, ``echo``, ``true``...: ``source="tool"``, no rule);
  - ``Deny`` — a deny rule matched (``rule``), or a hard limit: removing ``/``, ``~`` or the
    workspace, writes into ``.git/``/``.github/workflows/``, more than 50 subcommands
    (``source="safety"``); no rule overrides these;
  - ``Ask`` — a security check fired (``check_id``, stable numbers of
    :data:`BASH_SECURITY_CHECK_IDS`), the command is too complex to judge, an ask rule matched, or
    no rule covers some subcommand (``suggestions``: up to 5 rules a maintainer could add). Headless,
    the chain turns every ``Ask`` into a denial;
  - ``Passthrough`` — only when some subcommand matched no rule *and* the policy allows Bash as a
    whole (a bare ``Bash`` or ``Bash(*)`` allow rule, or ``bypassPermissions``): the chain decides.

  ``warnings`` on every result carry the destructive-command warnings (``git push --force``...).
* :func:`is_read_only_command` / :func:`is_concurrency_safe_command` — seeds 4.6.8 / 11.1.
* :func:`interpret_exit_code` — seeds 4.6.7 command semantics (``grep`` 1 = no match, not an error).

Added for the Bash tool and ``bot policy check``:

* :func:`analyze_bash` — the facts behind a decision (:class:`BashAnalysis`);
* :func:`destructive_warnings` — the warnings alone;
* :func:`cd_target` — the directory a command leaves the shell in, when it is known statically (for
  the tool's working-directory context modifier);
* :func:`suggest_rules` — the rules that would allow a command;
* :func:`search_or_read_category` — the seeds' UI collapsing category (search/read/list).

Policy knobs read from ``context.permission.extra``: ``bash_install_scripts`` (default ``True``):
when ``False``, ``npm``/``yarn``/``pnpm``/``bun`` installs need ``--ignore-scripts`` and ``pip``
installs need ``--only-binary :all:`` unless a rule spells the command out.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path

from bot.interface.context import ToolUseContext
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Allow, Ask, Deny, Passthrough, PermissionResult
from bot.permissions.path_denials import path_denials
from bot.shell.judge.decide import decide_command
from bot.shell.judge.prefixes import command_prefix, merge_suggestions, suggestion_for
from bot.shell.judge.read_only import Category, is_concurrency_safe, is_read_only, is_search_or_read
from bot.shell.judge.rule_match import rule_set
from bot.shell.judge.scan import Options
from bot.shell.judge.security_checks import BASH_SECURITY_CHECK_IDS, CHECK_NAMES, text_findings
from bot.shell.judge.verdict import Verdict
from bot.shell.parse.syntax import Parsed, ParseUnavailable, ScopeMarker, TooComplex
from bot.shell.parse.walk import parse_command
from bot.shell.paths.resolve import expand, path_policy
from bot.shell.programs.destructive import destructive_warnings
from bot.shell.programs.exit_codes import ExitInterpretation, interpret_exit_code

log = logging.getLogger(__name__)

__all__ = [
    "BASH_SECURITY_CHECK_IDS",
    "CHECK_NAMES",
    "BashAnalysis",
    "ExitInterpretation",
    "analyze_bash",
    "cd_target",
    "check_bash_permissions",
    "destructive_warnings",
    "interpret_exit_code",
    "is_concurrency_safe_command",
    "is_read_only_command",
    "search_or_read_category",
    "suggest_rules",
]


def check_bash_permissions(command: str, context: ToolUseContext) -> PermissionResult:
    options, blanket = _options(context)
    try:
        verdict = decide_command(command, options, str(context.cwd or context.workspace))
        warnings = destructive_warnings(command)
    except RecursionError:
        return Ask("the command is nested too deeply to analyse", source="safety")
    except Exception as exc:  # fail closed: a command we cannot judge is not allowed
        log.exception("Bash analysis failed for %r", command[:200])
        return Ask(f"the command could not be analysed ({type(exc).__name__}); it is not allowed", source="safety")
    return _result(verdict, warnings, blanket)


def is_read_only_command(command: str) -> bool:
    return is_read_only(command)


def is_concurrency_safe_command(command: str) -> bool:
    return is_concurrency_safe(command)


@dataclass(frozen=True, slots=True)
class BashAnalysis:
    """What the analysis found, for logs, ``bot policy check`` and the tool's rendering."""

    #: ``simple``, ``too_complex``, ``parser_unavailable``, or ``security_check``.
    outcome: str
    #: The simple commands, as argv lists (quotes resolved; ``\\ue000`` marks run-time values).
    subcommands: tuple[tuple[str, ...], ...]
    reason: str = ""
    check_id: int | None = None
    read_only: bool = False
    concurrency_safe: bool = False
    warnings: tuple[str, ...] = ()
    #: The 2-word stable prefixes of the subcommands that have one.
    prefixes: tuple[str, ...] = ()


def analyze_bash(command: str) -> BashAnalysis:
    warnings = destructive_warnings(command)
    finding = text_findings(command)
    if finding is not None:
        return BashAnalysis("security_check", (), finding.message, finding.check_id, warnings=warnings)
    outcome = parse_command(command)
    match outcome:
        case TooComplex(reason, check_id):
            return BashAnalysis("too_complex", (), reason, check_id, warnings=warnings)
        case ParseUnavailable(reason):
            return BashAnalysis("parser_unavailable", (), reason, warnings=warnings)
        case Parsed():
            subcommands = tuple(c.values for c in outcome.commands)
            prefixes = tuple(p for s in subcommands if (p := command_prefix(s)) is not None)
            return BashAnalysis(
                "simple",
                subcommands,
                "",
                None,
                is_read_only(command),
                is_concurrency_safe(command),
                warnings,
                tuple(dict.fromkeys(prefixes)),
            )


def suggest_rules(command: str) -> tuple[str, ...]:
    """Rules that would allow each subcommand (prefix rules where stable, else exact ones)."""
    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return ()
    return merge_suggestions([suggestion_for(c.values) for c in outcome.commands if c.kind == "command"])


def search_or_read_category(command: str) -> Category | None:
    return is_search_or_read(command)


def cd_target(command: str, cwd: Path) -> Path | None:
    """The directory ``command`` leaves the shell in, when a top-level ``cd`` changes it and the
    target is static; ``None`` when it stays or cannot be known (``cd -``, ``cd $X``)."""
    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return None
    current = str(cwd)
    depth = 0
    changed = False
    for item in outcome.items:
        if isinstance(item, ScopeMarker):
            depth += 1 if item.enter else -1
            continue
        if depth or item.program not in ("cd", "pushd", "popd"):
            continue
        args = [w for w in item.argv[1:] if w.value not in ("-L", "-P")]
        if item.program == "popd" or (args and (args[0].value == "-" or not args[0].is_static)):
            return None
        target = args[0].value if args else "~"
        current = expand(target, current, os.path.expanduser("~"))
        changed = True
    if not changed or current == str(cwd):
        return None
    return Path(current)


#: Options compiled per policy: ``(permission context, roots) → (options, blanket)``. A run reuses one
#: permission context for all its calls; the identity check keeps a recycled ``id`` from matching.
_OPTIONS_CACHE: dict[tuple[int, int], tuple[PermissionContext, Path, Options, bool]] = {}
OPTIONS_CACHE_SIZE = 256


def _options(context: ToolUseContext) -> tuple[Options, bool]:
    permission = context.permission
    workspace = context.workspace
    key = (id(permission), id(workspace))
    cached = _OPTIONS_CACHE.get(key)
    if cached is not None and cached[0] is permission and cached[1] is workspace:
        return cached[2], cached[3]
    options = _build_options(context)
    if len(_OPTIONS_CACHE) >= OPTIONS_CACHE_SIZE:
        _OPTIONS_CACHE.clear()
    blanket = _blanket(permission, options)
    _OPTIONS_CACHE[key] = (permission, workspace, options, blanket)
    return options, blanket


def _build_options(context: ToolUseContext) -> Options:
    permission = context.permission
    roots = tuple(str(r) for r in context.allowed_roots)
    paths = path_policy(
        roots, os.path.expanduser("~"), permission.allow_git_dir_writes, permission.allow_workflow_writes
    )
    # A policy that allows Bash as a whole allows its writes too (``cp`` could write anyway).
    edits = (
        permission.mode in ("acceptEdits", "bypassPermissions")
        or permission.blanket_rule("allow", "Edit") is not None
        or permission.blanket_rule("allow", "Write") is not None
        or permission.blanket_rule("allow", "Bash") is not None
        or any(r.tool == "Bash" and r.content is not None and r.content.strip() == "*" for r in permission.allow)
    )
    install_scripts = permission.extra.get("bash_install_scripts", True) is not False
    allow = permission.allow
    blanket = permission.blanket_rule("allow", "Bash")
    if blanket is not None:
        # A bare `Bash` allow is `Bash(*)` for the analysis: what it cannot see into is then asked
        # when deny or ask rules exist (see _blanket), everything else is allowed as before.
        allow = (*allow, replace(blanket, content="*"))
    denied = path_denials(permission, context.workspace, os.path.expanduser("~"))
    return Options(rule_set(permission.deny, permission.ask, allow), paths, edits, install_scripts, denied)


def _blanket(permission: PermissionContext, options: Options) -> bool:
    """Whether what the analysis cannot see into is left to the chain (which a bare ``Bash`` allow
    rule then allows). Not when the policy denies or asks about Bash commands: a command the
    analysis cannot see into may hide one of those (``echo git push | sh``), so it is asked —
    a bare ``Bash`` allow then means ``Bash(*)``."""
    if options.rules.deny.rules or options.rules.ask.rules:
        return False
    if permission.mode == "bypassPermissions" or permission.blanket_rule("allow", "Bash") is not None:
        return True
    return any(c.pattern.kind == "wildcard" and c.pattern.text == "*" for c in options.rules.allow.rules)


def _result(verdict: Verdict, warnings: tuple[str, ...], blanket: bool) -> PermissionResult:
    match verdict.kind:
        case "allow":
            if verdict.neutral or verdict.rule is None:
                reason = (
                    "the command only reads the workspace, writes where the policy allows edits, changes "
                    "directory, prints or tests (no rule needed)"
                )
                return Allow(reason, source="tool", warnings=warnings)
            if len(verdict.rules) > 1:
                texts = ", ".join(dict.fromkeys(f"`{r.text}`" for r in verdict.rules))
            else:
                texts = f"`{verdict.rule.text}`"
            return Allow(f"allowed by {texts}", source="rule", rule=verdict.rule, warnings=warnings)
        case "deny":
            return Deny(
                verdict.reason, source=verdict.source, rule=verdict.rule, check_id=verdict.check_id, warnings=warnings
            )
        case "ask":
            return Ask(
                verdict.reason,
                source=verdict.source,
                rule=verdict.rule,
                suggestions=merge_suggestions(verdict.suggestions),
                check_id=verdict.check_id,
                warnings=warnings,
            )
        case "nomatch":
            if blanket:
                return Passthrough(verdict.reason, warnings=warnings)
            return Ask(
                verdict.reason, source="tool", suggestions=merge_suggestions(verdict.suggestions), warnings=warnings
            )
    raise AssertionError(verdict.kind)  # pragma: no cover
