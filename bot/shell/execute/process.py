"""Running a command: its own process group, output streamed and bounded, killed as a group.

* :func:`run_process` starts ``argv`` with ``start_new_session=True`` (a new session and process
  group), stdin from ``/dev/null``, and either captures stdout/stderr (bounded:
  :class:`OutputCapture` keeps the head and counts what it drops) while reporting every line to a
  callback, or sends both to a file (background tasks).
* Timeout, abort signal and cancellation of the caller all end in the same ``finally``: the group
  gets ``SIGTERM``, then ``SIGKILL`` after :data:`KILL_GRACE_S` — a ``sleep`` grandchild included.
  When the command itself returns, processes it left behind in its group are killed too (servers
  belong in background tasks). A process that leaves the group (``setsid``) escapes this; inside
  the sandbox the PID namespace ends it anyway.
* :func:`shell_argv` wraps a command for ``bash``: ``eval`` keeps a command with broken syntax from
  swallowing what follows, and the shell's final directory is written to a file so the Bash tool
  can keep a persistent working directory (as the seeds' shell does with ``pwd -P >| file``).
* :func:`format_output` is the seeds' ``formatOutput`` (8.1.2): keep the head, say how many lines
  were cut, pass image data URLs through.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, Process

from bot.interface.abort import AbortSignal

#: Seeds 8.1.2: ``getMaxOutputLength()`` default; ``BASH_MAX_OUTPUT_LENGTH`` overrides it.
DEFAULT_MAX_OUTPUT_LENGTH = 30_000
#: Claude Code caps the override at 150,000 characters.
MAX_OUTPUT_LENGTH_CEILING = 150_000
MAX_OUTPUT_LENGTH_ENV = "BASH_MAX_OUTPUT_LENGTH"
#: Bytes of each stream kept in memory. UTF-8 needs at most 4 bytes a character, so this always
#: holds more than the longest output shown, with room for an image data URL (below).
CAPTURE_LIMIT_BYTES = 8 * 1024 * 1024
#: After SIGTERM, how long the group has before SIGKILL.
KILL_GRACE_S = 1.0
#: After the command returns, how long processes it left holding its pipes may keep writing.
DRAIN_TIMEOUT_S = 0.5
#: Progress events per command (a chatty build still produces a bounded number of events).
MAX_PROGRESS_LINES = 5_000
#: Longer lines are cut in progress events (the captured output keeps them).
MAX_PROGRESS_LINE_CHARS = 2_000

LineSink = Callable[[str, str], None]
"""``(stream, line)`` with ``stream`` ``"stdout"`` or ``"stderr"``."""


def max_output_length(environ: Mapping[str, str] | None = None) -> int:
    """The output length shown to the model: ``BASH_MAX_OUTPUT_LENGTH`` (bounded) or 30,000."""
    raw = (os.environ if environ is None else environ).get(MAX_OUTPUT_LENGTH_ENV, "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_OUTPUT_LENGTH
    return min(value, MAX_OUTPUT_LENGTH_CEILING) if value > 0 else DEFAULT_MAX_OUTPUT_LENGTH


@dataclass(slots=True)
class OutputCapture:
    """The head of a stream up to ``limit_bytes``; beyond it only bytes and newlines are counted."""

    limit_bytes: int = CAPTURE_LIMIT_BYTES
    head: bytearray = field(default_factory=bytearray)
    total_bytes: int = 0
    dropped_newlines: int = 0

    def feed(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        room = self.limit_bytes - len(self.head)
        if room > 0:
            self.head += chunk[:room]
        if len(chunk) > room:
            self.dropped_newlines += chunk.count(b"\n", max(room, 0))

    @property
    def truncated(self) -> bool:
        return self.total_bytes > len(self.head)

    def text(self) -> str:
        """The kept head, decoded (binary output never fails: invalid bytes become U+FFFD)."""
        return bytes(self.head).decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class ProcessResult:
    #: The return code; negative when a signal ended the process (``-15``: SIGTERM).
    exit_code: int | None
    stdout: OutputCapture
    stderr: OutputCapture
    timed_out: bool = False
    aborted: bool = False
    duration_s: float = 0.0
    #: Processes the command left behind in its group were killed when it returned.
    leftovers_killed: bool = False

    @property
    def interrupted(self) -> bool:
        return self.timed_out or self.aborted


class _LineEmitter:
    """Splits chunks into lines for the progress callback, within a budget shared by both streams."""

    def __init__(self, sink: LineSink | None) -> None:
        self._sink = sink
        self._budget = MAX_PROGRESS_LINES if sink is not None else 0
        self._pending: dict[str, bytes] = {"stdout": b"", "stderr": b""}

    def feed(self, stream: str, chunk: bytes) -> None:
        if self._budget <= 0:
            return
        data = self._pending[stream] + chunk
        *lines, rest = data.split(b"\n")
        if len(rest) > MAX_PROGRESS_LINE_CHARS * 4:  # a line without end: report it in pieces
            lines.append(rest)
            rest = b""
        self._pending[stream] = rest
        for line in lines:
            self._emit(stream, line)

    def flush(self, stream: str) -> None:
        rest, self._pending[stream] = self._pending[stream], b""
        if rest and self._budget > 0:
            self._emit(stream, rest)

    def _emit(self, stream: str, raw: bytes) -> None:
        if self._budget <= 0 or self._sink is None:
            return
        self._budget -= 1
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        if len(line) > MAX_PROGRESS_LINE_CHARS:
            line = line[:MAX_PROGRESS_LINE_CHARS] + "…"
        if self._budget == 0:
            line += f"\n… (more output; progress shows at most {MAX_PROGRESS_LINES} lines)"
        self._sink(stream, line)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float | None = None,
    abort: AbortSignal | None = None,
    on_line: LineSink | None = None,
    output_file: Path | None = None,
    capture_limit_bytes: int = CAPTURE_LIMIT_BYTES,
) -> ProcessResult:
    """Run ``argv`` to completion (or timeout, abort, cancellation) in its own process group.

    With ``output_file``, stdout and stderr are appended to that file instead of captured (and
    ``on_line`` is not called). Cancellation of the caller kills the group before it propagates.
    """
    started = time.perf_counter()
    stdout = OutputCapture(capture_limit_bytes)
    stderr = OutputCapture(capture_limit_bytes)
    emitter = _LineEmitter(on_line)
    flags = {"aborted": False, "exited": False, "leftovers": False}
    sink = None
    if output_file is not None:  # a local file: opening it does not block the loop for long
        sink = os.open(output_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        process = await anyio.open_process(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=sink if sink is not None else subprocess.PIPE,
            stderr=subprocess.STDOUT if sink is not None else subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    finally:
        if sink is not None:
            os.close(sink)  # the child holds its own descriptor
    try:
        with anyio.move_on_after(timeout_s) as deadline:
            async with anyio.create_task_group() as tg:
                if abort is not None:
                    tg.start_soon(_watch_abort, abort, tg.cancel_scope, flags)
                await _run_to_exit(process, stdout, stderr, emitter, flags)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if not flags["exited"]:
                await _terminate_group(process)
            else:
                _kill_group(process.pid, signal.SIGKILL)
            await process.aclose()
    return ProcessResult(
        exit_code=process.returncode,
        stdout=stdout,
        stderr=stderr,
        timed_out=deadline.cancelled_caught and not flags["aborted"],
        aborted=flags["aborted"],
        duration_s=time.perf_counter() - started,
        leftovers_killed=flags["leftovers"],
    )


async def _run_to_exit(
    process: Process, stdout: OutputCapture, stderr: OutputCapture, emitter: _LineEmitter, flags: dict[str, bool]
) -> None:
    done = {"stdout": anyio.Event(), "stderr": anyio.Event()}
    async with anyio.create_task_group() as io:
        if process.stdout is not None:
            io.start_soon(_pump, process.stdout, stdout, "stdout", emitter, done["stdout"])
        else:
            done["stdout"].set()
        if process.stderr is not None:
            io.start_soon(_pump, process.stderr, stderr, "stderr", emitter, done["stderr"])
        else:
            done["stderr"].set()
        await process.wait()
        flags["exited"] = True
        # Processes the command left in its group may still hold the pipes: a short drain, then
        # they are stopped, and their last output read.
        with anyio.move_on_after(DRAIN_TIMEOUT_S):
            for event in done.values():
                await event.wait()
        flags["leftovers"] = _kill_group(process.pid, signal.SIGKILL)
        with anyio.move_on_after(DRAIN_TIMEOUT_S):
            for event in done.values():
                await event.wait()
        io.cancel_scope.cancel()  # only a process that left the group can still hold a pipe here


async def _pump(
    stream: ByteReceiveStream, capture: OutputCapture, name: str, emitter: _LineEmitter, done: anyio.Event
) -> None:
    try:
        async for chunk in stream:
            capture.feed(chunk)
            emitter.feed(name, chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        emitter.flush(name)
        done.set()


async def _watch_abort(abort: AbortSignal, scope: anyio.CancelScope, flags: dict[str, bool]) -> None:
    await abort.wait()
    flags["aborted"] = True
    scope.cancel()


async def _terminate_group(process: Process) -> None:
    """SIGTERM to the group, SIGKILL after the grace period (to the group: grandchildren too)."""
    _kill_group(process.pid, signal.SIGTERM)
    with anyio.move_on_after(KILL_GRACE_S):
        await process.wait()
    _kill_group(process.pid, signal.SIGKILL)
    await process.wait()


def _kill_group(pgid: int, sig: signal.Signals) -> bool:
    """Signal a process group; ``True`` when it still had members."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


# ----- the shell ---------------------------------------------------------------------------------


def find_shell(environ: Mapping[str, str] | None = None) -> str:
    """``bash`` (``/bin/bash`` first), else ``/bin/sh``."""
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    path = (os.environ if environ is None else environ).get("PATH")
    return shutil.which("bash", path=path) or "/bin/sh"


def shell_argv(command: str, *, cwd_file: Path | None = None, shell: str | None = None) -> list[str]:
    """``bash -c`` for ``command``: evaluated with ``eval`` (a syntax error stays inside the command,
    exit status 2), then ``pwd -P`` written to ``cwd_file`` and the command's status returned."""
    script = f"eval {shlex.quote(command)}"
    if cwd_file is not None:
        script += f"\n__bot_status=$?\npwd -P >| {shlex.quote(str(cwd_file))} 2>/dev/null\nexit $__bot_status"
    return [shell or find_shell(), "-c", script]


# ----- formatting (seeds 8.1.2) -------------------------------------------------------------------

_IMAGE_DATA_URL = re.compile(r"^data:image/([a-z0-9.+_\-]+);base64,", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FormattedOutput:
    total_lines: int
    content: str
    is_image: bool = False
    truncated: bool = False


def is_image_output(content: str) -> bool:
    return _IMAGE_DATA_URL.match(content) is not None


def format_output(
    content: str,
    max_length: int = DEFAULT_MAX_OUTPUT_LENGTH,
    *,
    dropped_lines: int = 0,
) -> FormattedOutput:
    """Seeds ``formatOutput``: an image passes whole; text over ``max_length`` keeps its head and
    ends with ``... [N lines truncated] ...``. ``dropped_lines`` counts newlines that were never
    captured (beyond :data:`CAPTURE_LIMIT_BYTES`)."""
    if is_image_output(content) and dropped_lines == 0:
        return FormattedOutput(1, content, is_image=True)
    total = content.count("\n") + 1 + dropped_lines
    if len(content) <= max_length and dropped_lines == 0:
        return FormattedOutput(total, content)
    remaining = content.count("\n", max_length) + 1 + dropped_lines
    return FormattedOutput(total, f"{content[:max_length]}\n\n... [{remaining} lines truncated] ...", truncated=True)


def image_block(content: str) -> dict[str, object] | None:
    """An API image block for a ``data:image/...;base64,`` output, or ``None``."""
    match = _IMAGE_DATA_URL.match(content)
    if match is None:
        return None
    media_type = f"image/{match.group(1).lower()}"
    data = re.sub(r"\s+", "", content[match.end() :])
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
