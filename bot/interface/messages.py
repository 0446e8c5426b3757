"""API-shaped blocks that cross layers: a tool call in, a tool result out, progress in between."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: A tool_result's content: plain text, or a list of content blocks (text, image, ...).
ContentBlock = dict[str, Any]
ToolResultContent = str | list[ContentBlock]


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    """A ``tool_use`` block as the model wrote it. ``input`` is never modified after the fact."""

    id: str
    name: str
    input: Any

    @classmethod
    def from_api(cls, block: dict[str, Any]) -> ToolUseBlock:
        return cls(id=str(block["id"]), name=str(block["name"]), input=block.get("input"))


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    tool_use_id: str
    content: ToolResultContent
    is_error: bool = False

    def to_api(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": self.content}
        if self.is_error:
            block["is_error"] = True
        return block

    @property
    def text(self) -> str:
        """The text parts of the content, joined (for logs and size accounting)."""
        return content_text(self.content)


def content_text(content: ToolResultContent) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content if b.get("type") == "text")


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Something a tool reports while it runs (a line of output, a stage). Emitted at once."""

    tool_use_id: str
    tool_name: str
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


ProgressSink = Callable[[ProgressEvent], None]


def drop_progress(event: ProgressEvent) -> None:
    """A progress sink that drops everything."""


class Progress:
    """What a tool calls to report progress: ``progress("stdout", line="...")``."""

    __slots__ = ("_sink", "tool_name", "tool_use_id")

    def __init__(self, tool_use_id: str, tool_name: str, sink: ProgressSink = drop_progress) -> None:
        self.tool_use_id = tool_use_id
        self.tool_name = tool_name
        self._sink = sink

    def __call__(self, kind: str, **data: Any) -> None:
        self._sink(ProgressEvent(self.tool_use_id, self.tool_name, kind, data))
