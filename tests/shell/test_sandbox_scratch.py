"""The files the bot keeps for the run (the transcript, task outputs, large results: the scratch
directory, later the uploaded artifact) live outside anything a sandboxed command can write. The
sandbox writes only its own sub-directory: the run's ``/tmp``, its cache, the Bash tool's markers."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress
from bot.permissions.context import PermissionContext
from bot.shell.sandbox.status import sandbox_scratch
from bot.tools.bash import BashTool
from tests.shell.sandbox_support import bwrap_works, prepare

__all__ = ["bwrap_works"]


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A scratch directory outside /tmp, so that a write which reaches it is not just a write into
    the run's private /tmp at the same path."""
    base = Path("/var/tmp") / f"bot-scratch-test-{uuid.uuid4().hex[:8]}"
    base.mkdir()
    try:
        yield base / "scratch"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _kept_files(scratch: Path) -> dict[Path, str]:
    files = {
        scratch / "transcript.jsonl": '{"turn": 1}\n',
        scratch / "tasks" / "1.out": "task output\n",
        scratch / "tool-results" / "toolu_1.txt": "large result\n",
        scratch / "outcome.json": "{}\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return files


@pytest.mark.usefixtures("bwrap_works")
def test_a_sandboxed_command_cannot_modify_the_transcript_or_task_outputs(tmp_path: Path, scratch: Path) -> None:
    files = _kept_files(scratch)
    ws = tmp_path / "ws"
    ws.mkdir()
    box = prepare(ws, scratch)
    attack = "; ".join(
        f"(echo forged >> {path}) 2>/dev/null && echo wrote; (rm -f {path}) 2>/dev/null" for path in files
    )
    result = box.out(f"{attack}; (mv {scratch}/tasks {scratch}/gone) 2>/dev/null && echo moved; echo done")

    assert result.split() == ["done"]
    assert {path: path.read_text() for path in files} == files


@pytest.mark.usefixtures("bwrap_works")
def test_the_sandbox_writes_only_its_own_sub_directory_of_the_scratch_directory(tmp_path: Path, scratch: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = prepare(ws, scratch)
    own = sandbox_scratch(scratch)
    result = box.out(f"echo kept > /tmp/t && echo ok > {own}/cache-probe && cat {own}/tmp/t")
    assert result == "kept\n"
    assert (own / "cache-probe").read_text() == "ok\n"
    assert box.status.spec is not None and scratch not in box.status.spec.writable


def _bash_context(ws: Path, scratch: Path) -> ToolUseContext:
    return make_context(ws, scratch_dir=scratch, permission=PermissionContext(extra={"sandbox": "required"}))


def _call(tool: BashTool, context: ToolUseContext, command: str) -> Any:
    async def main() -> Any:
        return await tool.call(tool.parse_input({"command": command}), context, Progress("toolu_1", "Bash"))

    return anyio.run(main)


@pytest.mark.usefixtures("bwrap_works")
def test_the_bash_tool_keeps_its_markers_and_cache_in_the_sandboxes_own_directory(
    tmp_path: Path, scratch: Path
) -> None:
    files = _kept_files(scratch)
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    tool = BashTool(background_tasks=False)
    context = _bash_context(ws, scratch)

    moved = _call(tool, context, 'cd sub && echo "$XDG_CACHE_HOME"')
    assert moved.data.sandboxed and moved.context_modifier is not None
    assert Path(moved.data.stdout.strip()).is_relative_to(sandbox_scratch(scratch))
    after = moved.context_modifier(context)
    assert _call(tool, after, "pwd").data.stdout.strip() == str(ws / "sub")

    forged = _call(tool, context, f"echo forged >> {scratch}/transcript.jsonl; echo $?")
    assert forged.data.stdout.strip() != "0"
    assert {path: path.read_text() for path in files} == files
