"""``all_base_tools()``: the single source of truth for built-in tools (seeds 4.2, layer 1).

Each entry is constructed here and nowhere else. Tools that depend on optional machinery decide
for themselves with ``is_enabled``; there are no compile-time gates in Python.
"""

from __future__ import annotations

from bot.tools.base import AnyTool
from bot.tools.glob import GlobTool
from bot.tools.read import ReadTool


def all_base_tools() -> list[AnyTool]:
    return [
        GlobTool(),
        ReadTool(),
    ]
