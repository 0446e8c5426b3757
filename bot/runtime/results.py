"""Large tool results (seeds 4.8): persist to the run's scratch directory, give the model a preview.

Three limits, as in the seeds' ``src/constants/toolLimits.ts``:

* per tool: ``max_result_chars``, clamped at ``DEFAULT_MAX_RESULT_SIZE_CHARS``; over it the full
  result goes to ``<scratch>/tool-results/`` and the model gets a preview and the path;
* absolute: ``MAX_TOOL_RESULT_TOKENS`` — even a tool exempt from persistence (Read, ``inf``) is
  persisted above it;
* per message: ``MAX_TOOL_RESULTS_PER_MESSAGE_CHARS`` across the results of one turn; when several
  concurrent results exceed it together, the largest are persisted first.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from bot.interface.context import CHARS_PER_TOKEN
from bot.interface.messages import ContentBlock, ToolResultBlock, ToolResultContent, content_text
from bot.interface.tool import AnyTool
from bot.tools.files.persisted import TOOL_RESULTS_DIR as TOOL_RESULTS_DIR
from bot.tools.files.persisted import results_dir

#: Seeds 4.8: the default (and the ceiling) of a tool's ``maxResultSizeChars``.
DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000
#: Seeds 4.8: no tool result may exceed this many tokens ("about 400KB").
MAX_TOOL_RESULT_TOKENS = 100_000
MAX_TOOL_RESULT_CHARS = MAX_TOOL_RESULT_TOKENS * CHARS_PER_TOKEN
#: Seeds 4.8: the aggregate of all tool results in one message.
MAX_TOOL_RESULTS_PER_MESSAGE_CHARS = 200_000
#: How much of a persisted result the model sees inline.
PREVIEW_SIZE_CHARS = 2_000

_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")


def persistence_threshold(tool: AnyTool) -> float:
    """The size above which this tool's results are persisted (``inf`` = exempt up to the cap)."""
    declared = tool.result_limit()
    if math.isinf(declared):
        return declared
    return min(declared, DEFAULT_MAX_RESULT_SIZE_CHARS)


def result_size(content: ToolResultContent) -> int:
    """Characters a result costs in the context (its text; images are budgeted elsewhere)."""
    return len(content_text(content))


def persist_content(content: ToolResultContent, tool_use_id: str, scratch_dir: Path) -> ToolResultContent:
    """Write the full text to ``tool-results/<id>.txt`` and return a preview that names the file."""
    text = content_text(content)
    path = write_persisted(results_dir(scratch_dir), f"{_UNSAFE_ID.sub('_', tool_use_id) or 'result'}.txt", text)
    preview = text[:PREVIEW_SIZE_CHARS]
    cut = preview.rfind("\n")
    if cut > PREVIEW_SIZE_CHARS // 2:
        preview = preview[:cut]
    message = (
        "<persisted-output>\n"
        f"Output too large ({len(text):,} characters). Full output saved to: {path}\n"
        "Read it with the Read tool (offset/limit) or search it with Grep.\n\n"
        f"Preview (first {len(preview):,} characters):\n{preview}\n"
        f"... [{len(text) - len(preview):,} more characters truncated] ...\n"
        "</persisted-output>"
    )
    if isinstance(content, str):
        return message
    others: list[ContentBlock] = [b for b in content if b.get("type") != "text"]
    return [{"type": "text", "text": message}, *others]


def write_persisted(directory: Path, name: str, text: str) -> Path:
    """Write ``text`` as ``directory/name`` (made private to the run's user), never through a link
    left at that name; the model reads it back under the grant of :mod:`bot.tools.files.persisted`."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / name
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a leftover (or a link) at the name is replaced, not followed
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def limit_result(tool: AnyTool, block: ToolResultBlock, scratch_dir: Path) -> ToolResultBlock:
    """Stage 6's per-result rule: persist over the tool's threshold or over the absolute cap."""
    size = result_size(block.content)
    threshold = persistence_threshold(tool)
    if size <= threshold and size <= MAX_TOOL_RESULT_CHARS:
        return block
    return replace(block, content=persist_content(block.content, block.tool_use_id, scratch_dir))


def enforce_message_budget(
    blocks: Sequence[ToolResultBlock],
    scratch_dir: Path,
    *,
    budget: int = MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
    exempt_ids: Collection[str] = (),
) -> list[ToolResultBlock]:
    """Persist the largest results first until the message fits the aggregate budget.

    Results of exempt tools (those that page themselves) count towards the total but are never
    chosen: persisting a Read result only to have the model Read it back would be circular.
    Order is preserved.
    """
    out = list(blocks)
    total = sum(result_size(b.content) for b in out)
    if total <= budget:
        return out
    candidates = sorted(
        (i for i, b in enumerate(out) if b.tool_use_id not in exempt_ids and not _is_persisted(b)),
        key=lambda i: result_size(out[i].content),
        reverse=True,
    )
    for i in candidates:
        if total <= budget:
            break
        before = result_size(out[i].content)
        out[i] = replace(out[i], content=persist_content(out[i].content, out[i].tool_use_id, scratch_dir))
        total += result_size(out[i].content) - before
    return out


def _is_persisted(block: ToolResultBlock) -> bool:
    return content_text(block.content).startswith("<persisted-output>")
