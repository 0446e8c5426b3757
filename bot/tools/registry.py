"""``all_base_tools()``: the single source of truth for built-in tools (seeds 4.2, layer 1).

Each entry is constructed here and nowhere else. Tools that depend on optional machinery decide
for themselves with ``is_enabled``; there are no compile-time gates in Python.

The table names each tool's module instead of importing it: a command that needs one tool
(``bot tools call Read``) imports that tool alone, not the shell analysis behind Bash or the HTML
libraries behind WebFetch. ``tests/runtime/test_assembly.py`` checks that every entry's name and
aliases are the class's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import cast

from bot.interface.tool import AnyTool


@dataclass(frozen=True, slots=True)
class BuiltinTool:
    """Where a built-in tool is defined, and the names a call may use for it."""

    name: str
    module: str
    cls: str
    aliases: tuple[str, ...] = ()
    #: The tool reads the rest of the pool (ToolSearch lists it, Agent hands it on): a pool made
    #: for this tool alone would change what it does.
    reads_pool: bool = False

    def load(self) -> AnyTool:
        return cast(AnyTool, getattr(import_module(self.module), self.cls)())


BUILTIN_TOOLS: tuple[BuiltinTool, ...] = (
    BuiltinTool("Glob", "bot.tools.glob", "GlobTool"),
    BuiltinTool("Read", "bot.tools.read", "ReadTool", ("FileRead", "FileReadTool")),
    BuiltinTool("Edit", "bot.tools.edit", "EditTool", ("FileEdit", "FileEditTool")),
    BuiltinTool("Write", "bot.tools.write", "WriteTool", ("FileWrite", "FileWriteTool")),
    BuiltinTool("NotebookEdit", "bot.tools.notebook_edit", "NotebookEditTool", ("NotebookEditTool",)),
    BuiltinTool("Grep", "bot.tools.grep", "GrepTool"),
    BuiltinTool("WebFetch", "bot.tools.web_fetch", "WebFetchTool", ("WebFetchTool",)),
    BuiltinTool("Bash", "bot.tools.bash", "BashTool"),
    BuiltinTool("TaskOutput", "bot.tools.tasks", "TaskOutputTool"),
    BuiltinTool("TaskStop", "bot.tools.tasks", "TaskStopTool"),
    BuiltinTool("TodoWrite", "bot.tools.todo_write", "TodoWriteTool"),
    BuiltinTool("ToolSearch", "bot.tools.tool_search", "ToolSearchTool", reads_pool=True),
    BuiltinTool("Agent", "bot.tools.agent_tool", "AgentTool", ("Task",), reads_pool=True),
)


def all_base_tools() -> list[AnyTool]:
    return [entry.load() for entry in BUILTIN_TOOLS]


def base_tools_for(name: str) -> list[AnyTool]:
    """The built-ins a pool for one call of ``name`` needs: that tool alone when it is a built-in
    that does not read the pool, else all of them (an unknown name's error lists what exists)."""
    for entry in BUILTIN_TOOLS:
        if name == entry.name or name in entry.aliases:
            return all_base_tools() if entry.reads_pool else [entry.load()]
    return all_base_tools()
