"""Running processes: groups killed on timeout, abort and cancellation; bounded, streamed output."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

import anyio
import pytest

from bot.interface.abort import AbortSignal
from bot.shell.execute.process import (
    DEFAULT_MAX_OUTPUT_LENGTH,
    OutputCapture,
    ProcessResult,
    format_output,
    image_block,
    max_output_length,
    run_process,
    shell_argv,
)

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}


def run(command: str, cwd: Path, **kwargs: object) -> ProcessResult:
    async def main() -> ProcessResult:
        return await run_process(shell_argv(command), cwd=cwd, env=ENV, **kwargs)  # type: ignore[arg-type]

    return anyio.run(main)


def wait_dead(pid: int, timeout_s: float = 5.0) -> bool:
    """Wait for a process (not our child) to end, on its pidfd: an event, not a polling loop."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        return bool(ready) or _is_zombie(pid)
    finally:
        os.close(fd)


def _is_zombie(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def test_a_command_reports_its_exit_code_and_both_streams(tmp_path: Path) -> None:
    result = run("echo out; echo err >&2; exit 3", tmp_path)
    assert result.exit_code == 3
    assert result.stdout.text() == "out\n"
    assert result.stderr.text() == "err\n"
    assert not result.interrupted


def test_every_line_is_streamed_to_the_callback_as_it_comes(tmp_path: Path) -> None:
    lines: list[tuple[str, str]] = []
    run("printf 'a\\nb'; echo c >&2", tmp_path, on_line=lambda s, line: lines.append((s, line)))
    assert sorted(lines) == [("stderr", "c"), ("stdout", "a"), ("stdout", "b")]


def test_a_timeout_kills_the_whole_group_a_sleeping_grandchild_included(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    result = run(f"sleep 60 & echo $! > {pidfile}; sleep 60", tmp_path, timeout_s=0.5)
    assert result.timed_out and not result.aborted
    assert result.duration_s < 5
    assert wait_dead(int(pidfile.read_text()))


def test_the_abort_signal_kills_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    abort = AbortSignal()

    async def main() -> ProcessResult:
        started = anyio.Event()
        box: list[ProcessResult] = []

        async def go() -> None:
            box.append(
                await run_process(
                    shell_argv(f"sleep 60 & echo $! > {pidfile}; echo ready; wait"),
                    cwd=tmp_path,
                    env=ENV,
                    abort=abort,
                    on_line=lambda s, line: started.set(),
                )
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(go)
            await started.wait()
            abort.abort("the run was cancelled")
        return box[0]

    result = anyio.run(main)
    assert result.aborted and not result.timed_out
    assert wait_dead(int(pidfile.read_text()))


def test_cancelling_the_caller_kills_the_group_before_the_cancellation_propagates(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"

    async def main() -> bool:
        with anyio.CancelScope() as scope:  # cancelled as soon as the command said it is running
            await run_process(
                shell_argv(f"echo $$ > {pidfile}; echo running; sleep 60"),
                cwd=tmp_path,
                env=ENV,
                on_line=lambda stream, line: scope.cancel(),
            )
        return scope.cancelled_caught

    assert anyio.run(main)
    assert wait_dead(int(pidfile.read_text()))


def test_processes_left_behind_are_stopped_when_the_command_returns(tmp_path: Path) -> None:
    pidfile = tmp_path / "left.pid"
    result = run(f"sleep 60 > /dev/null 2>&1 & echo $! > {pidfile}", tmp_path, timeout_s=10)
    assert result.exit_code == 0
    assert result.leftovers_killed
    assert wait_dead(int(pidfile.read_text()))


def test_a_leftover_holding_the_pipe_does_not_hold_the_call_until_the_timeout(tmp_path: Path) -> None:
    result = run("sleep 60 & echo started", tmp_path, timeout_s=30)
    assert result.exit_code == 0 and not result.timed_out
    assert result.stdout.text() == "started\n"
    assert result.duration_s < 5


def test_huge_output_keeps_a_bounded_head_and_counts_the_dropped_lines(tmp_path: Path) -> None:
    result = run("seq 1 300000", tmp_path, capture_limit_bytes=10_000)
    assert len(result.stdout.head) == 10_000
    assert result.stdout.truncated
    assert result.stdout.total_bytes == len("".join(f"{i}\n" for i in range(1, 300_001)))
    formatted = format_output(result.stdout.text(), 5_000, dropped_lines=result.stdout.dropped_newlines)
    assert formatted.truncated
    assert formatted.content.startswith("1\n2\n3\n")
    assert formatted.total_lines == 300_001  # 300,000 lines and the empty one after the last newline


def test_progress_events_are_bounded_for_a_chatty_command(tmp_path: Path) -> None:
    lines: list[str] = []
    run("seq 1 20000", tmp_path, on_line=lambda s, line: lines.append(line))
    assert 4_000 < len(lines) <= 5_000
    assert "more output" in lines[-1]


def test_binary_output_never_fails_to_decode(tmp_path: Path) -> None:
    result = run("head -c 4096 /dev/urandom; printf '\\xff\\xfe\\x00ok'", tmp_path)
    text = result.stdout.text()
    assert text.endswith("\x00ok")
    assert "\ufffd" in text


def test_output_can_go_to_a_file_instead(tmp_path: Path) -> None:
    out = tmp_path / "task.output"
    result = run("echo one; echo two >&2", tmp_path, output_file=out)
    assert result.exit_code == 0
    assert sorted(out.read_text().splitlines()) == ["one", "two"]
    assert result.stdout.total_bytes == 0


def test_a_syntax_error_stays_inside_the_command_and_the_final_directory_is_recorded(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    cwd_file = tmp_path / "cwd"

    async def main(command: str) -> ProcessResult:
        return await run_process(shell_argv(command, cwd_file=cwd_file), cwd=tmp_path, env=ENV)

    broken = anyio.run(main, "echo 'unclosed")
    assert broken.exit_code == 2
    assert cwd_file.read_text().strip() == str(tmp_path.resolve())
    moved = anyio.run(main, "cd sub && echo moved")
    assert moved.stdout.text() == "moved\n"
    assert cwd_file.read_text().strip() == str((tmp_path / "sub").resolve())


def test_a_missing_program_is_an_os_error_for_the_caller(tmp_path: Path) -> None:
    async def main() -> None:
        await run_process(["/nonexistent/program"], cwd=tmp_path, env=ENV)

    with pytest.raises(FileNotFoundError, match="nonexistent"):
        anyio.run(main)


# ----- formatting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "content", "limit", "expected_content", "total_lines"),
    [
        ("short output passes whole", "a\nb", 10, "a\nb", 2),
        ("exactly the limit passes whole", "abcde", 5, "abcde", 1),
        (
            "long output keeps the head and counts the rest",
            "l1\nl2\nl3\nl4",
            4,
            "l1\nl\n\n... [3 lines truncated] ...",
            4,
        ),
        (
            "an image data URL passes whole",
            "data:image/png;base64," + "A" * 50,
            10,
            "data:image/png;base64," + "A" * 50,
            1,
        ),
    ],
)
def test_format_output_follows_the_seeds(
    description: str, content: str, limit: int, expected_content: str, total_lines: int
) -> None:
    formatted = format_output(content, limit)
    assert formatted.content == expected_content
    assert formatted.total_lines == total_lines


def test_an_image_output_becomes_an_image_block() -> None:
    block = image_block("data:image/PNG;base64,iVBO\nRw0K")
    assert block == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
    assert image_block("plain text") is None


@pytest.mark.parametrize(
    ("description", "value", "expected"),
    [
        ("unset means the seeds' default", None, DEFAULT_MAX_OUTPUT_LENGTH),
        ("a valid override is used", "1000", 1000),
        ("an override is capped", "999999999", 150_000),
        ("garbage falls back to the default", "lots", DEFAULT_MAX_OUTPUT_LENGTH),
        ("zero falls back to the default", "0", DEFAULT_MAX_OUTPUT_LENGTH),
    ],
)
def test_bash_max_output_length_overrides_the_limit(description: str, value: str | None, expected: int) -> None:
    environ = {} if value is None else {"BASH_MAX_OUTPUT_LENGTH": value}
    assert max_output_length(environ) == expected


def test_output_capture_counts_newlines_only_beyond_its_head() -> None:
    capture = OutputCapture(limit_bytes=4)
    capture.feed(b"ab\ncd\nef\n")
    assert bytes(capture.head) == b"ab\nc"
    assert capture.dropped_newlines == 2
    assert capture.truncated


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and pidfds are tested on Linux")
def test_the_child_runs_in_its_own_session(tmp_path: Path) -> None:
    result = run("cut -d' ' -f6 /proc/$$/stat", tmp_path)
    assert int(result.stdout.text().split()[0]) != os.getsid(0)
