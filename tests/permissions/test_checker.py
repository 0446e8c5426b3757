"""``bot policy check``'s engine: the pipeline's own stages 1–4, one line per call, in order."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.permissions import stack
from bot.permissions.decision import Allow, Deny
from bot.runtime.policy_checker import CheckInput, PolicyChecker, parse_check_line


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    return root


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"permissions": {"allow": ["Read", "Glob"], "deny": ["Read(.env)"]}}, indent=2))
    return path


def check(checker: PolicyChecker, item: CheckInput) -> Any:
    return anyio.run(checker.check, item)


def test_a_check_decides_through_the_real_tool_and_names_the_rule(ws: Path, policy_file: Path) -> None:
    with PolicyChecker(workspace=ws, base_dir=policy_file.parent) as checker:
        allowed = check(checker, CheckInput("Read", {"file_path": "src/a.py"}, policies=("policy.json",)))
        denied = check(checker, CheckInput("Read", {"file_path": ".env"}, policies=("policy.json",)))
        outside = check(checker, CheckInput("Read", {"file_path": "/etc/passwd"}, policies=("policy.json",)))
    assert isinstance(allowed.decision, Allow) and allowed.batch_json()["rule"] == "Read"
    assert isinstance(denied.decision, Deny)
    assert denied.batch_json() == {
        "decision": "deny",
        "rule": "Read(.env)",
        "reason": f"a deny rule forbids this Read call (rule from flag: {policy_file}:8)",
    }
    assert isinstance(outside.decision, Deny) and "outside the workspace" in outside.reason


def test_the_input_is_validated_by_the_tool_schema_first(ws: Path) -> None:
    with PolicyChecker(workspace=ws, allow=["Read"]) as checker:
        outcome = check(checker, CheckInput("Read", {"path": "x"}))
    assert isinstance(outcome.decision, Deny) and "invalid input" in outcome.reason


def test_an_mcp_tool_gets_a_stand_in_so_its_rules_can_be_tested(ws: Path) -> None:
    with PolicyChecker(workspace=ws, allow=["mcp__github"], deny=["mcp__github__delete_repo"]) as checker:
        listed = check(checker, CheckInput("mcp__github__list_issues", {"state": "open"}))
        deleted = check(checker, CheckInput("mcp__github__delete_repo", {}))
        other = check(checker, CheckInput("mcp__slack__post", {}))
    assert listed.allowed and not deleted.allowed and not other.allowed
    assert deleted.batch_json()["rule"] == "mcp__github__delete_repo"


def test_a_thousand_line_batch_answers_every_line_in_order(ws: Path, policy_file: Path, tmp_path: Path) -> None:
    other_ws = tmp_path / "other"
    other_ws.mkdir()
    templates: list[tuple[dict[str, Any], str]] = [
        ({"tool": "Read", "input": {"file_path": "src/a.py"}, "allow": ["Read"]}, "allow"),
        ({"tool": "Read", "input": {"file_path": "src/a.py"}}, "allow"),  # read-only, inside: no rule needed
        ({"tool": "Write", "input": {"file_path": "src/b.py", "content": "x"}}, "deny"),
        ({"tool": "Read", "input": {"file_path": "x/.env"}, "policy": str(policy_file)}, "deny"),
        ({"tool": "Glob", "input": {"pattern": "*.py"}, "policy": str(policy_file)}, "allow"),
        ({"tool": "Glob", "input": {"pattern": "*", "path": "/etc"}, "allow": ["Glob"]}, "deny"),
        ({"tool": "Read", "input": {"file_path": "a"}, "allow": ["Read"], "ask": ["Read(a)"]}, "deny"),
        ({"tool": "Read", "input": {"file_path": "a"}, "allow": ["Read"], "workspace": str(other_ws)}, "allow"),
        ({"tool": "Read", "input": {"file_path": "a"}, "allow": ["Read"], "mode": "plan"}, "allow"),
        ({"tool": "Nope", "input": {}}, "deny"),
        ({"tool": "mcp__s__t", "input": {}, "allow": ["mcp__s"]}, "allow"),
    ]
    lines = [json.dumps(templates[i % len(templates)][0]) for i in range(1_200)]
    out = io.StringIO()
    with PolicyChecker(workspace=ws) as checker:
        stats = anyio.run(checker.run_batch, lines, out.write)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(results) == 1_200 and stats.lines == 1_200 and stats.errors == 0
    for i, result in enumerate(results):
        assert list(result) == ["decision", "reason", "rule"]
        assert result["decision"] == templates[i % len(templates)][1], (i, lines[i], result)
    assert stats.allowed + stats.denied == 1_200


def test_a_policy_file_is_parsed_once_for_a_whole_batch(ws: Path, policy_file: Path) -> None:
    stack._load_cached.cache_clear()
    line = json.dumps({"tool": "Read", "input": {"file_path": "src/a.py"}, "policy": str(policy_file)})
    with PolicyChecker(workspace=ws) as checker:
        anyio.run(checker.run_batch, [line] * 50, io.StringIO().write)
    info = stack._load_cached.cache_info()
    assert info.misses == 1


@pytest.mark.parametrize(
    ("description", "line", "reason"),
    [
        ("not JSON", "{tool: Read}", "invalid check"),
        ("not an object", "[1]", "must be a JSON object"),
        ("an unknown key", '{"tool": "Read", "input": {}, "alow": []}', "unknown key"),
        ("no input", '{"tool": "Read"}', '"input" is missing'),
        ("rules that are not a list", '{"tool": "Read", "input": {}, "allow": "Read"}', "list of strings"),
        ("a malformed rule", '{"tool": "Read", "input": {}, "allow": ["Read("]}', "does not end"),
        ("a missing policy file", '{"tool": "Read", "input": {}, "policy": "/nonexistent/p.json"}', "no such"),
        ("a missing workspace", '{"tool": "Read", "input": {}, "workspace": "/nonexistent/ws"}', "no such"),
    ],
)
def test_a_line_that_cannot_be_evaluated_is_denied_with_the_reason(
    ws: Path, description: str, line: str, reason: str
) -> None:
    out = io.StringIO()
    with PolicyChecker(workspace=ws) as checker:
        stats = anyio.run(
            checker.run_batch, ["", line, '{"tool": "Write", "input": {"file_path": "a", "content": ""}}'], out.write
        )
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["decision"] == "deny" and reason in first["reason"], (description, first)
    assert second["decision"] == "deny" and "no allow rule" in second["reason"]
    assert stats.errors == 1 and stats.lines == 2


def test_a_policy_string_or_list_is_accepted() -> None:
    assert parse_check_line('{"tool": "Read", "input": {}, "policy": "a.json"}').policies == ("a.json",)
    assert parse_check_line('{"tool": "Read", "input": {}, "policy": ["a.json", "b.yml"]}').policies == (
        "a.json",
        "b.yml",
    )
