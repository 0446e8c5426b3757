"""Allow rules that can never allow anything: a deny (or ask) rule covers every call they cover.

Deny beats allow across every source, so ``WebFetch(domain:docs.python.org)`` in a repository's
policy is dead under a preset's bare ``WebFetch`` deny — and nothing said so. :func:`shadowed_allows`
finds each such allow rule and the rule that shadows it, so ``bot policy show``, ``bot policy
check`` and the run's summary can warn, naming both.

The check is on rule text only (no call is needed) and errs on the side of silence: it reports a
shadow only when every call the allow rule could cover is certainly covered by the other rule —
the same rule, a whole-tool rule (``WebFetch``, ``Read`` for Glob and Grep, ``mcp__server``), a
command prefix that the allowed command starts with (``Bash(git push *)`` over ``Bash(git push
origin main)``), a domain under a ``*.`` domain, or a path pattern that covers the directory every
path the allow rule names lies under.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.permissions.matchers import rule_base
from bot.permissions.path_rules import PathRuleError, compile_path_rule, literal_root
from bot.permissions.rules import (
    DOMAIN_TOOLS,
    EDIT_FAMILY,
    PATH_TOOLS,
    READ_FAMILY,
    Rule,
    command_pattern,
    domain_of,
    rule_applies_to,
)

#: Patterns are compared against one imagined workspace: both rules are anchored to the same one.
_WORKSPACE = Path("/nonexistent-workspace-of-the-run")


@dataclass(frozen=True, slots=True)
class Shadow:
    allow: Rule
    by: Rule

    def message(self) -> str:
        kind = "deny" if self.by.behavior == "deny" else "ask (a denial headless)"
        return (
            f"allow rule {_describe(self.allow)} never allows anything: the {kind} rule "
            f"{_describe(self.by)} covers every call it covers, and deny beats allow across every source"
        )


def _describe(rule: Rule) -> str:
    """The rule and where it is written; a shipped preset by its file name (the runner's install
    path says nothing to a maintainer reading the run's comment)."""
    ref = rule.ref
    if ref.source == "preset" and ref.file is not None:
        where = Path(ref.file).name + (f":{ref.line}" if ref.line is not None else "")
        return f"`{ref.text}` (preset, {where})"
    return ref.describe()


def shadowed_allows(allow: Iterable[Rule], stronger: Iterable[Rule]) -> list[Shadow]:
    """Each allow rule that a rule of ``stronger`` (deny and ask rules) shadows, with the first such rule."""
    strong = list(stronger)
    found: list[Shadow] = []
    for rule in allow:
        by = next((s for s in strong if covers_all(s, rule)), None)
        if by is not None:
            found.append(Shadow(rule, by))
    return found


def covers_all(strong: Rule, allow: Rule) -> bool:
    """Does ``strong`` cover every call ``allow`` covers?"""
    tools = _tools_of(allow.tool)
    if not all(_names(strong.tool, t) for t in tools):
        return False
    if strong.content is None:
        return True
    if allow.content is None:
        return False
    if strong.content == allow.content and rule_base(strong.ref.file) == rule_base(allow.ref.file):
        return True
    if allow.tool in DOMAIN_TOOLS:
        wanted, given = domain_of(strong.content), domain_of(allow.content)
        return wanted.startswith("*.") and (given.endswith(wanted[1:]) or given == wanted)
    if allow.tool in PATH_TOOLS:
        return _path_covers(strong, allow)
    if allow.tool.startswith("mcp__"):
        return False
    outer, inner = command_pattern(strong.content), command_pattern(allow.content)
    if outer.kind == "prefix" and inner.kind in ("exact", "prefix"):
        return inner.text == outer.text or inner.text.startswith(outer.text + " ")
    if outer.kind == "wildcard" and inner.kind == "exact":
        return outer.matches(inner.text)
    return outer.kind == inner.kind == "exact" and outer.text == inner.text


def _tools_of(tool: str) -> tuple[str, ...]:
    """The tools a rule's tool part applies to (a ``Read`` rule applies to the whole family)."""
    if tool == "Read":
        return tuple(sorted(READ_FAMILY))
    if tool == "Edit":
        return tuple(sorted(EDIT_FAMILY))
    return (tool,)


def _names(strong_tool: str, tool: str) -> bool:
    if rule_applies_to(strong_tool, tool):
        return True
    # `mcp__s`, `mcp__s__*` and `mcp__s__t`: a server-wide rule names the server's every tool.
    if strong_tool.startswith("mcp__") and tool.startswith("mcp__"):
        server = strong_tool.removesuffix("__*")
        if server.count("__") == 1:
            return tool.removesuffix("__*") == server or tool.startswith(server + "__")
    return False


def _path_covers(strong: Rule, allow: Rule) -> bool:
    assert strong.content is not None and allow.content is not None
    try:
        found = literal_root(allow.content, workspace=_WORKSPACE, rule_base=rule_base(allow.ref.file))
        if found is None:
            return False
        pattern = compile_path_rule(strong.content, workspace=_WORKSPACE, rule_base=rule_base(strong.ref.file))
    except PathRuleError:
        return False
    root, exact = found
    # A pattern that covers a directory covers everything below it. When the allow rule names one
    # path exactly, it may be a file: a directory-only pattern does not count as covering it.
    return pattern.matches(root, is_dir=not exact)
