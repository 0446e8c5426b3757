"""Notebooks: shown as cells with outputs; edits keep them valid nbformat 4."""

from __future__ import annotations

import base64
import json

import pytest

from bot.errors import ToolInputError
from bot.tools.files.notebook import (
    edit_notebook,
    notebook_problem,
    parse_notebook,
    render_notebook,
    serialize_notebook,
)
from tests.tools.samples import code_cell, make_image, make_notebook, markdown_cell

PNG_B64 = base64.b64encode(make_image("PNG", (4, 4))).decode()


def sample() -> bytes:
    return make_notebook(
        [
            markdown_cell("intro", "# Title\n"),
            code_cell("c1", "print('hi')\n", [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]),
            code_cell(
                "c2",
                "1/0",
                [
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "division by zero",
                        "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
                    }
                ],
            ),
            code_cell(
                "c3",
                "plot()",
                [
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"image/png": PNG_B64, "text/plain": ["<Figure>"]},
                    }
                ],
            ),
        ]
    )


def test_cells_are_shown_with_ids_types_and_outputs() -> None:
    blocks = render_notebook(parse_notebook(sample(), "nb.ipynb"))
    text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
    assert '<cell id="intro" index="0" type="markdown">\n# Title' in text
    assert '<output cell="c1">\nhi\n</output>' in text
    assert "ZeroDivisionError: division by zero" in text and "\x1b" not in text
    assert [b["type"] for b in blocks] == ["text", "image"]  # the image follows its cell's text output
    assert blocks[1]["source"]["data"] == PNG_B64


def test_cells_without_ids_are_named_by_index() -> None:
    nb = parse_notebook(make_notebook([code_cell(None, "x = 1")], minor=4), "old.ipynb")
    assert '<cell id="cell-0"' in render_notebook(nb)[0]["text"]


@pytest.mark.parametrize(
    ("description", "raw", "problem"),
    [
        ("not JSON", b"{", "not JSON"),
        ("nbformat 3", b'{"nbformat": 3, "cells": []}', "nbformat 3"),
        (
            "a code cell without outputs",
            b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": ""}]}',
            "no outputs",
        ),
        ("duplicate ids", make_notebook([markdown_cell("a", "x"), markdown_cell("a", "y")]), "used twice"),
    ],
)
def test_invalid_notebooks_are_refused(description: str, raw: bytes, problem: str) -> None:
    with pytest.raises(ToolInputError, match=problem):
        parse_notebook(raw, "bad.ipynb")


def test_replacing_a_code_cell_clears_its_outputs() -> None:
    nb = parse_notebook(sample(), "nb.ipynb")
    edited, ref = edit_notebook(nb, ref="c1", new_source="print('bye')\n", cell_type=None, mode="replace")
    cell = edited["cells"][1]
    assert ref == "c1" and cell["source"] == ["print('bye')\n"]
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert nb["cells"][1]["outputs"]  # the original document is untouched
    assert notebook_problem(edited) is None


def test_changing_a_cell_to_markdown_drops_code_fields() -> None:
    edited, _ = edit_notebook(
        parse_notebook(sample(), "nb"), ref="c2", new_source="text", cell_type="markdown", mode="replace"
    )
    assert edited["cells"][2] == {"cell_type": "markdown", "id": "c2", "metadata": {}, "source": ["text"]}
    assert notebook_problem(edited) is None


@pytest.mark.parametrize(
    ("description", "ref", "index"),
    [("after a named cell", "c1", 2), ("at the start without a cell", None, 0), ("after cell-N", "cell-3", 4)],
)
def test_insert_places_a_new_valid_cell(description: str, ref: str | None, index: int) -> None:
    edited, new_ref = edit_notebook(
        parse_notebook(sample(), "nb"), ref=ref, new_source="y = 2", cell_type="code", mode="insert"
    )
    cell = edited["cells"][index]
    assert cell["id"] == new_ref and cell["source"] == ["y = 2"] and cell["outputs"] == []
    assert len(edited["cells"]) == 5 and notebook_problem(edited) is None


def test_delete_removes_the_cell() -> None:
    edited, ref = edit_notebook(parse_notebook(sample(), "nb"), ref="1", new_source="", cell_type=None, mode="delete")
    assert ref == "c1" and [c["id"] for c in edited["cells"]] == ["intro", "c2", "c3"]


def test_an_unknown_cell_lists_the_cells_there_are() -> None:
    with pytest.raises(ToolInputError, match="Cells: intro, c1, c2, c3"):
        edit_notebook(parse_notebook(sample(), "nb"), ref="nope", new_source="", cell_type=None, mode="replace")


def test_notebooks_without_ids_get_no_ids() -> None:
    nb = parse_notebook(make_notebook([code_cell(None, "x")], minor=4), "old")
    edited, ref = edit_notebook(nb, ref=None, new_source="# hi", cell_type="markdown", mode="insert")
    assert ref == "cell-0" and "id" not in edited["cells"][0]


def test_serialising_keeps_the_indentation_and_ends_with_a_newline() -> None:
    raw = sample()
    out = serialize_notebook(json.loads(raw), raw)
    assert out == raw
    two = json.dumps(json.loads(raw), indent=2).encode() + b"\n"
    assert serialize_notebook(json.loads(raw), two) == two
