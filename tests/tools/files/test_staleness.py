"""Read-before-write: what the model read is what gets written over (red-team cases)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from bot.errors import ToolInputError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import ValidationOk
from bot.tools.edit import EditTool
from bot.tools.read import ReadTool
from tests.tools.helpers import Rejected, call

EDIT = EditTool()


def test_new_content_under_a_restored_mtime_is_stale(workspace: Path, context: ToolUseContext) -> None:
    # `touch -r`/`cp -p`: the mtime is the one the model saw, the content is not.
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    call(ReadTool(), context, file_path="a.txt")
    seen = os.stat(path).st_mtime_ns
    path.write_text("x = 2\n")
    os.utime(path, ns=(seen, seen))
    with pytest.raises((Rejected, ToolInputError), match="modified since read"):
        call(EDIT, context, file_path="a.txt", old_string="x = 2", new_string="x = 3")
    assert path.read_text() == "x = 2\n"


def test_a_fifo_swapped_in_after_validation_fails_the_call_without_blocking(
    workspace: Path, context: ToolUseContext
) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\n")
    call(ReadTool(), context, file_path="a.txt")

    async def main() -> str:
        parsed = EDIT.parse_input({"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"})
        assert isinstance(await EDIT.validate_input(parsed, context), ValidationOk)
        path.unlink()
        os.mkfifo(path)  # no writer: a blocking open would hang the run
        with anyio.fail_after(10):
            try:
                await EDIT.call(parsed, context, Progress("t", "Edit"))
            except Exception as exc:
                return str(exc)
        return "written"

    assert "regular file" in anyio.run(main)
