"""``bot policy check|test|show`` and ``bot tools call --policy``: thin commands over the policy layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yml"
    path.write_text("permissions:\n  allow:\n    - Read\n  deny:\n    - Read(.env)\n")
    return path


def test_check_prints_the_decision_the_rule_and_where_it_is_written(tmp_path: Path, policy_file: Path) -> None:
    result = runner.invoke(
        app, ["policy", "check", "Read", '{"file_path": ".env"}', "--policy", str(policy_file), "-w", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "deny: a deny rule forbids this Read call",
        f"rule: Read(.env)  (flag, {policy_file}:5)",
    ]


def test_check_json_has_the_source_file_and_line(tmp_path: Path, policy_file: Path) -> None:
    result = runner.invoke(
        app,
        [
            "policy",
            "check",
            "Read",
            '{"file_path": "a.txt"}',
            "--policy",
            str(policy_file),
            "-w",
            str(tmp_path),
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert (data["decision"], data["rule"], data["source"], data["line"]) == ("allow", "Read", "flag", 3)
    assert data["file"] == str(policy_file)


def test_check_with_an_ask_rule_says_it_was_an_ask(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "policy",
            "check",
            "Read",
            '{"file_path": "a"}',
            "--allow",
            "Read",
            "--ask",
            "Read(a)",
            "-w",
            str(tmp_path),
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert data["decision"] == "deny" and data["was_ask"] is True and data["source"] == "cliArg"


@pytest.mark.parametrize(
    ("description", "args", "message"),
    [
        ("a malformed rule flag", ["Read", "{}", "--allow", "Read("], "does not end"),
        ("a missing policy file", ["Read", "{}", "--policy", "/nonexistent.json"], "no such policy file"),
        ("a policy of an unknown type", ["Read", "{}", "--policy", "README.md"], "unknown policy file type"),
        ("input that is not JSON", ["Read", "{x"], "not valid JSON"),
        ("no call and no batch", [], "give TOOL and INPUT_JSON"),
        ("an unknown preset", ["Read", "{}", "--preset", "nope"], "no preset named"),
    ],
)
def test_check_usage_errors_exit_2(tmp_path: Path, description: str, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["policy", "check", *args, "-w", str(tmp_path)])
    assert result.exit_code == 2, (description, result.output)
    assert message in result.stderr, (description, result.stderr)


def test_check_batch_reads_a_thousand_line_file_and_writes_one_line_per_call(tmp_path: Path, policy_file: Path) -> None:
    batch = tmp_path / "calls.jsonl"
    calls = [
        {"tool": "Read", "input": {"file_path": "src/m{i}.py"}, "policy": str(policy_file)},
        {"tool": "Read", "input": {"file_path": "d{i}/.env"}, "policy": str(policy_file)},
        {"tool": "Write", "input": {"file_path": "a{i}", "content": ""}},
    ]
    batch.write_text("".join(json.dumps(calls[i % 3]).replace("{i}", str(i)) + "\n" for i in range(1_002)))
    result = runner.invoke(app, ["policy", "check", "--batch", str(batch), "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    decisions = [json.loads(x)["decision"] for x in result.stdout.splitlines()]
    assert decisions == ["allow", "deny", "deny"] * 334


def test_check_batch_reads_stdin_and_flags_apply_to_every_line(tmp_path: Path) -> None:
    stdin = json.dumps({"tool": "Read", "input": {"file_path": "a"}}) + "\n" + "not json\n"
    result = runner.invoke(
        app, ["policy", "check", "--batch", "-", "--allow", "Read", "-w", str(tmp_path)], input=stdin
    )
    assert result.exit_code == 2
    first, second = (json.loads(x) for x in result.stdout.splitlines())
    assert first == {"decision": "allow", "reason": "allowed by rule `Read` (rule from cliArg)", "rule": "Read"}
    assert second["decision"] == "deny" and "line 2" in second["reason"]
    assert "1 of 2 lines could not be evaluated" in result.stderr


def test_policy_test_reports_mismatches_and_a_summary(tmp_path: Path, policy_file: Path) -> None:
    (tmp_path / "policy.expect.jsonl").write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"tool": "Read", "input": {"file_path": "a"}, "expect": "allow"},
                {"tool": "Read", "input": {"file_path": ".env"}, "expect": "allow"},
                {"tool": "Read", "input": {"file_path": ".env"}, "expect": "deny"},
                {"tool": "Read", "input": {"file_path": "a"}, "allow": [], "deny": ["Read"], "expect": "deny"},
            ]
        )
        + "\n"
    )
    result = runner.invoke(app, ["policy", "test", str(tmp_path), "-w", str(tmp_path)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-1] == "3 passed, 1 failed"
    assert lines[0].startswith(
        f'FAIL {tmp_path / "policy.expect.jsonl"}:2: Read {{"file_path": ".env"}}: '
        "expected allow, got deny — a deny rule forbids this Read call"
    )


def test_policy_test_passes_with_exit_0(tmp_path: Path, policy_file: Path) -> None:
    (tmp_path / "policy.expect.jsonl").write_text(
        json.dumps({"tool": "Read", "input": {"file_path": "a"}, "expect": "allow"}) + "\n"
    )
    result = runner.invoke(app, ["policy", "test", str(tmp_path / "policy.expect.jsonl"), "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "1 passed, 0 failed"


def test_policy_test_without_expectation_files_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["policy", "test", str(tmp_path)])
    assert result.exit_code == 2 and "no expectation files" in result.stderr


def test_the_shipped_presets_pass_their_expectations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What CI runs: ``bot policy test policies/``, from the top of the checkout."""
    monkeypatch.chdir(REPO_ROOT)
    result = runner.invoke(app, ["policy", "test", "policies/"])
    assert result.exit_code == 0, result.output
    passed = int(result.stdout.splitlines()[-1].split()[0])
    assert passed >= 60


def test_show_prints_the_merged_preset_with_sources() -> None:
    result = runner.invoke(app, ["policy", "show", "--preset", "maintenance", "--deny", "Bash(rm *)"])
    assert result.exit_code == 0, result.output
    assert "preset        " in result.stdout and "fix.json" in result.stdout and "maintenance.json" in result.stdout
    assert "Bash(rm *)" in result.stdout and "cliArg" in result.stdout
    assert "scheduled_task" in result.stdout


def test_show_json(policy_file: Path) -> None:
    result = runner.invoke(app, ["policy", "show", "--repo-policy", str(policy_file), "--json"])
    data = json.loads(result.stdout)
    assert data["deny"] == [{"rule": "Read(.env)", "source": "repository", "file": str(policy_file), "line": 5}]


def test_tools_call_runs_under_a_policy_file(tmp_path: Path, policy_file: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / ".env").write_text("TOKEN=x\n")
    ok = runner.invoke(
        app, ["tools", "call", "Read", '{"file_path": "a.txt"}', "-w", str(tmp_path), "--policy", str(policy_file)]
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["tool_result"]["content"] == "     1\thello"
    denied = json.loads(
        runner.invoke(
            app, ["tools", "call", "Read", '{"file_path": ".env"}', "-w", str(tmp_path), "--policy", str(policy_file)]
        ).stdout
    )
    assert denied["decision"] == "deny" and denied["rule"] == "Read(.env)"
    assert "TOKEN" not in json.dumps(denied)
