"""Permission rules: ``Tool`` or ``Tool(content)``, and how a rule's tool part names tools.

This module owns the rule *model*: parsing, per-tool validation of the content (a malformed rule
is an error, it never silently matches nothing), which tools a rule names, and the command-pattern
form of a content (exact, ``prefix:*`` = ``prefix *``, wildcard). How a content matches a call
(paths, domains, compound shell commands) belongs to :mod:`bot.permissions.matchers` and to the
Bash analysis in :mod:`bot.shell`.

Rule families, as in Claude Code: rules written for ``Read`` apply to every tool that reads files
(Glob, Grep), rules written for ``Edit`` to every tool that edits files (Write, NotebookEdit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from bot.permissions.decision import RuleRef
from bot.permissions.path_rules import PathRuleError, validate_path_rule

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
    """Split ``Tool(content)`` into its parts; raise :class:`RuleSyntaxError` with what is wrong.

    The content is returned *unescaped*: Claude Code writes ``\\(``, ``\\)`` and ``\\\\`` inside
    the parentheses when it saves a rule (``Bash(python3 -c "print\\(1\\)")``), and reads them
    back as ``(``, ``)`` and ``\\``. Any other backslash is kept (``\\*`` stays a literal star).
    """
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
        if _escaped_at(raw, len(raw) - 1):
            raise RuleSyntaxError(f"rule {text!r}: its closing ')' is escaped (\\)), so the rule never closes")
        tool, _, rest = raw.partition("(")
        written = rest[:-1]
        if written.strip() == "":
            raise RuleSyntaxError(f"rule {text!r} has empty parentheses; write {tool!r} for the whole tool")
        content = unescape_rule_content(written)
        tool = tool.strip()
    if not _TOOL_PART.match(tool):
        raise RuleSyntaxError(f"rule {text!r}: {tool!r} is not a tool name")
    if tool.endswith("*") and not tool.startswith("mcp__"):
        raise RuleSyntaxError(f"rule {text!r}: a '*' in the tool name is only allowed as mcp__server__*")
    if tool.startswith("mcp__") and tool.endswith("*") and not tool.endswith("__*"):
        raise RuleSyntaxError(f"rule {text!r}: write mcp__server__* for every tool of a server")
    if content is not None:
        problem = content_problem(tool, content)
        if problem is not None:
            raise RuleSyntaxError(f"rule {text!r}: {problem}")
    return tool, content


_RULE_ESCAPE = re.compile(r"\\([\\()])")


def unescape_rule_content(content: str) -> str:
    """Claude Code's ``unescapeRuleContent``: ``\\(`` → ``(``, ``\\)`` → ``)``, ``\\\\`` → ``\\``, in
    one left-to-right pass (so ``\\\\(`` is a backslash, then a parenthesis); every other
    backslash is kept."""
    return _RULE_ESCAPE.sub(r"\1", content) if "\\" in content else content


def escape_rule_content(content: str) -> str:
    """The inverse of :func:`unescape_rule_content`: what to write inside ``Tool(...)`` so the rule
    reads back as ``content`` (Claude Code's ``escapeRuleContent``)."""
    return re.sub(r"[\\()]", lambda m: "\\" + m.group(0), content)


def _escaped_at(text: str, index: int) -> bool:
    """Is the character at ``index`` behind an odd run of backslashes?"""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


#: Tools whose rule content is a gitignore-style path pattern (:mod:`bot.permissions.path_rules`).
READ_FAMILY = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
EDIT_FAMILY = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
PATH_TOOLS = READ_FAMILY | EDIT_FAMILY
#: Tools whose rule content is ``domain:host``.
DOMAIN_TOOLS = frozenset({"WebFetch"})
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"^(\*\.)?{_LABEL}(?:\.{_LABEL})*\.?$")


def content_problem(tool: str, content: str) -> str | None:
    """What is wrong with ``Tool(content)`` for this tool, or ``None``."""
    if tool.startswith("mcp__"):
        return "MCP rules name a server or a tool and take no content in parentheses"
    if tool in PATH_TOOLS:
        try:
            validate_path_rule(content)
        except PathRuleError as exc:
            return str(exc)
        return None
    if tool in DOMAIN_TOOLS:
        if not content.startswith("domain:"):
            return f"{tool} rules take 'domain:HOST' (e.g. {tool}(domain:example.com))"
        host = content.removeprefix("domain:")
        if not _DOMAIN.match(host):
            return f"{host!r} is not a host name (a leading '*.' covers subdomains)"
        return None
    if ":*" in content[:-2]:
        return "':*' is only allowed at the end (prefix rule)"
    return None


def domain_of(content: str) -> str:
    """The host of a ``domain:`` content, lower-cased, without a trailing dot."""
    return content.removeprefix("domain:").lower().rstrip(".")


@dataclass(frozen=True, slots=True)
class CommandPattern:
    """A rule content as a command pattern: ``exact``, ``prefix`` (``git commit:*`` and
    ``git commit *`` are the same rule), or ``wildcard`` (``*`` anywhere, across spaces)."""

    kind: Literal["exact", "prefix", "wildcard"]
    text: str
    regex: re.Pattern[str] | None = None

    def matches(self, command: str) -> bool:
        """Does one simple command match? (Compound commands are split by the Bash analysis.)"""
        command = command.strip()
        match self.kind:
            case "exact":
                return command == self.text
            case "prefix":
                return command == self.text or command.startswith(self.text + " ")
            case "wildcard":
                assert self.regex is not None
                return self.regex.fullmatch(command) is not None


@lru_cache(maxsize=4_096)
def command_pattern(content: str) -> CommandPattern:
    """Parse a content as a :class:`CommandPattern` (``\\*`` is a literal star)."""
    text = content.strip()
    if text.endswith(":*"):
        return CommandPattern("prefix", text[:-2].rstrip())
    if text.endswith(" *") and "*" not in _unescape_free(text[:-2]):
        return CommandPattern("prefix", text[:-2].rstrip())
    if "*" not in _unescape_free(text):
        return CommandPattern("exact", text.replace("\\*", "*"))
    parts: list[str] = []
    i = 0
    trailing_space_star = text.endswith(" *") and not text.endswith("\\ *")
    body = text[:-2] if trailing_space_star else text
    while i < len(body):
        if body.startswith("\\*", i):
            parts.append(re.escape("*"))
            i += 2
        elif body[i] == "*":
            parts.append(".*")
            i += 1
        else:
            parts.append(re.escape(body[i]))
            i += 1
    pattern = "".join(parts) + ("(?: .*)?" if trailing_space_star else "")
    return CommandPattern("wildcard", text, re.compile(pattern, re.DOTALL))


def _unescape_free(text: str) -> str:
    return text.replace("\\*", "")


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


def rule_applies_to(rule_tool: str, tool_name: str, aliases: tuple[str, ...] = ()) -> bool:
    """:func:`rule_names_tool`, plus the families: a ``Read`` rule applies to Glob and Grep, an
    ``Edit`` rule to Write and NotebookEdit (Claude Code's behaviour)."""
    if rule_names_tool(rule_tool, tool_name, aliases):
        return True
    if rule_tool == "Read":
        return tool_name in READ_FAMILY
    if rule_tool == "Edit":
        return tool_name in EDIT_FAMILY
    return False
