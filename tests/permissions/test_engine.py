"""The policy engine: every rule form against calls, and the precedence matrix (pure decisions)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.permissions.chain import PermissionRequest
from bot.permissions.context import PermissionContext, PermissionMode
from bot.permissions.decision import Allow, Ask, Deny, Passthrough, PermissionResult
from bot.permissions.engine import PolicyEngine
from bot.permissions.rules import Behavior, Rule, make_rule

ENGINE = PolicyEngine()


def rules(texts: Sequence[str], behavior: Behavior, source: str = "repository") -> tuple[Rule, ...]:
    return tuple(make_rule(t, behavior, source) for t in texts)


def decide(
    ws: Path,
    tool: str,
    subject: str | None = None,
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    mode: PermissionMode = "default",
    read_only: bool = False,
    edits: bool = False,
    hook: Allow | Deny | Ask | None = None,
    tool_check: PermissionResult | None = None,
    self_matching: bool = False,
) -> Allow | Deny:
    context = PermissionContext(mode=mode, allow=rules(allow, "allow"), deny=rules(deny, "deny"), ask=rules(ask, "ask"))
    request = PermissionRequest(
        tool_name=tool,
        input={},
        workspace=ws,
        subject=subject,
        read_only=read_only,
        edits_files=edits,
        hook=hook,
        tool_check=tool_check or Passthrough(),
        self_matching=self_matching,
    )
    return ENGINE.decide(request, context)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    return root


@pytest.mark.parametrize(
    ("description", "allow", "deny", "tool", "subject", "expected", "rule"),
    [
        # whole tools
        ("no rule: denied by default", [], [], "Read", "a.py", "deny", None),
        ("a whole-tool allow", ["Read"], [], "Read", "a.py", "allow", "Read"),
        ("a whole-tool deny beats a whole-tool allow", ["Read"], ["Read"], "Read", "a.py", "deny", "Read"),
        ("an allow for another tool does not help", ["Glob"], [], "Read", "a.py", "deny", None),
        # path patterns, families
        ("a path allow covers a file below", ["Edit(src/**)"], [], "Edit", "src/a.py", "allow", "Edit(src/**)"),
        ("a path allow does not cover a sibling", ["Edit(src/**)"], [], "Edit", "lib/a.py", "deny", None),
        ("an Edit path allow covers Write", ["Edit(src/**)"], [], "Write", "src/new.py", "allow", "Edit(src/**)"),
        ("a Read path deny covers Grep", ["Grep"], ["Read(secrets/**)"], "Grep", "secrets", "deny", "Read(secrets/**)"),
        (
            "a Read path deny covers Glob",
            ["Glob"],
            ["Read(secrets/**)"],
            "Glob",
            "secrets/x",
            "deny",
            "Read(secrets/**)",
        ),
        ("a Read deny leaves other paths to Glob", ["Glob"], ["Read(secrets/**)"], "Glob", ".", "allow", "Glob"),
        ("an unanchored deny matches deep", ["Read"], ["Read(.env)"], "Read", "a/b/.env", "deny", "Read(.env)"),
        ("a deny on a path with ..", ["Read"], ["Read(.env)"], "Read", "src/../.env", "deny", "Read(.env)"),
        ("an absolute deny", ["Read"], ["Read(//etc/**)"], "Read", "/etc/passwd", "deny", "Read(//etc/**)"),
        ("a content rule ignores a tool without subject", ["Read(src/**)"], [], "Read", None, "deny", None),
        # domains
        (
            "a domain allow",
            ["WebFetch(domain:example.com)"],
            [],
            "WebFetch",
            "https://example.com/x",
            "allow",
            "WebFetch(domain:example.com)",
        ),
        (
            "a domain allow is exact",
            ["WebFetch(domain:example.com)"],
            [],
            "WebFetch",
            "https://api.example.com/",
            "deny",
            None,
        ),
        (
            "a domain allow ignores case and port",
            ["WebFetch(domain:example.com)"],
            [],
            "WebFetch",
            "HTTPS://EXAMPLE.com:8443/",
            "allow",
            "WebFetch(domain:example.com)",
        ),
        (
            "a subdomain wildcard",
            ["WebFetch(domain:*.example.com)"],
            [],
            "WebFetch",
            "https://api.example.com/",
            "allow",
            "WebFetch(domain:*.example.com)",
        ),
        (
            "a subdomain wildcard is not the apex",
            ["WebFetch(domain:*.example.com)"],
            [],
            "WebFetch",
            "https://example.com/",
            "deny",
            None,
        ),
        (
            "userinfo does not fool the host",
            ["WebFetch(domain:example.com)"],
            [],
            "WebFetch",
            "https://example.com@evil.test/",
            "deny",
            None,
        ),
        (
            "a domain deny beats a whole-tool allow",
            ["WebFetch"],
            ["WebFetch(domain:evil.test)"],
            "WebFetch",
            "http://evil.test/a",
            "deny",
            "WebFetch(domain:evil.test)",
        ),
        # MCP
        ("a server allow covers its tools", ["mcp__gh"], [], "mcp__gh__list_issues", None, "allow", "mcp__gh"),
        ("a server star covers its tools", ["mcp__gh__*"], [], "mcp__gh__list_issues", None, "allow", "mcp__gh__*"),
        (
            "a tool allow covers only that tool",
            ["mcp__gh__list_issues"],
            [],
            "mcp__gh__create_issue",
            None,
            "deny",
            None,
        ),
        (
            "a tool deny beats a server allow",
            ["mcp__gh"],
            ["mcp__gh__create_issue"],
            "mcp__gh__create_issue",
            None,
            "deny",
            "mcp__gh__create_issue",
        ),
        # commands on a tool the chain matches itself
        ("an exact command on a generic tool", ["Task(Explore)"], [], "Task", "Explore", "allow", "Task(Explore)"),
        ("a prefix on a generic tool", ["Skill(lint:*)"], [], "Skill", "lint fix", "allow", "Skill(lint:*)"),
        (
            "a Bash content allow never matches in the chain",
            ["Bash(git status)"],
            [],
            "Bash",
            "git status",
            "deny",
            None,
        ),
        (
            "a Bash content deny does match in the chain",
            ["Bash"],
            ["Bash(rm:*)"],
            "Bash",
            "rm -rf x",
            "deny",
            "Bash(rm:*)",
        ),
    ],
)
def test_rule_forms(
    ws: Path,
    description: str,
    allow: list[str],
    deny: list[str],
    tool: str,
    subject: str | None,
    expected: str,
    rule: str | None,
) -> None:
    decision = decide(ws, tool, subject, allow=allow, deny=deny)
    assert ("allow" if isinstance(decision, Allow) else "deny") == expected, (description, decision)
    assert (decision.rule.text if decision.rule else None) == rule, description


def test_a_self_matching_tool_gets_only_whole_tool_rules_from_the_chain(ws: Path) -> None:
    assert isinstance(decide(ws, "Bash", "rm -rf /", deny=["Bash(rm:*)"], allow=["Bash"], self_matching=True), Allow)
    decision = decide(ws, "Bash", "ls", deny=["Bash"], self_matching=True)
    assert isinstance(decision, Deny) and decision.rule is not None and decision.rule.text == "Bash"


def test_an_allow_rule_never_reaches_a_file_through_a_symlink_name(ws: Path) -> None:
    (ws / "docs").mkdir()
    (ws / "src").mkdir()
    (ws / "src" / "link").symlink_to(ws / "docs")
    assert isinstance(decide(ws, "Edit", "src/link/readme.md", allow=["Edit(src/**)"]), Deny)
    assert isinstance(decide(ws, "Edit", "src/link/readme.md", allow=["Edit(docs/**)"]), Allow)


def test_a_deny_rule_catches_a_symlink_by_its_own_name_and_by_its_target(ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "alias").symlink_to(ws / "secrets")
    assert isinstance(decide(ws, "Read", "alias/k", allow=["Read"], deny=["Read(secrets/**)"]), Deny)
    assert isinstance(decide(ws, "Read", "alias/k", allow=["Read"], deny=["Read(alias/**)"]), Deny)


def test_a_relative_subject_is_resolved_against_the_shell_working_directory(ws: Path) -> None:
    (ws / "sub").mkdir()
    context = PermissionContext(allow=rules(["Read"], "allow"), deny=rules(["Read(sub/secret.txt)"], "deny"))
    request = PermissionRequest(tool_name="Read", input={}, workspace=ws, subject="secret.txt", cwd=ws / "sub")
    assert isinstance(ENGINE.decide(request, context), Deny)


# ----- precedence ---------------------------------------------------------------------------------

HOOK_ALLOW = Allow("hook says yes", source="hook")
TOOL_ALLOW = Allow("the tool matched its own allow rule", source="tool")


@pytest.mark.parametrize(
    ("description", "kwargs", "expected", "was_ask"),
    [
        ("deny beats ask and allow", {"allow": ["Read"], "ask": ["Read"], "deny": ["Read"]}, "deny", False),
        ("ask beats allow, and headless it is a denial", {"allow": ["Read"], "ask": ["Read"]}, "deny", True),
        ("a hook's allow never overrides a deny rule", {"deny": ["Read"], "hook": HOOK_ALLOW}, "deny", False),
        ("a hook's allow never overrides an ask rule", {"ask": ["Read"], "hook": HOOK_ALLOW}, "deny", True),
        ("a hook's allow allows when no rule objects", {"hook": HOOK_ALLOW}, "allow", False),
        ("a hook's deny beats an allow rule", {"allow": ["Read"], "hook": Deny("no", source="hook")}, "deny", False),
        ("a hook's ask is a denial", {"allow": ["Read"], "hook": Ask("ask", source="hook")}, "deny", True),
        (
            "the tool's deny beats an allow rule",
            {"allow": ["Read"], "tool_check": Deny("outside", source="tool")},
            "deny",
            False,
        ),
        ("the tool's ask is a denial", {"allow": ["Read"], "tool_check": Ask("unsure", source="tool")}, "deny", True),
        ("the tool's allow never overrides a deny rule", {"deny": ["Read"], "tool_check": TOOL_ALLOW}, "deny", False),
        ("the tool's allow allows", {"tool_check": TOOL_ALLOW}, "allow", False),
        ("bypass never overrides a deny rule", {"deny": ["Read"], "mode": "bypassPermissions"}, "deny", False),
        (
            "bypass never overrides the tool's own deny",
            {"mode": "bypassPermissions", "tool_check": Deny("outside", source="safety")},
            "deny",
            False,
        ),
        ("bypass allows what nothing forbids", {"mode": "bypassPermissions"}, "allow", False),
        ("plan mode refuses a call that is not read-only", {"allow": ["Read"], "mode": "plan"}, "deny", False),
        (
            "plan mode allows a read-only call with a rule",
            {"allow": ["Read"], "mode": "plan", "read_only": True},
            "allow",
            False,
        ),
        ("plan mode allows a read inside the workspace", {"mode": "plan", "read_only": True}, "allow", False),
        ("acceptEdits allows an edit tool", {"mode": "acceptEdits", "edits": True}, "allow", False),
        ("acceptEdits does not allow other tools", {"mode": "acceptEdits"}, "deny", False),
        (
            "acceptEdits never overrides a deny rule",
            {"mode": "acceptEdits", "edits": True, "deny": ["Read"]},
            "deny",
            False,
        ),
        ("dontAsk is the default behaviour", {"mode": "dontAsk"}, "deny", False),
    ],
)
def test_precedence(ws: Path, description: str, kwargs: dict[str, object], expected: str, was_ask: bool) -> None:
    decision = decide(ws, "Read", "a.py", **kwargs)  # type: ignore[arg-type]
    assert ("allow" if isinstance(decision, Allow) else "deny") == expected, (description, decision)
    assert (isinstance(decision, Deny) and decision.was_ask) is was_ask, description


@pytest.mark.parametrize(
    ("description", "deny_source", "allow_source"),
    [
        ("a session grant never beats an organisation deny", "organisation", "session"),
        ("a command-line allow never beats a preset deny", "preset", "cliArg"),
        ("an organisation allow never beats a repository deny", "repository", "organisation"),
    ],
)
def test_deny_beats_allow_whatever_the_sources(ws: Path, description: str, deny_source: str, allow_source: str) -> None:
    context = PermissionContext(
        allow=rules(["Read"], "allow", allow_source), deny=rules(["Read(.env)"], "deny", deny_source)
    )
    request = PermissionRequest(tool_name="Read", input={}, workspace=ws, subject=".env")
    decision = ENGINE.decide(request, context)
    assert isinstance(decision, Deny), description
    assert decision.rule is not None and decision.rule.source == deny_source


def test_the_rule_named_is_the_first_that_matches_in_source_order(ws: Path) -> None:
    context = PermissionContext(
        deny=(*rules(["Read(*.env)"], "deny", "organisation"), *rules(["Read(.env)"], "deny", "preset"))
    )
    request = PermissionRequest(tool_name="Read", input={}, workspace=ws, subject=".env")
    decision = ENGINE.decide(request, context)
    assert decision.rule is not None and decision.rule.source == "organisation"


def test_only_file_reading_tools_read_the_workspace_without_a_rule(ws: Path) -> None:
    assert isinstance(decide(ws, "Read", "a.py", read_only=True), Allow)
    assert isinstance(decide(ws, "WebSearch", "a.py", read_only=True), Deny)
    assert isinstance(decide(ws, "mcp__fs__read_file", "a.py", read_only=True), Deny)
    assert isinstance(decide(ws, "Read", "../a.py", read_only=True), Deny)


def test_a_default_denial_suggests_the_rule_to_add(ws: Path) -> None:
    decision = decide(ws, "Read", "src/a.py")
    assert isinstance(decision, Deny) and decision.source == "default"
    assert decision.suggestions == ("Read(src/a.py)",)


def test_a_rule_that_cannot_be_evaluated_fails_closed(ws: Path) -> None:
    from bot.permissions.decision import RuleRef

    broken_deny = Rule("Read", "src/[oops", "deny", RuleRef("Read(src/[oops)", "test"))
    broken_allow = Rule("Read", "src/[oops", "allow", RuleRef("Read(src/[oops)", "test"))
    request = PermissionRequest(tool_name="Read", input={}, workspace=ws, subject="src/a.py")
    assert isinstance(
        ENGINE.decide(request, PermissionContext(deny=(broken_deny,), allow=rules(["Read"], "allow"))), Deny
    )
    assert isinstance(ENGINE.decide(request, PermissionContext(allow=(broken_allow,))), Deny)


@pytest.mark.parametrize(
    ("description", "policy_file", "subject", "expected"),
    [
        ("a rule in .claude/settings.json: /x is the repository root", ".claude/settings.json", "src/a.py", True),
        ("a rule in .github/: /x is the repository root", ".github/bot-policy.yml", "src/a.py", True),
        ("a rule in another folder: /x is that folder", "org/policy.json", "org/src/a.py", True),
        ("... and not the workspace root", "org/policy.json", "src/a.py", False),
    ],
)
def test_a_leading_slash_is_relative_to_the_policy_file(
    ws: Path, description: str, policy_file: str, subject: str, expected: bool
) -> None:
    rule = make_rule("Edit(/src/**)", "allow", "repository", str(ws / policy_file), 3)
    request = PermissionRequest(tool_name="Edit", input={}, workspace=ws, subject=subject)
    assert isinstance(ENGINE.decide(request, PermissionContext(allow=(rule,))), Allow) is expected, description
