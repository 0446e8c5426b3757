"""The git directories a sandboxed command must not change, found as git finds them.

Trust model. The bot's own git runs on the host after commands have run in the workspace; what it
reads from the git directory (``config``, ``config.worktree``, ``commondir``, hooks, the ``.git``
file's ``gitdir:`` line) decides what it executes. So the sandbox binds each git directory
read-only *onto itself*: a mount point of its own cannot be written, renamed, removed or replaced,
even though the workspace around it is writable. What is protected, for a repository root:

* ``.git`` itself — a directory, or the ``.git`` file of a worktree or submodule (a bound file
  cannot be rewritten to point elsewhere either);
* the directory a ``.git`` file names, and the common directory its ``commondir`` names (both may
  be outside the workspace: a worktree's lives in the main repository);
* with ``allow_git_dir_writes``, the directories stay writable (``git commit`` inside works) but
  ``hooks/`` and ``config`` of the common directory stay read-only: a hook or a ``core.fsmonitor``
  written there would run outside the sandbox.

A ``.git`` that is a symbolic link is protected where it points; the link itself lives in the
writable workspace (the bot's host-side git must check what it finds).

Read-only is not unreadable: the configuration files are shown as copies without credentials
(:func:`credential_free_config`). ``actions/checkout`` persists the token in ``.git/config`` by
default (``http.https://github.com/.extraheader``, base64 of ``x-access-token:TOKEN``), and a command
that can read it can re-encode it past every redactor into a file that gets pushed.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.core.redact import Redactor

#: A ``.git`` file or ``commondir`` is one short line; more is not git's.
MAX_POINTER_BYTES = 4096
#: Files of a git directory that point git elsewhere: read-only even when git may write the rest.
REDIRECT_FILES: tuple[str, ...] = (
    "commondir",
    "gitdir",
    "config.worktree",
    "info/attributes",
    "objects/info/alternates",
)
#: Submodule git directories whose configuration is shown without credentials (bwrap takes each on argv).
MAX_SUBMODULES = 256
#: The configuration files of a git directory that the sandbox shows without credentials.
CONFIG_FILES: tuple[str, ...] = ("config", "config.worktree")
#: A configuration line that sends a header (any ``*.extraheader``): what checkout persists the token in.
_HEADER_LINE = re.compile(r"^\s*extraheader\s*(=|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class GitProtection:
    """What the sandbox binds for one repository, in this order: ``writable`` (git directories
    outside the workspace that a policy lets git write), then ``read_only`` over everything."""

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    #: Configuration files (:data:`CONFIG_FILES`) the sandbox shows as credential-free copies.
    configs: tuple[Path, ...] = ()


def _pointer(path: Path, prefix: str = "") -> str | None:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_POINTER_BYTES)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="surrogateescape").strip()
    if prefix:
        if not text.startswith(prefix):
            return None
        text = text[len(prefix) :].strip()
    return text or None


def _resolve(base: Path, pointed: str) -> Path:
    return (base / pointed).resolve() if not Path(pointed).is_absolute() else Path(pointed).resolve()


def git_directories(root: Path) -> tuple[Path | None, Path | None, Path | None]:
    """``(dot_git, git_dir, common_dir)`` for the repository at ``root``: the ``.git`` entry (file,
    directory or link), the git directory it leads to, and the common directory (``commondir``),
    each ``None`` when absent."""
    dot_git = root / ".git"
    if not (dot_git.is_symlink() or dot_git.exists()):
        return None, None, None
    git_dir: Path | None
    if dot_git.is_symlink() or dot_git.is_dir():
        git_dir = dot_git.resolve()
    else:
        pointed = _pointer(dot_git, "gitdir:")
        git_dir = _resolve(root, pointed) if pointed else None
    if git_dir is None or not git_dir.is_dir():
        return dot_git, None, None
    common = _pointer(git_dir / "commondir")
    common_dir = _resolve(git_dir, common) if common else git_dir
    return dot_git, git_dir, common_dir if common_dir.is_dir() else git_dir


def protect_repository(root: Path, *, allow_git_dir_writes: bool) -> GitProtection:
    """The binds that keep the repository at ``root`` from being changed under the bot. Creates an
    empty ``hooks/`` when it is missing and must be read-only (one left out could be created)."""
    dot_git, git_dir, common_dir = git_directories(root)
    if dot_git is None:
        return GitProtection()
    dirs = [d for d in dict.fromkeys((git_dir, common_dir)) if d is not None]
    configs = tuple(d / name for d in dirs for name in CONFIG_FILES if (d / name).is_file()) + _submodule_configs(
        common_dir
    )
    if not allow_git_dir_writes:
        entry = [] if dot_git.is_symlink() else [dot_git]
        return GitProtection(read_only=tuple(dict.fromkeys([*entry, *dirs])), configs=configs)
    read_only: list[Path] = [] if dot_git.is_symlink() or dot_git.is_dir() else [dot_git]
    inside = root.resolve()
    writable = [d for d in dirs if not d.is_relative_to(inside)]  # the workspace's own bind covers the rest
    if common_dir is not None:
        hooks = common_dir / "hooks"
        with contextlib.suppress(OSError):
            hooks.mkdir(exist_ok=True)
        read_only += [p for p in (hooks, common_dir / "config") if p.exists()]
    # The files that send git to another git directory's configuration (a worktree's ``commondir``
    # and ``gitdir`` always exist): rewritten, the bot's host-side git for the worktree would run
    # that configuration's filters. Those that exist are bound read-only onto themselves.
    read_only += [d / name for d in dirs for name in REDIRECT_FILES if (d / name).is_file()]
    return GitProtection(read_only=tuple(read_only), writable=tuple(writable), configs=configs)


def _submodule_configs(common_dir: Path | None) -> tuple[Path, ...]:
    """The configs of the submodules' git directories (``modules/**/config``): ``actions/checkout``
    with ``submodules: true`` persists the token in each of them too. At most :data:`MAX_SUBMODULES`."""
    if common_dir is None or not (common_dir / "modules").is_dir():
        return ()
    found: list[Path] = []
    for path in (common_dir / "modules").rglob("config"):
        if path.is_file() and not path.is_symlink():
            found.append(path)
            if len(found) >= MAX_SUBMODULES:
                break
    return tuple(found)


def credential_free_config(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` (a git configuration file) without the lines that hold a credential: every
    ``extraheader``, and every line in which a known secret (in any leak form) or a token's shape
    is found — with the continuation lines (a trailing backslash) of each, and, for a section
    header (``[url "https://TOKEN@host/"]``), the whole section. Pure."""
    redactor = Redactor(secrets)
    kept: list[str] = []
    continuing = False
    in_dropped_section = False
    for line in text.splitlines(keepends=True):
        if continuing:
            continuing = line.rstrip("\r\n").endswith("\\")
            continue
        header = line.lstrip().startswith("[")
        if header:
            in_dropped_section = False
        if _HEADER_LINE.match(line) or redactor(line) != line:
            in_dropped_section = in_dropped_section or header
            continuing = line.rstrip("\r\n").endswith("\\")
            continue
        if not in_dropped_section:
            kept.append(line)
    return "".join(kept)


__all__ = [
    "CONFIG_FILES",
    "MAX_POINTER_BYTES",
    "MAX_SUBMODULES",
    "REDIRECT_FILES",
    "GitProtection",
    "credential_free_config",
    "git_directories",
    "protect_repository",
]
