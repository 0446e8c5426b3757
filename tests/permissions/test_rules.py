"""The rule model: every rule form parses, malformed rules say what is wrong, families and patterns."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.interface.context import make_context
from bot.permissions.chain import PermissionRequest
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Allow
from bot.permissions.matchers import RequestFacts, content_covers
from bot.permissions.rules import (
    RuleSyntaxError,
    command_pattern,
    escape_rule_content,
    make_rule,
    parse_rule_text,
    rule_applies_to,
    rule_names_tool,
    unescape_rule_content,
)
from bot.permissions.schema import load_policy_file
from bot.shell.api import check_bash_permissions
from tests.conftest import FIXTURES

SETTINGS = FIXTURES / "claude-settings"


@pytest.mark.parametrize(
    ("description", "text", "tool", "content"),
    [
        ("a whole tool", "Read", "Read", None),
        ("surrounding spaces are trimmed", "  Bash  ", "Bash", None),
        ("an exact command", "Bash(npm install)", "Bash", "npm install"),
        ("a legacy prefix", "Bash(git commit:*)", "Bash", "git commit:*"),
        ("a wildcard prefix", "Bash(git *)", "Bash", "git *"),
        ("a wildcard in the middle", "Bash(wget *|bash*)", "Bash", "wget *|bash*"),
        ("a path pattern", "Edit(src/**)", "Edit", "src/**"),
        ("an absolute path pattern", "Read(//etc/**)", "Read", "//etc/**"),
        ("a home path pattern", "Read(~/.ssh/**)", "Read", "~/.ssh/**"),
        (
            "a path with spaces inside",
            "Read(~/Library/Application Support/**/x*/**)",
            "Read",
            "~/Library/Application Support/**/x*/**",
        ),
        ("a domain", "WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("a subdomain wildcard", "WebFetch(domain:*.example.com)", "WebFetch", "domain:*.example.com"),
        ("a whole MCP server", "mcp__github", "mcp__github", None),
        ("one MCP tool", "mcp__github__create_issue", "mcp__github__create_issue", None),
        ("every tool of an MCP server", "mcp__github__*", "mcp__github__*", None),
        ("a tool we do not know yet", "Task(Explore)", "Task", "Explore"),
        ("parentheses inside the content", "Bash(echo (x))", "Bash", "echo (x)"),
        (
            "escaped parentheses, as Claude Code saves them",
            r'Bash(python3 -c "print\(1\)")',
            "Bash",
            'python3 -c "print(1)"',
        ),
        ("an escaped backslash", r"Bash(echo a\\b)", "Bash", r"echo a\b"),
        (
            "an escaped backslash then an escaped parenthesis",
            r"Bash(find . \\\( -name x \\\))",
            "Bash",
            r"find . \( -name x \)",
        ),
        ("an escaped star stays escaped: a literal star", r"Bash(echo \*)", "Bash", r"echo \*"),
        ("other backslashes are kept", r"Bash(grep a\|b f)", "Bash", r"grep a\|b f"),
        (
            "escaped parentheses in a path",
            r"Read(//c/Program Files \(x86\)/SDKs/**)",
            "Read",
            "//c/Program Files (x86)/SDKs/**",
        ),
    ],
)
def test_every_rule_form_parses(description: str, text: str, tool: str, content: str | None) -> None:
    assert parse_rule_text(text) == (tool, content), description


@pytest.mark.parametrize(
    ("description", "text", "message"),
    [
        ("empty", "", "empty rule"),
        ("empty parentheses", "Bash()", "empty parentheses"),
        ("an unclosed parenthesis", "Bash(git", "does not end"),
        ("a stray closing parenthesis", "Bash)", "unbalanced"),
        ("a bad tool name", "Re ad", "not a tool name"),
        ("a star in a built-in tool name", "Read*", "only allowed as mcp__server__*"),
        ("a star glued to an MCP server name", "mcp__github*", "mcp__server__\\*"),
        ("content on an MCP rule", "mcp__github__create_issue(x)", "no content"),
        ("a WebFetch rule without domain:", "WebFetch(example.com)", "domain:HOST"),
        ("a WebFetch rule with a URL", "WebFetch(domain:https://x.org/)", "not a host name"),
        ("a path rule with an unclosed class", "Read(src/[ab)", "unclosed"),
        ("a path rule for another user's home", "Edit(~root/x)", "home"),
        ("a legacy prefix in the middle", "Bash(git:*:push)", "only allowed at the end"),
        ("an escaped closing parenthesis", r"Bash(echo \)", r"closing '\)' is escaped"),
    ],
)
def test_malformed_rules_raise_and_say_what_is_wrong(description: str, text: str, message: str) -> None:
    with pytest.raises(RuleSyntaxError, match=message):
        parse_rule_text(text)


def test_a_rule_remembers_where_it_was_written() -> None:
    rule = make_rule(" Read(src/**) ", "deny", "repository", "policy.json", 7)
    assert (rule.tool, rule.content, rule.behavior) == ("Read", "src/**", "deny")
    assert rule.ref.text == "Read(src/**)"
    assert rule.ref.describe() == "`Read(src/**)` (repository, policy.json:7)"


@pytest.mark.parametrize(
    ("description", "content", "command", "expected"),
    [
        ("exact matches itself", "npm install", "npm install", True),
        ("exact does not match with arguments", "npm install", "npm install x", False),
        ("exact ignores surrounding spaces of the command", "npm install", "  npm install ", True),
        ("legacy prefix matches with arguments", "git commit:*", "git commit -m x", True),
        ("legacy prefix matches the bare command", "git commit:*", "git commit", True),
        ("legacy prefix respects word boundaries", "git commit:*", "git commitx", False),
        ("space-star prefix is the same rule", "git commit *", "git commit -m x", True),
        ("space-star prefix matches the bare command", "git commit *", "git commit", True),
        ("space-star prefix respects word boundaries", "ls *", "lsof", False),
        ("a star in the middle spans anything", "wget *|bash*", "wget http://x |bash -s", True),
        ("a star in the middle must still match the rest", "wget *|bash*", "wget http://x", False),
        ("a trailing star glued to a word", "git push --force*", "git push --force-with-lease", True),
        ("an escaped star is literal", r"echo \*", "echo *", True),
        ("an escaped star does not glob", r"echo \*", "echo hi", False),
    ],
)
def test_command_patterns(description: str, content: str, command: str, expected: bool) -> None:
    assert command_pattern(content).matches(command) is expected, description


def test_legacy_and_space_star_prefixes_are_the_same_pattern() -> None:
    assert command_pattern("git commit:*") == command_pattern("git commit *")


@pytest.mark.parametrize(
    ("description", "rule_tool", "tool", "expected"),
    [
        ("a tool names itself", "Read", "Read", True),
        ("a Read rule applies to Glob", "Read", "Glob", True),
        ("a Read rule applies to Grep", "Read", "Grep", True),
        ("a Read rule does not apply to Edit", "Read", "Edit", False),
        ("an Edit rule applies to Write", "Edit", "Write", True),
        ("an Edit rule applies to NotebookEdit", "Edit", "NotebookEdit", True),
        ("an Edit rule does not apply to Read", "Edit", "Read", False),
        ("a Glob rule does not apply to Read", "Glob", "Read", False),
        ("a server rule names its tools", "mcp__gh", "mcp__gh__create_issue", True),
        ("a server rule does not name another server", "mcp__gh", "mcp__ghx__create_issue", False),
        ("a server star names its tools", "mcp__gh__*", "mcp__gh__list", True),
        ("a tool rule names only that tool", "mcp__gh__list", "mcp__gh__create", False),
    ],
)
def test_which_tools_a_rule_applies_to(description: str, rule_tool: str, tool: str, expected: bool) -> None:
    assert rule_applies_to(rule_tool, tool) is expected, description


def test_an_alias_names_the_tool() -> None:
    assert rule_names_tool("FileRead", "Read", ("FileRead",))


@pytest.mark.parametrize(
    ("description", "content"),
    [
        ("plain text", "npm test"),
        ("parentheses", "python3 -c 'print(1)'"),
        ("backslashes before parentheses", r"find . \( -name x \)"),
        ("a trailing backslash", "echo \\"),
        ("an escaped star", r"echo \*"),
    ],
)
def test_escaping_and_unescaping_round_trip(description: str, content: str) -> None:
    assert unescape_rule_content(escape_rule_content(content)) == content, description
    assert parse_rule_text(f"Bash({escape_rule_content(content)})") == ("Bash", content), description


@pytest.mark.parametrize(
    ("description", "fixture", "command"),
    [
        (
            "python3 -c with escaped parentheses",
            "bhupen5c__zax.json",
            "python3 -c \"print(__import__('sys').version)\"",
        ),
        (
            "a long python -c with escapes",
            "bhupen5c__zax.json",
            '.venv/bin/python -c "import zax.ceo, zax.heartbeat, zax.graph, zax.learning, zax.agents, zax.llm, zax.db, '
            "zax.voice, zax.api, zax.pipeline, zax.skills, zax.telegram, zax.tools, zax.config, zax.main; "
            "print('ALL IMPORTS OK')\"",
        ),
        (
            "node -e with escaped parentheses",
            "bhooshan72__ux-engineering-samples.json",
            "node -e \"JSON.parse(require('fs').readFileSync('.claude/settings.json','utf8')); "
            "console.log('valid JSON')\"",
        ),
    ],
)
def test_rules_claude_code_saved_with_escapes_allow_the_command_they_were_saved_for(
    tmp_path: Path, description: str, fixture: str, command: str
) -> None:
    policy = load_policy_file(str(SETTINGS / fixture), "repository")
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=PermissionContext(allow=policy.rules))
    decision = check_bash_permissions(command, context)
    assert isinstance(decision, Allow), (description, decision)


def test_an_escaped_star_in_a_bash_rule_is_still_a_literal_star(tmp_path: Path) -> None:
    rule = make_rule(r"Bash(make \*)", "allow", "repository")
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=PermissionContext(allow=(rule,)))
    assert isinstance(check_bash_permissions("make '*'", context), Allow)
    assert not isinstance(check_bash_permissions("make hello", context), Allow)
    assert command_pattern(rule.content or "").matches("make *")
    assert not command_pattern(rule.content or "").matches("make hello")


def test_a_path_rule_with_escaped_parentheses_covers_the_unescaped_path(tmp_path: Path) -> None:
    policy = load_policy_file(str(SETTINGS / "bhupas__revit.json"), "repository")
    rule = next(r for r in policy.rules if "Microsoft SDKs" in (r.content or ""))
    request = PermissionRequest(
        tool_name="Read", input={}, workspace=tmp_path, subject="/c/Program Files (x86)/Microsoft SDKs/Windows/v10/a.h"
    )
    assert content_covers(rule, RequestFacts(request))


def test_an_escaped_backslash_before_an_escaped_parenthesis_reads_as_the_shell_escape_claude_code_saw() -> None:
    policy = load_policy_file(str(SETTINGS / "bidurkhatri__X.orb.json"), "repository")
    (rule,) = [r for r in policy.rules if "-iname *dashboard*" in (r.content or "")]
    assert rule.content == (
        "find '/c/Users/Crater/Downloads/SYLOS system - NEW' -type f "
        r"\(-iname *dashboard* -o -iname *plan* -o -iname *spec* \)"
    )
