"""Where file tools may reach: the workspace and the policy's additional directories.

Paths resolve against the shell's working directory, then symlinks are resolved, *then* the
check runs — a symlink inside the workspace pointing outside is outside. Writes into ``.git/``
and ``.github/workflows/`` are refused unless the policy allows them explicitly.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.interface.context import ToolUseContext
from bot.permissions.decision import Allow, Deny, Passthrough, PermissionResult
from bot.permissions.path_grants import granting_rule
from bot.tools.files.persisted import is_persisted_result

#: Device and pseudo files that never end, block, or hold another process's secrets.
BLOCKED_DEVICE_PATHS = frozenset(
    {
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/full",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/console",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
        "/dev/mem",
        "/dev/kmem",
        "/dev/port",
    }
)
_PROC_ENVIRON = re.compile(r"^/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/(?:environ|mem|cmdline|auxv)$")


def resolve_path(raw: str, context: ToolUseContext) -> Path:
    """Absolute, normalised, symlinks resolved (for a path that does not exist yet: its parent's)."""
    path = Path(os.path.expanduser(raw))
    if not path.is_absolute():
        path = context.working_directory / path
    return path.resolve(strict=False)


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def outside_allowed_roots(path: Path, context: ToolUseContext) -> bool:
    return not any(is_within(path, root) for root in context.allowed_roots)


def granted_outside(resolved: Path, context: ToolUseContext, *, write: bool) -> bool:
    """An allow rule names this path outside the workspace (``Read(//etc/**)``): the tools may reach
    it, and the rules decide the call (:mod:`bot.permissions.path_grants`)."""
    return granting_rule(context.permission, resolved, write=write, workspace=context.workspace) is not None


def is_blocked_device(raw: str, resolved: Path) -> bool:
    for candidate in (os.path.normpath(raw), str(resolved)):
        if candidate in BLOCKED_DEVICE_PATHS or _PROC_ENVIRON.match(candidate):
            return True
    return False


def protected_write_reason(path: Path, context: ToolUseContext) -> str | None:
    """Why a write to this path is refused by default, or ``None``."""
    for root in context.allowed_roots:
        if not is_within(path, root):
            continue
        rel = path.relative_to(root).parts
        # At any depth: a nested .git (or a bare repository's config) is as dangerous as the root's.
        if ".git" in rel and not context.permission.allow_git_dir_writes:
            return "writes into .git/ are not allowed unless the policy allows them"
        if rel[:2] == (".github", "workflows") and not context.permission.allow_workflow_writes:
            return "writes into .github/workflows/ are not allowed unless the policy allows them"
        if not context.permission.allow_git_dir_writes:
            gitdir = _inside_git_directory(path, root)
            if gitdir is not None:
                return (
                    f"writes into {gitdir}, a git directory (HEAD, objects/, refs/), are not allowed unless "
                    "the policy allows .git/ writes"
                )
    return None


def _inside_git_directory(path: Path, root: Path) -> Path | None:
    """A directory between ``root`` and ``path`` laid out as a git directory (``HEAD``,
    ``objects/``, ``refs/``): what a ``.git`` *file* (``gitdir: ../modgit``, a worktree, a
    submodule) points at, or a bare repository — its ``config`` and ``hooks/`` run code as the
    ``.git`` directory's do."""
    parts = path.relative_to(root).parts
    for k in range(1, len(parts)):
        directory = root.joinpath(*parts[:k])
        if (directory / "HEAD").is_file() and (directory / "objects").is_dir() and (directory / "refs").is_dir():
            return directory
    return None


def display_path(path: Path, context: ToolUseContext) -> str:
    """Relative to the workspace when inside it (shorter in results and comments)."""
    try:
        return str(path.relative_to(context.workspace)) or "."
    except ValueError:
        return str(path)


def check_path_access(raw: str, context: ToolUseContext, *, write: bool = False) -> PermissionResult:
    """A file tool's own permission check: confinement first, then the rules decide (passthrough)."""
    resolved = resolve_path(raw, context)
    if is_blocked_device(raw, resolved):
        return Deny(f"{raw} is a device or process file that tools may not open", source="safety")
    if not write and is_persisted_result(raw, resolved, context.working_directory, context.scratch_dir):
        # The bot told the model to read this file; rules still apply (deny and ask come first).
        return Allow("a tool result the run persisted and told the model to read", source="tool")
    if outside_allowed_roots(resolved, context) and not granted_outside(resolved, context, write=write):
        roots = ", ".join(str(r) for r in context.allowed_roots)
        return Deny(
            f"{raw} resolves to {resolved}, outside the workspace and the policy's additional directories ({roots})",
            source="tool",
        )
    if write:
        reason = protected_write_reason(resolved, context)
        if reason is not None:
            return Deny(reason, source="safety")
    return Passthrough()
