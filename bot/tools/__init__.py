"""The Tool interface and the built-in tools. Public surface: see ``__all__``."""

from bot.tools.base import (
    VALID,
    AnyTool,
    Tool,
    ToolInput,
    ToolResult,
    ValidationOk,
    ValidationReject,
    ValidationResult,
)
from bot.tools.context import ReadFileState, ToolLimits, ToolUseContext, make_context
from bot.tools.messages import Progress, ProgressEvent, ToolResultBlock, ToolUseBlock

__all__ = [
    "VALID",
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
