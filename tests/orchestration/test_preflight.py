"""Errors come first: what can be checked (policy, MCP config, model credentials, the cassette) is
checked before the run touches the repository, one line each, all of them at once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.testing.cassettes import Text, Turn, write_cassette

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-repo"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*env, "commit", "-q", "-m", "init"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo


def _branches(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "branch", "--format=%(refname:short)"], capture_output=True, text=True
    )
    return out.stdout.split()


def _local(repo: Path, tmp_path: Path, *extra: str) -> tuple[int, str]:
    args = ["run", "--local", "--repo", str(repo), "--prompt", "Fix it", "-o", str(tmp_path / "out"), *extra]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


def test_a_bad_policy_and_a_missing_cassette_are_both_reported_before_any_branch(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {".github/bot-policy.json": '{"permissions": {"allow": ["Read"]},\n  "bot": [1, 2]\n}'})
    code, output = _local(repo, tmp_path, "--replay", str(tmp_path / "missing.yaml"))
    assert code == 1
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert any(".github/bot-policy.json" in line for line in errors), output
    assert any("missing.yaml: no such cassette" in line for line in errors), output
    assert _branches(repo) == ["main"]  # nothing was touched
    assert "vcr" not in output.lower()


def test_a_missing_model_key_is_reported_before_any_branch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "BOT_MODEL_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    repo = _repo(tmp_path, {})
    code, output = _local(repo, tmp_path)
    assert code == 1
    assert "error: no model API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)" in output
    assert _branches(repo) == ["main"]


def test_a_broken_mcp_config_is_reported_before_any_branch(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {".mcp.json": '{"mcpServers": {"x": {"command": 42}}}'})
    cassette = write_cassette(tmp_path / "c.yaml", [Turn([Text("ok")])])
    code, output = _local(repo, tmp_path, "--replay", str(cassette), "--mcp-config", ".mcp.json")
    assert code == 1
    assert any(line.startswith("error: ") and ".mcp.json" in line for line in output.splitlines()), output
    assert _branches(repo) == ["main"]
