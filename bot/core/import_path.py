"""The bot's own import path: its installation and the interpreter's, never a directory the job names.

Python puts the directories of ``PYTHONPATH`` — and, for ``python -m``/``-c``, the working directory —
ahead of the standard library and site-packages. A workflow's ``env: PYTHONPATH: src`` (a common way
to let a project's tests import it) would then name a directory of the workspace, which the model
writes: and the bot imports many modules on first use, after the model has had its tools (``pypdf``
with the first Read of a PDF, the HTML libraries with the first WebFetch, ``tree_sitter`` with the
first Bash check). A ``src/pypdf/__init__.py`` written by the model would run in the bot's own
process, unsandboxed, next to the token and the model key.

So, first thing in the command line's ``main``, the entries the job's environment or working
directory put on ``sys.path`` are taken off it. What stays: the interpreter's standard library, the
environment's site-packages and what their ``.pth`` files add, the directory of the running script
(a console script's ``bin``), and the directory the ``bot`` package itself was imported from (a
checkout run with ``PYTHONPATH=.``: the bot's own code). The action also starts the bot with
``python -I`` (action.yml), which keeps the job's ``PYTHONPATH`` away from its first imports too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

__all__ = ["confine_import_path", "confined"]


def confined(path: Sequence[str], environ: Mapping[str, str], cwd: str, own_root: str) -> tuple[list[str], list[str]]:
    """``path`` without the entries ``PYTHONPATH`` or the working directory put there (``""`` is
    the working directory), keeping ``own_root``; returns ``(kept, dropped)``. Pure."""

    def norm(entry: str) -> str:
        return os.path.normpath(os.path.join(cwd, entry))

    named = {norm(e) for e in environ.get("PYTHONPATH", "").split(os.pathsep) if e}
    named.add(norm(cwd))
    own = norm(own_root)
    kept: list[str] = []
    dropped: list[str] = []
    for entry in path:
        where = norm(entry)
        if (entry == "" or where in named) and where != own:
            dropped.append(entry)
        else:
            kept.append(entry)
    return kept, dropped


def confine_import_path() -> list[str]:
    """Apply :func:`confined` to this process's ``sys.path``; returns what was dropped."""
    try:
        cwd = os.getcwd()
    except OSError:  # the working directory is gone: nothing on the path can name it
        cwd = "/"
    # …/bot/core/import_path.py, spelled as sys.path spells it (not through symbolic links)
    own_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kept, dropped = confined(sys.path, os.environ, cwd, own_root)
    if dropped:
        sys.path[:] = kept
        sys.path_importer_cache.clear()
    return dropped
