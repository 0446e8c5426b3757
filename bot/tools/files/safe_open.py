"""Opening a file tool's path so that a link swapped in after the permission check is never followed.

Trust model. The pipeline's stage 3 (:func:`bot.tools.paths.check_path_access`) resolves the
path, symlinks included, and confines it. ``call()`` runs later; meanwhile a concurrent process —
a background Bash command in the sandbox writes the workspace too — can turn a component of that
path into a symlink to ``/etc``, to a file outside, or into ``.git/hooks``. Opening by path would
follow it. So the file tools (Read, Edit, Write, NotebookEdit) reach their file here:

1. the path is resolved again and its directory is reached from the allowed root that holds it,
   **one component at a time**, each opened relative to the previous one with ``O_NOFOLLOW``; a
   link met on the way means the path changed since it was resolved. Missing directories are
   created (writers only) relative to their parent's descriptor, never through a link;
2. the directory's real path (the kernel's ``/proc/self/fd`` link, ``F_GETPATH`` on macOS; where
   neither exists, its ``st_dev``/``st_ino`` compared with an ``lstat`` of the path walked) is
   checked again — the same :func:`check_path_access` as stage 3, plus the confinement and
   protected-path tests on the unresolved real path — so a directory renamed into ``.git/``
   mid-walk is caught too;
3. the file is opened relative to that directory with ``O_NOFOLLOW`` (reads add ``O_NONBLOCK``:
   a FIFO swapped in does not hang us), and written as a temporary file beside it, renamed
   relative to the same descriptor.

Any failure of these checks is a :class:`ToolInputError` that says the file changed into a link
while the call ran; nothing was read or written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as stat_mod
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.errors import ToolInputError, describe_os_error
from bot.interface.context import ToolUseContext
from bot.permissions.decision import Deny
from bot.permissions.path_denials import path_denials
from bot.tools.files.atomic import atomic_write_at
from bot.tools.files.persisted import is_persisted_result
from bot.tools.paths import (
    check_path_access,
    granted_outside,
    is_within,
    outside_allowed_roots,
    protected_write_reason,
)

RACE_MESSAGE = "the file changed into a link outside the workspace while the call ran"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: A directory descriptor only ever used as ``dir_fd``: O_PATH needs search permission only.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
#: Errors of an ``O_NOFOLLOW`` open that met a link (ELOOP; EMLINK on FreeBSD; ENOTDIR with O_DIRECTORY).
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})
_DELETED = " (deleted)"


def race_error(shown: str, detail: str) -> ToolInputError:
    return ToolInputError(
        f"{shown}: {RACE_MESSAGE} ({detail}); nothing was read or written. Check the path and try again."
    )


def fd_real_path(fd: int) -> Path | None:
    """Where the kernel says an open descriptor is, or ``None`` where it cannot tell us."""
    if sys.platform == "darwin":  # pragma: no cover - not the CI platform
        import fcntl

        try:
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
        except OSError:
            return None
        return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    try:
        link = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    if not link.startswith("/"):
        return None
    if link.endswith(_DELETED) and os.fstat(fd).st_nlink == 0:
        link = link[: -len(_DELETED)]
    return Path(link)


def verified_location(fd: int, expected: Path, shown: str) -> Path:
    """The real path of ``fd``; without a kernel answer, ``expected`` if it is still that file."""
    real = fd_real_path(fd)
    if real is not None:
        return real
    held = os.fstat(fd)
    try:
        now = os.stat(expected, follow_symlinks=False)
    except OSError:
        raise race_error(shown, f"{expected} is gone") from None
    if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
        raise race_error(shown, f"{expected} is no longer what was opened")
    return expected


def confirm_allowed(target: Path, shown: str, context: ToolUseContext, *, write: bool) -> None:
    """Stage 3's check again, on the path the kernel reports (already free of links)."""
    if (
        outside_allowed_roots(target, context)
        and not _granted(target, context, write=write)
        and not granted_outside(target, context, write=write)
    ):
        raise race_error(
            shown, f"it now leads to {target}, outside the workspace and the policy's additional directories"
        )
    reason = protected_write_reason(target, context) if write else None
    if reason is None:
        verdict = check_path_access(str(target), context, write=write)
        reason = verdict.reason if isinstance(verdict, Deny) else None
    if reason is not None:
        raise race_error(shown, f"it now leads to {target}: {reason}")
    # The policy's path deny rules, on where the path leads now (a link swapped in after the
    # decision onto `.env` or into `secrets/` must not get past `Read(.env)`/`Edit(secrets/**)`).
    denied = path_denials(context.permission, context.workspace, os.path.expanduser("~"))
    rule = denied(str(target), str(target), "write" if write else "read") if denied is not None else None
    if rule is not None:
        raise race_error(shown, f"it now leads to {target}, which the deny rule `{rule}` covers")


def _granted(path: Path, context: ToolUseContext, *, write: bool) -> bool:
    """The read-only grant for a persisted tool result (:mod:`bot.tools.files.persisted`)."""
    return not write and is_persisted_result(str(path), path, context.working_directory, context.scratch_dir)


@dataclass(slots=True)
class FileSlot:
    """A file's name inside a directory that was opened without following links and verified.

    ``path`` is the resolved path (the read-file state's key and what results show); ``shown`` is
    the path the model wrote, for error messages.
    """

    path: Path
    shown: str
    dir_fd: int
    name: str

    def open(self, flags: int) -> int:
        """``os.open`` of the file relative to the directory, never through a link."""
        try:
            return os.open(self.name, flags | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=self.dir_fd)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS and self._is_link():
                raise race_error(self.shown, "its last component is now a symbolic link") from None
            raise

    def read_existing(self) -> tuple[bytes, os.stat_result] | None:
        """The file's bytes and stat, or ``None`` when it does not exist. Only a regular file is read."""
        try:
            fd = self.open(os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ToolInputError(describe_os_error(exc, self.shown)) from None
        try:
            st = os.fstat(fd)
            if not stat_mod.S_ISREG(st.st_mode):
                raise ToolInputError(f"{self.shown} is not a regular file")
            with os.fdopen(fd, "rb", closefd=True) as handle:
                fd = -1
                return handle.read(), st
        except OSError as exc:
            raise ToolInputError(describe_os_error(exc, self.shown)) from None
        finally:
            if fd >= 0:
                os.close(fd)

    def replace(self, data: bytes) -> os.stat_result:
        """Atomically replace (or create) the file with ``data``: see :mod:`bot.tools.files.atomic`."""
        try:
            return atomic_write_at(self.dir_fd, self.name, data)
        except OSError as exc:  # worded for the file, not for the temporary file beside it
            raise ToolInputError(describe_os_error(exc, self.shown)) from None

    def _is_link(self) -> bool:
        try:
            return stat_mod.S_ISLNK(os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False).st_mode)
        except OSError:
            return False


@contextlib.contextmanager
def file_slot(
    path: Path, shown: str, context: ToolUseContext, *, write: bool, create_parents: bool = False
) -> Iterator[FileSlot]:
    """Open ``path``'s directory safely (see the module docstring) and yield the file's slot in it.

    ``path`` must be resolved (:func:`bot.tools.paths.resolve_path`). Raises
    :class:`ToolInputError`: a race (the path left the allowed directories or turned into a link),
    or the directory's OS error (``FileNotFoundError`` wording when it is missing).
    """
    parent, name = path.parent, path.name
    if name in ("", ".", ".."):
        raise ToolInputError(f"{shown} is not a file path")
    root = next((r for r in context.allowed_roots if is_within(parent, r)), None)
    if root is None and _granted(path, context, write=write):
        root = parent  # the run's own tool-results directory, which the bot made: trusted as a root is
    if root is None and granted_outside(path, context, write=write):
        root = Path(path.anchor)  # granted by an allow rule: walked from `/`, every component without links
    if root is None:
        verdict = check_path_access(str(path), context, write=write)
        detail = verdict.reason if isinstance(verdict, Deny) else f"it now leads to {path}"
        raise race_error(shown, detail)
    dir_fd = open_directory(root, parent.relative_to(root).parts, shown, create=create_parents)
    try:
        real = verified_location(dir_fd, parent, shown)
        confirm_allowed(real / name, shown, context, write=write)
        yield FileSlot(path, shown, dir_fd, name)
    finally:
        os.close(dir_fd)


def open_directory(root: Path, parts: tuple[str, ...], shown: str, *, create: bool) -> int:
    """A descriptor of ``root/parts…``, each component opened with ``O_NOFOLLOW`` relative to the
    one before (created when missing and ``create``). The root itself is trusted configuration."""
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError as exc:
        raise ToolInputError(describe_os_error(exc, str(root))) from None
    try:
        for index, part in enumerate(parts):
            fd = _step(fd, part, create, shown, root.joinpath(*parts[: index + 1]))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _step(fd: int, part: str, create: bool, shown: str, where: Path) -> int:
    """Open ``part`` below ``fd`` (closing ``fd`` on success)."""
    for _ in range(2):
        try:
            child = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
        except FileNotFoundError:
            if not create:  # worded like a missing file: the model named the file, not its directory
                raise ToolInputError(describe_os_error(FileNotFoundError(errno.ENOENT, "missing"), shown)) from None
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass  # somebody else made it meanwhile: open it (never through a link) and go on
            except OSError as exc:
                raise ToolInputError(describe_os_error(exc, str(where))) from None
            continue
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                with contextlib.suppress(OSError):
                    if stat_mod.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode):
                        raise race_error(shown, f"{where} is now a symbolic link") from None
            raise ToolInputError(describe_os_error(exc, str(where))) from None
        os.close(fd)
        return child
    raise race_error(shown, f"{where} kept changing")
