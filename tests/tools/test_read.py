"""Read: numbered lines, paging, the token cap, images, PDFs, notebooks, binaries, devices, and
the read-file state it records."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext, hash_bytes
from bot.tools.read import MAX_LINES_TO_READ, ReadTool
from tests.tools.helpers import Rejected, call, call_error, context_for, run_tool
from tests.tools.samples import code_cell, make_image, make_notebook, make_pdf

READ = ReadTool()


def test_lines_are_numbered_and_the_read_is_recorded(workspace: Path, context: ToolUseContext) -> None:
    path = workspace / "a.py"
    path.write_bytes(b"one\ntwo\r\nthree")
    assert call(READ, context, file_path="a.py") == "     1\tone\n     2\ttwo\n     3\tthree"
    record = context.read_file_state.get(path.resolve())
    assert record is not None
    assert record.content_hash == hash_bytes(b"one\ntwo\r\nthree")
    assert record.mtime_ns == os.stat(path).st_mtime_ns and not record.is_partial


@pytest.mark.parametrize(
    ("description", "offset", "limit", "expected"),
    [
        ("from a line to the end", 3, None, "     3\tc\n     4\td"),
        ("a window", 2, 2, "     2\tb\n     3\tc"),
        ("a limit from the start", None, 1, "     1\ta"),
        ("a limit past the end", 4, 10, "     4\td"),
    ],
)
def test_offset_and_limit_select_lines(
    workspace: Path, context: ToolUseContext, description: str, offset: int | None, limit: int | None, expected: str
) -> None:
    (workspace / "f.txt").write_text("a\nb\nc\nd\n")
    raw = {"file_path": "f.txt"} | ({"offset": offset} if offset else {}) | ({"limit": limit} if limit else {})
    assert call(READ, context, **raw) == expected
    assert context.read_file_state.get((workspace / "f.txt").resolve()).is_partial  # type: ignore[union-attr]


def test_an_offset_past_the_end_says_how_long_the_file_is(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "f.txt").write_text("a\nb\n")
    assert "shorter than the provided offset (5). The file has 2 lines" in call(
        READ, context, file_path="f.txt", offset=5
    )


def test_by_default_at_most_2000_lines_are_returned(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "f.txt").write_text("".join(f"{i}\n" for i in range(1, 3_001)))
    out = call(READ, context, file_path="f.txt")
    assert out.count("\n") == MAX_LINES_TO_READ - 1 and out.endswith("  2000\t2000")


def test_a_large_file_read_whole_is_refused_not_truncated(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "big.log").write_text("x" * 300_000)
    assert "exceeds maximum allowed size" in call_error(READ, context, file_path="big.log")
    assert context.read_file_state.get((workspace / "big.log").resolve()) is None


def test_too_many_tokens_raise_the_use_offset_and_limit_error(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "wide.txt").write_text(("y" * 1_900 + "\n") * 100)  # 190 KB, ~48k tokens numbered
    message = call_error(READ, context, file_path="wide.txt")
    assert "exceeds maximum allowed tokens (25000)" in message and "offset and limit" in message
    assert call(READ, context, file_path="wide.txt", limit=10).count("\n") == 9


def test_long_lines_are_cut(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "min.js").write_text("z" * 5_000)
    assert call(READ, context, file_path="min.js").endswith("z… [line truncated]")


def test_an_empty_file_is_a_warning_not_an_error(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "empty").write_text("")
    assert "contents are empty" in call(READ, context, file_path="empty")
    assert context.read_file_state.get((workspace / "empty").resolve()) is not None


def test_a_binary_file_is_refused(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "blob.dat").write_bytes(b"\x7fELF\x00\x01\x02")
    assert "is a binary file" in call_error(READ, context, file_path="blob.dat")


def test_utf16_and_latin1_files_are_shown_as_text(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "u16.txt").write_bytes(b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le"))
    (workspace / "l1.txt").write_bytes(b"caf\xe9\n")
    assert call(READ, context, file_path="u16.txt") == "     1\théllo\n     2\twörld"
    assert call(READ, context, file_path="l1.txt") == "     1\tcafé"


@pytest.mark.parametrize(
    ("description", "raw", "message"),
    [
        ("a missing file", {"file_path": "nope.txt"}, "nope.txt: no such file or directory"),
        ("a directory", {"file_path": "."}, "is a directory"),
        ("pages on a text file", {"file_path": "f.txt", "pages": "1"}, "only for PDF files"),
    ],
)
def test_what_cannot_be_read_is_rejected_with_stable_wording(
    workspace: Path, context: ToolUseContext, description: str, raw: dict[str, str], message: str
) -> None:
    (workspace / "f.txt").write_text("x")
    with pytest.raises(Rejected, match=message):
        call(READ, context, **raw)


def test_a_fifo_is_refused_instead_of_blocking(workspace: Path, context: ToolUseContext) -> None:
    os.mkfifo(workspace / "pipe")
    assert "not a regular file" in call_error(READ, context, file_path="pipe")


def test_images_come_back_as_image_blocks(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "shot.png").write_bytes(make_image("PNG", (3_000, 1_500)))
    blocks = call(READ, context, file_path="shot.png")
    assert blocks[0]["type"] == "image" and blocks[0]["source"]["media_type"] == "image/png"
    assert "resized from 3000×1500 to 2000×1000" in blocks[1]["text"]


def test_an_image_with_a_wrong_extension_is_still_an_image(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "photo.bin2").write_bytes(make_image("JPEG", (10, 10)))
    assert call(READ, context, file_path="photo.bin2")[0]["source"]["media_type"] == "image/jpeg"


def test_pdfs_are_read_by_pages(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "small.pdf").write_bytes(make_pdf(["First", "Second"]))
    (workspace / "big.pdf").write_bytes(make_pdf([f"p{i}" for i in range(1, 31)]))
    assert "Second" in call(READ, context, file_path="small.pdf")
    assert "Use the pages parameter" in call_error(READ, context, file_path="big.pdf")
    out = call(READ, context, file_path="big.pdf", pages="29-30")
    assert "--- Page 29 of 30 ---\np29" in out and "p28" not in out


def test_notebooks_are_read_as_cells_with_outputs(workspace: Path, context: ToolUseContext) -> None:
    nb = make_notebook([code_cell("abc", "print(1)\n", [{"output_type": "stream", "name": "stdout", "text": "1\n"}])])
    (workspace / "n.ipynb").write_bytes(nb)
    text = call(READ, context, file_path="n.ipynb")[0]["text"]
    assert '<cell id="abc" index="0" type="code" execution_count="1">' in text and '<output cell="abc">\n1' in text
    assert context.read_file_state.get((workspace / "n.ipynb").resolve()) is not None


@pytest.mark.parametrize(
    ("description", "path"),
    [
        ("/dev/zero never ends", "/dev/zero"),
        ("/dev/random never ends", "/dev/random"),
        ("/dev/stdin blocks", "/dev/stdin"),
        ("another process's environment holds secrets", "/proc/self/environ"),
        ("a numbered process's environment too", "/proc/1/environ"),
    ],
)
def test_device_and_process_files_are_denied(workspace: Path, tmp_path: Path, description: str, path: str) -> None:
    ctx = context_for(workspace, tmp_path / "s", allow=("Read",))
    outcome = run_tool(ctx, "Read", {"file_path": path})
    assert outcome.result.is_error
    assert "device or process file" in outcome.result.text or "outside the workspace" in outcome.result.text


def test_read_is_concurrency_safe_read_only_and_exempt_from_persistence() -> None:
    from bot.tools.read import ReadInput

    inp = ReadInput(file_path="x")
    assert READ.is_concurrency_safe(inp) and READ.is_read_only(inp) and not READ.is_destructive(inp)
    assert READ.max_result_chars == float("inf")
