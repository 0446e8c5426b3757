"""What ``find -exec CMD {}`` and ``find -delete`` may reach (seeds 4.6.5, beyond the seeds).

``{}`` is every file the expression matches below the start points: ``.git/config`` and
``.github/workflows/ci.yml`` included, and symbolic links that lead out of the workspace, which
``chmod``, ``cat``, ``cp`` or ``tee`` then follow. The analysis cannot evaluate an expression, so:

* a command that **writes or deletes** ``{}`` (and ``-delete``) needs a *name guard*: at least one
  ``-name``/``-iname`` test, in an expression without ``-o``, ``!``, ``-not`` or ``,`` (which could
  route other files to the action), and no pattern of it may match a name that lives in ``.git``
  or ``.github/workflows`` (``-name '*.pyc'`` passes, ``-name config`` or ``-name '*'`` do not);
* a command that gets ``{}`` at all must not find a symbolic link below the start points that
  leads out of the workspace (a bounded walk; past :data:`MAX_FIND_ENTRIES`, it asks).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase

#: Entries walked looking for symbolic links under a ``find`` whose matches go to a command.
MAX_FIND_ENTRIES = 50_000
#: Names found in ``.git`` (files, directories, hooks, refs, objects) and ``.github/workflows``:
#: a ``-name`` pattern matching one of them may route a protected file to the action.
PROTECTED_SAMPLE_NAMES = (
    ".git", ".github", "workflows", "ci.yml", "release.yaml", "config", "HEAD", "ORIG_HEAD", "FETCH_HEAD",
    "MERGE_HEAD", "index", "description", "packed-refs", "COMMIT_EDITMSG", "shallow", "commondir", "gitdir",
    "hooks", "info", "exclude", "attributes", "sparse-checkout", "objects", "pack", "refs", "heads", "tags",
    "remotes", "logs", "modules", "worktrees", "alternates", "main", "master", "origin",
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
    "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
    "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change", "pre-commit.sample",
    "0a", "ff", "0123456789abcdef0123456789abcdef01234567", "pack-0123456789abcdef.pack",
    "pack-0123456789abcdef.idx", "multi-pack-index",
)
_ROUTING = frozenset({"-o", "-or", "!", "-not", ","})


def name_guard_problem(find_words: Sequence[str]) -> str | None:
    """Why the expression of ``find_words`` may route a protected file to its action, or ``None``."""
    patterns: list[tuple[str, bool]] = []
    for k, word in enumerate(find_words):
        if word in _ROUTING:
            return f"the find expression uses {word!r}, so files other than those its tests name reach the action"
        if word in ("-name", "-iname") and k + 1 < len(find_words):
            patterns.append((find_words[k + 1], word == "-iname"))
    if not patterns:
        return "the find expression has no -name test, so files in .git/ or .github/workflows/ reach the action"
    for pattern, fold in patterns:
        for name in PROTECTED_SAMPLE_NAMES:
            if fnmatchcase(name.lower(), pattern.lower()) if fold else fnmatchcase(name, pattern):
                return f"-name {pattern!r} can match {name}, a name in .git/ or .github/workflows/"
    return None


def name_filter(find_words: Sequence[str]) -> Callable[[str], bool]:
    """Which names the expression can match, as far as its ``-name``/``-iname`` tests say (every
    name when it routes with ``-o``/``!`` or has no such test)."""
    patterns: list[tuple[str, bool]] = []
    for k, word in enumerate(find_words):
        if word in _ROUTING:
            return lambda name: True
        if word in ("-name", "-iname") and k + 1 < len(find_words):
            patterns.append((find_words[k + 1], word == "-iname"))
    return lambda name: all(fnmatchcase(name.lower(), p.lower()) if fold else fnmatchcase(name, p)
                            for p, fold in patterns)


def links_out(starts: Sequence[str], inside: Callable[[str], bool],
              named: Callable[[str], bool] = lambda name: True) -> str | None:
    """The first symbolic link below ``starts`` (absolute directories) with a name ``named``
    accepts whose target is not ``inside`` the workspace, ``"too many"`` when the walk is cut
    short, else ``None``."""
    budget = MAX_FIND_ENTRIES
    stack = list(starts)
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        budget -= len(entries)
        if budget < 0:
            return "too many"
        for entry in entries:
            if entry.is_symlink():
                if named(entry.name) and not inside(os.path.realpath(entry.path)):
                    return entry.path
            elif entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return None


def start_points(find_words: Sequence[str]) -> list[str]:
    """The start points of ``find`` (``.`` when none is given)."""
    i, n = 1, len(find_words)
    while (i < n and find_words[i] in ("-H", "-L", "-P", "-D")) or (i < n and find_words[i].startswith("-O")):
        i += 2 if find_words[i] == "-D" else 1
    starts = []
    while i < n and not find_words[i].startswith(("-", "(", "!", ")", ",")):
        starts.append(find_words[i])
        i += 1
    return starts or ["."]
