"""Worktree isolation for sub-agents (seeds 4.7 stage 3): ``git worktree add`` from HEAD, the
sub-agent works there, its changes come back as a diff, the worktree is removed.

Git is run as a process (this is the loop's own bookkeeping, not a tool call, so it is not subject
to the permission rules). Repository hooks are disabled for these commands: a worktree checkout
must not run code from the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio

from bot.errors import ToolExecutionError

#: A worktree operation that takes longer than this is stuck (a lock, a huge checkout).
GIT_TIMEOUT_S = 120.0
_SAFE_GIT = ("git", "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false")


@dataclass(frozen=True, slots=True)
class Worktree:
    repo_root: Path
    path: Path
    branch: str
    base: str
    #: Where the sub-agent works: the same subdirectory of the worktree as the parent's workspace.
    workspace: Path


@dataclass(frozen=True, slots=True)
class WorktreeDiff:
    diff: str
    stat: str
    files_changed: int


async def git(cwd: Path, *args: str, check: bool = True) -> str:
    try:
        with anyio.fail_after(GIT_TIMEOUT_S):
            done = await anyio.run_process([*_SAFE_GIT, *args], cwd=cwd, check=False)
    except TimeoutError:
        raise ToolExecutionError(f"git {args[0]} timed out after {GIT_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ToolExecutionError(f"git could not be run: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        err = done.stderr.decode("utf-8", errors="replace").strip()
        raise ToolExecutionError(f"git {args[0]} failed: {err[:500]}")
    return done.stdout.decode("utf-8", errors="replace")


async def create_worktree(workspace: Path, dest: Path, branch: str) -> Worktree:
    top_raw = await git(workspace, "rev-parse", "--show-toplevel", check=False)
    if not top_raw.strip():
        raise ToolExecutionError("worktree isolation needs the workspace to be a git repository")
    top = _resolved(Path(top_raw.strip()))
    base = (await git(top, "rev-parse", "--verify", "HEAD^{commit}", check=False)).strip()
    if not base:
        raise ToolExecutionError("worktree isolation needs at least one commit in the repository")
    dest.parent.mkdir(parents=True, exist_ok=True)
    await git(top, "worktree", "add", "--quiet", "-b", branch, str(dest), base)
    path = _resolved(dest)
    return Worktree(top, path, branch, base, path / _resolved(workspace).relative_to(top))


def _resolved(path: Path) -> Path:
    return path.resolve()  # a few stat calls: not worth a thread


async def worktree_diff(worktree: Worktree) -> WorktreeDiff:
    """Everything the sub-agent changed, new files included, against the base commit (the
    worktree's own index is used; the main checkout's is untouched)."""
    await git(worktree.path, "add", "-A")
    diff = await git(worktree.path, "diff", "--cached", "--binary", worktree.base)
    stat = await git(worktree.path, "diff", "--cached", "--stat", worktree.base)
    names = await git(worktree.path, "diff", "--cached", "--name-only", worktree.base)
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
