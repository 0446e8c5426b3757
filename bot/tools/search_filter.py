"""Permission-aware search (seeds 8.4.1): what a ``Read`` deny rule covers never leaks through
Glob or Grep.

A file the model may not Read must not show up as a Glob result or a Grep match either —
``Read(.env)`` would mean little if ``Grep("API_KEY")`` printed the line. The filter compiles the
context's deny rules that name ``Read`` (or the searching tool itself) with a path pattern, with
the policy layer's own matcher (:mod:`bot.permissions.path_rules`, gitignore semantics), and is
asked for every path a search returns. The paths ripgrep reports are real paths (it does not
follow symbolic links), so the resolved and the written path are the same.

A pattern that cannot be compiled fails closed: it hides everything.
"""

from __future__ import annotations

from pathlib import Path

from bot.interface.context import ToolUseContext
from bot.permissions.matchers import rule_base
from bot.permissions.path_rules import PathPattern, PathRuleError, compile_path_rule
from bot.permissions.rules import rule_names_tool


class SearchFilter:
    """Decides which search results the model may see."""

    __slots__ = ("_hide_all", "_patterns")

    def __init__(self, context: ToolUseContext, tool_name: str) -> None:
        self._patterns: list[PathPattern] = []
        self._hide_all = False
        for rule in context.permission.deny:
            if rule.content is None:
                continue
            if not (rule_names_tool(rule.tool, "Read") or rule_names_tool(rule.tool, tool_name)):
                continue
            try:
                self._patterns.append(
                    compile_path_rule(rule.content, workspace=context.workspace, rule_base=rule_base(rule.ref.file))
                )
            except (PathRuleError, ValueError):
                self._hide_all = True

    @property
    def active(self) -> bool:
        """False when nothing is ever hidden (the common case: no per-path work at all)."""
        return self._hide_all or bool(self._patterns)

    def hides(self, path: str | Path) -> bool:
        """Is this absolute path (a file) covered by a deny rule?"""
        if self._hide_all:
            return True
        return any(p.matches(path, is_dir=False) for p in self._patterns)
