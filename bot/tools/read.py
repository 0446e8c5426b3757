"""Read: a file's lines, numbered; images, PDFs and notebooks too (seeds 4.3, 8.2.2).

Concurrency-safe and read-only. Pages itself (``offset``/``limit``, ``pages`` for PDFs) and
refuses what is too large instead of truncating silently, so its results are exempt from
persistence (seeds 4.8: ``inf``). Device files, ``/proc/*/environ`` and anything that is not a
regular file (a FIFO would block forever) are refused. The file is reached without following a
link swapped in after the permission check (:mod:`bot.tools.files.safe_open`). Every successful
read is recorded in the read-file state (content hash, mtime, range) for Edit/Write's staleness
checks.

Lines are counted as ripgrep and editors count them: split on ``\\n``, a trailing ``\\r`` dropped,
so a line number from Grep is the same line here.
"""

from __future__ import annotations

import math
import os
import stat as stat_mod
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from bot.errors import ToolInputError, describe_os_error
from bot.interface.context import CHARS_PER_TOKEN, ToolUseContext
from bot.interface.messages import ContentBlock, Progress
from bot.interface.tool import VALID, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.coercion import SemanticInt
from bot.tools.files.encoding import bom_encoding, decode_text, looks_binary
from bot.tools.files.images import IMAGE_EXTENSIONS, image_block, prepare_image, sniff_media_type
from bot.tools.files.notebook import parse_notebook, render_notebook
from bot.tools.files.pdf import read_pdf
from bot.tools.files.safe_open import file_slot
from bot.tools.path_tool import PathTool
from bot.tools.paths import is_blocked_device, resolve_path

#: Lines returned when no ``limit`` is given (Claude Code's ``MAX_LINES_TO_READ``).
MAX_LINES_TO_READ = 2_000
#: Longer lines are cut (Claude Code's ``MAX_LINE_LENGTH``).
MAX_LINE_LENGTH = 2_000
#: A whole-file read above this size must name offset/limit (Claude Code's ``maxSizeBytes``).
MAX_FILE_SIZE_BYTES = 256 * 1024
#: No read loads more than this into memory, ranges included: use Grep or Bash (`sed -n`) instead.
MAX_READABLE_BYTES = 256 * 1024 * 1024
#: Token cap of one read (Claude Code's default ``maxTokens`` for Read).
MAX_READ_TOKENS = 25_000

ReadOutput = str | list[ContentBlock]


class ReadInput(ToolInput):
    file_path: str = Field(description="The path of the file to read (absolute, or relative to the workspace)")
    offset: SemanticInt | None = Field(
        default=None, ge=1, description="The line number to start reading from (1-based). Only for large files"
    )
    limit: SemanticInt | None = Field(
        default=None, ge=1, description="The number of lines to read. Only for large files"
    )
    pages: str | None = Field(
        default=None,
        description='PDF only: the pages to read, e.g. "3", "1-5", "1-3,7". Required for PDFs over 10 pages; '
        "at most 20 pages per call",
    )


class ReadTool(PathTool[ReadInput, ReadOutput]):
    """Reads a file from the workspace. Returns its lines numbered like `cat -n`. By default up to
    2000 lines from the start; use offset and limit for long files. Lines longer than 2000
    characters are cut. Images (PNG, JPEG, GIF, WebP) are shown as images; PDFs as text by page
    (use `pages` for PDFs over 10 pages); Jupyter notebooks as cells with their outputs. Read a
    file before editing it."""

    name = "Read"
    aliases = ("FileRead", "FileReadTool")
    search_hint = "read file contents lines cat view open image pdf notebook"
    max_result_chars = math.inf  # pages itself; persisting a Read to Read it back would be circular
    input_model = ReadInput

    def is_concurrency_safe(self, input: ReadInput) -> bool:
        return True  # reads only

    def is_read_only(self, input: ReadInput) -> bool:
        return True

    def is_destructive(self, input: ReadInput) -> bool:
        return False

    async def validate_input(self, input: ReadInput, context: ToolUseContext) -> ValidationResult:
        path = resolve_path(input.file_path, context)
        if is_blocked_device(input.file_path, path):
            return ValidationReject(f"{input.file_path} is a device or process file that Read does not open", code=4)
        try:
            st = path.stat()
        except OSError as exc:
            return ValidationReject(
                f"{describe_os_error(exc, input.file_path)} (current working directory: {context.working_directory})",
                code=1,
            )
        if stat_mod.S_ISDIR(st.st_mode):
            return ValidationReject(f"{input.file_path} is a directory; use Glob or Bash `ls` to list it", code=2)
        if not stat_mod.S_ISREG(st.st_mode):
            return ValidationReject(
                f"{input.file_path} is not a regular file (a device, FIFO or socket); Read opens regular files only",
                code=4,
            )
        if input.pages is not None and path.suffix.lower() != ".pdf":
            return ValidationReject("The pages parameter is only for PDF files; use offset and limit", code=5)
        return VALID

    async def call(self, input: ReadInput, context: ToolUseContext, progress: Progress) -> ToolResult[ReadOutput]:
        path = resolve_path(input.file_path, context)
        if is_blocked_device(input.file_path, path):
            raise ToolInputError(f"{input.file_path} is a device or process file that Read does not open")
        raw, mtime_ns = _read_regular_file(path, input, context)
        suffix = path.suffix.lower()
        if suffix in IMAGE_EXTENSIONS or (suffix not in (".pdf", ".ipynb") and sniff_media_type(raw[:16])):
            output: ReadOutput = _image_output(raw, input.file_path)
        elif suffix == ".pdf":
            text, _ = read_pdf(raw, input.file_path, input.pages)
            _check_tokens(len(text), "Use the pages parameter to read fewer pages at a time.")
            output = text
        elif suffix == ".ipynb":
            blocks = render_notebook(parse_notebook(raw, input.file_path))
            _check_tokens(
                sum(len(str(b.get("text", ""))) for b in blocks),
                "Read specific cells with Bash and jq, e.g. `jq '.cells[:10]' notebook.ipynb`.",
            )
            output = blocks
        else:
            output = _text_output(raw, path, input)
        context.read_file_state.record(path, raw, mtime_ns, input.offset, input.limit)
        return ToolResult(output)


def _read_regular_file(path: Path, input: ReadInput, context: ToolUseContext) -> tuple[bytes, int]:
    """The file's bytes and mtime, opened once (no window for a swap between stat and read), never
    through a link swapped in since the permission check (:mod:`bot.tools.files.safe_open`)."""
    with file_slot(path, input.file_path, context, write=False) as slot:
        try:
            fd = slot.open(os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise ToolInputError(describe_os_error(exc, input.file_path)) from None
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise ToolInputError(f"{input.file_path} is not a regular file; Read opens regular files only")
        whole = input.offset is None and input.limit is None and input.pages is None
        is_text = path.suffix.lower() not in IMAGE_EXTENSIONS | {".pdf", ".ipynb"}
        if whole and is_text and st.st_size > MAX_FILE_SIZE_BYTES:
            raise ToolInputError(
                f"File content ({st.st_size / 1024:.0f}KB) exceeds maximum allowed size "
                f"({MAX_FILE_SIZE_BYTES // 1024}KB). Please use offset and limit parameters to read "
                "specific portions of the file, or use the Grep tool to search for specific content."
            )
        if st.st_size > MAX_READABLE_BYTES:
            raise ToolInputError(
                f"{input.file_path} is {st.st_size / 1_048_576:.0f} MB, more than Read loads "
                f"({MAX_READABLE_BYTES // 1_048_576} MB). Use Grep, or Bash (`sed -n '100,200p'`)."
            )
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            raw = handle.read()
        return raw, st.st_mtime_ns
    except OSError as exc:
        raise ToolInputError(describe_os_error(exc, input.file_path)) from None
    finally:
        if fd >= 0:
            os.close(fd)


def _image_output(raw: bytes, name: str) -> list[ContentBlock]:
    image = prepare_image(raw, name)
    blocks: list[ContentBlock] = [image_block(image)]
    if image.resized:
        blocks.append(
            {
                "type": "text",
                "text": f"(Image resized from {image.original_width}×{image.original_height} "
                f"to {image.width}×{image.height} pixels.)",
            }
        )
    return blocks


def _text_output(raw: bytes, path: Path, input: ReadInput) -> str:
    if looks_binary(raw, path):
        raise ToolInputError(
            f"{input.file_path} is a binary file; Read shows text, images (PNG, JPEG, GIF, "
            "WebP), PDFs and notebooks only"
        )
    if not raw:
        return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    start = (input.offset or 1) - 1
    count = input.limit if input.limit is not None else MAX_LINES_TO_READ
    lines, total = select_lines(raw, start, count)
    if not lines:
        return (
            f"<system-reminder>Warning: the file exists but is shorter than the provided offset "
            f"({input.offset}). The file has {total} lines.</system-reminder>"
        )
    output = format_numbered(lines, start + 1)
    _check_tokens(
        len(output),
        "Use offset and limit to read specific portions of the file, or Grep to search for specific content.",
    )
    return output


def select_lines(raw: bytes, start: int, count: int) -> tuple[list[str], int]:
    """Lines ``start`` (0-based) to ``start + count`` of the file, decoded, and the file's line
    count. Only the chosen lines are decoded, so reading page 500 of a large log stays cheap."""
    if bom_encoding(raw) in ("utf-16-le", "utf-16-be"):
        text = decode_text(raw).text
        all_lines = text.split("\n")
        if all_lines and all_lines[-1] == "":
            all_lines.pop()
        return [line.removesuffix("\r") for line in all_lines[start : start + count]], len(all_lines)
    total = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    if start >= total:
        return [], total
    pieces = raw.split(b"\n", start + count)  # the piece after start + count is the rest of the file
    chosen = pieces[start : start + count]
    if len(pieces) <= start + count and chosen and chosen[-1] == b"" and raw.endswith(b"\n"):
        chosen.pop()  # the empty piece after the final newline is not a line
    decoded = decode_text(b"\n".join(chosen))
    return [line.removesuffix("\r") for line in decoded.text.split("\n")], total


def format_numbered(lines: Sequence[str], first: int) -> str:
    """``cat -n`` style: right-aligned line numbers, a tab, the line (cut at MAX_LINE_LENGTH)."""
    out = []
    for number, line in enumerate(lines, start=first):
        if len(line) > MAX_LINE_LENGTH:
            line = line[:MAX_LINE_LENGTH] + "… [line truncated]"
        out.append(f"{number:>6}\t{line}")
    return "\n".join(out)


def _check_tokens(chars: int, advice: str) -> None:
    """The seeds' ``MaxFileReadTokenExceededError``: refuse, never truncate silently."""
    if chars // CHARS_PER_TOKEN > MAX_READ_TOKENS:
        raise ToolInputError(
            f"File content ({chars // CHARS_PER_TOKEN} tokens) exceeds maximum allowed tokens "
            f"({MAX_READ_TOKENS}). {advice}"
        )
