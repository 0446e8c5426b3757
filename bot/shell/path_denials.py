"""The policy's ``Read(...)``/``Edit(...)`` deny rules, applied to the paths a shell command uses.

``Read(.env)`` denies the Read tool; it must deny ``cat .env``, ``git diff --no-index .env
/dev/null`` and ``< .env`` too, or a Bash rule reads around it (Claude Code's path validation
applies the file rules to shell commands in the same way). Reads are checked against ``Read``
deny rules, writes and deletions against ``Edit`` deny rules, on the path as written and as
resolved — as the chain checks a file tool's path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
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
            pattern = compile_path_rule(rule.content, workspace=workspace, rule_base=rule_base(rule.ref.file),
                                        home=home)
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


#: Entries walked under a directory a command reads recursively, looking for denied files.
MAX_DENIAL_WALK = 20_000


def reads_recursively(values: Sequence[str]) -> bool:
    """Whether the command reads the directories it names (or its working directory) file by file:
    ``grep -r``, ``rg``/``ag``/``ack``, ``tar c``, ``zip -r``, ``cp -r``, ``rsync -r``/``-a``,
    ``git diff --no-index``."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    flags = [v for v in values[1:] if v.startswith("-") and not v.startswith("--")]
    longs = {v.partition("=")[0] for v in values[1:] if v.startswith("--")}
    letters = set("".join(f[1:] for f in flags))
    if program in ("rg", "ag", "ack", "ack-grep", "pt", "ugrep"):
        return True
    if program in ("grep", "egrep", "fgrep", "ggrep"):
        return bool(letters & {"r", "R"}) or bool(longs & {"--recursive", "--dereference-recursive"}) or \
            any(v in ("--directories=recurse", "recurse") for v in values[1:])
    if program in ("tar", "gtar", "bsdtar"):
        first = values[1] if len(values) > 1 else ""
        return "c" in letters or "--create" in longs or (not first.startswith("-") and "c" in first)
    if program == "zip":
        return bool(letters & {"r", "R"}) or "--recurse-paths" in longs
    if program in ("cp", "scp"):
        return bool(letters & {"r", "R", "a"}) or bool(longs & {"--recursive", "--archive"})
    if program == "rsync":
        return bool(letters & {"r", "a"}) or bool(longs & {"--recursive", "--archive"})
    if program == "git":
        return "--no-index" in values
    return False


def skips_hidden(values: Sequence[str]) -> bool:
    """ripgrep and its kin leave hidden files out unless told otherwise (``--hidden``, ``-.``,
    ``-u``/``-uu``, ``--no-ignore``…): a denied ``.env`` is not read by a plain ``rg x``."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    if program not in ("rg", "ag", "pt"):
        return False
    return not any(v in ("--hidden", "-.", "--no-ignore", "--all-types", "-a", "--unrestricted")
                   or (v.startswith("-u") and set(v[1:]) <= {"u"}) or
                   (v.startswith("-") and not v.startswith("--") and ("." in v[1:] or "u" in v[1:]))
                   for v in values[1:])


def denied_below(directory: str, denied: DeniedPath, *, hidden: bool = True) -> str | None:
    """The rule of a file below ``directory`` that a Read deny rule covers (``"too many"`` when
    the bounded walk is cut short), else ``None``. Links are not followed (the link checks
    refuse those that lead out); ``.git`` is not walked (no deny rule is about git's objects,
    and it is the largest directory of a checkout); ``hidden=False`` leaves dot files out, as
    ripgrep does."""
    budget = MAX_DENIAL_WALK
    stack = [directory]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError:
            continue
        budget -= len(entries)
        if budget < 0:
            return "too many"
        for entry in entries:
            if entry.name == ".git" or (not hidden and entry.name.startswith(".")):
                continue
            rule = denied(entry.path, entry.path, "read")
            if rule is not None:
                return rule
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return None
