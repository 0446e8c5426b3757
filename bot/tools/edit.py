"""Edit: exact string replacement in a file the model has read (seeds 8.2.3).

The checks, in the order they run:

1. the path is confined (``check_path_access(write=True)``: workspace, ``.git/``, workflows);
2. the file was read and has not changed since (hash and mtime in the read-file state);
3. ``old_string`` occurs exactly once, or ``replace_all`` is set; quotes are matched loosely
   (curly ↔ straight) and the replacement keeps the file's quote style;
4. the file's encoding, BOM and line endings (LF/CRLF) are kept.

The read, the replacement and the write happen in one synchronous stretch — no ``await`` in
between, so no other tool call of this run can interleave — and the write is atomic (temporary
file + rename). The file is reached without following a link swapped in after the permission
check (:mod:`bot.tools.files.safe_open`). An empty ``old_string`` creates a file that does not
exist yet (or fills an empty one). The result carries a unified diff.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from bot.errors import ToolInputError, describe_os_error
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.coercion import SemanticBool
from bot.tools.files.diff import diff_stats, unified_diff
from bot.tools.files.encoding import DecodedText, decode_text, encode_text, looks_binary, with_line_ending
from bot.tools.files.quotes import find_actual_string, preserve_quote_style
from bot.tools.files.safe_open import file_slot
from bot.tools.files.staleness import record_write, staleness_problem, writable_file_problem
from bot.tools.path_tool import PathTool
from bot.tools.paths import display_path, resolve_path

#: Larger files are not edited in memory (Claude Code's ``MAX_EDIT_FILE_SIZE``: 1 GiB).
MAX_EDIT_FILE_BYTES = 1024 * 1024 * 1024


class EditInput(ToolInput):
    file_path: str = Field(description="The path of the file to modify (absolute, or relative to the workspace)")
    old_string: str = Field(
        description="The text to replace, exactly as in the file (without Read's line-number prefixes)"
    )
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: SemanticBool = Field(
        default=False, description="Replace every occurrence of old_string (default false)"
    )


@dataclass(frozen=True, slots=True)
class PlannedEdit:
    new_text: str
    replacements: int


class EditTool(PathTool[EditInput, dict[str, Any]]):
    """Performs an exact string replacement in a file. You must Read the file first; the edit fails
    if the file changed since. old_string must match exactly one place in the file (include more
    surrounding lines to make it unique) unless replace_all is true. Keep the file's indentation
    exactly as Read shows it after the line-number prefix. An empty old_string creates a new file."""

    name = "Edit"
    aliases = ("FileEdit", "FileEditTool")
    search_hint = "modify change replace string in file patch"
    is_edit_tool = True
    input_model = EditInput
    writes = True

    async def validate_input(self, input: EditInput, context: ToolUseContext) -> ValidationResult:
        if input.old_string == input.new_string:
            return ValidationReject("No changes to make: old_string and new_string are exactly the same.", code=1)
        path = resolve_path(input.file_path, context)
        if path.suffix.lower() == ".ipynb":
            return ValidationReject("File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file.", code=5)
        try:
            st = path.stat()
        except FileNotFoundError:
            if input.old_string == "":
                return VALID  # creates the file
            return ValidationReject(
                f"{input.file_path}: no such file or directory "
                f"(current working directory: {context.working_directory})",
                code=4,
            )
        except OSError as exc:
            return ValidationReject(describe_os_error(exc, input.file_path), code=4)
        if st.st_size > MAX_EDIT_FILE_BYTES:
            return ValidationReject(
                f"{input.file_path} is too large to edit ({st.st_size / 1_073_741_824:.1f} GiB; "
                f"the limit is {MAX_EDIT_FILE_BYTES // 1_073_741_824} GiB)",
                code=10,
            )
        problem = writable_file_problem(path, input.file_path, st, context)
        if problem is not None:
            kind, message = problem
            return ValidationReject(message, code={"type": 4, "unread": 6, "stale": 7}[kind])
        return VALID

    async def call(self, input: EditInput, context: ToolUseContext, progress: Progress) -> ToolResult[dict[str, Any]]:
        # From here to the write: synchronous. No await may split the read-modify-write.
        path = resolve_path(input.file_path, context)
        shown = display_path(path, context)
        creating = input.old_string == ""
        with file_slot(path, input.file_path, context, write=True, create_parents=creating) as slot:
            existing = slot.read_existing()
            if existing is None:
                if not creating:
                    raise ToolInputError(f"{input.file_path}: no such file or directory")
                data = input.new_string.encode("utf-8")
                record_write(path, data, slot.replace(data), context)
                return ToolResult(
                    {
                        "filePath": shown,
                        "type": "create",
                        "replacements": 0,
                        "diff": unified_diff("", input.new_string, shown),
                        "linesAdded": input.new_string.count("\n") + 1,
                        "linesRemoved": 0,
                    }
                )
            raw, st = existing
            problem = staleness_problem(path, context, mtime_ns=st.st_mtime_ns, content=raw)
            if problem is not None:
                raise ToolInputError(problem)
            if looks_binary(raw, path):
                raise ToolInputError(f"{input.file_path} is a binary file; Edit changes text files only")
            decoded = decode_text(raw)
            planned = plan_edit(decoded, input.old_string, input.new_string, input.replace_all)
            try:
                data = encode_text(planned.new_text, decoded.encoding)
            except UnicodeEncodeError as exc:
                raise ToolInputError(
                    f"new_string has characters that the file's encoding ({decoded.encoding}) "
                    f"cannot hold: {exc.object[exc.start : exc.end]!r}"
                ) from None
            st = slot.replace(data)
        record_write(path, data, st, context)
        # after the write: the diff is for the result only
        diff = unified_diff(decoded.text, planned.new_text, shown)
        added, removed = diff_stats(diff)
        return ToolResult(
            {
                "filePath": shown,
                "type": "update",
                "replacements": planned.replacements,
                "diff": diff,
                "linesAdded": added,
                "linesRemoved": removed,
            }
        )

    def map_result(self, output: dict[str, Any]) -> str:
        path = output["filePath"]
        if output["type"] == "create":
            return f"File created successfully at: {path}"
        count = output["replacements"]
        what = "" if count == 1 else f" ({count} replacements)"
        return f"The file {path} has been updated{what}.\n```diff\n{output['diff']}\n```"


def plan_edit(decoded: DecodedText, old_string: str, new_string: str, replace_all: bool) -> PlannedEdit:
    """The file's new text. Raises :class:`ToolInputError` when ``old_string`` is missing or ambiguous."""
    text = decoded.text
    if old_string == "":
        if text.strip():
            raise ToolInputError(
                "Cannot create new file - file already exists. Use a non-empty old_string "
                "to edit it, or Write to replace it whole."
            )
        return PlannedEdit(with_line_ending(new_string, decoded.line_ending), 1)
    # The model saw the file through Read (no \r): try its text as sent, then in CRLF.
    variants = [(old_string, decoded.line_ending == "\r\n")]
    if "\n" in old_string and "\r\n" in text:
        variants.append((with_line_ending(old_string, "\r\n"), True))
    for candidate, crlf in variants:
        actual = find_actual_string(text, candidate)
        if actual is None:
            continue
        count = text.count(actual)
        if count > 1 and not replace_all:
            raise ToolInputError(
                f"Found {count} matches of the string to replace, but replace_all is false. To replace all "
                "occurrences, set replace_all to true. To replace only one occurrence, please provide more "
                f"context to uniquely identify the instance.\nString: {old_string}"
            )
        replacement = preserve_quote_style(candidate, actual, new_string)
        if crlf:
            replacement = with_line_ending(replacement, "\r\n")
        new_text = text.replace(actual, replacement) if replace_all else text.replace(actual, replacement, 1)
        return PlannedEdit(new_text, count if replace_all else 1)
    raise ToolInputError(f"String to replace not found in file.\nString: {old_string}")
