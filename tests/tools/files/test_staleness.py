"""Read-before-write: what the model read is what gets written over (red-team cases)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.errors import ToolInputError
from bot.tools.context import ToolUseContext
from bot.tools.files.staleness import read_for_write
from bot.tools.read import ReadTool
from tests.tools.helpers import call


def test_new_content_under_a_restored_mtime_is_stale(workspace: Path, context: ToolUseContext) -> None:
    # `touch -r`/`cp -p`: the mtime is the one the model saw, the content is not.
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    call(ReadTool(), context, file_path="a.txt")
    seen = os.stat(path).st_mtime_ns
    path.write_text("x = 2\n")
    os.utime(path, ns=(seen, seen))
    with pytest.raises(ToolInputError, match="modified since read"):
        read_for_write(path, context, "a.txt")


def test_unchanged_content_reads_for_write(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    call(ReadTool(), context, file_path="a.txt")
    raw, _ = read_for_write(path, context, "a.txt")
    assert raw == b"x = 1\n"


def test_a_fifo_swapped_in_is_refused_without_blocking(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    call(ReadTool(), context, file_path="a.txt")
    path.unlink()
    os.mkfifo(path)  # no writer: a blocking open would hang the run
    with pytest.raises(ToolInputError, match="not a regular file"):
        read_for_write(path, context, "a.txt")
