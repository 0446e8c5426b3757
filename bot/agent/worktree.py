"""Worktree isolation for sub-agents (seeds 4.7 stage 3): ``git worktree add`` from HEAD, the
sub-agent works there, its changes come back as a diff, the worktree is removed.

Git is run as a process (this is the loop's own bookkeeping, not a tool call, so it is not subject
to the permission rules), the way the bot runs all its own git (:mod:`bot.core.host_git`): an
environment from an allowlist, hooks/fsmonitor/pagers neutralised on the command line, and — once
the worktree exists — its git directory named explicitly, so a ``.git`` file the sub-agent's
commands rewrite in the worktree is never followed.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import anyio

from bot.core.host_git import GitDirSeal, GitDirTampered, hardened_args, host_git_env
from bot.errors import ToolExecutionError

#: A worktree operation that takes longer than this is stuck (a lock, a huge checkout).
GIT_TIMEOUT_S = 120.0
#: Files that, in a main repository's git directory, would send git to another one's configuration.
REDIRECTING_FILES = ("commondir", "config.worktree")
#: The HOME of these git commands: empty (no one's ~/.gitconfig), created once per process.
_HOME: list[Path] = []


@dataclass(frozen=True, slots=True)
class Worktree:
    repo_root: Path
    path: Path
    branch: str
    base: str
    #: The worktree's own git directory (``<repo>/.git/worktrees/<name>``), read right after creation.
    git_dir: Path
    #: Where the sub-agent works: the same subdirectory of the worktree as the parent's workspace.
    workspace: Path


@dataclass(frozen=True, slots=True)
class WorktreeDiff:
    diff: str
    stat: str
    files_changed: int


def _home() -> Path:
    if not _HOME:
        _HOME.append(Path(tempfile.mkdtemp(prefix="bot-git-home-")))
    return _HOME[0]


async def git(cwd: Path, *args: str, check: bool = True, git_dir: Path | None = None) -> str:
    """Receives what :func:`host_git_env` allows (``PATH``, an empty ``HOME``, no system/global
    config); with ``git_dir`` the repository is named instead of discovered from ``cwd``."""
    env = host_git_env(git_dir=git_dir, work_tree=cwd if git_dir is not None else None, home=_home(), untrusted=(cwd,))
    try:
        with anyio.fail_after(GIT_TIMEOUT_S):
            done = await anyio.run_process(["git", *hardened_args(), *args], cwd=cwd, env=env, check=False)
    except TimeoutError:
        raise ToolExecutionError(f"git {args[0]} timed out after {GIT_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ToolExecutionError(f"git could not be run: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        err = done.stderr.decode("utf-8", errors="replace").strip()
        raise ToolExecutionError(f"git {args[0]} failed: {err[:500]}")
    return done.stdout.decode("utf-8", errors="replace")


async def create_worktree(workspace: Path, dest: Path, branch: str, *, seal: GitDirSeal | None = None) -> Worktree:
    """``git worktree add`` from HEAD. With the run's ``seal`` (taken before the model ran) the
    repository is the sealed one and a broken seal refuses; without one it is found from
    ``workspace``. Either way a main repository's git directory that has grown a ``commondir`` or
    ``config.worktree`` (which would point git at configuration a command wrote, whose filters the
    checkout would run) is refused."""
    if seal is not None:
        try:
            seal.check()
        except GitDirTampered as exc:
            raise ToolExecutionError(f"worktree isolation is not available: {exc}") from None
        top, git_dir = seal.work_tree, seal.git_dir
    else:
        top_raw = await git(workspace, "rev-parse", "--show-toplevel", check=False)
        if not top_raw.strip():
            raise ToolExecutionError("worktree isolation needs the workspace to be a git repository")
        top = _resolved(Path(top_raw.strip()))
        git_dir = Path((await git(top, "rev-parse", "--absolute-git-dir")).strip())
    if (top / ".git").is_dir() and any((top / ".git" / name).exists() for name in REDIRECTING_FILES):
        raise ToolExecutionError(
            "worktree isolation is not available: the repository's .git has a "
            f"{' or '.join(REDIRECTING_FILES)} a command may have written"
        )
    base = (await git(top, "rev-parse", "--verify", "HEAD^{commit}", check=False, git_dir=git_dir)).strip()
    if not base:
        raise ToolExecutionError("worktree isolation needs at least one commit in the repository")
    dest.parent.mkdir(parents=True, exist_ok=True)
    await git(top, "worktree", "add", "--quiet", "-b", branch, str(dest), base, git_dir=git_dir)
    path = _resolved(dest)
    own = Path((await git(path, "rev-parse", "--absolute-git-dir")).strip())
    return Worktree(top, path, branch, base, own, path / _resolved(workspace).relative_to(top))


def _resolved(path: Path) -> Path:
    return path.resolve()  # a few stat calls: not worth a thread


async def worktree_diff(worktree: Worktree) -> WorktreeDiff:
    """Everything the sub-agent changed, new files included, against the base commit (the
    worktree's own index is used; the main checkout's is untouched)."""
    named = worktree.git_dir
    await git(worktree.path, "add", "-A", git_dir=named)
    diff = await git(
        worktree.path, "diff", "--cached", "--binary", "--no-ext-diff", "--no-textconv", worktree.base, git_dir=named
    )
    stat = await git(worktree.path, "diff", "--cached", "--stat", worktree.base, git_dir=named)
    names = await git(worktree.path, "diff", "--cached", "--name-only", worktree.base, git_dir=named)
    return WorktreeDiff(diff, stat.strip(), len([n for n in names.splitlines() if n.strip()]))


async def remove_worktree(worktree: Worktree) -> None:
    """Remove the worktree and its branch. Never raises: cleanup must not mask the result."""
    with anyio.CancelScope(shield=True):
        try:
            await git(worktree.repo_root, "worktree", "remove", "--force", str(worktree.path), check=False)
            await git(worktree.repo_root, "branch", "-D", worktree.branch, check=False)
            await git(worktree.repo_root, "worktree", "prune", check=False)
        except ToolExecutionError:
            pass
