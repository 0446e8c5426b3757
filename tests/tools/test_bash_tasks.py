"""Background commands: started by Bash, read with TaskOutput, stopped with TaskStop, ended with the run.

Ordering is driven by a FIFO the test controls: the command blocks reading it, the test's write
releases it. No sleeps.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.permissions.chain import RuleEngine
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Allow
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.shell.execute.background import SERVICE_KEY, BackgroundTask, BackgroundTasks, TaskLimitReached
from bot.tools.bash import BashTool
from bot.tools.tasks import TaskOutputTool, TaskStopTool
from tests.shell.test_exec import wait_dead

TOKEN = "ghs_" + "B4ckgr0und" * 4


def task_context(tmp_path: Path) -> ToolUseContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    return make_context(ws, scratch_dir=tmp_path / "scratch", permission=PermissionContext(extra={"sandbox": "off"}))


class Session:
    """A run's tool runner with the background task service open."""

    def __init__(self, context: ToolUseContext, tasks: BackgroundTasks) -> None:
        self.context = context
        self.tasks = tasks
        self.runner = ToolRunner(ToolPool([BashTool(), TaskOutputTool(), TaskStopTool()]), RuleEngine())
        self._ids = 0
        self.last: str | None = None

    async def call(self, name: str, raw: dict[str, Any]) -> ToolCallOutcome:
        self._ids += 1
        return await self.runner.run(ToolUseBlock(f"toolu_{self._ids}", name, raw), self.context)

    async def bash_text(self, command: str) -> str:
        """Start a background command (called directly: the policy's Bash rules are not under test)."""
        tool = BashTool()
        result = await tool.call(
            tool.parse_input({"command": command, "run_in_background": True, "description": "test task"}),
            self.context,
            Progress("t", "Bash"),
        )
        self.last = result.data.backgroundTaskId
        return str(tool.map_result(result.data))

    async def bash(self, command: str) -> BackgroundTask:
        await self.bash_text(command)
        task = self.tasks.get(self.last or "")
        assert task is not None
        return task


def in_session(tmp_path: Path, body: Callable[[Session], Awaitable[Any]]) -> tuple[Any, BackgroundTasks]:
    context = task_context(tmp_path)

    async def main() -> tuple[Any, BackgroundTasks]:
        async with BackgroundTasks(context.scratch_dir / "tasks") as tasks:
            context.services[SERVICE_KEY] = tasks
            value = await body(Session(context, tasks))
        return value, tasks

    return anyio.run(main)


def make_fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    return fifo


async def release(fifo: Path, line: str = "go") -> None:
    """Opening the FIFO for writing returns once the command is blocked reading it."""

    def write() -> None:
        with open(fifo, "w") as f:
            f.write(line + "\n")

    await anyio.to_thread.run_sync(write)


def test_a_background_command_runs_while_the_model_continues_and_its_output_can_be_read(tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path)

    async def body(session: Session) -> tuple[str, str, str]:
        started = await session.bash_text(f"echo started; read x < {fifo}; echo got $x")
        task_id = started.split("ID: ")[1].split(".")[0]
        await release(fifo)
        done = await session.call("TaskOutput", {"task_id": task_id})  # blocks until the task ends
        return started, done.result.text, task_id

    (started, done, task_id), tasks = in_session(tmp_path, body)
    assert started.startswith("Command running in background with ID: bash-1.")
    assert "<status>completed</status>" in done and "<exit_code>0</exit_code>" in done
    assert "started\ngot go" in done
    assert tasks.take_finished()[0].id == task_id


def test_task_output_without_blocking_shows_a_running_task_so_far(tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path)

    async def body(session: Session) -> str:
        task = await session.bash(f"echo so-far; read x < {fifo}; sleep 60")
        await release(fifo)  # returns once the command reached the read: "so-far" is written
        outcome = await session.call("TaskOutput", {"task_id": task.id, "block": False})
        return outcome.result.text

    text, _ = in_session(tmp_path, body)
    assert "<retrieval_status>not_ready</retrieval_status>" in text
    assert "<status>running</status>" in text
    assert "<output>\nso-far\n</output>" in text


def test_a_blocking_read_gives_up_after_its_timeout(tmp_path: Path) -> None:
    async def body(session: Session) -> str:
        task = await session.bash("sleep 60")
        outcome = await session.call("TaskOutput", {"task_id": task.id, "timeout": 50})
        return outcome.result.text

    text, tasks = in_session(tmp_path, body)
    assert "<retrieval_status>timeout</retrieval_status>" in text
    assert "<status>running</status>" in text
    assert tasks.all()[0].state == "stopped"  # and the run's end stopped it


def test_task_stop_kills_the_task_and_its_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    fifo = make_fifo(tmp_path)

    async def body(session: Session) -> tuple[str, str]:
        task = await session.bash(f"sleep 60 & echo $! > {pidfile}; read x < {fifo}; wait")
        stopped = await session.call("TaskStop", {"task_id": task.id})
        again = await session.call("TaskStop", {"task_id": task.id})
        return stopped.result.text, again.result.text

    (stopped, again), tasks = in_session(tmp_path, body)
    assert stopped == "Stopped task bash-1 (test task)."
    assert again.startswith("Task bash-1 had already finished (stopped")
    assert tasks.all()[0].state == "stopped"
    if pidfile.exists() and pidfile.read_text().strip():
        assert wait_dead(int(pidfile.read_text()))


def test_the_end_of_the_run_stops_every_task_and_records_its_final_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    fifo = make_fifo(tmp_path)

    async def body(session: Session) -> BackgroundTask:
        task = await session.bash(f"echo {TOKEN}; echo last words; read x < {fifo}")
        await release(fifo, "")
        await task.wait()
        return await session.bash("echo still running; sleep 60")

    running, tasks = in_session(tmp_path, body)
    summary = {t["id"]: t for t in tasks.summary()}
    assert summary[running.id]["state"] == "stopped"
    assert summary[running.id]["stop_reason"] == "the run ended"
    first = summary["bash-1"]
    assert first["state"] == "completed"
    assert first["final_output"] == f"{TOKEN}\nlast words\n"  # the service here has no redactor


def test_task_output_redacts_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)

    async def body(session: Session) -> str:
        task = await session.bash(f"echo {TOKEN}")
        await task.wait()
        return (await session.call("TaskOutput", {"task_id": task.id})).result.text

    text, _ = in_session(tmp_path, body)
    assert TOKEN not in text
    assert "[REDACTED:GITHUB_TOKEN]" in text


def test_task_tools_are_allowed_on_the_runs_own_tasks_and_reject_unknown_ones(tmp_path: Path) -> None:
    async def body(session: Session) -> tuple[ToolCallOutcome, ToolCallOutcome]:
        task = await session.bash("true")
        await task.wait()
        own = await session.call("TaskOutput", {"task_id": task.id, "block": False})
        unknown = await session.call("TaskStop", {"task_id": "bash-99"})
        return own, unknown

    (own, unknown), _ = in_session(tmp_path, body)
    assert isinstance(own.record.decision, Allow) and not own.result.is_error
    assert unknown.result.is_error
    assert "No background task with id 'bash-99' (known: bash-1)" in unknown.result.text


def test_too_many_running_tasks_hit_a_limit(tmp_path: Path) -> None:
    async def body(session: Session) -> None:
        limited = BackgroundTasks(tmp_path / "limited", max_running=1)
        async with limited:

            async def forever(task: BackgroundTask) -> int:
                await anyio.sleep_forever()
                return 0

            limited.start("agent", "one", forever)
            with pytest.raises(TaskLimitReached, match="limit is 1"):
                limited.start("agent", "two", forever)

    in_session(tmp_path, body)


def test_a_failing_task_body_is_recorded_as_failed(tmp_path: Path) -> None:
    async def body(session: Session) -> BackgroundTask:
        async def broken(task: BackgroundTask) -> int:
            raise RuntimeError("no such agent")

        task = session.tasks.start("agent", "a sub-agent", broken)
        await task.wait()
        return task

    task, _ = in_session(tmp_path, body)
    assert task.state == "failed"
    assert task.error == "RuntimeError: no such agent"


def test_the_task_tools_are_disabled_with_background_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_DISABLE_BACKGROUND_TASKS", "1")
    assert not TaskOutputTool().is_enabled()
    assert not TaskStopTool().is_enabled()
    assert "run_in_background" not in BashTool().input_json_schema()["properties"]
