"""The ``PATH`` of a program the bot runs on the host: none of its entries lets the workspace choose it.

A workflow may put a directory of the checkout on ``PATH`` (``$GITHUB_WORKSPACE/node_modules/.bin``,
``.venv/bin``, an ``echo "$PWD/bin" >> $GITHUB_PATH``), and a relative entry (``bin``, or an empty
one, which means the working directory) resolves against the working directory — the workspace, for
most of what the bot runs. The checkout is a pull request's head or an earlier run's branch before
the model starts, and whatever the model writes afterwards: a ``git``, ``bwrap``, ``setpriv`` or
``npx`` planted there would run on the host in place of the real one — the bot's own git with the
token on its pipe, a "sandbox" that is none. So every host-side lookup goes through
:func:`host_search_path`: absolute entries outside the directories the model writes, in order, once
each. Sandboxed commands keep the ``PATH`` they are given: inside the sandbox a planted program is
no more than any other command the model runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["host_search_path", "within_any"]


def within_any(path: str | os.PathLike[str], roots: Iterable[str | os.PathLike[str]]) -> bool:
    """Is ``path`` (links resolved) one of ``roots`` or inside one (links resolved)?"""
    resolved = Path(os.path.realpath(path))
    return any(resolved == (root := Path(os.path.realpath(r))) or resolved.is_relative_to(root) for r in roots)


def host_search_path(value: str | None, untrusted: Iterable[str | os.PathLike[str]] = ()) -> str | None:
    """``value`` (a ``PATH``) without relative or empty entries and without entries inside
    ``untrusted`` (the workspace, directories the policy lets the model write); ``None`` stays
    ``None``."""
    if value is None:
        return None
    roots = [r for r in untrusted if r]
    kept = [entry for entry in value.split(os.pathsep) if os.path.isabs(entry) and not within_any(entry, roots)]
    return os.pathsep.join(dict.fromkeys(kept))
