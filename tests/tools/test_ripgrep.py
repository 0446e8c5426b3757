"""Running ripgrep: the venv's binary, streamed output (by lines or NUL-ended records), early stop, stdin
never searched."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import anyio
import pytest

from bot.errors import ToolExecutionError
from bot.tools.ripgrep import rg_path, stream_rg


def test_the_binary_comes_from_the_interpreters_scripts_directory() -> None:
    assert Path(rg_path()).parent == Path(sysconfig.get_path("scripts"))


def test_lines_arrive_in_batches_and_all_of_them_arrive(tmp_path: Path) -> None:
    for i in range(500):
        (tmp_path / f"f{i}.txt").write_text("x")
    seen: list[bytes] = []

    def consume(lines: list[bytes]) -> bool:
        seen.extend(lines)
        return True

    run = anyio.run(stream_rg, ["--files"], tmp_path, consume)
    assert run.code == 0 and not run.stopped
    assert sorted(seen) == sorted(f"f{i}.txt".encode() for i in range(500))


def test_a_consumer_that_has_enough_stops_rg(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("hit\n" * 2_000_000)
    batches = 0

    def consume(lines: list[bytes]) -> bool:
        nonlocal batches
        batches += 1
        return False

    run = anyio.run(stream_rg, ["hit", "big.txt"], tmp_path, consume)
    assert run.stopped and batches == 1


def test_rg_never_reads_our_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    seen: list[bytes] = []
    anyio.run(stream_rg, ["-l", "needle"], tmp_path, lambda lines: seen.extend(lines) or True)
    assert seen == [b"a.txt"]


def test_a_timeout_is_a_tool_error(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("a" * 5_000_000)

    async def main() -> None:
        await stream_rg(["(a|aa)*b", "big.txt"], tmp_path, lambda lines: True, timeout_s=0.01)

    with pytest.raises(ToolExecutionError, match="timed out"):
        anyio.run(main)


def test_nul_separated_records_keep_a_newline_inside_a_name_whole(tmp_path: Path) -> None:
    (tmp_path / "a\nb").write_text("needle\n")
    (tmp_path / "c").write_text("needle\n")
    seen: list[bytes] = []

    def consume(records: list[bytes]) -> bool:
        seen.extend(records)
        return True

    anyio.run(lambda: stream_rg(["-l", "--null", "needle"], tmp_path, consume, separator=b"\0"))
    assert sorted(seen) == [b"a\nb", b"c"]
