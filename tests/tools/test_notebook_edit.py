"""NotebookEdit: cells replaced, inserted or deleted by id or index; read first; valid output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext
from bot.tools.files.notebook import notebook_problem
from bot.tools.notebook_edit import NotebookEditTool
from bot.tools.read import ReadTool
from tests.tools.helpers import Rejected, call
from tests.tools.samples import code_cell, make_notebook, markdown_cell

NB_EDIT = NotebookEditTool()


@pytest.fixture
def notebook(workspace: Path, context: ToolUseContext) -> Path:
    path = workspace / "analysis.ipynb"
    path.write_bytes(
        make_notebook(
            [
                markdown_cell("intro", "# Analysis\n"),
                code_cell("load", "df = load()\n", [{"output_type": "stream", "name": "stdout", "text": "ok\n"}]),
            ]
        )
    )
    call(ReadTool(), context, file_path="analysis.ipynb")
    return path


def cells(path: Path) -> list[dict[str, object]]:
    nb = json.loads(path.read_text())
    assert notebook_problem(nb) is None
    return nb["cells"]  # type: ignore[no-any-return]


def test_replace_by_id(notebook: Path, context: ToolUseContext) -> None:
    out = call(NB_EDIT, context, notebook_path="analysis.ipynb", cell_id="load", new_source="df = load(fast=True)")
    assert out == "Updated cell load in analysis.ipynb"
    cell = cells(notebook)[1]
    assert cell["source"] == ["df = load(fast=True)"] and cell["outputs"] == []


def test_replace_by_index(notebook: Path, context: ToolUseContext) -> None:
    call(NB_EDIT, context, notebook_path="analysis.ipynb", cell_id="cell-0", new_source="# Title")
    assert cells(notebook)[0]["source"] == ["# Title"]


def test_insert_after_a_cell_and_then_edit_again_without_a_new_read(notebook: Path, context: ToolUseContext) -> None:
    out = call(
        NB_EDIT,
        context,
        notebook_path="analysis.ipynb",
        cell_id="intro",
        new_source="import pandas",
        cell_type="code",
        edit_mode="insert",
    )
    new_id = out.split()[2]
    assert [c.get("id") for c in cells(notebook)] == ["intro", new_id, "load"]
    call(NB_EDIT, context, notebook_path="analysis.ipynb", cell_id=new_id, new_source="import polars")
    assert cells(notebook)[1]["source"] == ["import polars"]


def test_delete(notebook: Path, context: ToolUseContext) -> None:
    call(NB_EDIT, context, notebook_path="analysis.ipynb", cell_id="intro", new_source="", edit_mode="delete")
    assert [c["id"] for c in cells(notebook)] == ["load"]


@pytest.mark.parametrize(
    ("description", "raw", "message"),
    [
        ("insert needs a type", {"cell_id": "intro", "edit_mode": "insert"}, "cell_type is required"),
        ("replace needs a cell", {}, "cell_id is required"),
        ("not a notebook", {"notebook_path": "a.py", "cell_id": "x"}, "must be a Jupyter notebook"),
    ],
)
def test_invalid_requests_are_rejected(
    notebook: Path, context: ToolUseContext, description: str, raw: dict[str, str], message: str
) -> None:
    with pytest.raises(Rejected, match=message):
        call(NB_EDIT, context, **({"notebook_path": "analysis.ipynb", "new_source": "x"} | raw))


def test_a_notebook_changed_since_read_is_refused(notebook: Path, context: ToolUseContext) -> None:
    notebook.write_bytes(make_notebook([markdown_cell("other", "x")]))
    os.utime(notebook, ns=(7, 7))
    with pytest.raises(Rejected, match="modified since read"):
        call(NB_EDIT, context, notebook_path="analysis.ipynb", cell_id="other", new_source="y")


def test_an_unread_notebook_is_refused(workspace: Path, context: ToolUseContext) -> None:
    (workspace / "n.ipynb").write_bytes(make_notebook([]))
    with pytest.raises(Rejected, match="has not been read yet"):
        call(NB_EDIT, context, notebook_path="n.ipynb", new_source="x", cell_type="code", edit_mode="insert")
