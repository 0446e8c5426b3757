"""TaskOutput and TaskStop: the model's handles on the run's background tasks (seeds 4.6.6).

Both act only on tasks this run started (``context.services["tasks"]``, :mod:`bot.shell.execute.background`).
Their own permission check allows a call on such a task: starting the task was already decided
by the permission chain, and reading its output or stopping it reaches nothing the start did not
(deny rules, hooks and plan mode still come first in the chain).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from bot.core.guard import tool_redactor
from bot.errors import ToolInputError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.decision import Allow, Passthrough, PermissionResult
from bot.shell.execute.background import SERVICE_KEY, BackgroundTask, BackgroundTasks, background_tasks_enabled
from bot.shell.execute.process import max_output_length
from bot.tools.coercion import SemanticBool, SemanticInt

#: Claude Code's TaskOutput waits up to 30 s by default, at most 10 minutes.
DEFAULT_WAIT_MS = 30_000
MAX_WAIT_MS = 600_000


def _tasks(context: ToolUseContext) -> BackgroundTasks | None:
    tasks = context.services.get(SERVICE_KEY)
    return tasks if isinstance(tasks, BackgroundTasks) else None


def _own_task(task_id: str, context: ToolUseContext) -> PermissionResult:
    tasks = _tasks(context)
    if tasks is not None and tasks.get(task_id) is not None:
        return Allow("a background task this run started", source="tool")
    return Passthrough()


def _validate(task_id: str, context: ToolUseContext) -> ValidationResult:
    tasks = _tasks(context)
    if tasks is None:
        return ValidationReject("No background tasks are running in this run", code=1)
    if tasks.get(task_id) is None:
        known = ", ".join(t.id for t in tasks.all()) or "none"
        return ValidationReject(f"No background task with id {task_id!r} (known: {known})", code=2)
    return VALID


class TaskOutputInput(ToolInput):
    task_id: str = Field(description="The id of the background task (from Bash's run_in_background result)")
    block: SemanticBool = Field(default=True, description="Wait for the task to finish before returning")
    timeout: SemanticInt = Field(
        default=DEFAULT_WAIT_MS, ge=0, description=f"How long to wait, in milliseconds (max {MAX_WAIT_MS})"
    )


class TaskOutputTool(Tool[TaskOutputInput, dict[str, Any]]):
    """Reads the output of a background task (a command started with run_in_background). By default waits
    up to 30 seconds for it to finish; set block to false to read what it has printed so far. Shows the
    end of the output when it is long."""

    name = "TaskOutput"
    search_hint = "background task output status shell job log"
    max_result_chars = 30_000
    input_model = TaskOutputInput

    def is_enabled(self) -> bool:
        return background_tasks_enabled()

    def is_concurrency_safe(self, input: TaskOutputInput) -> bool:
        return True  # reads a file

    def is_read_only(self, input: TaskOutputInput) -> bool:
        return True

    def is_destructive(self, input: TaskOutputInput) -> bool:
        return False

    def permission_subject(self, input: TaskOutputInput) -> str:
        return input.task_id

    async def check_permissions(self, input: TaskOutputInput, context: ToolUseContext) -> PermissionResult:
        return _own_task(input.task_id, context)

    async def validate_input(self, input: TaskOutputInput, context: ToolUseContext) -> ValidationResult:
        return _validate(input.task_id, context)

    async def call(
        self, input: TaskOutputInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[dict[str, Any]]:
        tasks = _tasks(context)
        if tasks is None or tasks.get(input.task_id) is None:
            raise ToolInputError(f"No background task with id {input.task_id!r}")
        task = tasks.get(input.task_id)
        assert task is not None
        waited_out = False
        if input.block and not task.finished:
            task = await tasks.wait(input.task_id, min(input.timeout, MAX_WAIT_MS) / 1000)
            waited_out = not task.finished
        redact = tool_redactor(context.services)
        text, omitted = tasks.read_output(task, max_output_length())
        return ToolResult(_describe(task, redact(text), omitted, waited_out))

    def map_result(self, output: dict[str, Any]) -> str:
        lines = [
            f"<retrieval_status>{output['retrieval_status']}</retrieval_status>",
            f"<task_id>{output['task_id']}</task_id>",
            f"<task_type>{output['kind']}</task_type>",
            f"<status>{output['status']}</status>",
        ]
        if output["exit_code"] is not None:
            lines.append(f"<exit_code>{output['exit_code']}</exit_code>")
        if output["error"]:
            lines.append(f"<error>{output['error']}</error>")
        body = output["output"]
        if output["lines_omitted"]:
            body = (
                f"... [{output['lines_omitted']} earlier lines omitted; full output in "
                f"{output['output_file']}] ...\n{body}"
            )
        lines.append(f"<output>\n{body.rstrip()}\n</output>" if body.strip() else "<output>(no output yet)</output>")
        return "\n".join(lines)

    def summarize_input(self, input: TaskOutputInput) -> str:
        return input.task_id


def _describe(task: BackgroundTask, output: str, omitted: int, waited_out: bool) -> dict[str, Any]:
    return {
        "retrieval_status": "timeout" if waited_out else ("success" if task.finished else "not_ready"),
        "task_id": task.id,
        "kind": task.kind,
        "description": task.description,
        "status": task.state,
        "exit_code": task.exit_code,
        "error": task.error,
        "output": output,
        "lines_omitted": omitted,
        "output_file": str(task.output_path),
    }


class TaskStopInput(ToolInput):
    task_id: str = Field(description="The id of the background task to stop")


class TaskStopTool(Tool[TaskStopInput, dict[str, Any]]):
    """Stops a running background task (its whole process group is killed). Its output stays readable
    with TaskOutput."""

    name = "TaskStop"
    search_hint = "kill stop background task shell job"
    input_model = TaskStopInput

    def is_enabled(self) -> bool:
        return background_tasks_enabled()

    def is_destructive(self, input: TaskStopInput) -> bool:
        return False  # ends a process this run started; no file or history is touched

    def permission_subject(self, input: TaskStopInput) -> str:
        return input.task_id

    async def check_permissions(self, input: TaskStopInput, context: ToolUseContext) -> PermissionResult:
        return _own_task(input.task_id, context)

    async def validate_input(self, input: TaskStopInput, context: ToolUseContext) -> ValidationResult:
        return _validate(input.task_id, context)

    async def call(
        self, input: TaskStopInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[dict[str, Any]]:
        tasks = _tasks(context)
        task = tasks.get(input.task_id) if tasks is not None else None
        if tasks is None or task is None:
            raise ToolInputError(f"No background task with id {input.task_id!r}")
        was_running = not task.finished
        task = await tasks.stop(input.task_id)
        message = (
            f"Stopped task {task.id} ({task.description})."
            if was_running
            else f"Task {task.id} had already finished ({task.state}, exit code {task.exit_code})."
        )
        return ToolResult({"task_id": task.id, "status": task.state, "message": message})

    def map_result(self, output: dict[str, Any]) -> str:
        return str(output["message"])

    def summarize_input(self, input: TaskStopInput) -> str:
        return input.task_id
