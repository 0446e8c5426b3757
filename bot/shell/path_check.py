"""Where a shell command's path arguments point, and whether it may touch them (seeds 4.6.5).

Paths are resolved the way the shell will: ``~`` to the home directory, relative paths against the
simulated working directory (``cd`` earlier in the same command counts), ``..`` lexically, then
symbolic links below the workspace (a link in the checkout that points at ``/etc`` is outside).

Verdicts, strongest first:

* ``hard_deny`` — removing ``/``, the home directory, a top-level system directory, the workspace
  itself or anything above it. No rule overrides these.
* ``network`` — ``/dev/tcp/host/port`` and ``/dev/udp/...``: bash opens a socket.
* ``protected`` — writes into ``.git/`` (at any depth: a nested repository's config runs code via
  ``core.fsmonitor``) or ``.github/workflows/``, unless the policy allows them.
* ``outside`` — outside the workspace and the policy's additional directories: only a rule that
  spells the path out approves it.
* ``ok``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

#: ``purge``: deleting what is *inside* a directory (``find DIR -delete``, ``rm -r DIR/*``): the
#: directory itself stays, so the workspace may be purged, ``/`` and the home directory may not.
Access = Literal["read", "write", "delete", "purge", "cd"]
VerdictKind = Literal["ok", "outside", "protected", "hard_deny", "network"]

#: Device files a command may use freely (reading /dev/urandom, writing /dev/null...).
HARMLESS_DEVICES = frozenset({
    "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
    "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty",
})
#: Directories whose removal is never approved, whatever the rules say (plus every top-level
#: directory, the home directory, the workspace and its ancestors).
CRITICAL_DIRECTORIES = frozenset({
    "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/local", "/usr/share", "/usr/include",
    "/private/etc", "/private/var", "/private/tmp", "/private/home", "/System/Library", "/var/lib", "/var/log",
})
#: Files a login or interactive shell runs: writing one is running code later.
SHELL_STARTUP_FILES = frozenset({
    ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
    ".bash_logout", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".inputrc", ".envrc",
})


class PathVerdict(NamedTuple):
    kind: VerdictKind
    path: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class PathPolicy:
    """What path checks need from the context, as plain strings (resolved once per policy)."""

    roots: tuple[str, ...]
    home: str
    allow_git_dir_writes: bool = False
    allow_workflow_writes: bool = False
    #: Resolves symbolic links of an absolute, normalised path inside a root.
    resolve_links: Callable[[str, str], str] | None = None


@lru_cache(maxsize=64)
def path_policy(roots: tuple[str, ...], home: str, allow_git: bool, allow_workflows: bool) -> PathPolicy:
    resolved = tuple(os.path.realpath(r) for r in roots)
    return PathPolicy(resolved, os.path.normpath(home), allow_git, allow_workflows, resolve_below_root)


def resolve_below_root(path: str, root: str, seen: dict[str, int] | None = None) -> str:
    """Resolve symbolic links in the part of ``path`` below ``root`` (``root`` is already
    resolved): one ``lstat`` per component, stopping at the first that does not exist. ``seen``
    remembers the modes found (``-1``: missing) for the rest of one decision, so a directory that
    ``cd`` checked is not examined again for the paths below it."""
    if path == root:
        return path
    current = root
    for part in path[len(root):].strip("/").split("/"):
        current = current + "/" + part if current != "/" else "/" + part
        mode = seen.get(current) if seen is not None else None
        if mode is None:
            try:
                mode = os.lstat(current).st_mode
            except OSError:
                mode = -1
            if seen is not None:
                seen[current] = mode
        if mode == -1:
            return path
        if stat.S_ISLNK(mode):
            return os.path.realpath(path)
    return path


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/") or root == "/"


def expand(value: str, cwd: str, home: str) -> str:
    """``value`` as an absolute, lexically normalised path (``~`` expanded)."""
    if value.startswith("~"):
        head, sep, rest = value.partition("/")
        if head == "~":
            value = home + (sep + rest if sep else "")
        else:
            # ~user, ~+ and ~- are other directories: treat as an unknown place outside.
            return "/" + "\0unknown-home" + "/" + rest
    if not value.startswith("/"):
        value = cwd.rstrip("/") + "/" + value
    return os.path.normpath(value) if ("/." in value or "//" in value or value.endswith("/")) else value


def check_path(value: str, cwd: str, access: Access, policy: PathPolicy,
               seen: dict[str, int] | None = None) -> PathVerdict:
    """The verdict for ``value`` used from ``cwd``; ``seen`` is a decision's memory of ``lstat``
    results (see :func:`resolve_below_root`)."""
    path = expand(value, cwd, policy.home)
    if path.startswith("/dev/"):
        return _device(path, access)
    deleting = access == "delete" or access == "purge"
    if deleting:
        hard = _hard_delete_reason(path, policy, contents_only=access == "purge")
        if hard is not None:
            return PathVerdict("hard_deny", path, hard)
    root = _root_of(path, policy.roots)
    if root is None:
        return PathVerdict("outside", path, _outside_reason(path, policy))
    resolver = policy.resolve_links
    if resolver is not None and path != root:
        resolved = resolve_below_root(path, root, seen) if resolver is resolve_below_root else resolver(path, root)
        if resolved != path:
            if deleting:
                hard = _hard_delete_reason(resolved, policy, contents_only=access == "purge")
                if hard is not None:
                    return PathVerdict("hard_deny", resolved, hard)
            root = _root_of(resolved, policy.roots)
            if root is None:
                return PathVerdict("outside", resolved, f"{value} is a symbolic link to {resolved}, "
                                                        "outside the workspace")
            path = resolved
    if deleting or access == "write":
        reason = _protected_reason(path, root, policy)
        if reason is not None:
            return PathVerdict("protected", path, reason)
    return PathVerdict("ok", path)


def _root_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The first root ``path`` is :func:`within`."""
    for root in roots:
        if root == "/" or (path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/")):
            return root
    return None


def _device(path: str, access: Access) -> PathVerdict:
    if path.startswith(("/dev/tcp/", "/dev/udp/")):
        return PathVerdict("network", path, f"{path} opens a network connection")
    if path in HARMLESS_DEVICES or path.startswith("/dev/fd/"):
        if access in ("delete", "purge"):
            return PathVerdict("hard_deny", path, f"removing {path} breaks the system")
        return PathVerdict("ok", path)
    return PathVerdict("outside", path, f"{path} is a device file")


def _hard_delete_reason(path: str, policy: PathPolicy, *, contents_only: bool = False) -> str | None:
    if path == "/":
        return "removing / destroys the system"
    if path == policy.home:
        return "removing the home directory"
    if path.count("/") == 1 or path in CRITICAL_DIRECTORIES:
        return f"removing the system directory {path}"
    for root in policy.roots:
        if within(root, path) and not (contents_only and root == path):
            return f"removing {path} removes the workspace ({root})"
    return None


def _protected_reason(path: str, root: str, policy: PathPolicy) -> str | None:
    rel = path[len(root):].strip("/").split("/") if path != root else []
    if ".git" in rel and not policy.allow_git_dir_writes:
        return "writes into .git/ are not allowed unless the policy allows them"
    if rel[:2] == [".github", "workflows"] and not policy.allow_workflow_writes:
        return "writes into .github/workflows/ are not allowed unless the policy allows them"
    return None


def _outside_reason(path: str, policy: PathPolicy) -> str:
    name = path.rsplit("/", 1)[-1]
    if name in SHELL_STARTUP_FILES:
        return f"{path} is a shell startup file (it runs code later), outside the workspace"
    return f"{path} is outside the workspace and the policy's additional directories"


def glob_base(value: str) -> str | None:
    """The directory part of a glob pattern before its first wildcard (``src/*.py`` → ``src``),
    or ``None`` when a ``..`` follows the wildcard (the pattern can climb anywhere)."""
    cut = min((i for i, c in enumerate(value) if c in "*?["), default=len(value))
    head = value[:cut]
    tail = value[cut:]
    if "/../" in "/" + tail + "/" or tail.endswith("/.."):
        return None
    base = head.rsplit("/", 1)[0] if "/" in head else "."
    return base or "/"
