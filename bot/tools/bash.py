"""Bash: run a shell command in the workspace (seeds 4.6, 8.1) — the execution side.

Judging the command (security checks, rules, read-only and concurrency classification, exit-code
semantics) belongs to :mod:`bot.shell.api`; this module runs it:

* in the sandbox when the policy and the machine allow (:mod:`bot.shell.sandbox.status`), with an
  environment built from an allowlist (:mod:`bot.shell.execute.env`);
* in its own process group, killed as a group on timeout, abort or cancellation; stdout and stderr
  streamed as ``progress("stdout"|"stderr", line=...)`` events, redacted;
* from a persistent working directory: where the shell ends (``cd``) becomes the next command's
  directory through a context modifier, if it is inside the workspace or an additional directory;
* output returned whole (up to what was captured), an image data URL as an image, secrets
  redacted. One limit applies, once: stage 6 persists a result over 30,000 characters
  (``BASH_MAX_OUTPUT_LENGTH``, at most the seeds' 50,000 clamp) to the run's ``tool-results/`` and
  the model gets a preview and the file, which Read and Grep may open. Cutting here as well would
  lose everything after the cut, because the persisted copy would hold only what was left;
* ``run_in_background``: started as a task of the run (:mod:`bot.shell.execute.background`), output to a file,
  read with TaskOutput, stopped with TaskStop. The field is absent from the schema when background
  tasks are disabled (``BOT_DISABLE_BACKGROUND_TASKS``).

Policy keys read from ``PermissionContext.extra``: ``sandbox``, ``network``, ``allow_unsandboxed``,
``excluded_commands``, ``allow_sudo`` (see :mod:`bot.shell.sandbox.status`) and ``env``,
``env_passthrough``, ``secret_env`` (see :mod:`bot.shell.execute.env`).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import stat
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.core.guard import tool_redactor
from bot.core.redact import Redactor
from bot.core.secrets import full_environ
from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress, ToolResultContent
from bot.interface.tool import VALID, InputSchemaError, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.decision import PermissionResult
from bot.shell.execute.background import SERVICE_KEY as TASKS_KEY
from bot.shell.execute.background import BackgroundTask, BackgroundTasks, TaskLimitReached, background_tasks_enabled
from bot.shell.execute.env import build_child_env, policy_env_settings
from bot.shell.execute.process import (
    CAPTURE_LIMIT_BYTES,
    FormattedOutput,
    ProcessResult,
    format_output,
    image_block,
    max_output_length,
    run_process,
    shell_argv,
)
from bot.tools.coercion import SemanticBool, SemanticFloat
from bot.tools.paths import outside_allowed_roots

#: Seeds 8.1.1: ``getDefaultTimeoutMs()`` / ``getMaxTimeoutMs()``; the variables override them.
DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
DEFAULT_TIMEOUT_ENV = "BASH_DEFAULT_TIMEOUT_MS"
MAX_TIMEOUT_ENV = "BASH_MAX_TIMEOUT_MS"
#: The API refuses larger images (5 MB); a bigger data URL is shown as (truncated) text.
MAX_IMAGE_DATA_CHARS = 5 * 1024 * 1024


class BashInput(ToolInput):
    command: str = Field(description="The command to execute")
    # A number, as the seeds' semanticNumber: "4.2" and 4.2 are accepted (and rounded up to whole
    # milliseconds), not only integers.
    timeout: SemanticFloat | None = Field(
        default=None, ge=0, description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})"
    )
    description: str | None = Field(
        default=None,
        description="A clear, concise description of what this command does in 5-10 words, in active voice",
    )
    run_in_background: SemanticBool | None = Field(
        default=None,
        description="Set to true to run this command in the background. Use TaskOutput to read the output later "
        "and TaskStop to stop it.",
    )
    dangerouslyDisableSandbox: SemanticBool | None = Field(
        default=None,
        description="Set to true to run this command without the sandbox. Honoured only when the policy allows it.",
    )


class BashOutput(BaseModel):
    """The call's output; also the ``tool_response`` PostToolUse hooks receive (Claude Code's
    camelCase names, hence no snake case here). Built at the first command, not when the pool
    is listed."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    stdout: str = ""
    stderr: str = ""
    exitCode: int | None = None
    interrupted: bool = False
    timedOut: bool = False
    isImage: bool = False
    returnCodeInterpretation: str | None = None
    backgroundTaskId: str | None = None
    outputFile: str | None = None
    sandboxed: bool = False
    cwd: str = ""
    notes: tuple[str, ...] = ()


class BashTool(Tool[BashInput, BashOutput]):
    """Executes a bash command in the workspace and returns its output. The working directory persists
    between commands (a `cd` inside the workspace carries over). Commands run in a sandbox when the
    policy requires it: read-only system, writable workspace, private /tmp, usually no network.
    Output over 30000 characters is saved to a file: you see its start and the file's path, which
    you can Read (offset/limit) or Grep. Default timeout 2 minutes, at most 10
    minutes. Prefer the Read, Edit, Glob and Grep tools for reading, editing and finding files."""

    name = "Bash"
    search_hint = "shell command run execute terminal bash sh script"
    max_result_chars = 30_000
    input_model = BashInput
    matches_own_rule_content = True  # compound commands are matched per subcommand by the analysis
    aborts_siblings_on_error = True  # seeds 4.5: a failed command cancels its batch siblings

    def __init__(self, *, background_tasks: bool | None = None) -> None:
        self.background_tasks = background_tasks_enabled() if background_tasks is None else background_tasks

    def result_limit(self) -> float:
        return float(max_output_length())

    # ----- schema -------------------------------------------------------------------------------

    def input_json_schema(self) -> dict[str, Any]:
        schema = super().input_json_schema()
        if self.background_tasks:
            return schema
        schema = copy.deepcopy(schema)
        schema.get("properties", {}).pop("run_in_background", None)
        return schema

    def parse_input(self, raw: Any) -> BashInput:
        if not self.background_tasks and isinstance(raw, dict) and "run_in_background" in raw:
            raise InputSchemaError(
                f"{self.name} failed due to the following issue:\n"
                "An unexpected parameter `run_in_background` was provided"
            )
        return super().parse_input(raw)

    def prompt(self) -> str:
        return (
            "Quote paths that contain spaces. Chain dependent commands with `&&`. Avoid interactive "
            "commands (no prompts can be answered). Use `run_in_background` for servers and long jobs "
            "you do not need to wait for, then TaskOutput to check on them."
        )

    # ----- safety flags: delegated to the command analysis ----------------------------------------
    # (bot.shell.api, the parser and judge, loads at the first command, not with the tool: listing
    # the pool or checking a Read needs the tool's schema only.)

    def is_read_only(self, input: BashInput) -> bool:
        from bot.shell.api import is_read_only_command

        return is_read_only_command(input.command)

    def is_concurrency_safe(self, input: BashInput) -> bool:
        from bot.shell.api import is_concurrency_safe_command

        return is_concurrency_safe_command(input.command)

    def is_destructive(self, input: BashInput) -> bool:
        from bot.shell.api import is_read_only_command

        return not is_read_only_command(input.command)

    def permission_subject(self, input: BashInput) -> str:
        return input.command

    async def check_permissions(self, input: BashInput, context: ToolUseContext) -> PermissionResult:
        from bot.shell.api import check_bash_permissions

        return check_bash_permissions(input.command, context)

    async def validate_input(self, input: BashInput, context: ToolUseContext) -> ValidationResult:
        if not input.command.strip():
            return ValidationReject("The command is empty", code=1)
        if "\x00" in input.command:
            return ValidationReject("The command contains a NUL character", code=2)
        return VALID

    def summarize_input(self, input: BashInput) -> str:
        command = input.command if len(input.command) <= 120 else input.command[:119] + "…"
        return command.replace("\n", " ⏎ ")

    # ----- execution ----------------------------------------------------------------------------

    async def call(self, input: BashInput, context: ToolUseContext, progress: Progress) -> ToolResult[BashOutput]:
        # The sandbox's code loads with the first command (a run prepares the sandbox itself once its
        # first model request is out: bot.orchestration.session.PendingSandbox).
        from bot.shell.sandbox.status import (
            Refused,
            Sandboxed,
            decide_sandbox,
            ensure_sandbox,
            is_excluded_command,
            sandbox_scratch,
            sandbox_settings,
        )

        settings = sandbox_settings(context.permission.extra)
        policy_env, passthrough, secret_env = policy_env_settings(context.permission.extra)
        redact = tool_redactor(context.services, secret_env)
        # The parent includes the captured secrets so that a variable whose value equals one is refused.
        base_env = build_child_env(
            full_environ(), policy_env=policy_env, passthrough=passthrough, secret_names=secret_env
        ).env
        status = await ensure_sandbox(context, base_env)
        excluded = is_excluded_command(input.command, settings.excluded_commands)
        choice = decide_sandbox(
            settings,
            available=status.available,
            unavailable_reason=status.reason,
            disable_requested=bool(input.dangerouslyDisableSandbox),
            excluded=excluded,
        )
        if isinstance(choice, Refused):
            raise ToolExecutionError(f"Refused to run the command: {choice.reason}")
        sandboxed = isinstance(choice, Sandboxed)
        notes: list[str] = []
        if input.dangerouslyDisableSandbox and sandboxed:
            notes.append("(dangerouslyDisableSandbox was ignored: the policy does not allow unsandboxed commands.)")
        env = status.command_env(choice, base_env)
        cwd, reset_note = _start_directory(context)
        if reset_note:
            notes.append(reset_note)

        if input.run_in_background:
            argv = status.launch_argv(choice, shell_argv(input.command), cwd=cwd)
            return self._start_background(input, context, argv, cwd, env, sandboxed, notes)

        # The shell writes where it ended into this marker, so it lives where a sandboxed shell may
        # write: the sandbox's own directory, never beside the transcript.
        markers = sandbox_scratch(context.scratch_dir) / "bash"
        markers.mkdir(parents=True, exist_ok=True)
        cwd_file = markers / f"cwd-{uuid.uuid4().hex}"
        argv = status.launch_argv(choice, shell_argv(input.command, cwd_file=cwd_file), cwd=cwd)

        def on_line(stream: str, line: str) -> None:
            progress(stream, line=redact(line))

        try:
            result = await run_process(
                argv, cwd=cwd, env=env, timeout_s=timeout_ms(input.timeout) / 1000, abort=context.abort, on_line=on_line
            )
        except OSError as exc:
            raise ToolExecutionError(f"Could not start the shell: {exc}") from None
        finally:
            ended_in = _read_cwd_file(cwd_file)
        modifier, cwd_note = _directory_change(context, cwd, ended_in)
        if cwd_note:
            notes.append(cwd_note)
        output, is_error = _output(
            input.command,
            result,
            redact,
            cwd=ended_in if modifier and ended_in else cwd,
            sandboxed=sandboxed,
            notes=notes,
        )
        return ToolResult(output, context_modifier=modifier, is_error=is_error)

    def _start_background(
        self,
        input: BashInput,
        context: ToolUseContext,
        argv: list[str],
        cwd: Path,
        env: Mapping[str, str],
        sandboxed: bool,
        notes: list[str],
    ) -> ToolResult[BashOutput]:
        tasks = context.services.get(TASKS_KEY)
        if not self.background_tasks or not isinstance(tasks, BackgroundTasks):
            raise ToolExecutionError(
                "Background tasks are not available in this run; run the command in the "
                "foreground (without run_in_background)."
            )

        async def body(task: BackgroundTask) -> int | None:
            result = await run_process(argv, cwd=cwd, env=env, output_file=task.output_path)
            return result.exit_code

        try:
            task = tasks.start("bash", input.description or self.summarize_input(input), body)
        except TaskLimitReached as exc:
            raise ToolExecutionError(str(exc)) from None
        return ToolResult(
            BashOutput(
                backgroundTaskId=task.id,
                outputFile=str(task.output_path),
                sandboxed=sandboxed,
                cwd=str(cwd),
                notes=tuple(notes),
            )
        )

    # ----- result -------------------------------------------------------------------------------

    def map_result(self, output: BashOutput) -> ToolResultContent:
        if output.backgroundTaskId is not None:
            text = (
                f"Command running in background with ID: {output.backgroundTaskId}. Output is being written "
                f"to: {output.outputFile}. Use TaskOutput to read it and TaskStop to stop it."
            )
            return "\n".join([text, *output.notes])
        if output.isImage:
            block = image_block(output.stdout)
            if block is not None:
                return [block]
        parts = [p for p in (output.stdout.rstrip("\n"), output.stderr.rstrip("\n")) if p]
        if output.timedOut:
            parts.append("Command timed out and was stopped (its whole process group was killed).")
        elif output.interrupted:
            parts.append("Command was aborted before completion.")
        elif output.returnCodeInterpretation:
            parts.append(output.returnCodeInterpretation)
        elif output.exitCode not in (0, None):
            parts.append(f"Exit code {output.exitCode}")
        parts += output.notes
        return "\n".join(parts) if parts else "(no output)"


def timeout_ms(requested: float | None, environ: Mapping[str, str] | None = None) -> int:
    """The call's timeout: the request (or the default), at most the maximum (seeds 8.1.1)."""
    environ = os.environ if environ is None else environ
    default = _positive_int(environ.get(DEFAULT_TIMEOUT_ENV)) or DEFAULT_TIMEOUT_MS
    ceiling = max(_positive_int(environ.get(MAX_TIMEOUT_ENV)) or MAX_TIMEOUT_MS, default)
    value = math.ceil(requested) if requested else default
    return min(value, ceiling)


def _positive_int(raw: str | None) -> int | None:
    try:
        value = int(raw or "")
    except ValueError:
        return None
    return value if value > 0 else None


def _start_directory(context: ToolUseContext) -> tuple[Path, str | None]:
    cwd = context.working_directory
    if cwd.is_dir() and not outside_allowed_roots(cwd.resolve(), context):
        return cwd, None
    return context.workspace, f"Shell cwd was reset to {context.workspace}"


#: A path is at most PATH_MAX (4096) bytes on Linux; a longer marker is not one the shell wrote.
MAX_CWD_MARKER_BYTES = 4096


def _read_cwd_file(path: Path) -> Path | None:
    """Where the command ended. The marker lies in the sandbox's writable corner, so the command may
    have replaced it: a link is not followed, a FIFO is not waited on, a device is not read, and no
    more than a path's worth of bytes is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    try:
        data = os.read(fd, MAX_CWD_MARKER_BYTES + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        data = b""
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
    text = data.decode("utf-8", errors="surrogateescape").strip()
    if len(data) > MAX_CWD_MARKER_BYTES or not text.startswith("/"):
        return None
    return Path(text)


def _directory_change(context: ToolUseContext, before: Path, after: Path | None) -> tuple[Any, str | None]:
    """The context modifier for a ``cd``, confined to the workspace and additional directories."""
    if after is None or after == before:
        return None, None
    if outside_allowed_roots(after, context):
        return None, (
            f"(The working directory stays {before}: {after} is outside the workspace and the "
            "policy's additional directories.)"
        )

    def modifier(ctx: ToolUseContext) -> ToolUseContext:
        return ctx.with_(cwd=after)

    return modifier, None


def _output(
    command: str, result: ProcessResult, redact: Redactor, *, cwd: Path, sandboxed: bool, notes: list[str]
) -> tuple[BashOutput, bool]:
    """The output and whether it is an error (interrupted, or an exit code the command's semantics
    call an error: ``grep`` exiting 1 is not one)."""
    limit = max_output_length()
    stdout = _whole(redact(_strip(result.stdout.text())), result.stdout.dropped_newlines)
    stderr = _whole(redact(_strip(result.stderr.text())), result.stderr.dropped_newlines)
    is_image = stdout.is_image and len(stdout.content) <= MAX_IMAGE_DATA_CHARS
    if stdout.is_image and not is_image:
        stdout = format_output(stdout.content[: limit + 1] + "\n", limit)
        notes.append("(The command printed an image too large to return; write it to a file instead.)")
    if result.leftovers_killed:
        notes.append(
            "(Processes the command left running were stopped when it returned; use run_in_background for servers.)"
        )
    interpretation, is_error = None, True
    if not result.interrupted and result.exit_code is not None:
        from bot.shell.api import interpret_exit_code

        meaning = interpret_exit_code(command, result.exit_code, stdout.content, stderr.content)
        interpretation, is_error = meaning.message, meaning.is_error
    output = BashOutput(
        stdout=stdout.content,
        stderr=stderr.content,
        exitCode=result.exit_code,
        interrupted=result.interrupted,
        timedOut=result.timed_out,
        isImage=is_image,
        returnCodeInterpretation=interpretation,
        sandboxed=sandboxed,
        cwd=str(cwd),
        notes=tuple(notes),
    )
    return output, is_error


def _whole(text: str, dropped_lines: int) -> FormattedOutput:
    """The captured text, not cut (stage 6 persists what is large); lines beyond the capture limit
    were never kept, and the text says how many."""
    if dropped_lines == 0:
        return format_output(text, len(text))
    note = (
        f"... [{dropped_lines} more lines were not captured: output beyond {CAPTURE_LIMIT_BYTES // 1_048_576} MB] ..."
    )
    return FormattedOutput(text.count("\n") + 1 + dropped_lines, f"{text}\n\n{note}", truncated=True)


def _strip(text: str) -> str:
    """Leading blank lines and trailing whitespace cost tokens and say nothing."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip()
