"""Permission rules: ``Tool`` or ``Tool(content)``, and how a rule's tool part names tools.

This module owns the rule *model*; how a rule's content matches a call (command prefixes, path
patterns, domains) belongs to the matchers that the policy and Bash-analysis layers provide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.permissions.decision import RuleRef

Behavior = Literal["allow", "deny", "ask"]

# Tool names as the API allows them, plus the `*` of `mcp__server__*`.
_TOOL_PART = re.compile(r"^[A-Za-z0-9_\-]+(\*)?$")


class RuleSyntaxError(ValueError):
    """A rule that cannot be parsed. Never silently matches nothing."""


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    content: str | None
    behavior: Behavior
    ref: RuleRef

    @property
    def text(self) -> str:
        return self.ref.text


def parse_rule_text(text: str) -> tuple[str, str | None]:
    """Split ``Tool(content)`` into its parts; raise :class:`RuleSyntaxError` with what is wrong."""
    raw = text.strip()
    if not raw:
        raise RuleSyntaxError("empty rule")
    if "(" not in raw:
        if ")" in raw:
            raise RuleSyntaxError(f"unbalanced ')' in rule {text!r}")
        tool, content = raw, None
    else:
        if not raw.endswith(")"):
            raise RuleSyntaxError(f"rule {text!r} opens '(' but does not end with ')'")
        tool, _, rest = raw.partition("(")
        content = rest[:-1]
        if content.strip() == "":
            raise RuleSyntaxError(f"rule {text!r} has empty parentheses; write {tool!r} for the whole tool")
        tool = tool.strip()
    if not _TOOL_PART.match(tool):
        raise RuleSyntaxError(f"rule {text!r}: {tool!r} is not a tool name")
    if tool.endswith("*") and not tool.startswith("mcp__"):
        raise RuleSyntaxError(f"rule {text!r}: a '*' in the tool name is only allowed as mcp__server__*")
    return tool, content


def make_rule(text: str, behavior: Behavior, source: str, file: str | None = None, line: int | None = None) -> Rule:
    tool, content = parse_rule_text(text)
    return Rule(tool=tool, content=content, behavior=behavior, ref=RuleRef(text.strip(), source, file, line))


def rule_names_tool(rule_tool: str, tool_name: str, aliases: tuple[str, ...] = ()) -> bool:
    """Does the tool part of a rule name this tool?

    ``Read`` names Read (and its aliases); ``mcp__server`` and ``mcp__server__*`` name every tool
    of that server; ``mcp__server__tool`` names one.
    """
    if rule_tool == tool_name or rule_tool in aliases:
        return True
    if rule_tool.startswith("mcp__") and tool_name.startswith("mcp__"):
        prefix = rule_tool[:-1] if rule_tool.endswith("*") else rule_tool
        if rule_tool.endswith("*"):
            return tool_name.startswith(prefix)
        # `mcp__server` (two parts) names the whole server.
        if rule_tool.count("__") == 1:
            return tool_name.startswith(rule_tool + "__")
    return False
