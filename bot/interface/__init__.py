"""The Tool interface every layer shares: what a tool is, what it is handed, what it returns.

The seeds' "Tool interface" (section 1): the ``Tool`` base with its fail-closed defaults
(``tool``), the per-call context and its typed services (``context``), cancellation (``abort``)
and the content blocks a call produces (``messages``). It sits just above ``bot.permissions``
(a tool's own check returns a permission result) and below everything that defines, runs or
reports tools, so every import of it runs downward.
"""

from bot.interface.abort import AbortSignal
from bot.interface.context import ReadFileState, ToolLimits, ToolUseContext, make_context
from bot.interface.messages import Progress, ProgressEvent, ToolResultBlock, ToolUseBlock
from bot.interface.tool import (
    VALID,
    AnyTool,
    Tool,
    ToolInput,
    ToolResult,
    ValidationOk,
    ValidationReject,
    ValidationResult,
)

__all__ = [
    "VALID",
    "AbortSignal",
    "AnyTool",
    "Progress",
    "ProgressEvent",
    "ReadFileState",
    "Tool",
    "ToolInput",
    "ToolLimits",
    "ToolResult",
    "ToolResultBlock",
    "ToolUseBlock",
    "ToolUseContext",
    "ValidationOk",
    "ValidationReject",
    "ValidationResult",
    "make_context",
]
