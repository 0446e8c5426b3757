"""`bot policy explain`: what a run under a policy may do, as the engine decides it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bot.cli import app
from tests.conftest import FIXTURES


def _explain(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["policy", "explain", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _standing(data: dict[str, Any]) -> dict[str, str]:
    return {t["name"]: t["standing"] for t in data["tools"]}


def test_the_fix_preset_explained_from_the_engine(tmp_path: Path) -> None:
    data = _explain("--policy", "fix", "--workspace", str(tmp_path))
    standing = _standing(data)
    assert standing["TodoWrite"] == "no rule needed"
    assert standing["ToolSearch"] == "no rule needed"
    assert standing["Edit"] == "allowed"
    assert standing["Bash"] == "needs a rule"
    assert standing["WebFetch"] == "needs a rule"
    assert _explain("--policy", "fix", "--deny", "Edit", "--workspace", str(tmp_path))["removed"] == [
        ["Edit", "a deny rule removes it"],
        ["NotebookEdit", "a deny rule removes it"],
        ["Write", "a deny rule removes it"],
    ]
    assert data["mode"] == "default"
    assert data["sandbox"] == "required"
    assert data["limits"] == {"max_turns": 60, "timeout_minutes": 30}
    assert data["protected"] == [".git/", ".github/workflows/"]
    assert "Bash(curl *)" in [r for r, _ in data["bash_denied"]]
    diff = next(r for r in data["bash_rules"] if r["rule"] == "Bash(git diff *)")
    assert diff["approves"] == "`git diff` followed by any arguments"
    [writes] = diff["never"]
    assert writes["name"] == "writes"
    assert writes["example"] == "git diff --output /tmp/explain-probe.out"
    exact = next(r for r in data["bash_rules"] if r["rule"] == "Bash(make test)")
    assert exact["approves"] == "exactly `make test`, nothing added"
    assert next(s for s, _ in data["bash_separate"]).startswith("each part of a compound")


def test_what_a_rule_never_approves_is_what_the_engine_refuses(tmp_path: Path) -> None:
    """`make --eval` runs a command: under `Bash(make *)` the engine refuses it, and the
    explanation shows the refused example; a rule that spells it out makes the example go away."""
    data = _explain("--allow", "Bash(make *)", "--workspace", str(tmp_path))
    [make] = data["bash_rules"]
    runs = next(c for c in make["never"] if c["name"] == "runs")
    assert runs["options"] == ["--eval"]
    assert runs["example"] == "make --eval 'sh -c id'"
    assert make["documented_by"].startswith("man page of make ")
    spelt = _explain("--allow", "Bash(make *)", "--allow", "Bash(make --eval 'sh -c id')", "--workspace", str(tmp_path))
    make = next(r for r in spelt["bash_rules"] if r["rule"] == "Bash(make *)")
    assert next(c for c in make["never"] if c["name"] == "runs")["example"] is None


def test_writable_paths_network_mcp_and_hooks(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Edit(docs/**)", "WebFetch(domain:docs.python.org)", "mcp__time__get_current_time"],
                    "deny": ["Read(secrets/**)"],
                },
                "mcpServers": {"time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]}},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]},
            }
        )
    )
    data = _explain("--policy", str(policy), "--workspace", str(tmp_path))
    assert data["writable"] == ["Edit: docs/**"]
    assert ["Read(secrets/**)", f"{policy}:1"][0] in [r for r, _ in data["denied_paths"]]
    assert data["network"][0] == "WebFetch: domain:docs.python.org"
    assert data["network"][-1] == "shell commands: network off (the sandbox has none)"
    assert data["mcp_servers"] == [
        {
            "name": "time",
            "transport": "stdio",
            "target": "mcp-server-time --local-timezone UTC",
            "allowed": ["mcp__time__get_current_time"],
            "denied": [],
        }
    ]
    assert [(h["event"], h["matcher"], h["command"]) for h in data["hooks"]] == [("PreToolUse", "Bash", "./guard.sh")]
    assert _standing(data)["Edit"] == "needs a rule"
    assert next(t for t in data["tools"] if t["name"] == "Edit")["rules"] == ["Edit(docs/**)"]


def test_with_an_event_it_says_whether_it_triggers_for_whom_and_where(tmp_path: Path) -> None:
    payload = json.loads((FIXTURES / "events" / "issue_comment.created.json").read_text())
    payload["comment"]["body"] = "@bot fix the median"
    payload["issue"].update({"number": 7, "title": "median is wrong"})
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    data = _explain("--policy", "read-only", "--event", str(event), "--workspace", str(tmp_path))
    trigger = data["trigger"]
    assert trigger["triggered"] is True
    assert trigger["event_name"] == "issue_comment"
    assert trigger["actor"] == payload["comment"]["user"]["login"]
    assert trigger["branch"] == "bot/issue-7-median-is-wrong"
    payload["comment"]["body"] = "thanks!"
    event.write_text(json.dumps(payload))
    assert _explain("--event", str(event), "--workspace", str(tmp_path))["trigger"]["triggered"] is False


def test_a_bad_policy_or_event_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text('{"permissions": {"deny": ["Bash("]}}')
    result = CliRunner().invoke(app, ["policy", "explain", "--policy", str(bad), "--workspace", str(tmp_path)])
    assert result.exit_code == 2
    assert str(bad) in result.output
    event = tmp_path / "e.json"
    event.write_text("{oops")
    result = CliRunner().invoke(app, ["policy", "explain", "--event", str(event), "--workspace", str(tmp_path)])
    assert result.exit_code == 2
    assert "e.json" in result.output


def test_the_markdown_form_has_each_section(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["policy", "explain", "--policy", "fix", "--workspace", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for heading in ("**Tools**", "**Shell commands**", "**Files**", "**Network**"):
        assert heading in result.stdout
    assert "- `Bash(git diff *)`: `git diff` followed by any arguments" in result.stdout


def test_connect_mcp_lists_and_judges_the_tools_a_real_server_brings(tmp_path: Path) -> None:
    """mcp-server-time (PyPI, stdio) really starts: its tools are listed under the server and
    judged like built-ins — the allowed one needs no more, the other still needs a rule."""
    from tests.mcp.conftest import python_server

    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["mcp__time__get_current_time"]},
                "mcpServers": {
                    "time": {"command": python_server("mcp-server-time"), "args": ["--local-timezone", "UTC"]}
                },
            }
        )
    )
    data = _explain("--policy", str(policy), "--workspace", str(tmp_path), "--connect-mcp")
    (server,) = data["mcp_servers"]
    assert server["tools"] == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    standing = _standing(data)
    assert standing["mcp__time__get_current_time"] != "needs a rule"
    assert standing["mcp__time__convert_time"] == "needs a rule"
    markdown = CliRunner().invoke(
        app, ["policy", "explain", "--policy", str(policy), "--workspace", str(tmp_path), "--connect-mcp"]
    )
    assert "tools: `mcp__time__convert_time`, `mcp__time__get_current_time`" in markdown.stdout


def test_without_connect_mcp_no_server_starts_and_no_tools_are_claimed(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    marker = tmp_path / "started"
    policy.write_text(json.dumps({"mcpServers": {"s": {"command": "sh", "args": ["-c", f"touch {marker}; sleep 5"]}}}))
    data = _explain("--policy", str(policy), "--workspace", str(tmp_path))
    assert "tools" not in data["mcp_servers"][0]
    assert not marker.exists()
