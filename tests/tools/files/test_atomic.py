"""Atomic writes keep the mode and leave no temporary file behind, even on failure."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bot.tools.files.atomic import atomic_write


def test_a_file_is_replaced_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    result = atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    assert result.st_size == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "new.txt", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")

    def refuse(src: object, dst: object, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        atomic_write(target, b"new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_setuid_and_setgid_are_not_kept_over_new_content(tmp_path: Path) -> None:
    from bot.tools.files.atomic import atomic_write

    path = tmp_path / "tool"
    path.write_text("old")
    os.chmod(path, 0o6755)
    atomic_write(path, b"new")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o755
