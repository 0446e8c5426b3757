"""The arguments of programs without a path extractor that could be paths (seeds 4.6.5).

What ``pytest``, ``go``, ``cargo``, ``make``, ``git format-patch`` or ``docker`` do with a word is
not known, but any word may be a file they write (``pytest --basetemp=.git`` deletes ``.git``; ``go
test -coverprofile=.git/config``) or read (``pytest link_to_home/``). So every argument is checked
as an ``argument`` (see :data:`bot.shell.paths.resolve.Access`): where it resolves — symbolic links
followed — decides. In ``.git/`` or ``.github/workflows/`` (the bare word ``.git`` too) it is a
protected write; outside the workspace it is outside; anywhere else it adds nothing, so
``pytest tests/`` or ``make test`` stay allowed.

The place is looked for in the whole word (``tests/``), the value of ``--opt=value``, a value
attached to a short option (``-o.git/x``, ``-Dt.git/hooks``), ``NAME=value`` (``make
PYTHON=/tmp/x``, ``-o cache_dir=.git``) and ``key=value`` lists (``--mount src=/,dst=/x``), and the
first part of ``/a:/b``. URLs and run-time values are skipped. Two kinds of words are only read:
the value of an option named like an exclusion (``--exclude .git``, ``--ignore=.git``) and the
pathspecs of git's read-only commands (``git diff -- .github/workflows``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from bot.shell.parse.syntax import DYN, WORD_VALUE, Word
from bot.shell.paths.resolve import Access
from bot.shell.paths.use import PathUse
from bot.shell.programs.getopt import is_option
from bot.shell.programs.git_globals import GIT_GLOBAL_FLAGS, GIT_GLOBAL_VALUE

_new = tuple.__new__

#: A ``NAME=value`` or ``key=value`` word: the value is what may be a path.
_ASSIGNMENT = re.compile(r"[A-Za-z_][\w.-]*=")
#: Options whose values name what to leave out, not what to write.
_EXCLUSION = re.compile(r"exclude|ignore|skip|prune")
#: Longest word looked at (a longer one is code or a message, and no file name).
MAX_PATH_WORD = 4096
#: ``--a=b=-c=d``: how many option or assignment layers are peeled off a word.
MAX_NESTED_OPTIONS = 3
#: A single-dash option written with ``=`` (Go's ``-coverprofile=x``, ``-DNAME=x``).
_OPTION_NAME = re.compile(r"-[A-Za-z][\w-]*")

#: git commands that only read the working tree (``add`` writes the index, not the pathspecs).
_GIT_READERS = frozenset(
    {
        "diff",
        "log",
        "show",
        "status",
        "blame",
        "annotate",
        "ls-files",
        "ls-tree",
        "grep",
        "shortlog",
        "whatchanged",
        "diff-tree",
        "diff-index",
        "diff-files",
        "add",
        "check-ignore",
        "check-attr",
        "rev-list",
    }
)
#: Global options naming where git runs (the judge's ``git_dirs`` check).
_GIT_LOCATION_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree"})
#: git options whose separate value is a file written (``git log --output x``).
_GIT_OUTPUT = ("--output", "--output-directory")


def path_like_arguments(words: Sequence[Word], known: set[int]) -> list[PathUse]:
    """The words of ``words`` (a program without an extractor) that could be paths, as
    ``argument`` uses (``read`` for exclusions and git pathspecs); ``known``: positions already
    checked (an extractor's or the program facts' paths). git's ``-C``/``--git-dir``/``--work-tree``
    values are left to the judge's check of where git runs."""
    uses: list[PathUse] = []
    values = list(map(WORD_VALUE, words))
    readers: int | None = None
    if values and values[0].rsplit("/", 1)[-1] == "git":
        readers = _git_reader_start(values)
        known = known | _git_locations(values)
    previous = ""
    for pos in range(1, len(values)):
        value = values[pos]
        before, previous = previous, value
        if pos in known or not value or DYN in value or len(value) > MAX_PATH_WORD:
            continue
        if value[0] == "-" and "=" not in value and (len(value) <= 2 or value[1] == "-"):
            continue  # `-q`, `--verbose`: a bare option names no place (see _candidates)
        access: Access = "argument"
        if (
            # (_excluding's preconditions first: most words are no option value at all)
            ((value.startswith("--") and "=" in value) or (before.startswith("--") and "=" not in before))
            and _excluding(value, before)
        ) or (
            readers is not None and pos > readers and not value.startswith("-") and not is_option(before, _GIT_OUTPUT)
        ):
            access = "read"
        if value[0] != "-" and "=" not in value:  # a plain word is its own one candidate
            if "://" not in value:
                place = value.split(":", 1)[0] if value[0] == "/" else value
                uses.append(_new(PathUse, (pos, place, access, words[pos])))  # (PathUse without its keywords)
            continue
        uses.extend(PathUse(pos, candidate, access, words[pos]) for candidate in _candidates(value))
    return uses


def _excluding(value: str, before: str) -> bool:
    if value.startswith("--"):
        return "=" in value and bool(_EXCLUSION.search(value.partition("=")[0]))
    return before.startswith("--") and "=" not in before and bool(_EXCLUSION.search(before))


def _candidates(value: str, depth: int = 0) -> Iterator[str]:
    """The places ``value`` may name (none for a bare option)."""
    if value.startswith("-") and value != "-":
        name, eq, rest = value.partition("=")
        if eq and (name.startswith("--") or _OPTION_NAME.fullmatch(name)):
            value = rest  # --opt=value, and Go's -opt=value
        elif name.startswith("--"):
            return
        else:
            value = _attached(value)
        if not value:
            return
        if value.startswith("-") and depth < MAX_NESTED_OPTIONS:
            yield from _candidates(value, depth + 1)  # -ldflags=-extldflags=-fuse-ld=/x
            return
    if "://" in value or value == "-":
        return
    match = _ASSIGNMENT.match(value)
    if match is None:
        yield value.split(":", 1)[0] if value.startswith("/") else value  # /host:/container, /a:/b
        return
    for piece in value.split(","):  # NAME=value, key=value,key=value (docker --mount)
        match = _ASSIGNMENT.match(piece)
        if match is not None and depth < MAX_NESTED_OPTIONS:
            yield from _candidates(piece[match.end() :], depth + 1)


def _attached(word: str) -> str:
    """The value attached to a short option or bundle, when it looks like a path: ``-o.git/x`` →
    ``.git/x``, ``-Dt.git/hooks`` → ``.git/hooks``, ``-v/:/x`` → ``/:/x``; ``-O2`` → ``""``."""
    for k in range(2, len(word)):
        char = word[k]
        if char in "/.~":
            return word[k:]
        if not char.isalnum():
            return ""
    return ""


def _git_locations(values: Sequence[str]) -> set[int]:
    """Where git's ``-C``/``--git-dir``/``--work-tree`` values are, before the command: the judge
    checks where git runs (``git --git-dir=.git status`` is no write into ``.git``)."""
    found: set[int] = set()
    k, n = 1, len(values)
    while k < n and values[k].startswith("-"):
        name, eq, _ = values[k].partition("=")
        if name in _GIT_LOCATION_OPTIONS:
            found.add(k if eq else k + 1)
        k += 1 if eq or name not in GIT_GLOBAL_VALUE else 2
    return found


def _git_reader_start(values: Sequence[str]) -> int | None:
    """The position of git's command when it is one that only reads its pathspecs (``None``
    otherwise, or when an unknown global option makes the command uncertain)."""
    k, n = 1, len(values)
    while k < n:
        value = values[k]
        if not value.startswith("-"):
            return k if value in _GIT_READERS else None
        name = value.partition("=")[0]
        if name in GIT_GLOBAL_VALUE:
            k += 1 if "=" in value else 2
            continue
        if name not in GIT_GLOBAL_FLAGS:
            return None
        k += 1
    return None
