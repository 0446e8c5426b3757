"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook (seeds 4.3).

The notebook must have been read (Read shows cell ids) and not changed since. A cell is named by
its id, or by ``cell-N``/``N`` (0-based) in notebooks without ids. Replacing a code cell clears its
outputs and execution count (they belonged to the old source). The result is checked to still be
a valid nbformat-4 notebook before it is written, atomically, without following a link swapped in
after the permission check (:mod:`bot.tools.files.safe_open`).
"""

from __future__ import annotations

import stat as stat_mod
from typing import Any, Literal

from pydantic import Field

from bot.errors import ToolExecutionError, ToolInputError, describe_os_error
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.files.notebook import edit_notebook, notebook_problem, parse_notebook, serialize_notebook
from bot.tools.files.safe_open import file_slot
from bot.tools.files.staleness import record_write, staleness_problem
from bot.tools.path_tool import PathTool
from bot.tools.paths import display_path, resolve_path


class NotebookEditInput(ToolInput):
    notebook_path: str = Field(description="The path of the .ipynb file (absolute, or relative to the workspace)")
    cell_id: str | None = Field(
        default=None,
        description="The id of the cell to edit (as Read shows it), or cell-N for the N-th cell (0-based). "
        "For insert, the new cell goes after this cell, or first when omitted",
    )
    new_source: str = Field(description="The new source of the cell (ignored for delete)")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None, description="The cell's type. Required for insert; for replace it changes the type"
    )
    edit_mode: Literal["replace", "insert", "delete"] = Field(
        default="replace", description="replace (default), insert or delete"
    )


class NotebookEditTool(PathTool[NotebookEditInput, dict[str, Any]]):
    """Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). Read the notebook
    first. Name the cell by its id (Read shows it), or cell-N for the N-th cell (0-based)."""

    name = "NotebookEdit"
    aliases = ("NotebookEditTool",)
    search_hint = "jupyter ipynb notebook cell edit insert delete"
    is_edit_tool = True
    input_model = NotebookEditInput
    writes = True
    path_field = "notebook_path"

    async def validate_input(self, input: NotebookEditInput, context: ToolUseContext) -> ValidationResult:
        path = resolve_path(input.notebook_path, context)
        if path.suffix.lower() != ".ipynb":
            return ValidationReject("File must be a Jupyter notebook (.ipynb file). For other files, use Edit.", code=2)
        if input.edit_mode == "insert" and input.cell_type is None:
            return ValidationReject("cell_type is required when inserting a cell (code or markdown)", code=5)
        if input.edit_mode != "insert" and input.cell_id is None:
            return ValidationReject(f"cell_id is required to {input.edit_mode} a cell", code=6)
        try:
            st = path.stat()
        except OSError as exc:
            return ValidationReject(describe_os_error(exc, input.notebook_path), code=1)
        if not stat_mod.S_ISREG(st.st_mode):
            return ValidationReject(f"{input.notebook_path} is not a regular file", code=1)
        problem = staleness_problem(path, context, mtime_ns=st.st_mtime_ns)
        if problem is not None:
            return ValidationReject(problem, code=9 if "not been read" in problem else 10)
        return VALID

    async def call(
        self, input: NotebookEditInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[dict[str, Any]]:
        path = resolve_path(input.notebook_path, context)
        with file_slot(path, input.notebook_path, context, write=True) as slot:
            existing = slot.read_existing()
            if existing is None:
                raise ToolInputError(f"{input.notebook_path}: no such file or directory")
            raw, st = existing
            stale = staleness_problem(path, context, mtime_ns=st.st_mtime_ns, content=raw)
            if stale is not None:
                raise ToolInputError(stale)
            notebook = parse_notebook(raw, input.notebook_path)
            edited, cell = edit_notebook(
                notebook,
                ref=input.cell_id,
                new_source=input.new_source,
                cell_type=input.cell_type,
                mode=input.edit_mode,
            )
            problem = notebook_problem(edited)
            if problem is not None:  # a bug here, never the model's fault: do not write
                raise ToolExecutionError(f"The edit would leave an invalid notebook ({problem}); nothing was written")
            data = serialize_notebook(edited, raw)
            written = slot.replace(data)
        record_write(path, data, written, context)
        return ToolResult(
            {
                "notebook_path": display_path(path, context),
                "cell_id": cell,
                "edit_mode": input.edit_mode,
                "cell_type": input.cell_type,
                "cells": len(edited["cells"]),
            }
        )

    def map_result(self, output: dict[str, Any]) -> str:
        cell, path = output["cell_id"], output["notebook_path"]
        match output["edit_mode"]:
            case "insert":
                return f"Inserted cell {cell} in {path}"
            case "delete":
                return f"Deleted cell {cell} from {path}"
            case _:
                return f"Updated cell {cell} in {path}"

    def summarize_input(self, input: NotebookEditInput) -> str:
        return f"{input.notebook_path} {input.edit_mode} {input.cell_id or ''}".strip()
