"""Provenance as a reader can check it: every policy file that took part by hash (what a policy
extends included), and paths relative to the repository, never the runner's absolute ones."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.orchestration.provenance import relative_path, relative_text
from bot.permissions.stack import preset_path
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-repo"


def _repo(tmp_path: Path, policy: dict[str, object]) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "bot-policy.json").write_text(json.dumps(policy))
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*env, "commit", "-q", "-m", "init"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo


def _run(repo: Path, out: Path, cassette: Path) -> None:
    args = ["run", "--local", "--repo", str(repo), "--prompt", "Look", "--replay", str(cassette), "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def test_a_policy_that_extends_a_preset_shows_both_hashes(tmp_path: Path) -> None:
    policy = {"bot": {"extends": "fix"}, "permissions": {"allow": ["Read"]}}
    repo = _repo(tmp_path, policy)
    cassette = write_cassette(tmp_path / "c.yaml", [Turn([Text("Nothing to do.")])])
    _run(repo, tmp_path / "out", cassette)
    comment = (tmp_path / "out" / "comment.md").read_text()
    preset = preset_path("fix").read_text(encoding="utf-8")
    assert f"policy `preset:fix` sha256:{_sha(preset)}" in comment
    own = (repo / ".github" / "bot-policy.json").read_text()
    assert f"policy `.github/bot-policy.json` sha256:{_sha(own)}" in comment
    assert comment.index("preset:fix") < comment.index(".github/bot-policy.json")  # weakest first


def test_nothing_a_run_leaves_names_the_runners_absolute_paths(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"bot": {"extends": "fix"}})
    out = tmp_path / "out"
    cassette = write_cassette(
        tmp_path / "c.yaml",
        [
            Turn([ToolCall("Read", {"file_path": str(repo / "stats.py")})]),
            Turn([Text(f"Read {repo}/stats.py; nothing to change.")]),
        ],
    )
    _run(repo, out, cassette)
    comment = (out / "comment.md").read_text()
    outcome = (out / "outcome.json").read_text()
    for text in (comment, outcome):
        assert str(tmp_path) not in text
    assert "Read stats.py; nothing to change." in comment
    data = json.loads(outcome)
    assert data["repository"] == "repo"
    assert data["transcript"] is None or not data["transcript"].startswith("/")


@pytest.mark.parametrize(
    ("description", "path", "shown"),
    [
        ("inside the repository", "/w/app/src/x.py", "src/x.py"),
        ("already relative", "src/x.py", "src/x.py"),
        ("elsewhere on the runner: by name", "/home/runner/org/policy.json", "…/policy.json"),
    ],
)
def test_relative_path(description: str, path: str, shown: str) -> None:
    assert relative_path(path, Path("/w/app")) == shown


def test_relative_text_strips_the_longest_root_first() -> None:
    text = "see /w/app/bot-output/error.txt and /w/app/src/x.py"
    assert relative_text(text, [Path("/w/app"), Path("/w/app/bot-output")]) == "see error.txt and src/x.py"
