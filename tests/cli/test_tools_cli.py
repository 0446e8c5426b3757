"""`bot tools list` and `bot tools call`: thin, JSON out, exit 0 even for error results."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()


def test_tools_list_json_has_schemas_and_flags() -> None:
    result = runner.invoke(app, ["tools", "list", "--json"])
    assert result.exit_code == 0, result.output
    tools = json.loads(result.stdout)
    by_name = {t["name"]: t for t in tools}
    assert by_name["Read"]["input_schema"]["required"] == ["file_path"]
    assert by_name["Read"]["max_result_chars"] is None
    assert [t["name"] for t in tools] == sorted(t["name"] for t in tools if not t["is_mcp"])


def test_tools_call_prints_the_tool_result(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\nworld\n")
    result = runner.invoke(
        app, ["tools", "call", "Read", '{"file_path": "a.txt"}', "-w", str(tmp_path), "--allow", "Read"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["tool_result"]["content"] == "     1\thello\n     2\tworld"
    assert out["decision"] == "allow" and out["rule"] == "Read"


def test_an_error_result_still_exits_zero(tmp_path: Path) -> None:
    # A write no rule allows: denied, and the denial is an error result.
    result = runner.invoke(
        app, ["tools", "call", "Write", '{"file_path": "a.txt", "content": "x"}', "-w", str(tmp_path)]
    )
    assert result.exit_code == 0
    assert not (tmp_path / "a.txt").exists()
    out = json.loads(result.stdout)
    assert out["tool_result"]["is_error"] is True
    assert out["decision"] == "deny"


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    bad_json = runner.invoke(app, ["tools", "call", "Read", "{nope", "-w", str(tmp_path)])
    assert bad_json.exit_code == 2 and "not valid JSON" in bad_json.output
    bad_rule = runner.invoke(app, ["tools", "call", "Read", "{}", "-w", str(tmp_path), "--allow", "Read("])
    assert bad_rule.exit_code == 2 and "Read(" in bad_rule.output
    bad_ws = runner.invoke(app, ["tools", "call", "Read", "{}", "-w", str(tmp_path / "missing")])
    assert bad_ws.exit_code == 2
