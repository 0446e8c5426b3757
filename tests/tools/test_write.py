"""Write: creates files (and their directories, inside the workspace), replaces read files only,
writes the content exactly as sent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext
from bot.tools.read import ReadTool
from bot.tools.write import WriteTool
from tests.tools.helpers import Rejected, call, context_for, run_tool

WRITE = WriteTool()


def test_a_new_file_and_its_directories_are_created(workspace: Path, context: ToolUseContext) -> None:
    out = call(WRITE, context, file_path="a/b/c.txt", content="hi\n")
    assert (workspace / "a" / "b" / "c.txt").read_text() == "hi\n"
    assert out == "File created successfully at: a/b/c.txt"
    assert context.read_file_state.get((workspace / "a/b/c.txt").resolve()) is not None


def test_an_existing_file_must_be_read_first(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("old")
    with pytest.raises(Rejected, match="has not been read yet"):
        call(WRITE, context, file_path="a.txt", content="new")


def test_an_existing_file_changed_since_read_is_refused(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.txt"
    path.write_text("old")
    call(ReadTool(), context, file_path="a.txt")
    path.write_text("changed")
    os.utime(path, ns=(3, 3))
    with pytest.raises(Rejected, match="modified since read"):
        call(WRITE, context, file_path="a.txt", content="new")


def test_a_read_file_is_replaced_with_a_diff(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("one\ntwo\n")
    call(ReadTool(), context, file_path="a.txt")
    out = call(WRITE, context, file_path="a.txt", content="one\nthree\n")
    assert "-two\n+three" in out and (workspace / "a.txt").read_text() == "one\nthree\n"


def test_line_endings_are_written_as_sent_even_over_a_crlf_file(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"a\r\nb\r\n")
    call(ReadTool(), context, file_path="win.txt")
    call(WRITE, context, file_path="win.txt", content="x\ny\n")
    assert path.read_bytes() == b"x\ny\n"


def test_the_encoding_of_an_existing_file_is_kept(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfold\n")
    call(ReadTool(), context, file_path="bom.txt")
    call(WRITE, context, file_path="bom.txt", content="néw\n")
    assert path.read_bytes() == b"\xef\xbb\xbfn\xc3\xa9w\n"


def test_a_directory_cannot_be_written(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(Rejected, match="is a directory"):
        call(WRITE, context, file_path="d", content="x")


def test_directories_are_never_created_outside_the_workspace(workspace: Path, tmp_path: Path) -> None:
    ctx = context_for(workspace, tmp_path / "s", allow=("Write",))
    outcome = run_tool(ctx, "Write", {"file_path": "../outside/new/x.txt", "content": "x"})
    assert outcome.result.is_error and "outside the workspace" in outcome.result.text
    assert not (tmp_path / "outside").exists()
