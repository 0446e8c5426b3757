"""Read: a file's lines, numbered, within the workspace (seeds 4.3, 8.2.2).

Concurrency-safe and read-only. Pages itself (``offset``/``limit``) and refuses what is too large
instead of truncating silently, so its results are exempt from persistence (seeds 4.8: ``inf``).
Every successful read is recorded in the read-file state for Edit/Write's staleness checks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from bot.errors import ToolInputError, describe_os_error
from bot.permissions.decision import PermissionResult
from bot.tools.base import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.coercion import SemanticInt
from bot.tools.context import ToolUseContext
from bot.tools.messages import Progress
from bot.tools.paths import check_path_access, resolve_path

#: Lines returned when no ``limit`` is given (Claude Code's ``MAX_LINES_TO_READ``).
MAX_LINES_TO_READ = 2_000
#: Longer lines are cut (Claude Code's ``MAX_LINE_LENGTH``).
MAX_LINE_LENGTH = 2_000
#: A whole-file read above this size must name offset/limit (Claude Code's ``maxSizeBytes``).
MAX_FILE_SIZE_BYTES = 256 * 1024
#: Token cap of one read (Claude Code's default ``maxTokens`` for Read).
MAX_READ_TOKENS = 25_000
#: Rough token estimate for the cap, as the seeds use for results (4 characters per token).
CHARS_PER_TOKEN = 4
#: Bytes sniffed to tell a binary file.
BINARY_SNIFF_BYTES = 8_192


class ReadInput(ToolInput):
    file_path: str = Field(description="The path of the file to read (absolute, or relative to the workspace)")
    offset: SemanticInt | None = Field(
        default=None, ge=1, description="The line number to start reading from (1-based). Only for large files")
    limit: SemanticInt | None = Field(
        default=None, ge=1, description="The number of lines to read. Only for large files")


class ReadTool(Tool[ReadInput, str]):
    """Reads a file from the workspace. Returns its lines numbered like `cat -n`. By default up to
    2000 lines from the start; use offset and limit for long files. Lines longer than 2000
    characters are cut. Read a file before editing it."""

    name = "Read"
    aliases = ("FileRead", "FileReadTool")
    search_hint = "read file contents lines cat view open"
    max_result_chars = math.inf  # pages itself; persisting a Read to Read it back would be circular
    input_model = ReadInput

    def is_concurrency_safe(self, input: ReadInput) -> bool:
        return True  # reads only

    def is_read_only(self, input: ReadInput) -> bool:
        return True

    def is_destructive(self, input: ReadInput) -> bool:
        return False

    def permission_subject(self, input: ReadInput) -> str:
        return input.file_path

    def observable_input(self, input: ReadInput, context: ToolUseContext) -> dict[str, object]:
        data = input.model_dump(mode="json", exclude_none=True)
        data["file_path"] = str(resolve_path(input.file_path, context))
        return data

    async def check_permissions(self, input: ReadInput, context: ToolUseContext) -> PermissionResult:
        return check_path_access(input.file_path, context)

    async def validate_input(self, input: ReadInput, context: ToolUseContext) -> ValidationResult:
        path = resolve_path(input.file_path, context)
        if not path.exists():
            return ValidationReject(f"File does not exist: {input.file_path}", code=1)
        if path.is_dir():
            return ValidationReject(f"{input.file_path} is a directory; use Glob or Bash `ls` to list it", code=2)
        return VALID

    async def call(self, input: ReadInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        path = resolve_path(input.file_path, context)
        try:
            stat = path.stat()
            if input.offset is None and input.limit is None and stat.st_size > MAX_FILE_SIZE_BYTES:
                raise ToolInputError(
                    f"File content ({stat.st_size / 1024:.0f}KB) exceeds maximum allowed size "
                    f"({MAX_FILE_SIZE_BYTES // 1024}KB). Please use offset and limit parameters to read "
                    "specific portions of the file, or use the Grep tool to search for specific content.")
            raw = path.read_bytes()
        except OSError as exc:
            raise ToolInputError(describe_os_error(exc, input.file_path)) from None
        if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
            raise ToolInputError(f"{input.file_path} is a binary file; Read shows text files only")
        text = raw.decode("utf-8", errors="replace")
        output = format_lines(text, input.offset, input.limit)
        if len(output) // CHARS_PER_TOKEN > MAX_READ_TOKENS:
            raise ToolInputError(
                f"File content ({len(output) // CHARS_PER_TOKEN} tokens) exceeds maximum allowed tokens "
                f"({MAX_READ_TOKENS}). Please use offset and limit parameters to read specific portions "
                "of the file, or use the Grep tool to search for specific content.")
        context.read_file_state.record(path, raw, stat.st_mtime_ns, input.offset, input.limit)
        if not text:
            return ToolResult("<system-reminder>Warning: the file exists but the contents are empty."
                              "</system-reminder>")
        if not output:
            total = len(text.splitlines())
            return ToolResult(f"<system-reminder>Warning: the file exists but is shorter than the provided "
                              f"offset ({input.offset}). The file has {total} lines.</system-reminder>")
        return ToolResult(output)

    def summarize_input(self, input: ReadInput) -> str:
        return input.file_path

    def render_grouped(self, inputs: Sequence[ReadInput]) -> str | None:
        if len(inputs) < 2:
            return None
        names = [Path(i.file_path).name for i in inputs]
        shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        return f"📖 Read {len(inputs)} files: {shown}"


def format_lines(text: str, offset: int | None, limit: int | None) -> str:
    """``cat -n`` style: right-aligned line numbers, a tab, the line (cut at MAX_LINE_LENGTH)."""
    lines = text.splitlines()
    start = (offset or 1) - 1
    count = limit if limit is not None else MAX_LINES_TO_READ
    out = []
    for number, line in enumerate(lines[start:start + count], start=start + 1):
        if len(line) > MAX_LINE_LENGTH:
            line = line[:MAX_LINE_LENGTH] + "… [line truncated]"
        out.append(f"{number:>6}\t{line}")
    return "\n".join(out)

