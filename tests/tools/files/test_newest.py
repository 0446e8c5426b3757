"""Newest-first pages of many files: the right order, ties by name, stat failures as mtime 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.tools.files.newest import NewestFiles, Visible


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


def counting(hidden: set[bytes]) -> tuple[list[bytes], Visible]:
    asked: list[bytes] = []

    def visible(name: bytes) -> bool:
        asked.append(name)
        return name not in hidden

    return asked, visible


@pytest.mark.parametrize(
    ("description", "limit", "hidden", "expected", "more"),
    [
        ("no predicate: the newest, ties by name, and more exist", 3, None, ["d/f48", "d/f49", "d/f46"], True),
        ("hidden names are skipped, the next ones move up", 3, {"d/f49", "d/f46"}, ["d/f48", "d/f47", "d/f44"], True),
        (
            "hiding many more than the page looks further down",
            2,
            {f"d/f{i:02}" for i in range(10, 50)},
            ["d/f08", "d/f09"],
            True,
        ),
        (
            "exactly the limit visible is not more than the limit",
            2,
            {f"d/f{i:02}" for i in range(2, 50)},
            ["d/f00", "d/f01"],
            False,
        ),
        ("one more than the limit visible is", 2, {f"d/f{i:02}" for i in range(3, 50)}, ["d/f02", "d/f00"], True),
        ("everything hidden", 5, {f"d/f{i:02}" for i in range(50)}, [], False),
        (
            "a limit above the count",
            80,
            None,
            [f"d/f{i:02}" for i in sorted(range(50), key=lambda i: (-(i // 2), i))],
            False,
        ),
    ],
)
def test_newest_with_a_visibility_predicate(
    tree: Path, description: str, limit: int, hidden: set[str] | None, expected: list[str], more: bool
) -> None:
    with NewestFiles(tree) as found:
        found.add_all([f"d/f{i:02}".encode() for i in range(50)])
        visible = None if hidden is None else counting({h.encode() for h in hidden})[1]
        shown, truncated = found.newest(limit, visible)
        assert ([n.decode() for n in shown], truncated) == (expected, more)


def test_the_predicate_is_asked_only_until_one_more_than_the_page_passed(tree: Path) -> None:
    with NewestFiles(tree) as found:
        found.add_all([f"d/f{i:02}".encode() for i in range(50)])
        asked, visible = counting({b"d/f49"})
        shown, truncated = found.newest(3, visible)
        assert (shown, truncated) == ([b"d/f48", b"d/f46", b"d/f47"], True)
        assert asked == [b"d/f48", b"d/f49", b"d/f46", b"d/f47", b"d/f44"]


def test_stat_failures_in_a_batch_do_not_shift_the_other_mtimes(tree: Path) -> None:
    with NewestFiles(tree) as found:
        found.add_all([b"d/f49", b"d/gone", b"d/f02", b"missing/x"])
        assert found.mtimes == [24_000_000, 0, 1_000_000, 0]
        assert found.newest(2) == ([b"d/f49", b"d/f02"], True)
