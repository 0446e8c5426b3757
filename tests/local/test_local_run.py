"""`bot run --local --replay`: the README's demo, for real — tools run, only the model is replayed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.local.demo import DEMO, run_demo


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def test_the_demo_fixes_the_bug_on_a_branch_of_a_copy(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_demo(out)
    assert result.exit_code == 0, result.output
    outcome = json.loads((out / "outcome.json").read_text())
    assert outcome["conclusion"] == "success"
    assert [f["path"] for f in outcome["files"]] == ["stats.py"]
    workspace = out / "workspace"
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in (workspace / "stats.py").read_text()
    assert git(workspace, "branch", "--show-current").strip() == "bot/local-fix-the-failing-test"
    assert git(workspace, "status", "--porcelain") == ""
    tests = subprocess.run(["python3", "-m", "unittest", "-q"], cwd=workspace, capture_output=True, text=True)
    assert tests.returncode == 0
    comment = (out / "comment.md").read_text()
    assert "✅ Done" in comment
    assert "+    return (ordered[middle - 1] + ordered[middle]) / 2" in comment
    assert "**Bash** `python3 -m unittest -q` ❌" in comment  # the failing run before the fix
    # The demo's own tree is untouched: the run worked on a copy.
    assert "return ordered[middle]\n" in (DEMO / "stats.py").read_text().split("if len(ordered) % 2:")[1]


def test_a_local_repository_gets_a_branch_and_refuses_a_dirty_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"],
    ):
        git(repo, *args)
    (repo / "stats.py").write_text("# local edit\n")
    dirty = run_demo(tmp_path / "o1", repo=repo)
    assert dirty.exit_code == 2
    assert "uncommitted changes" in dirty.output
    git(repo, "checkout", "--", "stats.py")
    clean = run_demo(tmp_path / "o2", repo=repo)
    assert clean.exit_code == 0, clean.output
    assert git(repo, "log", "--format=%s", "-1", "bot/local-fix-the-failing-test").strip() == "Fix the failing test"
    assert git(repo, "branch", "--show-current").strip() == "bot/local-fix-the-failing-test"


def test_failed_mcp_servers_and_hook_errors_are_in_the_summary(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps(
            {
                "bot": {"extends": "fix"},
                "mcpServers": {"broken": {"command": str(tmp_path / "no-such-server")}},
                "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "exit 1"}]}]},
            }
        )
    )
    out = tmp_path / "out"
    result = run_demo(out, "--policy", str(policy))
    assert result.exit_code == 0, result.output
    comment = (out / "comment.md").read_text()
    assert "MCP server `broken` failed" in comment
    assert "PreToolUse hook `exit 1`: non-blocking error" in comment


def test_a_replay_says_so_when_the_prompt_is_not_the_recorded_one(tmp_path: Path) -> None:
    result = run_demo(tmp_path / "out", prompt="Add a mode() function")
    assert result.exit_code == 0, result.output
    assert "note: " in result.output and "'Add a mode() function'" in result.output
