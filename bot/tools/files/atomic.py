"""Atomic file replacement: a temporary file in the same directory, then a rename.

A reader never sees half a file, and a crash leaves either the old or the new content. The
file's permission bits (and, when we may, its owner) are kept. The temporary file lives beside
the target so the rename never crosses a file system. Hard links to the old file keep the old
content: that is what a rename means.

:func:`atomic_write_at` works relative to an open directory descriptor: the temporary file is
created and renamed in *that* directory, whatever its path turns into meanwhile (the file tools
open it without following links, see :mod:`bot.tools.files.safe_open`). Neither the temporary
file nor the target is ever opened through a symbolic link; a link at the target's name is
replaced, not followed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

#: Fresh temporary names tried before giving up (one clash is already a 1 in 2**64 event).
TEMP_NAME_ATTEMPTS = 16
#: The target's name is cut to this in the temporary name, which must stay under NAME_MAX (255).
MAX_TEMP_STEM = 200
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _default_mode() -> int:
    # The mode a plain open() would give a new file under the current umask.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: Path, data: bytes) -> os.stat_result:
    """Replace (or create) ``path`` with ``data``; return the new file's ``stat``."""
    dir_fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return atomic_write_at(dir_fd, path.name, data)
    finally:
        os.close(dir_fd)


def atomic_write_at(dir_fd: int, name: str, data: bytes) -> os.stat_result:
    """Replace (or create) ``name`` in the directory ``dir_fd`` with ``data``; return its ``stat``."""
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        old = None  # a link or something else took the name: the new file is a plain new file
    # The file's mode is kept, except setuid/setgid: new content under an old privilege is what
    # the kernel refuses a non-root writer too (it clears them on write and on chown).
    mode = stat.S_IMODE(old.st_mode) & ~(stat.S_ISUID | stat.S_ISGID) if old is not None else _default_mode()
    fd, tmp = _create_temporary(dir_fd, name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            if old is not None and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(handle.fileno(), old.st_uid, old.st_gid)
            written = os.fstat(handle.fileno())  # a rename changes neither mtime nor size
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    return written


def _create_temporary(dir_fd: int, name: str) -> tuple[int, str]:
    """A new file ``.name.XXXXXXXXXXXXXXXX.tmp`` (mode 0600 until the final mode is set)."""
    for _ in range(TEMP_NAME_ATTEMPTS):
        tmp = f".{name[:MAX_TEMP_STEM]}.{secrets.token_hex(8)}.tmp"
        try:
            return os.open(tmp, _CREATE_FLAGS, 0o600, dir_fd=dir_fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {name}")
