"""The ripgrep binary, and running it without a shell.

The ``ripgrep`` wheel puts only a binary at ``<venv>/bin/rg``; a system ``rg`` may shadow it on
``PATH``, so the interpreter's own scripts directory is looked at first.

:func:`stream_rg` hands rg's output over line by line *while rg is still walking*: Glob and Grep
stat and filter the paths as they arrive (on two cores that hides most of the cost), and a
consumer that has what it needs stops rg early. rg never reads our stdin (it would search it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import anyio

from bot.core.search_path import host_search_path
from bot.errors import ToolExecutionError

#: A search that takes longer is stopped (Claude Code's Grep/Glob use the same order of magnitude).
RG_TIMEOUT_S = 60.0
#: rg's stderr kept for the error message (unreadable files can make it long).
MAX_STDERR_BYTES = 16 * 1024
#: rg's stdout pipe is enlarged to this (Linux's default ceiling, /proc/sys/fs/pipe-max-size).
PIPE_BYTES = 1024 * 1024
#: rg's walker threads for ``rg --files``. rg starts one per core; on two cores its parallel walker
#: keeps stalling on itself: with 8 threads the same listing took a sixth to a fifth less time and
#: a tenth less CPU here (the stdlib and generated trees of bench/search.py) — CPU that Glob needs
#: for the stat of every match, done while rg walks. The listing is the same (its order varies
#: with any thread count).
MIN_WALK_THREADS = 8
#: Version-control directories never searched (seeds 8.4.2).
VCS_DIRECTORIES = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")


@cache
def rg_path() -> str:
    override = os.environ.get("BOT_RG_PATH")
    if override:
        return override
    scripts = Path(sysconfig.get_path("scripts")) / "rg"
    if scripts.is_file() and os.access(scripts, os.X_OK):
        return str(scripts)
    found = shutil.which("rg", path=host_search_path(os.environ.get("PATH")))  # no relative entry
    if found:
        return found
    raise ToolExecutionError("ripgrep (rg) is not installed: install the `ripgrep` package")


@cache
def walk_threads() -> int:
    """rg's ``--threads`` for a file listing: at least ``MIN_WALK_THREADS``, else rg's own choice
    (one per available core, at most 12)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(MIN_WALK_THREADS, min(12, cores))


def vcs_exclusion_args() -> list[str]:
    args: list[str] = []
    for name in VCS_DIRECTORIES:
        args += ["--glob", f"!{name}"]
    return args


@dataclass(frozen=True, slots=True)
class RgRun:
    """How a streamed rg run ended. ``code`` is meaningless when ``stopped`` (we killed it)."""

    code: int
    stderr: bytes
    stopped: bool

    @property
    def error_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace").strip()


#: Receives complete output records (lines, without the separator); returns False to stop rg.
LineConsumer = Callable[[list[bytes]], bool]


async def stream_rg(
    args: list[str],
    cwd: Path,
    consume: LineConsumer,
    *,
    timeout_s: float = RG_TIMEOUT_S,
    own_session: bool = False,
    separator: bytes = b"\n",
) -> RgRun:
    """Run rg and feed its stdout to ``consume`` in batches of lines as they arrive.

    ``separator`` ends a record: ``b"\0"`` for a listing printed with ``--null`` (a file name may
    hold a newline; it never holds a NUL).

    rg writes into a pipe enlarged to ``PIPE_BYTES`` that we drain in reads of up to that size:
    with the default 64 KB pipe, rg's walker threads would block on every write while we stat
    the previous batch, and the walk would lose its parallelism.

    ``own_session`` starts rg in a session of its own. Where the kernel groups processes by
    session for CPU time (Linux's autogroup, on by default on desktops and this machine), rg's
    walker threads then weigh as one group against ``consume``'s thread instead of each weighing
    as much as it: ``consume`` keeps pace with rg instead of stat'ing a backlog after it. Under
    load from other processes rg keeps the share of any other session (a ``nice`` rg, measured
    too, lost to them and made Glob slower). A Ctrl-C on a terminal no longer reaches rg itself;
    cancelling the call still kills it, and rg stops on the closed pipe if we go away.

    Raises :class:`ToolExecutionError` on timeout. Cancellation (the run's abort signal) kills rg.
    """
    stderr = bytearray()
    stopped = False
    read_fd, write_fd = os.pipe()
    try:
        with contextlib.suppress(OSError, AttributeError):  # Linux only; a smaller pipe still works
            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        os.set_blocking(read_fd, False)
        with anyio.fail_after(timeout_s):
            # rg receives PATH alone: no secret, and no RIPGREP_CONFIG_PATH or other setting from the
            # bot's environment that would change what it searches.
            async with await anyio.open_process(
                [rg_path(), *args],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                start_new_session=own_session,
                env={"PATH": os.environ.get("PATH", os.defpath)},
            ) as proc:
                os.close(write_fd)
                write_fd = -1
                assert proc.stderr is not None
                err_stream = proc.stderr

                async def drain_stderr() -> None:
                    async for chunk in err_stream:
                        if len(stderr) < MAX_STDERR_BYTES:
                            stderr.extend(chunk[: MAX_STDERR_BYTES - len(stderr)])

                async with anyio.create_task_group() as tg:
                    tg.start_soon(drain_stderr)
                    stopped = await _feed(read_fd, consume, separator)
                    if stopped:
                        proc.kill()
                code = await proc.wait()
    except TimeoutError:
        raise ToolExecutionError(
            f"The search timed out after {timeout_s:g} seconds. Search a narrower path or use a more specific pattern."
        ) from None
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
    return RgRun(code, bytes(stderr), stopped)


async def _feed(fd: int, consume: LineConsumer, separator: bytes = b"\n") -> bool:
    """Read ``fd`` to its end, handing complete records to ``consume``; True if it asked to stop."""
    pending = b""
    while True:
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, PIPE_BYTES)
        except BlockingIOError:
            continue
        if not chunk:
            if pending:
                consume([pending])
            return False
        lines = (pending + chunk).split(separator) if pending else chunk.split(separator)
        pending = lines.pop()
        if lines and not consume(lines):
            return True
