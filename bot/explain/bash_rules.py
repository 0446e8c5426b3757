"""One ``Bash(...)`` rule in words: what it approves, and what it never approves.

What a rule approves comes from the rule's compiled pattern (:mod:`bot.shell.judge.rule_match`:
exact, prefix or wildcard, and the literal it spells out). What it never approves is read from the
Bash analysis' option table (:mod:`bot.shell.programs.options`): the options of the rule's program
that run a command, name a program, load code or configuration, or connect elsewhere — each
needs a rule that spells out the option and its value — and the options that write a file, which
are checked as writes. :mod:`bot.explain.compute` then asks the engine, for one example of each
class, whether the policy really refuses it, and shows only what it refuses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.permissions.rules import Rule

#: The option classes a prefix rule never approves, in the words the denials use.
CLASS_WORDS = {
    "runs": "options that run a command given as their value",
    "program": "options that name a program to start",
    "loads": "options that load code or configuration",
    "connects": "options that connect somewhere else",
    "writes": "options that write a file are checked as writes (inside the workspace, never .git/)",
}
NEVER_CLASSES = ("runs", "program", "loads", "connects")
#: Per class, how many option names the explanation lists (the count says how many there are).
MAX_NAMED = 4


@dataclass(frozen=True, slots=True)
class OptionClass:
    name: str
    words: str
    options: tuple[str, ...]
    total: int
    #: A command the engine was asked about and refused under this policy (set by compute).
    example: str | None = None


@dataclass(frozen=True, slots=True)
class BashRuleView:
    rule: str
    where: str
    kind: str
    #: What the rule spells out (the canonical command for exact and prefix rules).
    literal: str
    approves: str
    #: The option-table entry the rule's program is read from (``git diff``, ``make``), if any.
    table_entry: str | None
    documented_by: str | None
    never: tuple[OptionClass, ...] = ()


@cache
def _table() -> dict[str, Any]:
    from bot.shell.programs.options.lookup import TABLE

    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def table_key(literal: str) -> str | None:
    """The table entry for a rule's literal: ``git <sub>`` for git, else the program."""
    words = literal.split()
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    table = _table()
    if program == "git" and len(words) > 1 and f"git {words[1]}" in table:
        return f"git {words[1]}"
    return program if program in table else None


def _documented_by(entry: dict[str, Any]) -> str | None:
    source = entry.get("source")
    if source == "man":
        return f"man page of {entry.get('package')} {entry.get('version')}"
    if source == "help":
        return f"--help of {entry.get('package')} {entry.get('version')}"
    return None


def option_classes(key: str | None) -> tuple[OptionClass, ...]:
    if key is None:
        return ()
    options: dict[str, Any] = _table().get(key, {}).get("options") or {}
    out: list[OptionClass] = []
    for cls in (*NEVER_CLASSES, "writes"):
        names = sorted(n for n, info in options.items() if info.get("class") == cls)
        if names:
            out.append(OptionClass(cls, CLASS_WORDS[cls], tuple(names[:MAX_NAMED]), len(names)))
    return tuple(out)


def describe_rule(rule: Rule, where: str, *, options: bool = True) -> BashRuleView:
    """``options=False``: the rule's words alone, without reading the option table (a 2 MB JSON
    file, about 0.1 s to parse): no ``table_entry``, ``documented_by`` or ``never``."""
    from bot.shell.judge.rule_match import compile_pattern

    content = rule.content or ""
    pattern = compile_pattern(content)
    match pattern.kind:
        case "exact":
            approves = f"exactly `{pattern.literal}`, nothing added"
        case "prefix":
            approves = f"`{pattern.literal}` followed by any arguments"
        case _:
            approves = f"commands matching `{content}` (`*` matches any text, spaces included)"
    # The table's options are the program's own: they apply right after the literal only when the
    # literal is the program (or git and its subcommand), not after `python -m pytest`.
    key = table_key(pattern.literal) if options and pattern.kind != "exact" else None
    if key is not None and key != " ".join(pattern.literal.split()).rsplit("/", 1)[-1]:
        key = None
    entry = _table().get(key, {}) if key else {}
    return BashRuleView(
        rule=rule.text,
        where=where,
        kind=pattern.kind,
        literal=pattern.literal,
        approves=approves,
        table_entry=key,
        documented_by=_documented_by(entry) if entry else None,
        never=option_classes(key),
    )


#: What no Bash allow rule approves, whatever it says: the analysis judges these parts on their own.
ALWAYS_SEPARATE = (
    "each part of a compound (`&&`, `||`, `;`, `|`) is judged on its own",
    "a command run through another program (`sh -c`, `xargs`, `find -exec`, `npx`, `uv run`) "
    "is judged with that program, which needs a rule of its own",
    "paths outside the workspace need a rule that spells them out; "
    "writes into `.git/` or `.github/workflows/` are refused",
)
