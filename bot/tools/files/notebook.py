"""Jupyter notebooks: shown to the model as cells with outputs (Read), edited cell by cell
(NotebookEdit), always written back as a valid nbformat-4 document.

Cells are named by their ``id`` (nbformat ≥ 4.5) or, for notebooks without ids, ``cell-N``
(0-based, as Claude Code names them). Edits keep the file's JSON layout: key order as found,
the indentation it used, a final newline (what Jupyter writes).
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, Literal

from bot.errors import ToolInputError
from bot.interface.messages import ContentBlock
from bot.tools.files.images import MAX_IMAGE_BYTES

#: One cell output longer than this is cut in what Read shows (the file keeps it whole).
MAX_OUTPUT_CHARS = 10_000
CELL_TYPES = ("code", "markdown", "raw")
EditMode = Literal["replace", "insert", "delete"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INDEX_REF = re.compile(r"^(?:cell-)?(\d+)$")

Notebook = dict[str, Any]


def parse_notebook(raw: bytes, name: str) -> Notebook:
    try:
        nb = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ToolInputError(f"{name} is not a valid notebook: not JSON ({exc})") from None
    problem = notebook_problem(nb)
    if problem:
        raise ToolInputError(f"{name} is not a valid notebook: {problem}")
    assert isinstance(nb, dict)
    return nb


def notebook_problem(nb: object) -> str | None:
    """What makes this not a valid nbformat-4 notebook (the parts our tools rely on), or ``None``."""
    if not isinstance(nb, dict):
        return "the top level is not an object"
    if nb.get("nbformat") != 4:
        return f"nbformat {nb.get('nbformat')!r} is not supported (only 4)"
    cells = nb.get("cells")
    if not isinstance(cells, list):
        return "'cells' is not a list"
    seen: set[str] = set()
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            return f"cell {i} is not an object"
        if cell.get("cell_type") not in CELL_TYPES:
            return f"cell {i} has cell_type {cell.get('cell_type')!r}"
        source = cell.get("source")
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"cell {i} has no valid source"
        if not isinstance(cell.get("metadata", {}), dict):
            return f"cell {i} has invalid metadata"
        if cell["cell_type"] == "code":
            if not isinstance(cell.get("outputs"), list):
                return f"code cell {i} has no outputs list"
            count = cell.get("execution_count")
            if count is not None and not isinstance(count, int):
                return f"code cell {i} has an invalid execution_count"
        if "id" in cell:
            cid = cell["id"]
            if not isinstance(cid, str) or not _CELL_ID.match(cid):
                return f"cell {i} has an invalid id {cid!r}"
            if cid in seen:
                return f"cell id {cid!r} is used twice"
            seen.add(cid)
    return None


def cell_ref(cell: dict[str, Any], index: int) -> str:
    cid = cell.get("id")
    return cid if isinstance(cid, str) else f"cell-{index}"


def source_text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def render_notebook(nb: Notebook) -> list[ContentBlock]:
    """Cells with their outputs as text blocks; image outputs as image blocks in place."""
    language = str(nb.get("metadata", {}).get("language_info", {}).get("name", "python"))
    blocks: list[ContentBlock] = []
    text: list[str] = []
    for index, cell in enumerate(nb["cells"]):
        ref = cell_ref(cell, index)
        kind = cell["cell_type"]
        attrs = f'id="{ref}" index="{index}" type="{kind}"'
        if kind == "code" and cell.get("execution_count") is not None:
            attrs += f' execution_count="{cell["execution_count"]}"'
        body = source_text(cell)
        text.append(f"<cell {attrs}>\n" + (f"```{language}\n{body}\n```" if kind == "code" else body) + "\n</cell>")
        for output in cell.get("outputs", []) if kind == "code" else []:
            rendered, images = _render_output(output)
            if rendered:
                text.append(f'<output cell="{ref}">\n{rendered}\n</output>')
            if images:
                blocks.append({"type": "text", "text": "\n".join(text)})
                text = []
                blocks.extend(images)
    if text or not blocks:
        blocks.append({"type": "text", "text": "\n".join(text) if text else "(the notebook has no cells)"})
    return blocks


def _render_output(output: Any) -> tuple[str, list[ContentBlock]]:
    if not isinstance(output, dict):
        return "", []
    kind = output.get("output_type")
    images: list[ContentBlock] = []
    if kind == "stream":
        text = _joined(output.get("text", ""))
    elif kind == "error":
        traceback = "\n".join(_ANSI.sub("", line) for line in output.get("traceback", []))
        text = traceback or f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    elif kind in ("execute_result", "display_data"):
        data = output.get("data", {})
        text = _joined(data.get("text/plain", "")) if isinstance(data, dict) else ""
        for media_type in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            payload = data.get(media_type) if isinstance(data, dict) else None
            if payload:
                encoded = _joined(payload).replace("\n", "")
                if len(encoded) * 3 // 4 <= MAX_IMAGE_BYTES:
                    images.append(
                        {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}
                    )
                break
    else:
        return "", []
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n… [output truncated: {len(text):,} characters]"
    return text.rstrip("\n"), images


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def find_cell(nb: Notebook, ref: str) -> int:
    """The index of the cell named ``ref``: an id, else ``cell-N`` or ``N`` as a 0-based index."""
    cells = nb["cells"]
    for index, cell in enumerate(cells):
        if cell.get("id") == ref:
            return index
    m = _INDEX_REF.match(ref.strip())
    if m is not None and int(m.group(1)) < len(cells):
        return int(m.group(1))
    known = ", ".join(cell_ref(c, i) for i, c in enumerate(cells[:20]))
    raise ToolInputError(f"Cell {ref!r} not found in the notebook. Cells: {known or '(none)'}")


def edit_notebook(
    nb: Notebook, *, ref: str | None, new_source: str, cell_type: str | None, mode: EditMode
) -> tuple[Notebook, str]:
    """Apply one edit to a copy of ``nb``; return it and the id (or ``cell-N``) of the cell touched."""
    nb = json.loads(json.dumps(nb))  # never mutate the caller's document
    cells: list[dict[str, Any]] = nb["cells"]
    if mode == "insert":
        if cell_type is None:
            raise ToolInputError("cell_type is required when inserting a cell (code or markdown)")
        index = 0 if ref is None else find_cell(nb, ref) + 1
        cell = _new_cell(cell_type, new_source, nb, {c.get("id") for c in cells})
        cells.insert(index, cell)
        return nb, cell_ref(cell, index)
    if ref is None:
        raise ToolInputError(f"cell_id is required to {mode} a cell")
    index = find_cell(nb, ref)
    touched = cell_ref(cells[index], index)
    if mode == "delete":
        del cells[index]
        return nb, touched
    cell = cells[index]
    if cell_type is not None and cell_type != cell["cell_type"]:
        cell["cell_type"] = cell_type
    cell["source"] = _source_lines(new_source)
    if cell["cell_type"] == "code":
        # the old outputs belong to the old source
        cell["outputs"] = []
        cell["execution_count"] = None
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    cell.setdefault("metadata", {})
    return nb, touched


def _new_cell(cell_type: str, source: str, nb: Notebook, taken: set[Any]) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": cell_type}
    if cell_type == "code":
        cell["execution_count"] = None
    if _has_ids(nb):
        cid = uuid.uuid4().hex[:8]
        while cid in taken:
            cid = uuid.uuid4().hex[:8]
        cell["id"] = cid
    cell["metadata"] = {}
    if cell_type == "code":
        cell["outputs"] = []
    cell["source"] = _source_lines(source)
    return cell


def _has_ids(nb: Notebook) -> bool:
    # nbformat 4.5 made cell ids required; older minors must not have them
    return int(nb.get("nbformat_minor", 0)) >= 5 or any("id" in c for c in nb["cells"])


def _source_lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def serialize_notebook(nb: Notebook, original: bytes) -> bytes:
    """JSON in the file's own layout (indentation found in ``original``; Jupyter's is 1)."""
    indent = 1
    m = re.search(rb"\n( +)\"", original[:4096])
    if m is not None:
        indent = len(m.group(1))
    return (json.dumps(nb, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")
