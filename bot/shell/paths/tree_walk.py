"""A bounded walk of the entries below some directories, for the checks that must know what a
command will meet there (``find -exec`` reaching a link out, ``grep -r`` reading a denied file).

Links are not followed and ``.git`` is not entered (it is the largest directory of a checkout, and
what lies inside is protected by other checks); past a budget of entries the walk stops with
:class:`TooManyEntries`, and the caller asks instead of deciding.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence


class TooManyEntries(Exception):
    """The walk met more entries than its budget."""


def entries_below(starts: Sequence[str], budget: int, *, hidden: bool = True) -> Iterator[os.DirEntry[str]]:
    """Every entry below ``starts`` (absolute directories), one directory listing at a time;
    ``hidden=False`` leaves dot files and dot directories out."""
    stack = list(starts)
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        budget -= len(entries)
        if budget < 0:
            raise TooManyEntries
        for entry in entries:
            if not hidden and entry.name.startswith("."):
                continue
            yield entry
            if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
