"""Edit: read first, not stale, one match (or replace_all), quotes, line endings, encodings,
atomic write, a diff in the result."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import anyio
import pytest

from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import ValidationOk
from bot.tools.edit import EditTool
from bot.tools.read import ReadTool
from tests.tools.helpers import Rejected, call, call_error, context_for, run_tool

EDIT = EditTool()
READ = ReadTool()


def read(context: ToolUseContext, name: str) -> None:
    call(READ, context, file_path=name)


def test_a_unique_string_is_replaced_and_the_result_shows_a_diff(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.py").write_text("def f():\n    return 1\n")
    read(context, "a.py")
    out = call(EDIT, context, file_path="a.py", old_string="return 1", new_string="return 2")
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"
    assert out.startswith("The file a.py has been updated.")
    assert "-    return 1\n+    return 2" in out


def test_a_file_not_read_first_is_refused(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("x")
    with pytest.raises(Rejected, match="has not been read yet"):
        call(EDIT, context, file_path="a.txt", old_string="x", new_string="y")


def test_a_file_changed_since_it_was_read_is_refused(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    read(context, "a.txt")
    path.write_text("x = 1\ny = 2\n")
    os.utime(path, ns=(1, 1))
    with pytest.raises(Rejected, match="modified since read"):
        call(EDIT, context, file_path="a.txt", old_string="x = 1", new_string="x = 3")


def test_a_touched_but_unchanged_file_is_not_stale(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    read(context, "a.txt")
    os.utime(path, ns=(10**18, 10**18))
    call(EDIT, context, file_path="a.txt", old_string="x = 1", new_string="x = 3")
    assert path.read_text() == "x = 3\n"


def test_the_staleness_race_between_validation_and_call_is_caught(workspace: Path, context: ToolUseContext) -> None:
    """A linter rewrites the file after validate_input passed and before call runs."""
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    read(context, "a.txt")

    async def main() -> str:
        parsed = EDIT.parse_input({"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"})
        assert isinstance(await EDIT.validate_input(parsed, context), ValidationOk)
        path.write_text("x = 1  # formatted\n")
        os.utime(path, ns=(5, 5))
        try:
            await EDIT.call(parsed, context, Progress("t", "Edit"))
        except Exception as exc:
            return str(exc)
        return "written"

    assert "modified since read" in anyio.run(main)
    assert path.read_text() == "x = 1  # formatted\n"


def test_successive_edits_need_no_new_read(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("a b c\n")
    read(context, "a.txt")
    call(EDIT, context, file_path="a.txt", old_string="a", new_string="A")
    call(EDIT, context, file_path="a.txt", old_string="b", new_string="B")
    assert (workspace / "a.txt").read_text() == "A B c\n"


@pytest.mark.parametrize(
    ("description", "replace_all", "result", "error"),
    [
        ("an ambiguous match is refused", False, None, "Found 3 matches of the string to replace"),
        ("replace_all replaces every match", True, "y y y\n", None),
        ("replace_all as the string a model may send", "true", "y y y\n", None),
    ],
)
def test_ambiguous_matches(
    workspace: Path,
    context: ToolUseContext,
    description: str,
    replace_all: object,
    result: str | None,
    error: str | None,
) -> None:
    (workspace / "a.txt").write_text("x x x\n")
    read(context, "a.txt")
    if error:
        assert error in call_error(
            EDIT, context, file_path="a.txt", old_string="x", new_string="y", replace_all=replace_all
        )
        assert (workspace / "a.txt").read_text() == "x x x\n"
    else:
        out = call(EDIT, context, file_path="a.txt", old_string="x", new_string="y", replace_all=replace_all)
        assert (workspace / "a.txt").read_text() == result and "(3 replacements)" in out


def test_a_missing_string_is_reported_with_the_string(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("hello\n")
    read(context, "a.txt")
    assert "String to replace not found in file.\nString: goodbye" in call_error(
        EDIT, context, file_path="a.txt", old_string="goodbye", new_string="x"
    )


def test_identical_old_and_new_strings_are_refused(workspace: Path, context: ToolUseContext) -> None:
    with pytest.raises(Rejected, match="No changes to make"):
        call(EDIT, context, file_path="a.txt", old_string="x", new_string="x")


def test_straight_quotes_find_curly_ones_and_the_file_keeps_its_style(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "doc.md").write_text("He said “hello” and didn’t stop.\n")
    read(context, "doc.md")
    call(
        EDIT,
        context,
        file_path="doc.md",
        old_string='said "hello" and didn\'t',
        new_string='said "goodbye" and couldn\'t',
    )
    assert (workspace / "doc.md").read_text() == "He said “goodbye” and couldn’t stop.\n"


def test_a_crlf_file_stays_crlf(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    read(context, "win.txt")
    call(EDIT, context, file_path="win.txt", old_string="one\ntwo", new_string="uno\ndos\nmas")
    assert path.read_bytes() == b"uno\r\ndos\r\nmas\r\nthree\r\n"


def test_a_single_line_edit_in_a_crlf_file_adds_crlf_to_new_lines(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"a\r\nb\r\n")
    read(context, "win.txt")
    call(EDIT, context, file_path="win.txt", old_string="a", new_string="a1\na2")
    assert path.read_bytes() == b"a1\r\na2\r\nb\r\n"


@pytest.mark.parametrize(
    ("description", "raw", "expected"),
    [
        ("a BOM is kept", b"\xef\xbb\xbfname = 1\n", b"\xef\xbb\xbfname = 2\n"),
        (
            "UTF-16 stays UTF-16",
            b"\xff\xfe" + "name = 1\n".encode("utf-16-le"),
            b"\xff\xfe" + "name = 2\n".encode("utf-16-le"),
        ),
        ("Latin-1 bytes around the edit are untouched", b"caf\xe9 name = 1\n", b"caf\xe9 name = 2\n"),
    ],
)
def test_the_encoding_is_kept(
    workspace: Path, context: ToolUseContext, description: str, raw: bytes, expected: bytes
) -> None:
    (workspace / "f.txt").write_bytes(raw)
    read(context, "f.txt")
    call(EDIT, context, file_path="f.txt", old_string="name = 1", new_string="name = 2")
    assert (workspace / "f.txt").read_bytes() == expected


def test_the_mode_is_kept_and_no_temporary_file_is_left(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "run.sh"
    path.write_text("echo 1\n")
    path.chmod(0o755)
    read(context, "run.sh")
    call(EDIT, context, file_path="run.sh", old_string="1", new_string="2")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert sorted(p.name for p in workspace.iterdir()) == ["run.sh"]


def test_an_empty_old_string_creates_a_new_file(workspace: Path, context: ToolUseContext) -> None:
    out = call(EDIT, context, file_path="new/mod.py", old_string="", new_string="x = 1\n")
    assert (workspace / "new" / "mod.py").read_text() == "x = 1\n"
    assert out == "File created successfully at: new/mod.py"


def test_an_empty_old_string_on_an_existing_file_is_refused(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "a.txt").write_text("content\n")
    read(context, "a.txt")
    assert "file already exists" in call_error(EDIT, context, file_path="a.txt", old_string="", new_string="x")


def test_a_missing_file_uses_stable_wording(workspace: Path, context: ToolUseContext) -> None:
    with pytest.raises(Rejected, match=r"gone\.txt: no such file or directory"):
        call(EDIT, context, file_path="gone.txt", old_string="a", new_string="b")


def test_notebooks_are_sent_to_notebook_edit(workspace: Path, context: ToolUseContext) -> None:
    with pytest.raises(Rejected, match="Use the NotebookEdit tool"):
        call(EDIT, context, file_path="n.ipynb", old_string="a", new_string="b")


def test_a_binary_file_is_not_edited(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "b.dat"
    path.write_bytes(b"ab\x00cd")
    context.read_file_state.record(path.resolve(), b"ab\x00cd", path.stat().st_mtime_ns)
    assert "binary file" in call_error(EDIT, context, file_path="b.dat", old_string="ab", new_string="xy")


def test_edit_is_an_edit_tool_with_the_path_as_subject() -> None:
    from bot.tools.edit import EditInput

    inp = EditInput(file_path="src/a.py", old_string="a", new_string="b")
    assert EDIT.is_edit_tool and EDIT.permission_subject(inp) == "src/a.py"
    assert not EDIT.is_concurrency_safe(inp) and not EDIT.is_read_only(inp)


def test_through_the_pipeline_edits_need_an_allow_rule(workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.txt").write_text("x\n")
    denied = context_for(workspace, tmp_path / "s1", allow=("Read",))
    run_tool(denied, "Read", {"file_path": "a.txt"})
    outcome = run_tool(denied, "Edit", {"file_path": "a.txt", "old_string": "x", "new_string": "y"})
    assert outcome.result.is_error and "no allow rule covers" in outcome.result.text
    allowed = context_for(workspace, tmp_path / "s2", allow=("Read", "Edit(*.txt)"))
    run_tool(allowed, "Read", {"file_path": "a.txt"})
    outcome = run_tool(allowed, "Edit", {"file_path": "a.txt", "old_string": "x", "new_string": "y"})
    assert not outcome.result.is_error, outcome.result.text
    assert (workspace / "a.txt").read_text() == "y\n"


def test_an_empty_old_string_fills_an_empty_file(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "empty.txt").write_text("")
    read(context, "empty.txt")
    call(EDIT, context, file_path="empty.txt", old_string="", new_string="first line\n")
    assert (workspace / "empty.txt").read_text() == "first line\n"
