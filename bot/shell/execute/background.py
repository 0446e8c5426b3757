"""Background tasks of a run (seeds 4.6.6, 8.1.4): started by a tool, outliving the call.

:class:`BackgroundTasks` is generic: a task is an async *body* that writes its output to a file and
returns an exit code. The Bash tool starts shell commands with it (``run_in_background``); the
agent loop can start background sub-agents the same way. It lives in
``ToolUseContext.services["tasks"]`` and is an async context manager owning a task group, so no
task is ever fire-and-forget::

    async with BackgroundTasks(scratch_dir / "tasks") as tasks:
        context.services[SERVICE_KEY] = tasks
        ...                       # the run
    # here every task has ended: stopped if it was still running, its final output recorded

A finished task is also queued as a notification (:meth:`BackgroundTasks.take_finished`) for the
agent loop to tell the model ("任务完成后通过通知机制告知模型").
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from bot.core.services import ServiceKey

log = logging.getLogger(__name__)

#: Where the run's :class:`BackgroundTasks` lives in ``ToolUseContext.services``.
SERVICE_KEY: ServiceKey[BackgroundTasks] = ServiceKey("tasks")
#: Set (to anything but ``0``/``false``) to disable background tasks: Bash loses ``run_in_background``.
DISABLE_ENV = "BOT_DISABLE_BACKGROUND_TASKS"
#: Tasks running at once in one run: a loop that starts servers must hit a wall.
MAX_RUNNING_TASKS = 16
#: Characters of a task's output kept in its record when it ends (for the run log and summary).
FINAL_OUTPUT_CHARS = 4_000


def background_tasks_enabled(environ: Mapping[str, str] | None = None) -> bool:
    raw = (os.environ if environ is None else environ).get(DISABLE_ENV, "")
    return raw.strip().lower() in ("", "0", "false", "no")


TaskState = Literal["running", "completed", "failed", "stopped"]


@dataclass(slots=True)
class BackgroundTask:
    id: str
    kind: str
    description: str
    output_path: Path
    state: TaskState = "running"
    exit_code: int | None = None
    error: str | None = None
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    #: The tail of the output, recorded (redacted) when the task ends.
    final_output: str | None = None
    stop_reason: str | None = None
    _done: anyio.Event = field(default_factory=anyio.Event, repr=False)
    _scope: anyio.CancelScope = field(default_factory=anyio.CancelScope, repr=False)

    @property
    def finished(self) -> bool:
        return self.state != "running"

    async def wait(self) -> None:
        await self._done.wait()

    def summary(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "description": self.description,
            "state": self.state,
            "exit_code": self.exit_code,
            "error": self.error,
            "stop_reason": self.stop_reason,
            "output_path": str(self.output_path),
            "final_output": self.final_output,
            "duration_s": None if self.ended_at is None else round(self.ended_at - self.started_at, 3),
        }


#: A task's work: given its record (for ``output_path``), run and return an exit code (or ``None``).
#: Raising marks it failed. Cancellation (stop, end of run) must clean up in ``finally``.
TaskBody = Callable[[BackgroundTask], Awaitable[int | None]]


class TaskLimitReached(Exception):
    """Too many tasks running; the message is model-readable."""


class BackgroundTasks:
    def __init__(
        self, directory: Path, *, redact: Callable[[str], str] = lambda text: text, max_running: int = MAX_RUNNING_TASKS
    ) -> None:
        self.directory = directory
        self._redact = redact
        self._max_running = max_running
        self._tasks: dict[str, BackgroundTask] = {}
        self._finished: list[BackgroundTask] = []
        self._ids = itertools.count(1)
        self._tg: TaskGroup | None = None

    async def __aenter__(self) -> BackgroundTasks:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        self.stop_all("the run ended")
        assert self._tg is not None
        try:
            return await self._tg.__aexit__(exc_type, exc, tb)
        finally:
            self._tg = None

    # ----- starting and looking up ---------------------------------------------------------------

    def start(self, kind: str, description: str, body: TaskBody) -> BackgroundTask:
        if self._tg is None:
            raise RuntimeError("BackgroundTasks is not open (use `async with`)")
        running = sum(1 for t in self._tasks.values() if not t.finished)
        if running >= self._max_running:
            raise TaskLimitReached(
                f"{running} background tasks are already running (the limit is "
                f"{self._max_running}); stop one with TaskStop first"
            )
        task_id = f"{kind}-{next(self._ids)}"
        task = BackgroundTask(task_id, kind, description, self.directory / f"{task_id}.output")
        task.output_path.touch()
        self._tasks[task_id] = task
        self._tg.start_soon(self._run, task, body, name=f"background task {task_id}")
        return task

    def get(self, task_id: str) -> BackgroundTask | None:
        return self._tasks.get(task_id)

    def all(self) -> list[BackgroundTask]:
        return list(self._tasks.values())

    def take_finished(self) -> list[BackgroundTask]:
        """Tasks that ended since the last call, for the agent loop's notifications."""
        out, self._finished = self._finished, []
        return out

    # ----- waiting and stopping --------------------------------------------------------------------

    async def wait(self, task_id: str, timeout_s: float | None) -> BackgroundTask:
        task = self._require(task_id)
        with anyio.move_on_after(timeout_s):
            await task.wait()
        return task

    async def stop(self, task_id: str, reason: str = "stopped by TaskStop") -> BackgroundTask:
        task = self._require(task_id)
        if not task.finished:
            task.stop_reason = reason
            task._scope.cancel()
            await task.wait()
        return task

    def stop_all(self, reason: str) -> None:
        for task in self._tasks.values():
            if not task.finished:
                task.stop_reason = reason
                task._scope.cancel()

    # ----- output ----------------------------------------------------------------------------------

    def read_output(self, task: BackgroundTask, max_chars: int) -> tuple[str, int]:
        """The output's last ``max_chars`` characters (redacted) and how many lines came before them."""
        try:
            raw = task.output_path.read_bytes()
        except OSError:
            return "", 0
        text = raw.decode("utf-8", errors="replace")
        if len(text) <= max_chars:
            return self._redact(text), 0
        cut = len(text) - max_chars
        return self._redact(text[cut:]), text.count("\n", 0, cut)

    def summary(self) -> list[dict[str, object]]:
        return [t.summary() for t in self._tasks.values()]

    # ----- internals ---------------------------------------------------------------------------------

    def _require(self, task_id: str) -> BackgroundTask:
        task = self._tasks.get(task_id)
        if task is None:
            known = ", ".join(self._tasks) or "none"
            raise KeyError(f"No background task with id {task_id!r} (known: {known})")
        return task

    async def _run(self, task: BackgroundTask, body: TaskBody) -> None:
        try:
            with task._scope:
                task.exit_code = await body(task)
                task.state = "completed"
            if task._scope.cancelled_caught:
                task.state = "stopped"
        except Exception as exc:
            task.state = "failed"
            task.error = f"{type(exc).__name__}: {exc}"
            log.warning("background task %s failed: %s", task.id, task.error)
        finally:
            if task.state == "running":  # cancelled from outside the task's own scope
                task.state = "stopped"
            task.ended_at = time.time()
            tail, _ = self.read_output(task, FINAL_OUTPUT_CHARS)
            task.final_output = tail
            self._finished.append(task)
            task._done.set()
