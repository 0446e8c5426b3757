"""What the analysis asks the option table: which words of one command line are values of options
that run, name a program, load code or configuration, or connect elsewhere, and which are files
read or written.

:func:`table_facts` reads a command the way a GNU ``getopt_long`` parser does — options anywhere
before ``--``, ``--name=value`` and ``--name value``, unambiguous abbreviations of long options,
bundled short flags with an attached value (``-xfI``, ``-Icmd``), and single-dash long options of
programs documented that way (``gcc -print-prog-name``, ``java -javaagent``). Programs whose later
words belong to another command or script (launchers, wrappers, shells, interpreters) are judged by
their own modules and are not read here.

A ``loads`` value that is a plain path is judged as a path, as every path-like argument is
(:mod:`bot.shell.paths.fallback`: outside the workspace only a rule that spells it out; a
configuration file inside the workspace is the project's own, which the program loads by default
anyway); an inline setting (``key=value``) or a URL is not a path, and is explicit like the other
executing classes. ``writes`` values are checked as writes; ``reads`` values need nothing more than
the argument check every path-like word already gets (which is stricter than a read: it may be a
write).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.programs.facts import ProgramFacts, path_use
from bot.shell.programs.options.classes import EXECUTING

TABLE = Path(__file__).parent / "table.json"

#: Programs read by a grammar of their own (scripts, predicates, inner commands): the table's
#: generic reading would misplace their options.
OWN_GRAMMAR = frozenset(
    {
        "sed",
        "gsed",
        "awk",
        "gawk",
        "mawk",
        "nawk",
        "find",
        "xargs",
        "env",
        "timeout",
        "nice",
        "nohup",
        "sudo",
        "su",
        "runuser",
        "doas",
        "flock",
        "script",
        "strace",
        "ltrace",
        "valgrind",
        "gdb",
        "time",
        "watch",
        "setsid",
        "stdbuf",
        "taskset",
        "chrt",
        "ionice",
        "prlimit",
        "setarch",
        "linux32",
        "linux64",
        "unshare",
        "nsenter",
        "chroot",
        "fakeroot",
        "systemd-run",
        "systemd-inhibit",
        "start-stop-daemon",
        "capsh",
        "bwrap",
        "dbus-run-session",
        "setpriv",
        "runcon",
        "sg",
        "newgrp",
        "logsave",
        "uclampset",
        "heaptrack",
        "perf",
        "test",
        "echo",
        "printf",
        "expr",
        "exec",
        "set",
        "ts",
        "tmux",
        "npx",
        "daemon",
    }
)

_DESCRIPTIONS = {
    "runs": "runs a command given as its value",
    "program": "starts the program named by its value",
    "loads": "loads code or configuration from its value",
    "connects": "connects where its value says",
}


class Entry:
    """One program's options, indexed for reading a command line."""

    __slots__ = ("_found", "long", "options", "short_letters")

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.long = sorted(name for name in options if name.startswith("--"))
        self.short_letters = {name[1]: info for name, info in options.items() if len(name) == 2 and name[0] == "-"}
        #: :meth:`find`'s answers so far (the same option words come back in command after command).
        self._found: dict[str, tuple[str, dict[str, Any], str | None] | None] = {}

    def find(self, word: str) -> tuple[str, dict[str, Any], str | None] | None:
        """``(name, info, attached value)`` for an option word, or ``None``."""
        found = self._found
        if word in found:
            return found[word]
        answer = self._find(word)
        if len(found) >= _FOUND_SIZE:
            found.clear()
        found[word] = answer
        return answer

    def _find(self, word: str) -> tuple[str, dict[str, Any], str | None] | None:
        if word.startswith("--"):
            name, eq, attached = word.partition("=")
            info = self.options.get(name)
            if info is None:
                # the unambiguous abbreviation: the long names starting so are adjacent once sorted
                long = self.long
                at = bisect_left(long, name)
                if at >= len(long) or not long[at].startswith(name):
                    return None
                if at + 1 < len(long) and long[at + 1].startswith(name):
                    return None
                name = long[at]
                info = self.options[name]
            return name, info, attached if eq else None
        info = self.options.get(word)
        if info is not None:
            return word, info, None
        name, eq, attached = word.partition("=")
        if eq and name in self.options and len(name) > 2:
            return name, self.options[name], attached
        return None


#: Option words remembered per program (:meth:`Entry.find`); past this the memory starts over.
_FOUND_SIZE = 4096


@cache
def _table() -> dict[str, Entry]:
    raw = json.loads(TABLE.read_text(encoding="utf-8"))
    return {program: Entry(entry["options"]) for program, entry in raw.items() if entry.get("options")}


def documented(program: str) -> bool:
    return program in _table()


@cache
def _own_grammar() -> frozenset[str]:
    """:data:`OWN_GRAMMAR` and every launcher, wrapper, shell and interpreter the analysis knows."""
    from bot.shell.launch.launchers import LAUNCHERS
    from bot.shell.launch.package_runners import SUBCOMMAND_RUNNERS
    from bot.shell.launch.wrappers import OPAQUE_LAUNCHERS, PRIVILEGE, SHELLS
    from bot.shell.programs.interpreters import INTERPRETERS

    return (
        OWN_GRAMMAR
        | INTERPRETERS
        | frozenset(LAUNCHERS)
        | frozenset(SUBCOMMAND_RUNNERS)
        | OPAQUE_LAUNCHERS
        | PRIVILEGE
        | SHELLS
    )


def _keys(argv: Sequence[Word]) -> list[tuple[str, int, int]]:
    """The table entries for this command line: ``(entry, first word, end)`` — the program's own
    options, then its subcommand's (``docker -H x run --health-cmd y``) when the table has it."""
    program = argv[0].value.rsplit("/", 1)[-1]
    table = _table()
    if program not in table and program != "git":
        return []  # (the common answer, before the set of programs read by their own grammar)
    if program in _own_grammar() or program.startswith(("python", "pypy")):
        return []
    if program == "git":
        from bot.shell.programs.git import git_subcommand_position

        sub = git_subcommand_position([w.value for w in argv])
        if sub is not None and f"git {argv[sub].value}" in table:
            return [(f"git {argv[sub].value}", sub + 1, len(argv))]
        return []  # git's global options are read by bot.shell.programs.git
    if program not in table:
        return []
    sub = _subcommand(table[program], argv)
    if sub is not None and f"{program} {argv[sub].value}" in table:
        return [(program, 1, sub), (f"{program} {argv[sub].value}", sub + 1, len(argv))]
    return [(program, 1, len(argv))]


def _subcommand(entry: Entry, argv: Sequence[Word]) -> int | None:
    """The first word after the program's own options (and their values)."""
    k = 1
    while k < len(argv):
        word = argv[k].value
        if word == "--" or not word.startswith("-") or word == "-":
            return k if word != "--" else None
        found = entry.find(word)
        takes = found is not None and found[2] is None and found[1].get("value") and not found[1].get("optional")
        k += 2 if takes else 1
    return None


def table_facts(argv: Sequence[Word]) -> ProgramFacts | None:
    """Explicit words and paths the table finds in ``argv`` (``None``: nothing to add)."""
    if len(argv) < 2:
        return None
    for word in argv[1:]:
        if word.value.startswith("-"):
            break
    else:
        return None  # only option words are read: without one there is nothing to find
    explicit: list[tuple[int, str]] = []
    paths: list[PathUse] = []
    for program, start, end in _keys(argv):
        _read(argv, program, start, end, explicit, paths)
    if not explicit and not paths:
        return None
    return ProgramFacts(tuple(explicit), tuple(paths))


def _read(
    argv: Sequence[Word], program: str, start: int, end: int, explicit: list[tuple[int, str]], paths: list[PathUse]
) -> None:
    entry = _table()[program]
    k = start
    while k < end:
        word = argv[k].value
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            k += 1
            continue
        found = entry.find(word)
        if found is None and not word.startswith("--") and len(word) > 2:
            found = _bundle(entry, word)
        if found is None:
            k += 1
            continue
        name, info, attached = found
        kind = info["class"]
        takes = info.get("value", "") != "" and not info.get("optional", False)
        index, value = k, attached
        if value is None and takes and k + 1 < end:
            index, value = k + 1, argv[k + 1].value
            k += 1
        k += 1
        if kind in EXECUTING and value is not None:
            if kind == "loads" and _is_plain_path(value):
                continue  # a file: checked as every path-like argument is (bot.shell.paths.fallback)
            explicit.append((index, f"{program} {name} {_DESCRIPTIONS[kind]} (the option table: {info['why']})"))
        elif kind == "writes" and value is not None:
            use = path_use(argv, index, value, "write")
            if use is not None:
                paths.append(use)


def _bundle(entry: Entry, word: str) -> tuple[str, dict[str, Any], str | None] | None:
    """The first value-taking executing letter of a short-option bundle (``-xfI``, ``-Icmd``)."""
    for position, letter in enumerate(word[1:], start=1):
        info = entry.short_letters.get(letter)
        if info is None:
            return None  # not a bundle of this program's letters
        if info.get("value"):
            rest = word[position + 1 :]
            return f"-{letter}", info, rest or None
    return None


def _is_plain_path(value: str) -> bool:
    """A file the path checks can judge; a descriptor or device (``make -f <(curl …)`` is
    ``make -f /dev/fd/63``, ``-c /dev/stdin``) holds what another command writes, and is not."""
    return (
        bool(value)
        and "=" not in value
        and "://" not in value
        and not value.startswith(("git@", "@", "/dev/", "/proc/"))
    )
