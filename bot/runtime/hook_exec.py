"""Running one hook command: JSON on stdin, exit code and output back, never breaking the run.

A hook that hangs is killed (its whole process group) at its timeout; one that prints megabytes
is read to the end but only the first ``MAX_HOOK_OUTPUT_BYTES`` are kept; one that does not read
its stdin, crashes, or cannot start is a non-blocking error. Nothing here raises to the caller.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, Process

from bot.core.bounded import load_json
from bot.errors import ConfigError
from bot.runtime.hook_config import HookCommand

#: Kept per stream; the rest is read and dropped so the hook never blocks on a full pipe.
MAX_HOOK_OUTPUT_BYTES = 256 * 1024
#: Claude Code's blocking exit code.
BLOCKING_EXIT_CODE = 2


@dataclass(frozen=True, slots=True)
class HookRun:
    command: HookCommand
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    #: Why the hook could not run at all (not found, not executable...).
    error: str | None = None
    duration_s: float = 0.0
    #: Why the hook was not started (its script changed in the checkout).
    skipped: str | None = None

    @property
    def blocked(self) -> bool:
        return self.exit_code == BLOCKING_EXIT_CODE

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0

    def json_output(self) -> dict[str, Any] | None:
        """stdout parsed as a JSON object when the hook succeeded and printed one."""
        if not self.succeeded:
            return None
        text = self.stdout.strip()
        if not text.startswith("{"):
            return None
        try:  # a hook's output is the checkout's script's: bounded like any untrusted JSON
            data = load_json(
                text, source=f"the output of hook `{self.command.command}`", max_bytes=MAX_HOOK_OUTPUT_BYTES
            )
        except ConfigError:
            return None
        return data if isinstance(data, dict) else None

    def describe_failure(self) -> str:
        if self.error:
            return f"hook `{self.command.command}` could not run: {self.error}"
        if self.timed_out:
            return f"hook `{self.command.command}` timed out after {self.command.timeout_s:g} s"
        detail = self.stderr.strip().splitlines()[-1:] or [""]
        return f"hook `{self.command.command}` exited with {self.exit_code}: {detail[0][:300]}"


def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def hook_argv(hook: HookCommand) -> list[str]:
    """The command line of a hook before it is confined (:mod:`bot.shell.execute.confine`)."""
    return [_shell(), "-c", hook.command]


async def run_hook_command(
    hook: HookCommand,
    payload: Mapping[str, Any],
    *,
    cwd: Path,
    env: Mapping[str, str],
    argv: Sequence[str] | None = None,
) -> HookRun:
    """Run one hook. ``argv`` is the confined command line (the sandbox around :func:`hook_argv`);
    ``env`` is the secret-free environment built from the allowlist — nothing else reaches it."""
    started = time.perf_counter()
    data = (json.dumps(payload, ensure_ascii=False) + "\n").encode()
    try:
        process = await anyio.open_process(
            list(argv) if argv is not None else hook_argv(hook),
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        return HookRun(hook, None, "", "", error=str(exc), duration_s=time.perf_counter() - started)

    out = bytearray()
    err = bytearray()
    timed_out = False
    try:
        with anyio.move_on_after(hook.timeout_s) as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_feed, process, data)
                assert process.stdout is not None and process.stderr is not None
                tg.start_soon(_drain, process.stdout, out)
                tg.start_soon(_drain, process.stderr, err)
            await process.wait()
        timed_out = scope.cancelled_caught
    finally:
        if process.returncode is None:
            _kill_group(process)
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            # Closing the pipes closes the event loop's transport too: left open (a timed-out hook's
            # output was never read to its end), it is finalised after the loop ended and raises
            # "Event loop is closed" from whatever garbage collection comes next.
            await process.aclose()
    return HookRun(
        hook,
        None if timed_out else process.returncode,
        out.decode(errors="replace"),
        err.decode(errors="replace"),
        timed_out=timed_out,
        duration_s=time.perf_counter() - started,
    )


async def _feed(process: Process, data: bytes) -> None:
    assert process.stdin is not None
    try:
        await process.stdin.send(data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the hook did not read its input: allowed
    finally:
        with contextlib.suppress(anyio.BrokenResourceError, OSError):
            await process.stdin.aclose()


async def _drain(stream: ByteReceiveStream, into: bytearray) -> None:
    try:
        async for chunk in stream:
            room = MAX_HOOK_OUTPUT_BYTES - len(into)
            if room > 0:
                into.extend(chunk[:room])
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass


def _kill_group(process: Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
