"""Atomic file replacement: a temporary file in the same directory, then ``os.replace``.

A reader never sees half a file, and a crash leaves either the old or the new content. The
file's permission bits (and, when we may, its owner) are kept. The temporary file lives beside
the target so the rename never crosses a file system. Hard links to the old file keep the old
content: that is what a rename means.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def _default_mode() -> int:
    # The mode a plain open() would give a new file under the current umask.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: Path, data: bytes) -> os.stat_result:
    """Replace (or create) ``path`` with ``data``; return the new file's ``stat``."""
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    mode = stat.S_IMODE(old.st_mode) if old is not None else _default_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode)
            if old is not None and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(handle.fileno(), old.st_uid, old.st_gid)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return os.stat(path)
