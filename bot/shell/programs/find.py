"""What ``find -exec CMD {}`` and ``find -delete`` may reach (seeds 4.6.5, beyond the seeds).

``{}`` is every file the expression matches below the start points: ``.git/config`` and
``.github/workflows/ci.yml`` included, and symbolic links that lead out of the workspace, which
``chmod``, ``cat``, ``cp`` or ``tee`` then follow. The analysis cannot evaluate an expression, so:

* a command that **writes or deletes** ``{}`` (and ``-delete``) needs a *name guard*: at least one
  ``-name``/``-iname`` test *before* the action (find evaluates left to right), in an expression
  read with find's own table of primaries (``-printf -name`` is no test), without ``-o``, ``!``,
  ``-not``, ``,`` or parentheses (which could route other files to the action), with no pattern
  syntax GNU fnmatch reads differently from Python's (``[^x]``, ``\\x``, ``[[:alpha:]]``), and
  no pattern of it may match a name that lives in ``.git`` or ``.github/workflows``
  (``-name '*.pyc'`` passes, ``-name config`` or ``-name '*'`` do not);
* a command that gets ``{}`` at all must not find a symbolic link below the start points that
  leads out of the workspace (a bounded walk; past :data:`MAX_FIND_ENTRIES`, it asks).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from typing import NamedTuple

from bot.shell.paths.tree_walk import TooManyEntries, entries_below

#: Entries walked looking for symbolic links under a ``find`` whose matches go to a command.
MAX_FIND_ENTRIES = 50_000
#: Names found in ``.git`` (files, directories, hooks, refs, objects) and ``.github/workflows``:
#: a ``-name`` pattern matching one of them may route a protected file to the action.
PROTECTED_SAMPLE_NAMES = (
    ".git",
    ".github",
    "workflows",
    "ci.yml",
    "release.yaml",
    "config",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "index",
    "description",
    "packed-refs",
    "COMMIT_EDITMSG",
    "shallow",
    "commondir",
    "gitdir",
    "hooks",
    "info",
    "exclude",
    "attributes",
    "sparse-checkout",
    "objects",
    "pack",
    "refs",
    "heads",
    "tags",
    "remotes",
    "logs",
    "modules",
    "worktrees",
    "alternates",
    "main",
    "master",
    "origin",
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "post-index-change",
    "pre-commit.sample",
    "0a",
    "ff",
    "0123456789abcdef0123456789abcdef01234567",
    "0123456789abcdef0123456789abcdef012345",
    "pack-0123456789abcdef.pack",
    "pack-0123456789abcdef.idx",
    "multi-pack-index",
)
_ROUTING = frozenset({"-o", "-or", "!", "-not", ",", "(", ")"})
#: find's primaries by the number of words they take (GNU findutils 4.9). An unknown primary
#: means the expression cannot be read: no guard is assumed.
_NO_ARGUMENT = frozenset(
    {
        "-delete",
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-true",
        "-false",
        "-empty",
        "-readable",
        "-writable",
        "-executable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-d",
        "-mount",
        "-xdev",
        "-noleaf",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-daystart",
        "-follow",
        "-a",
        "-and",
        "-warn",
        "-nowarn",
        "-help",
        "--help",
        "-version",
        "--version",
        *_ROUTING,
    }
)
_ONE_ARGUMENT = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-lname",
        "-ilname",
        "-type",
        "-xtype",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-perm",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-anewer",
        "-cnewer",
        "-used",
        "-links",
        "-inum",
        "-samefile",
        "-maxdepth",
        "-mindepth",
        "-fstype",
        "-printf",
        "-fprint",
        "-fprint0",
        "-fls",
        "-regextype",
        "-context",
        "-files0-from",
    }
)
_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
#: Pattern syntax GNU fnmatch reads differently from Python's (``[^x]`` negates, ``\x`` escapes,
#: ``[[:alpha:]]``, ``[[=g=]]``, ``[[.o.]]``): a -name using it is not a guard.
_UNREADABLE_PATTERN = ("\\", "[^", "[[", "[!]")


class FindExpression(NamedTuple):
    #: ``(pattern, case-folded)`` of the ``-name``/``-iname`` tests before the first action.
    names: tuple[tuple[str, bool], ...]
    #: Why the expression may route other files to an action, or ``None``.
    problem: str | None


def read_expression(find_words: Sequence[str]) -> FindExpression:
    """The name tests that guard ``find``'s first action, read word by word with find's own
    table of how many words each primary takes (so ``-printf -name`` is not a test)."""
    i = _expression_start(find_words)
    names: list[tuple[str, bool]] = []
    n = len(find_words)
    while i < n:
        word = find_words[i]
        if word in _ROUTING:
            return FindExpression(
                (), f"the find expression uses {word!r}, so files other than those its tests name reach the action"
            )
        if word in _ACTIONS:
            break
        if word == "-files0-from":
            return FindExpression((), "find -files0-from reads its start points from a file")
        if word in ("-name", "-iname") and i + 1 < n:
            pattern = find_words[i + 1]
            if any(token in pattern for token in _UNREADABLE_PATTERN):
                return FindExpression(
                    (), f"the -name pattern {pattern!r} uses syntax the analysis does not match as find does"
                )
            names.append((pattern, word == "-iname"))
            i += 2
        elif word in _ONE_ARGUMENT or (word.startswith("-newer") and len(word) == 8):
            i += 2
        elif word == "-fprintf":
            i += 3
        elif word in _NO_ARGUMENT:
            i += 1
        else:
            return FindExpression((), f"the find expression has {word!r}, which the analysis does not read")
    if not names:
        return FindExpression(
            (), "no -name test comes before the action, so files in .git/ or .github/workflows/ reach it"
        )
    return FindExpression(tuple(names), None)


def protected_names(starts: Sequence[str]) -> set[str]:
    """The names actually found in ``.git`` (top level, hooks, refs) and ``.github/workflows``
    below the start points (a workflow called ``release.yml`` is no sample name)."""
    names: set[str] = set()
    for start in starts:
        for sub in (".git", ".git/hooks", ".git/refs/heads", ".github", ".github/workflows"):
            try:
                with os.scandir(os.path.join(start, sub)) as listing:
                    names.update(entry.name for entry in listing)
            except OSError:
                continue
    return names


def name_guard_problem(find_words: Sequence[str], starts: Sequence[str] = ()) -> str | None:
    """Why the expression of ``find_words`` may route a protected file to its action, or ``None``;
    ``starts`` (absolute) adds the names really present in their ``.git``/``.github``."""
    expression = read_expression(find_words)
    if expression.problem is not None:
        return expression.problem
    candidates = (*PROTECTED_SAMPLE_NAMES, *sorted(protected_names(starts)))
    for pattern, fold in expression.names:
        for name in candidates:
            if fnmatchcase(name.lower(), pattern.lower()) if fold else fnmatchcase(name, pattern):
                return f"-name {pattern!r} can match {name}, a name in .git/ or .github/workflows/"
    return None


def name_filter(find_words: Sequence[str]) -> Callable[[str], bool]:
    """Which names reach the action, as far as the guarding ``-name``/``-iname`` tests say (every
    name when the expression cannot be read that way)."""
    expression = read_expression(find_words)
    if expression.problem is not None:
        return lambda name: True
    patterns = expression.names
    return lambda name: all(
        fnmatchcase(name.lower(), p.lower()) if fold else fnmatchcase(name, p) for p, fold in patterns
    )


def _expression_start(find_words: Sequence[str]) -> int:
    return _split(find_words)[1]


def links_out(
    starts: Sequence[str], inside: Callable[[str], bool], named: Callable[[str], bool] = lambda name: True
) -> str | None:
    """The first symbolic link below ``starts`` (absolute directories) with a name ``named``
    accepts whose target is not ``inside`` the workspace, ``"too many"`` when the walk is cut
    short, else ``None``."""
    try:
        for entry in entries_below(starts, MAX_FIND_ENTRIES):
            if entry.is_symlink() and named(entry.name) and not inside(os.path.realpath(entry.path)):
                return entry.path
    except TooManyEntries:
        return "too many"
    return None


def start_points(find_words: Sequence[str]) -> list[str]:
    """The start points of ``find`` (``.`` when none is given)."""
    return _split(find_words)[0] or ["."]


def _split(find_words: Sequence[str]) -> tuple[list[str], int]:
    """``find``'s start points, and the index where its expression begins (after the leading
    options ``-H -L -P -D x -Olevel`` and the start points)."""
    i, n = 1, len(find_words)
    while i < n and (find_words[i] in ("-H", "-L", "-P", "-D") or find_words[i].startswith("-O")):
        i += 2 if find_words[i] == "-D" else 1
    starts = []
    while i < n and not find_words[i].startswith(("-", "(", "!", ")", ",")):
        starts.append(find_words[i])
        i += 1
    return starts, i
