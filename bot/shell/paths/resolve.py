"""Where a shell command's path arguments point, and whether it may touch them (seeds 4.6.5).

Paths are resolved the way the kernel will: ``~`` to the home directory, relative paths against the
simulated working directory (``cd`` earlier in the same command counts), then component by
component, following symbolic links *before* a ``..`` climbs out of them (``link_to_etc/..`` is
``/``, not the workspace) — except for ``cd``, whose ``$PWD`` is logical in bash (see
:func:`change_directory`). A ``..`` after a component that does not exist yet is unknown: an earlier
command may make it a link to anywhere, so the path counts as outside.

Verdicts, strongest first:

* ``hard_deny`` — removing ``/``, the home directory, a top-level system directory, the workspace
  itself or anything above it. No rule overrides these.
* ``network`` — ``/dev/tcp/host/port`` and ``/dev/udp/...``: bash opens a socket.
* ``protected`` — writes into ``.git/`` (at any depth: a nested repository's config runs code via
  ``core.fsmonitor``) or ``.github/workflows/``, unless the policy allows them.
* ``outside`` — outside the workspace and the policy's additional directories, or a place only
  known at run time: only a rule that spells the path out approves it.
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
#: ``argument``: a word of a program the analysis knows nothing about (``pytest --basetemp=X``):
#: it may be written, so one in ``.git/`` or ``.github/workflows/`` is protected, one outside is
#: outside, and nothing else is said about it (no edit permission is needed, nothing is hard-denied).
Access = Literal["read", "write", "delete", "purge", "cd", "argument"]
VerdictKind = Literal["ok", "outside", "protected", "hard_deny", "network"]

#: Devices a command may write: the output descriptors (a read redirection onto 1 or 2 is refused
#: by the parse, so they are never a workspace file opened for reading) and sinks.
_WRITABLE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", "/dev/zero"})
#: Device files a command may use freely (reading /dev/urandom, writing /dev/null...).
HARMLESS_DEVICES = frozenset(
    {
        "/dev/null",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    }
)
#: Directories whose removal is never approved, whatever the rules say (plus every top-level
#: directory, the home directory, the workspace and its ancestors).
CRITICAL_DIRECTORIES = frozenset(
    {
        "/usr/bin",
        "/usr/sbin",
        "/usr/lib",
        "/usr/lib64",
        "/usr/local",
        "/usr/share",
        "/usr/include",
        "/private/etc",
        "/private/var",
        "/private/tmp",
        "/private/home",
        "/System/Library",
        "/var/lib",
        "/var/log",
    }
)
#: Files a login or interactive shell runs: writing one is running code later.
SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".bash_logout",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
        ".envrc",
    }
)
#: Symbolic links followed in one path before giving up (Linux's ``ELOOP`` limit).
MAX_SYMLINKS = 40
#: Starts a path value that stands for a place only known at run time (see :func:`unknown_place`).
UNKNOWN_PLACE = "\0unknown:"
#: What :func:`join` makes of ``~user``, ``~+`` and ``~-``: a place outside, never looked up.
_OTHER_HOME = "/\0unknown-home"
#: ``lstat`` result remembered for a path that does not exist.
MISSING = -1


class PathVerdict(NamedTuple):
    kind: VerdictKind
    path: str
    reason: str = ""


#: Builds the common verdict without the named tuple's argument handling.
_OK = tuple.__new__


@dataclass(frozen=True, slots=True)
class PathPolicy:
    """What path checks need from the context, as plain strings (resolved once per policy)."""

    roots: tuple[str, ...]
    home: str
    allow_git_dir_writes: bool = False
    allow_workflow_writes: bool = False
    #: Resolves symbolic links of an absolute, normalised path inside a root (``None``: paths are
    #: taken lexically, links are not looked at).
    resolve_links: Callable[[str, str], str] | None = None


@lru_cache(maxsize=64)
def path_policy(roots: tuple[str, ...], home: str, allow_git: bool, allow_workflows: bool) -> PathPolicy:
    resolved = tuple(os.path.realpath(r) for r in roots)
    return PathPolicy(resolved, os.path.normpath(home), allow_git, allow_workflows, resolve_below_root)


def unknown_place(reason: str) -> str:
    """A path value for what a command touches at a place only known at run time (the files ``tar
    -T list`` names, what a patch read from stdin changes): :func:`check_path` calls it outside,
    with ``reason``, so only a rule that spells the command out approves it."""
    return UNKNOWN_PLACE + reason


def _lstat_mode(path: str, seen: dict[str, int] | None) -> int:
    mode = seen.get(path) if seen is not None else None
    if mode is None:
        # Most paths looked at do not exist (a word that is only maybe a path): ``access`` says so
        # without building an exception and a stat result, about half the cost of a failed lstat.
        try:
            mode = os.lstat(path).st_mode if os.access(path, os.F_OK, follow_symlinks=False) else MISSING
        except (OSError, ValueError):  # ValueError: a NUL in the name
            mode = MISSING
        if seen is not None:
            seen[path] = mode
    return mode


def _exists(path: str, follow: bool = False) -> bool:
    """Whether ``lstat`` (``stat`` when ``follow``) of ``path`` would succeed."""
    try:
        return os.access(path, os.F_OK, follow_symlinks=follow)
    except ValueError:  # a NUL in the name
        return False


def assume_directory(path: str, seen: dict[str, int]) -> None:
    """Record that ``path`` (absolute, resolved) will be a plain directory by the time later commands
    of the decision run (``mkdir -p build && cd build && cmake ..``): a ``..`` after it is then
    taken as climbing out of a directory, not as unknown."""
    seen[path] = stat.S_IFDIR


def resolve_below_root(path: str, root: str, seen: dict[str, int] | None = None) -> str:
    """Resolve symbolic links in the part of ``path`` below ``root`` (``root`` is already
    resolved; ``path`` has no ``..``): one ``lstat`` per component, stopping at the first that does
    not exist. ``seen`` remembers the modes found (``-1``: missing) for the rest of one decision,
    so a directory that ``cd`` checked is not examined again for the paths below it."""
    if path == root:
        return path
    rest = path[len(root) :].strip("/")
    if "/" not in rest:  # (the common case: one component below the root)
        mode = _lstat_mode(root + "/" + rest if root != "/" else "/" + rest, seen)
        return os.path.realpath(path) if mode != MISSING and stat.S_ISLNK(mode) else path
    current = root
    for part in rest.split("/"):
        current = current + "/" + part if current != "/" else "/" + part
        mode = _lstat_mode(current, seen)
        if mode == MISSING:
            return path
        if stat.S_ISLNK(mode):
            return os.path.realpath(path)
    return path


@lru_cache(maxsize=64)
def _trusted(roots: tuple[str, ...]) -> frozenset[str]:
    """The roots and their ancestors: resolved when the policy was made, so never ``lstat``-ed."""
    found = {"/"}
    for root in roots:
        current = root
        while current not in found:
            found.add(current)
            current = os.path.dirname(current)
    return frozenset(found)


def physical_path(joined: str, roots: tuple[str, ...] = (), seen: dict[str, int] | None = None) -> str | None:
    """``joined`` (absolute, ``..`` not collapsed) as the kernel resolves it: each component in
    turn, a symbolic link replaced by its target before the next ``..`` applies. ``None`` when a
    ``..`` follows a component that does not exist (an earlier command may create it as a link to
    anywhere) or the links loop. ``roots`` and their ancestors are known directories."""
    trusted = _trusted(roots)
    pending = joined.split("/")
    pending.reverse()
    parts: list[str] = []
    missing = False
    links = 0
    while pending:
        part = pending.pop()
        if not part or part == ".":
            continue
        if part == "..":
            if missing:
                return None
            if parts:
                parts.pop()
            continue
        parts.append(part)
        if missing:
            continue
        current = "/" + "/".join(parts)
        if current in trusted:
            continue
        mode = _lstat_mode(current, seen)
        if mode == MISSING:
            missing = True
        elif stat.S_ISLNK(mode):
            links += 1
            try:
                target = os.readlink(current)
            except OSError:
                return None
            if links > MAX_SYMLINKS:
                return None
            parts.pop()
            if target.startswith("/"):
                parts.clear()
            pending.extend(reversed(target.split("/")))
    return "/" + "/".join(parts)


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/") or root == "/"


def join(value: str, cwd: str, home: str) -> str:
    """``value`` as an absolute path (``~`` expanded), ``.`` and ``..`` left in place."""
    if value.startswith("~"):
        head, sep, rest = value.partition("/")
        if head == "~":
            return home + (sep + rest if sep else "")
        # ~user, ~+ and ~- are other directories: treat as an unknown place outside.
        return _OTHER_HOME + "/" + rest
    if value.startswith("/"):
        return value
    return cwd.rstrip("/") + "/" + value


def expand(value: str, cwd: str, home: str) -> str:
    """``value`` as an absolute, lexically normalised path (``~`` expanded): where bash's logical
    ``cd`` goes, not where a program's ``open`` goes (see :func:`check_path`)."""
    value = join(value, cwd, home)
    return os.path.normpath(value) if ("/." in value or "//" in value or value.endswith("/")) else value


def _climbs(joined: str) -> bool:
    return "/.." in joined and ".." in joined.split("/")


def check_path(
    value: str, cwd: str, access: Access, policy: PathPolicy, seen: dict[str, int] | None = None
) -> PathVerdict:
    """The verdict for ``value`` used from ``cwd`` (the physical working directory); ``seen`` is a
    decision's memory of ``lstat`` results (see :func:`resolve_below_root`). For ``cd`` the path is
    where bash's logical ``cd`` lands when ``cwd`` is also ``$PWD`` (see :func:`change_directory`)."""
    if value.startswith(UNKNOWN_PLACE):
        return PathVerdict("outside", value, value[len(UNKNOWN_PLACE) :])
    if access == "cd":
        return change_directory(value, cwd, cwd, False, policy, seen).verdict
    # (join's common case, a plain relative path, inline: this runs for every path-like word)
    joined = join(value, cwd, policy.home) if value[:1] in ("/", "~") else cwd.rstrip("/") + "/" + value
    lexical = os.path.normpath(joined) if ("/." in joined or "//" in joined or joined.endswith("/")) else joined
    deleting = access == "delete" or access == "purge"
    if deleting and not lexical.startswith("/dev/"):
        hard = _hard_delete_reason(lexical, policy, contents_only=access == "purge")
        if hard is not None:
            return PathVerdict("hard_deny", lexical, hard)
    if joined.startswith(_OTHER_HOME):
        return PathVerdict(
            "outside",
            joined,
            f"{value} is in another user's home directory or the directory stack, outside the workspace",
        )
    if policy.resolve_links is None or "/.." not in joined or not _climbs(joined):
        return _classify(value, lexical, access, policy, seen)
    physical = physical_path(joined, policy.roots, seen)
    if physical is None:
        return PathVerdict(
            "outside",
            lexical,
            f"{value} climbs out of a directory that does not exist yet (or "
            "through looping links): where it lands is only known at run time",
        )
    return _classify(value, physical, access, policy, seen, resolved=True)


def _classify(
    value: str, path: str, access: Access, policy: PathPolicy, seen: dict[str, int] | None, resolved: bool = False
) -> PathVerdict:
    """The verdict for the absolute ``path`` (without ``..``); ``resolved``: its links are followed."""
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
    if not resolved and resolver is not None and path != root:
        target = resolve_below_root(path, root, seen) if resolver is resolve_below_root else resolver(path, root)
        if target != path:
            if deleting:
                hard = _hard_delete_reason(target, policy, contents_only=access == "purge")
                if hard is not None:
                    return PathVerdict("hard_deny", target, hard)
            if target.startswith("/dev/"):
                return _device(target, access)
            root = _root_of(target, policy.roots)
            if root is None:
                return PathVerdict("outside", target, f"{value} is a symbolic link to {target}, outside the workspace")
            path = target
    if deleting or access == "write" or access == "argument":
        reason = _protected_reason(path, root, policy, seen)
        if reason is not None:
            if access == "argument":
                reason = f"the argument {value} may be written: {reason}"
            return PathVerdict("protected", path, reason)
    return _OK(PathVerdict, ("ok", path, ""))


class CdResult(NamedTuple):
    verdict: PathVerdict
    #: The physical directory after the ``cd`` (what relative paths resolve against).
    cwd: str
    #: Bash's ``$PWD`` after it (what the next logical ``cd ..`` climbs from).
    pwd: str


def change_directory(
    value: str, cwd: str, pwd: str, physical: bool, policy: PathPolicy, seen: dict[str, int] | None = None
) -> CdResult:
    """Where ``cd value`` lands, from the physical ``cwd`` and the logical ``pwd``.

    Bash's logical ``cd`` (the default) collapses ``..`` lexically against ``$PWD`` — provided the
    directory before each ``..`` and the result exist; otherwise it falls back to the physical
    path (``cd link_to_etc/../etc`` is ``/etc``). ``cd -P`` (``physical``, also ``set -P``) is
    always physical. The verdict is on the physical directory; a ``..`` after a component that does
    not exist yet makes it unknown (``outside``)."""
    home = policy.home
    if value.startswith(UNKNOWN_PLACE):
        verdict = PathVerdict("outside", value, value[len(UNKNOWN_PLACE) :])
        return CdResult(verdict, cwd, pwd)
    raw = join(value, cwd, home)
    if not physical:
        logical = expand(value, pwd, home)
        if not _climbs(join(value, pwd, home)) or _logical_ok(join(value, pwd, home), logical, policy, seen):
            verdict = _classify(value, logical, "read", policy, seen)
            return CdResult(verdict, verdict.path, logical)
    if policy.resolve_links is None:
        target: str | None = os.path.normpath(raw)
    elif not _climbs(raw):
        lexical = os.path.normpath(raw)
        root = _root_of(lexical, policy.roots)
        target = lexical if root is None else resolve_below_root(lexical, root, seen)
        if target != lexical:
            target = os.path.realpath(lexical)
    else:
        target = physical_path(raw, policy.roots, seen)
    if target is None:
        reason = (
            f"cd {value} climbs out of a directory that does not exist yet: where it lands is only known at run time"
        )
        verdict = PathVerdict("outside", os.path.normpath(raw), reason)
        return CdResult(verdict, cwd, pwd)
    verdict = _classify(value, target, "read", policy, seen, resolved=True)
    return CdResult(verdict, target, target)


def _logical_ok(joined: str, logical: str, policy: PathPolicy, seen: dict[str, int] | None) -> bool:
    """Bash keeps a logical ``cd`` when the directory before each ``..`` and the result exist."""
    parts = joined.split("/")
    prefix: list[str] = []
    for part in parts:
        if part == "..":
            before = os.path.normpath("/" + "/".join(prefix))
            if not _is_directory(before, policy, seen):
                return False
            if prefix:
                prefix.pop()
            continue
        if part and part != ".":
            prefix.append(part)
    return _is_directory(logical, policy, seen)


def _is_directory(path: str, policy: PathPolicy, seen: dict[str, int] | None) -> bool:
    """``path`` (lexical, no ``..``) exists as a directory, links followed."""
    if path in _trusted(policy.roots):
        return True
    target = physical_path(path, policy.roots, seen)
    if target is None:
        return False
    mode = _lstat_mode(target, seen) if target not in _trusted(policy.roots) else stat.S_IFDIR
    return mode != MISSING and stat.S_ISDIR(mode)


def _root_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The first root ``path`` is :func:`within`."""
    for root in roots:
        if path.startswith(root):  # (the common case, one test)
            if path == root or path[len(root)] == "/" or root == "/":
                return root
        elif root == "/":
            return root
    return None


def _device(path: str, access: Access) -> PathVerdict:
    if path.startswith(("/dev/tcp/", "/dev/udp/")):
        return PathVerdict("network", path, f"{path} opens a network connection")
    if path in HARMLESS_DEVICES or path.startswith("/dev/fd/"):
        if access in ("delete", "purge"):
            return PathVerdict("hard_deny", path, f"removing {path} breaks the system")
        if access == "write" and path not in _WRITABLE_DEVICES:
            # /dev/stdin, /dev/fd/0, /dev/fd/3…: opening one for writing reopens the file that
            # descriptor holds (`tee /dev/stdin < .git/config` empties it)
            return PathVerdict("outside", path, f"writing {path} writes whatever file that descriptor holds")
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


def _protected_reason(path: str, root: str, policy: PathPolicy, seen: dict[str, int] | None = None) -> str | None:
    if "/.git" not in path[len(root) - 1 :]:  # (.git and .github both start so; root may be /)
        if not policy.allow_git_dir_writes and _in_git_directory(path, root, seen):
            return (
                "writes into a git directory (HEAD, objects/, refs/: what a .git file points at) are not "
                "allowed unless the policy allows .git/ writes"
            )
        return None
    rel = path[len(root) :].strip("/").split("/")
    if ".git" in rel and not policy.allow_git_dir_writes:
        return "writes into .git/ are not allowed unless the policy allows them"
    if rel[:2] == [".github", "workflows"] and not policy.allow_workflow_writes:
        return "writes into .github/workflows/ are not allowed unless the policy allows them"
    return None


def _in_git_directory(path: str, root: str, seen: dict[str, int] | None = None) -> bool:
    """A directory between ``root`` and ``path`` laid out as a git directory: the target of a
    ``.git`` file (worktree, submodule) or a bare repository, whose config and hooks run code.
    ``seen`` (a decision's memory) keeps each directory's answer under a key no path can be."""
    rest = path[len(root) :].strip("/")
    if "/" not in rest:
        return False  # no directory between them
    current = root.rstrip("/")
    for part in rest.split("/")[:-1]:
        current = f"{current}/{part}"
        key = _GIT_LAYOUT + current
        known = seen.get(key) if seen is not None else None
        if known is None:
            head = f"{current}/HEAD"
            known = int(
                _exists(head, follow=True)  # (the common answer, no, without an exception)
                and os.path.isfile(head)
                and os.path.isdir(f"{current}/objects")
                and os.path.isdir(f"{current}/refs")
            )
            if seen is not None:
                seen[key] = known
        if known:
            return True
    return False


#: Prefixes a directory in a decision's ``seen`` memory for :func:`_in_git_directory`'s answer.
_GIT_LAYOUT = "\0git-layout:"


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
