"""`bot run --local --continue` / `--resume ID`: local sessions in refs/bot/sessions/local/<id>, a
question answered by the next run's prompt."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from tests.github.test_sessions_end_to_end import Bodies, sent  # noqa: F401  (the capturing fixture)

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-repo"
QUESTION = {"question": "Even counts: the mean of the middle two?", "choices": ["yes", "no"]}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def local(tmp_path: Path, repo: Path, out: str, cassette: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["run", "--local", "--repo", str(repo), "--replay", str(cassette), "-o", str(tmp_path / out), *extra]
    )
    return result.exit_code, result.output


def test_a_local_question_is_answered_by_continue(tmp_path: Path, sent: Bodies) -> None:  # noqa: F811
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    ask = write_cassette(
        tmp_path / "ask.yaml",
        [
            Turn([ToolCall("Read", {"file_path": "stats.py"})]),
            Turn([Text("One question."), ToolCall("AskUserQuestion", QUESTION)]),
        ],
    )
    code, output = local(tmp_path, repo, "one", ask, "--prompt", "Fix median")
    assert code == 0, output
    assert json.loads((tmp_path / "one" / "outcome.json").read_text())["conclusion"] == "needs-input"
    assert "> Even counts: the mean of the middle two?" in output and "1. yes" in output
    assert "--continue" in output
    key = re.search(r"session (local/[0-9a-f]+)", output)
    assert key is not None
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/bot/sessions/")
    assert refs.split() == [f"refs/bot/sessions/{key.group(1)}"]

    answered = write_cassette(tmp_path / "answered.yaml", [Turn([Text("Used the mean of the middle two.")])])
    before = len(sent)
    code, output = local(tmp_path, repo, "two", answered, "--continue", "--prompt", "1")
    assert code == 0, output
    assert f"session {key.group(1)}" in output
    assert json.loads((tmp_path / "two" / "outcome.json").read_text())["conclusion"] == "success"
    result = sent[before]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "1. yes" in str(result["content"])
    assert git(repo, "branch", "--show-current").strip() == "bot/local-fix-median"

    code, output = local(tmp_path, repo, "three", answered, "--resume", "nope", "--prompt", "x")
    assert code != 0 and "no local session 'local/nope'" in output
