"""Stable command prefixes and the rules a maintainer could add (seeds 4.6.2 step 4).

``git commit -m "fix"`` → ``git commit`` → ``Bash(git commit:*)``; ``ls -la`` has no prefix (``-la``
is a flag, not a subcommand) → the exact rule ``Bash(ls -la)``. Bare shells, privilege and exec
wrappers and interpreters never get a prefix rule: ``Bash(bash:*)`` is ``Bash(*)``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from bot.shell.launch.wrappers import OPAQUE_LAUNCHERS, PRIVILEGE, SHELLS

#: At most this many suggestions for a compound command (seeds ``MAX_SUGGESTED_RULES_FOR_COMPOUND``).
MAX_SUGGESTED_RULES_FOR_COMPOUND = 5
#: Exact-rule suggestions longer than this are not offered (a rule nobody would reuse).
MAX_EXACT_SUGGESTION_CHARS = 160

NO_PREFIX_PROGRAMS = (
    SHELLS
    | PRIVILEGE
    | OPAQUE_LAUNCHERS
    | frozenset(
        {
            "env",
            "xargs",
            "timeout",
            "nice",
            "nohup",
            "stdbuf",
            "setsid",
            "time",
            "command",
            "builtin",
            "exec",
            "eval",
            "ionice",
            "chrt",
            "taskset",
            "flock",
            "watch",
            "python",
            "python3",
            "python2",
            "node",
            "nodejs",
            "perl",
            "ruby",
            "php",
            "lua",
            "deno",
            "bun",
            "pwsh",
            "powershell",
            "osascript",
            "npx",
            "bunx",
            "uvx",
        }
    )
)
_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9]*(?:[-_:][a-z0-9]+)*$")
#: Longer second words are data, not subcommands.
MAX_SUBCOMMAND_CHARS = 32
#: Commands that never need a rule (the judge allows them as neutral): nothing to suggest.
NEUTRAL_PROGRAMS = frozenset({"cd", "pushd", "popd", "true", "false", ":", "echo", "printf", "pwd", "set", "exit"})


def command_prefix(words: Sequence[str]) -> str | None:
    """The 2-word stable prefix of a simple command (safe env already stripped), or ``None``."""
    if len(words) < 2:
        return None
    program = words[0]
    base = program.rsplit("/", 1)[-1]
    if base in NO_PREFIX_PROGRAMS or base.startswith("python"):
        if base.startswith("python") and len(words) > 2 and words[1] == "-m" and _SUBCOMMAND.match(words[2]):
            return f"{program} -m {words[2]}"
        return None
    if len(words[1]) > MAX_SUBCOMMAND_CHARS or not _SUBCOMMAND.match(words[1]):
        return None
    return f"{program} {words[1]}"


def suggestion_for(words: Sequence[str]) -> str | None:
    """The rule to suggest for one simple command: a prefix rule, else the exact command."""
    if not words or words[0] in NEUTRAL_PROGRAMS:
        return None
    prefix = command_prefix(words)
    if prefix is not None:
        return f"Bash({prefix}:*)"
    base = words[0].rsplit("/", 1)[-1]
    if base in SHELLS or base in PRIVILEGE:
        return None
    exact = exact_suggestion(words)
    return exact[0] if exact else None


def exact_suggestion(words: Sequence[str]) -> tuple[str, ...]:
    """``(Bash(<the command>),)`` with shell quoting, or ``()`` when it is too long or has run-time parts."""
    text = " ".join(shlex.quote(w) if needs_quotes(w) else w for w in words)
    if not text or len(text) > MAX_EXACT_SUGGESTION_CHARS or "\n" in text or "\ue000" in text:
        return ()
    return (f"Bash({text})",)


_SPECIAL = frozenset(" \t'\"\\$`;&|<>(){}*?[]#~")


def needs_quotes(word: str) -> bool:
    return word == "" or not _SPECIAL.isdisjoint(word)


def merge_suggestions(suggestions: Sequence[str | None]) -> tuple[str, ...]:
    """Deduplicated, in order, at most :data:`MAX_SUGGESTED_RULES_FOR_COMPOUND`."""
    seen: list[str] = []
    for suggestion in suggestions:
        if suggestion and suggestion not in seen:
            seen.append(suggestion)
    return tuple(seen[:MAX_SUGGESTED_RULES_FOR_COMPOUND])
