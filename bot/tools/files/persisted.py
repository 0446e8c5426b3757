"""The read-only grant for persisted tool results (seeds 4.8): what the bot tells the model to read.

A result over its tool's limit is written to ``<scratch>/tool-results/<id>.txt`` and the model is
told to Read or Grep that file. The scratch directory is outside the workspace, so without this
grant the file tools would deny the very read the bot asked for. The grant is as narrow as the
promise:

* only a direct child of the run's own ``<scratch>/tool-results/`` directory (the one the run's
  context names, resolved once in ``make_context``), named as the bot names its files;
* the path as written, normalised, must already be that resolved path: no symbolic link anywhere
  on the way, so a link in the workspace or in the directory cannot borrow the grant;
* the file itself is a regular file with one link (``lstat``): a hard link placed there to a file
  elsewhere has two, and is refused;
* reads only — Edit, Write and NotebookEdit never get it — and only for the file tools' own
  confinement: deny and ask rules still apply (``Read(//tmp/**)`` denied stays denied).

Everything else in the scratch directory (transcripts, the sandbox's ``/tmp``, markers, other
runs' files) stays outside, as before. Nothing the model runs can write ``tool-results/``: a
sandboxed command writes only the sandbox's corner of the scratch directory
(:func:`bot.shell.sandbox.root.sandbox_scratch`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

#: The folder under the run's scratch directory that holds persisted results.
TOOL_RESULTS_DIR = "tool-results"
#: What the bot names a persisted file: a sanitised id and ``.txt`` (``.diff`` for a sub-agent's
#: worktree changes).
_PERSISTED_NAME = re.compile(r"[A-Za-z0-9_.-]+\.(?:txt|diff)")


def results_dir(scratch_dir: Path) -> Path:
    """Where the run's persisted results live."""
    return scratch_dir / TOOL_RESULTS_DIR


def is_persisted_result(raw: str, resolved: Path, cwd: Path, scratch_dir: Path) -> bool:
    """May a read-only file tool open ``raw`` (resolved to ``resolved``) under the grant?

    ``cwd`` is where a relative ``raw`` is relative to; ``scratch_dir`` the run's (resolved)
    scratch directory.
    """
    if "\x00" in raw:
        return False
    directory = results_dir(scratch_dir)
    if resolved.parent != directory or not _PERSISTED_NAME.fullmatch(resolved.name):
        return False
    written = Path(os.path.expanduser(raw))
    if not written.is_absolute():
        written = cwd / written
    if Path(os.path.normpath(written)) != resolved:
        return False  # a link somewhere on the way: the grant is for the path the bot printed
    try:
        st = os.lstat(resolved)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


__all__ = ["TOOL_RESULTS_DIR", "is_persisted_result", "results_dir"]
