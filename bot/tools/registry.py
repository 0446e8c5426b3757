"""``all_base_tools()``: the single source of truth for built-in tools (seeds 4.2, layer 1).

Each entry is constructed here and nowhere else. Tools that depend on optional machinery decide
for themselves with ``is_enabled``; there are no compile-time gates in Python.
"""

from __future__ import annotations

from bot.interface.tool import AnyTool
from bot.tools.agent_tool import AgentTool
from bot.tools.bash import BashTool
from bot.tools.edit import EditTool
from bot.tools.glob import GlobTool
from bot.tools.grep import GrepTool
from bot.tools.notebook_edit import NotebookEditTool
from bot.tools.read import ReadTool
from bot.tools.tasks import TaskOutputTool, TaskStopTool
from bot.tools.todo_write import TodoWriteTool
from bot.tools.tool_search import ToolSearchTool
from bot.tools.web_fetch import WebFetchTool
from bot.tools.write import WriteTool


def all_base_tools() -> list[AnyTool]:
    return [
        GlobTool(),
        ReadTool(),
        EditTool(),
        WriteTool(),
        NotebookEditTool(),
        GrepTool(),
        WebFetchTool(),
        BashTool(),
        TaskOutputTool(),
        TaskStopTool(),
        TodoWriteTool(),
        ToolSearchTool(),
        AgentTool(),
    ]
