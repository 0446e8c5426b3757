"""Newest-first pages of many files: the right order, ties by name, stat failures as mtime 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.tools.files.newest import NewestFiles


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for i in range(50):
        path = tmp_path / "d" / f"f{i:02}"
        path.parent.mkdir(exist_ok=True)
        path.write_text("x")
        os.utime(path, ns=(0, 1_000_000 * (i // 2)))  # pairs share an mtime
    return tmp_path


def names(found: NewestFiles, offset: int, limit: int | None) -> list[str]:
    return [n.decode() for n in found.page(offset, limit)]


@pytest.mark.parametrize(
    ("description", "offset", "limit", "expected"),
    [
        ("the newest first, ties by name", 0, 3, ["d/f48", "d/f49", "d/f46"]),
        ("a later page", 3, 2, ["d/f47", "d/f44"]),
        ("everything", 0, None, [f"d/f{i:02}" for i in sorted(range(50), key=lambda i: (-(i // 2), i))]),
        ("past the end", 60, 5, []),
    ],
)
def test_pages(tree: Path, description: str, offset: int, limit: int | None, expected: list[str]) -> None:
    with NewestFiles(tree) as found:
        found.add_all([f"d/f{i:02}".encode() for i in range(50)])
        assert names(found, offset, limit) == expected


def test_a_file_that_vanished_sorts_last(tree: Path) -> None:
    with NewestFiles(tree) as found:
        found.add_all([b"d/gone", b"d/f00", b"d/f49"])
        assert names(found, 0, None) == ["d/f49", "d/f00", "d/gone"]
