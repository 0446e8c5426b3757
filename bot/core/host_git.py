"""How the bot's own git runs: on the host, with the bot's privileges, next to a hostile workspace.

Trust model. Once the model has run a command, every file of the workspace may have been written
by code the model wrote — ``.git/`` included. Git reads a great deal from its repository before it
does anything: ``.git/config`` can name programs (``core.fsmonitor``, ``core.sshCommand``,
``diff.external``, filter and textconv drivers, ``credential.helper``, ``include.path`` of another
file), ``.git/commondir`` or a ``.git`` *file* can point it at another repository whose config does,
and ``.git/hooks`` are programs. Three defences, each enough against what it covers:

1. **A sealed git directory** (:class:`GitDirSeal`): taken before the model runs, it records which
   directory is the git directory (device and inode of the workspace's ``.git`` entry and of the
   directory it resolves to) and the exact bytes of every file that redirects git or holds
   configuration (``config``, ``config.worktree``, ``commondir``, ``gitdir``, ``info/attributes``,
   ``objects/info/alternates``). Every later host-side git command checks the seal first and
   refuses to run when it is broken (:class:`GitDirTampered`). The sandbox mounts ``.git``
   read-only as its own mount point, so a broken seal means an unsandboxed command wrote it.
2. **An environment from an allowlist** (:func:`host_git_env`): ``PATH``, a ``HOME`` of the bot's
   own (no user config, decoy credentials at most), ``GIT_DIR``/``GIT_WORK_TREE`` given explicitly
   (git never discovers a repository), no system or global configuration, no prompts. Proxy and CA
   settings come from the bot's environment (the runner's, trusted) and only for remote commands.
3. **Configuration neutralised on the command line** (:data:`HARDENED_CONFIG`), which beats every
   configuration file: no fsmonitor, no hooks, no pager, no editor, no external diff, no credential
   helper but ours, no automatic gc or maintenance, submodules never entered.

The token reaches git only for a push or fetch, through a credential helper that reads it from a
pipe inherited as a file descriptor (:func:`credential_pipe`): never in the environment, on the
command line, in a URL or in a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.core.search_path import host_search_path
from bot.core.services import ServiceKey
from bot.errors import GitError

#: Pairs given as ``-c key=value`` to every host-side git command. Command-line configuration
#: overrides every file, so these hold even if a config file changed after the seal was taken.
HARDENED_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("core.untrackedCache", "false"),
    ("core.alternateRefsCommand", "true"),
    ("sequence.editor", "true"),
    ("credential.helper", ""),
    ("protocol.ext.allow", "never"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("push.recurseSubmodules", "no"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("commit.gpgsign", "false"),
    ("tag.gpgsign", "false"),
    ("push.gpgsign", "false"),
    ("advice.detachedHead", "false"),
)

#: Where the run's :class:`GitDirSeal` lives in ``ToolUseContext.services`` (the loop's own git for
#: sub-agent worktrees checks it too).
GIT_SEAL_SERVICE: ServiceKey[GitDirSeal] = ServiceKey("git_seal")

#: Files of a git directory that redirect git elsewhere or configure it: their bytes are sealed.
SEALED_FILES: tuple[str, ...] = (
    "config",
    "config.worktree",
    "commondir",
    "gitdir",
    "info/attributes",
    "objects/info/alternates",
)

#: Copied from the bot's environment for every host-side git command: what git needs to run.
_BASE_NAMES = ("PATH",)
#: Copied for commands that reach the remote: the runner's network settings (trusted, set by the
#: workflow or the machine's administrator, never by the workspace).
_NETWORK_NAMES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GIT_SSL_CAINFO",
)
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


class GitDirTampered(GitError):
    """The workspace's git directory changed since the seal: host-side git will not run in it."""


def hardened_args() -> list[str]:
    args: list[str] = []
    for key, value in HARDENED_CONFIG:
        args += ["-c", f"{key}={value}"]
    return args


def host_git_env(
    *,
    git_dir: Path | None,
    work_tree: Path | None,
    home: Path,
    parent: Mapping[str, str] | None = None,
    remote: bool = False,
    extra: Mapping[str, str] | None = None,
    untrusted: Iterable[Path] = (),
) -> dict[str, str]:
    """The environment of one host-side git command. Pure given ``parent`` (the bot's environment,
    from which only :data:`_BASE_NAMES` — and for remote commands :data:`_NETWORK_NAMES` — are read).
    Its ``PATH`` has no relative entry and none inside ``work_tree`` or ``untrusted`` (the directory
    git runs in): the ``git`` that runs, and the programs it runs, are never the workspace's
    (:mod:`bot.core.search_path`)."""
    parent = os.environ if parent is None else parent
    env = {name: parent[name] for name in _BASE_NAMES if parent.get(name)}
    roots = [*untrusted, *([work_tree] if work_tree is not None else [])]
    env["PATH"] = host_search_path(env.get("PATH"), roots) or _DEFAULT_PATH
    if remote:
        env.update({name: parent[name] for name in _NETWORK_NAMES if parent.get(name)})
    env.update(
        {
            # git's messages are parsed ("fetch first", "couldn't find remote ref"): keep them English.
            "LC_ALL": "C",
            "LANGUAGE": "C",
            # No configuration but the repository's sealed one and our command line.
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            # Nobody is at the terminal.
            "GIT_TERMINAL_PROMPT": "0",
            "GCM_INTERACTIVE": "never",
            "GIT_PAGER": "cat",
            "GIT_EDITOR": "true",
        }
    )
    if git_dir is not None and work_tree is not None:
        # The repository is named, never discovered: a .git file or directory the model planted
        # elsewhere in the tree is never taken for it.
        env.update(GIT_DIR=str(git_dir), GIT_WORK_TREE=str(work_tree))
    env.update(extra or {})
    return env


@contextlib.contextmanager
def credential_pipe(username: str, token: str) -> Iterator[tuple[int, list[str]]]:
    """A pipe holding the credential, and the ``-c`` arguments that make git ask for it there.

    Yields ``(fd, args)``: pass ``fd`` to the child (``pass_fds``) and put ``args`` on its command
    line. The helper is a shell function git runs for ``get`` only; it prints what it reads from the
    inherited descriptor. The credential (a few dozen bytes) fits in the pipe's buffer, so writing it
    before git starts cannot block. The descriptor is closed when the block ends.
    """
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, f"username={username}\npassword={token}\n".encode())
    finally:
        os.close(write_fd)
    # /dev/fd/N rather than <&N: dash (git's /bin/sh on Debian) takes only one-digit descriptors.
    helper = f'!f() {{ test "$1" = get && cat /dev/fd/{read_fd}; }}; f'
    try:
        yield read_fd, ["-c", f"credential.helper={helper}"]
    finally:
        os.close(read_fd)


def _digest(path: Path) -> str | None:
    try:
        if path.is_symlink():
            return "symlink:" + os.readlink(path)
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return "directory"
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mode


@dataclass(frozen=True, slots=True)
class GitDirSeal:
    """What the workspace's git directory was before the model ran (see the module docstring)."""

    work_tree: Path
    git_dir: Path
    common_dir: Path
    entry: tuple[int, int, int] | None
    directory: tuple[int, int, int] | None
    files: tuple[tuple[str, str | None], ...]

    @classmethod
    def take(cls, work_tree: Path, git_dir: Path, common_dir: Path) -> GitDirSeal:
        return cls(
            work_tree,
            git_dir,
            common_dir,
            _identity(work_tree / ".git"),
            _identity(git_dir),
            _sealed_files(git_dir, common_dir),
        )

    def broken(self) -> list[str]:
        """What changed since the seal, in words (empty: intact)."""
        changes: list[str] = []
        if _identity(self.work_tree / ".git") != self.entry:
            changes.append("`.git` in the workspace was replaced")
        if _identity(self.git_dir) != self.directory:
            changes.append(f"the git directory {self.git_dir.name} was replaced")
        now = dict(_sealed_files(self.git_dir, self.common_dir))
        for name, digest in self.files:
            if now.get(name) != digest:
                changes.append(
                    f"`{name}` "
                    + ("appeared" if digest is None else "was removed" if now.get(name) is None else "changed")
                )
        return changes

    def check(self) -> None:
        changes = self.broken()
        if changes:
            raise GitDirTampered(
                "the workspace's git directory changed during the run (" + "; ".join(changes) + "); the bot's "
                "own git does not run in a repository a command may have reconfigured, so nothing was committed "
                "or pushed from it"
            )


def _sealed_files(git_dir: Path, common_dir: Path) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    for root, label in ((git_dir, ""), (common_dir, "common/")):
        if label and common_dir == git_dir:
            continue
        out += [(f"{label}{name}", _digest(root / name)) for name in SEALED_FILES]
    return tuple(out)


__all__ = [
    "GIT_SEAL_SERVICE",
    "HARDENED_CONFIG",
    "SEALED_FILES",
    "GitDirSeal",
    "GitDirTampered",
    "credential_pipe",
    "hardened_args",
    "host_git_env",
]
