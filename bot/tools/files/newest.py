"""The newest files of a search: mtimes collected while rg lists, the top N picked cheaply.

Glob and Grep (``files_with_matches``) show files most recently modified first (seeds 8.4), so
every listed path is stat'ed — the dominant cost when a pattern matches tens of thousands of
files. Paths stay bytes (no decoding per file), are stat'ed relative to an open directory
descriptor (the kernel walks three components, not fifteen), and only the page asked for is
sorted by ``(-mtime, name)``: the cut-off mtime comes from sorting plain integers. A file that
cannot be stat'ed counts as mtime 0 (seeds: it never fails the search).
"""

from __future__ import annotations

import os
from pathlib import Path


class NewestFiles:
    """Use as a context manager; ``add`` names relative to ``root``."""

    __slots__ = ("_fd", "mtimes", "names")

    def __init__(self, root: Path) -> None:
        self._fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        self.mtimes: list[int] = []
        self.names: list[bytes] = []

    def __enter__(self) -> NewestFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __len__(self) -> int:
        return len(self.names)

    def add_all(self, names: list[bytes]) -> None:
        stat, fd = os.stat, self._fd
        mtimes = self.mtimes
        for name in names:
            try:
                mtimes.append(stat(name, dir_fd=fd).st_mtime_ns)
            except OSError:
                mtimes.append(0)
        self.names.extend(names)

    def page(self, offset: int, limit: int | None) -> list[bytes]:
        """Names ``offset`` to ``offset + limit`` in newest-first order (ties by name)."""
        count = len(self.names)
        mtimes, names = self.mtimes, self.names
        wanted = count if limit is None else min(count, offset + limit)
        if wanted <= 0:
            return []
        if wanted < count:
            cutoff = sorted(mtimes, reverse=True)[wanted - 1]
            candidates = [i for i in range(count) if mtimes[i] >= cutoff]
        else:
            candidates = list(range(count))
        candidates.sort(key=lambda i: (-mtimes[i], names[i]))
        return [names[i] for i in candidates[offset:wanted]]
