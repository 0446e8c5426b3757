"""The policy's ``Read(...)``/``Edit(...)`` deny rules as a checker of plain paths, for the places
that meet a path outside the chain: the paths a shell command uses, and where a file tool's path
leads when its call runs (:mod:`bot.tools.files.safe_open`).

``Read(.env)`` denies the Read tool; it must deny ``cat .env``, ``git diff --no-index .env
/dev/null`` and ``< .env`` too, or a Bash rule reads around it (Claude Code's path validation
applies the file rules to shell commands in the same way). Reads are checked against ``Read``
deny rules, writes and deletions against ``Edit`` deny rules, on the path as written and as
resolved — as the chain checks a file tool's path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.permissions.context import PermissionContext
from bot.permissions.matchers import rule_base
from bot.permissions.path_rules import PathPattern, PathRuleError, compile_path_rule
from bot.permissions.rules import rule_applies_to

#: ``(path as written, path resolved, access) → the deny rule's text, or None``.
DeniedPath = Callable[[str, str, str], str | None]
_READS = frozenset({"read", "argument", "cd"})


def path_denials(permission: PermissionContext, workspace: Path, home: str) -> DeniedPath | None:
    """A checker for the context's path deny rules (``None`` when it has none)."""
    reads: list[tuple[PathPattern, str]] = []
    writes: list[tuple[PathPattern, str]] = []
    for rule in permission.deny:
        if rule.content is None:
            continue
        family = reads if rule_applies_to(rule.tool, "Read") else writes if rule_applies_to(rule.tool, "Edit") else None
        if family is None:
            continue
        try:
            pattern = compile_path_rule(
                rule.content, workspace=workspace, rule_base=rule_base(rule.ref.file), home=home
            )
        except PathRuleError:
            continue  # reported where the policy was loaded
        family.append((pattern, rule.text))
    if not reads and not writes:
        return None

    def denied(written: str, resolved: str, access: str) -> str | None:
        patterns = reads if access in _READS else writes
        for pattern, text in patterns:
            if pattern.matches(Path(resolved)) or (written != resolved and pattern.matches(Path(written))):
                return text
        return None

    return denied
