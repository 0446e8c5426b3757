"""`bot mcp list` and `bot tools call --mcp-config`: one MCP call through the whole pipeline."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app
from tests.mcp.conftest import python_server

runner = CliRunner()


def write_config(path: Path, servers: dict[str, object]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def test_mcp_list_shows_states_reasons_and_bridged_tools(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "mcp.json",
        {"time": {"command": python_server("mcp-server-time")}, "broken": {"command": "bot-no-such-server"}},
    )
    result = runner.invoke(app, ["mcp", "list", "--config", str(config), "--json", "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    servers = {s["name"]: s for s in json.loads(result.stdout)}
    assert servers["time"]["state"] == "connected"
    assert servers["time"]["tools"] == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    broken = servers["broken"]
    assert (broken["state"], broken["reason"], broken["tools"]) == (
        "failed",
        "command not found: bot-no-such-server",
        [],
    )


def test_mcp_list_reads_the_workspaces_mcp_json_by_default_and_prints_text(tmp_path: Path) -> None:
    write_config(
        tmp_path / ".mcp.json", {"off": {"command": "x", "disabled": True}, "broken": {"command": "bot-no-such-server"}}
    )
    result = runner.invoke(app, ["mcp", "list", "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "off     disabled   stdio       x",
        f"  reason: disabled in {tmp_path / '.mcp.json'}",
        "broken  failed     stdio       bot-no-such-server",
        "  reason: command not found: bot-no-such-server",
    ]


def test_a_missing_or_broken_config_is_a_usage_error_naming_the_file(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["mcp", "list", "-w", str(tmp_path)])
    assert missing.exit_code == 2 and ".mcp.json: no such file or directory" in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {\n  "a": {"command": 7}\n}}')
    broken = runner.invoke(app, ["mcp", "list", "--config", str(bad)])
    assert broken.exit_code == 2 and f"{bad}:2: MCP server 'a'" in broken.output
    call = runner.invoke(app, ["tools", "call", "Read", "{}", "-w", str(tmp_path), "--mcp-config", str(bad)])
    assert call.exit_code == 2 and f"{bad}:2:" in call.output


def test_tools_call_runs_one_mcp_call_through_the_pipeline(tmp_path: Path) -> None:
    config = write_config(tmp_path / ".mcp.json", {"time": {"command": python_server("mcp-server-time")}})
    args = [
        "tools",
        "call",
        "mcp__time__get_current_time",
        '{"timezone": "UTC"}',
        "-w",
        str(tmp_path),
        "--mcp-config",
        str(config),
    ]
    allowed = runner.invoke(app, [*args, "--allow", "mcp__time"])
    assert allowed.exit_code == 0, allowed.output
    out = json.loads(allowed.stdout)
    assert out["decision"] == "allow" and out["rule"] == "mcp__time"
    assert json.loads(out["tool_result"]["content"][0]["text"])["timezone"] == "UTC"
    denied = json.loads(runner.invoke(app, args).stdout)
    assert denied["decision"] == "deny" and denied["tool_result"]["is_error"] is True
