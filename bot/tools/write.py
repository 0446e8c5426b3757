"""Write: create a file, or replace one the model has read (seeds 8.2.4).

An existing file must have been read and not changed since (the same staleness check as Edit).
The content is written exactly as sent: Write is a full replacement, and the line endings in it
are the ones the model meant (seeds' source comment) — only the file's encoding (and BOM) is
kept. Missing parent directories are created; the path was confined to the workspace (and the
policy's additional directories) before, and the directories are created and the file written
without following a link swapped in since (:mod:`bot.tools.files.safe_open`), so every directory
created is inside them. Atomic: temporary file + rename, the file's mode kept.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from bot.errors import ToolInputError, describe_os_error
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.files.diff import diff_stats, unified_diff
from bot.tools.files.encoding import decode_text, encode_text, looks_binary
from bot.tools.files.safe_open import file_slot
from bot.tools.files.staleness import record_write, staleness_problem, writable_file_problem
from bot.tools.path_tool import PathTool
from bot.tools.paths import display_path, resolve_path


class WriteInput(ToolInput):
    file_path: str = Field(description="The path of the file to write (absolute, or relative to the workspace)")
    content: str = Field(description="The whole content of the file")


class WriteTool(PathTool[WriteInput, dict[str, Any]]):
    """Writes a file: creates it, or replaces its whole content. An existing file must be Read
    first. Prefer Edit for changes to existing files: it sends only the change."""

    name = "Write"
    aliases = ("FileWrite", "FileWriteTool")
    search_hint = "create new file overwrite save content"
    is_edit_tool = True
    input_model = WriteInput
    writes = True

    async def validate_input(self, input: WriteInput, context: ToolUseContext) -> ValidationResult:
        path = resolve_path(input.file_path, context)
        try:
            st = path.stat()
        except FileNotFoundError:
            return VALID
        except OSError as exc:
            return ValidationReject(describe_os_error(exc, input.file_path), code=4)
        problem = writable_file_problem(path, input.file_path, st, context)
        if problem is not None:
            kind, message = problem
            return ValidationReject(message, code={"type": 4, "unread": 2, "stale": 3}[kind])
        return VALID

    async def call(self, input: WriteInput, context: ToolUseContext, progress: Progress) -> ToolResult[dict[str, Any]]:
        # Synchronous from the staleness check to the rename (seeds 8.2.3).
        path = resolve_path(input.file_path, context)
        shown = display_path(path, context)
        old_text: str | None = None
        encoding = "utf-8"
        with file_slot(path, input.file_path, context, write=True, create_parents=True) as slot:
            existing = slot.read_existing()
            if existing is not None:
                raw, st = existing
                problem = staleness_problem(path, context, mtime_ns=st.st_mtime_ns, content=raw)
                if problem is not None:
                    raise ToolInputError(problem)
                if not looks_binary(raw, path):
                    decoded = decode_text(raw)
                    old_text, encoding = decoded.text, decoded.encoding
            try:
                data = encode_text(input.content, encoding)
            except UnicodeEncodeError as exc:
                raise ToolInputError(
                    f"content has characters that the file's encoding ({encoding}) cannot hold: "
                    f"{exc.object[exc.start : exc.end]!r}"
                ) from None
            try:
                st = slot.replace(data)
            except OSError as exc:
                raise ToolInputError(describe_os_error(exc, input.file_path)) from None
        record_write(path, data, st, context)
        if existing is None:
            return ToolResult({"type": "create", "filePath": shown, "bytes": len(data)})
        diff = "(a binary file was replaced)" if old_text is None else unified_diff(old_text, input.content, shown)
        added, removed = diff_stats(diff)
        return ToolResult(
            {
                "type": "update",
                "filePath": shown,
                "bytes": len(data),
                "diff": diff,
                "linesAdded": added,
                "linesRemoved": removed,
            }
        )

    def map_result(self, output: dict[str, Any]) -> str:
        if output["type"] == "create":
            return f"File created successfully at: {output['filePath']}"
        diff = output["diff"] or "(no changes)"
        return f"The file {output['filePath']} has been updated.\n```diff\n{diff}\n```"
