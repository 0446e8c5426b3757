"""Where a workspace's git directory is, found once before the model runs (:class:`GitWorkspace`).

GitPython's discovery (``Repo(path)``, parents not searched) is the reference: it reads the ``.git``
entry, a gitfile, ``commondir``, ``core.bare`` and ``core.worktree`` as git does. Importing
GitPython takes some 40 ms, on the way to a run's first model request, and nearly every workspace
has the plain layout: ``PATH/.git`` a directory of its own. :func:`plain_layout` recognises that
layout from a few stats and one read of its config; everything else (a worktree's or submodule's
gitfile, a symlink, a bare or shared repository, a config that names a work tree or includes
another file, a path GitPython would expand) is left to GitPython. The test
``tests/orchestration/test_git_discovery.py`` checks that the two agree on every layout.

This is the only module that imports GitPython.

.. :class:`GitWorkspace`: bot.orchestration.git.GitWorkspace
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from bot.errors import GitError

#: A config line that sets ``bare`` (git: ``bare`` alone is true); only ``bare = false`` is plain.
_BARE = re.compile(r"^\s*bare\b(.*)$", re.IGNORECASE | re.MULTILINE)
_FALSE = re.compile(r"\s*=\s*(false|no|off|0)\s*$", re.IGNORECASE)
#: Anything in the config that could move the work tree or pull in more configuration.
_NOT_PLAIN = ("worktree", "include")
#: A ``HEAD`` git takes: a symbolic ref under ``refs/``, or an object name (SHA-1 or SHA-256).
_OBJECT_NAME = re.compile(rb"[0-9A-Fa-f]{64}|[0-9A-Fa-f]{40}")


@dataclass(frozen=True, slots=True)
class GitLocation:
    """The work tree's top, its git directory and the common directory (all resolved)."""

    root: Path
    git_dir: Path
    common_dir: Path


def locate(path: str | Path) -> GitLocation:
    """The repository whose work tree's top is ``path``. Raises :class:`GitError` when it is not a
    git repository (a subdirectory of one is not) or is a bare one."""
    return plain_layout(path) or _with_gitpython(path)


def plain_layout(path: str | Path) -> GitLocation | None:
    """``PATH/.git`` a directory of its own (a ``HEAD`` git accepts, ``objects/``, ``refs/``, no
    ``commondir``) whose config neither makes it bare, nor names a work tree, nor includes another
    file; else ``None`` (:func:`locate` asks GitPython)."""
    text = os.fspath(path)
    if not text or "$" in text or "%" in text or text.startswith("~"):
        return None  # GitPython expands variables and ~ in the path
    top = os.path.abspath(text)
    dot_git = os.path.join(top, ".git")
    head = os.path.join(dot_git, "HEAD")
    if os.path.islink(dot_git) or not os.path.isdir(dot_git) or os.path.islink(head) or not os.path.isfile(head):
        return None
    try:
        with open(head, "rb") as file:
            first = file.read(256)
    except OSError:
        return None
    if not (first.startswith(b"ref:") and first[4:].lstrip().startswith(b"refs/")) and not _OBJECT_NAME.match(first):
        return None  # git.repo.fun.is_git_dir's test: GitPython finds no repository there
    # The bot's own git runs with GIT_DIR=PATH/.git and none of git's other variables
    # (bot.core.host_git): GIT_COMMON_DIR or GIT_OBJECT_DIRECTORY in the bot's environment, which
    # GitPython would read, do not move what this finds.
    if not all(os.path.isdir(os.path.join(dot_git, d)) for d in ("objects", "refs")):
        return None
    if any(os.path.lexists(os.path.join(dot_git, f)) for f in ("commondir", "gitdir", "config.worktree")):
        return None
    config = os.path.join(dot_git, "config")
    try:
        with open(config, encoding="utf-8", errors="replace") as file:
            settings = file.read()
    except FileNotFoundError:
        settings = ""
    except OSError:
        return None
    lowered = settings.lower()
    if any(word in lowered for word in _NOT_PLAIN):
        return None
    if any(not _FALSE.fullmatch(rest) for rest in _BARE.findall(settings)):
        return None
    git_dir = Path(dot_git).resolve()
    return GitLocation(Path(top).resolve(), git_dir, git_dir)


def _with_gitpython(path: str | Path) -> GitLocation:
    from git import InvalidGitRepositoryError, NoSuchPathError, Repo

    try:
        repo = Repo(path)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise GitError(f"{path} is not a git repository") from None
    try:
        if repo.bare or repo.working_tree_dir is None:
            raise GitError(f"{path} is a bare repository, not a workspace")
        return GitLocation(
            Path(repo.working_tree_dir).resolve(), Path(repo.git_dir).resolve(), Path(repo.common_dir).resolve()
        )
    finally:
        repo.close()


__all__ = ["GitLocation", "locate", "plain_layout"]
