"""Read-before-write and staleness (seeds 8.2.3): a file is written only as the model last saw it.

Edit, Write and NotebookEdit refuse an existing file the model has not read, and a file that
changed since it was read (a linter, a formatter, a hook, another tool call). A changed mtime
alone is not a change: when the content hash is still the one recorded, the file is fresh (a
``touch``, a checkout that rewrote identical bytes).
"""

from __future__ import annotations

import os
import stat as stat_mod
from pathlib import Path

from bot.interface.context import ToolUseContext, hash_bytes

NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
STALE_MESSAGE = (
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)


def staleness_problem(
    path: Path, context: ToolUseContext, *, mtime_ns: int, content: bytes | None = None
) -> str | None:
    """Why the file may not be written as it is now, or ``None`` when it may.

    With ``content`` (the current bytes) the hash decides, whatever the mtime says (``touch -r``
    or ``cp -p`` restore an mtime over new content). Without it, an unchanged mtime is taken as
    unchanged (the cheap check before the call); a moved one is settled by reading the file.
    """
    record = context.read_file_state.get(path)
    if record is None:
        return NOT_READ_MESSAGE
    if content is None and mtime_ns == record.mtime_ns:
        return None
    if content is None:
        try:
            content = path.read_bytes()
        except OSError:
            return STALE_MESSAGE
    return None if hash_bytes(content) == record.content_hash else STALE_MESSAGE


def record_write(path: Path, content: bytes, stat: os.stat_result, context: ToolUseContext) -> None:
    """After a successful write the model knows the whole file: the next edit needs no new Read."""
    context.read_file_state.record(path, content, stat.st_mtime_ns)


def writable_file_problem(
    path: Path, shown: str, st: os.stat_result, context: ToolUseContext
) -> tuple[str, str] | None:
    """An existing file that Edit/Write may not touch as it is: ``(kind, message)`` with kind
    ``"type"`` (a directory, a device…), ``"unread"`` or ``"stale"``; ``None`` when it may."""
    if stat_mod.S_ISDIR(st.st_mode):
        return "type", f"{shown} is a directory"
    if not stat_mod.S_ISREG(st.st_mode):
        return "type", f"{shown} is not a regular file"
    problem = staleness_problem(path, context, mtime_ns=st.st_mtime_ns)
    if problem is None:
        return None
    return ("unread" if problem == NOT_READ_MESSAGE else "stale"), problem
