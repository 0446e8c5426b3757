"""The end-to-end world: the GitHub stand-in, a local bare origin, a checkout, `bot run` through the CLI."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.testing.github_standin import GitHubStandIn
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-repo"
DEMO_CASSETTE = ROOT / "examples" / "demo.cassette.yaml"
REPO = "octo/demo"
TOKEN = "ghs_" + "E2e" * 12
BRANCH = "bot/issue-1-median-is-wrong-for-an-even-number-of"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@dataclass
class World:
    gh: GitHubStandIn
    origin: Path
    workspace: Path
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    issue: int
    comment: int

    def event(self, body: str = "@bot fix this", *, user: str = "alice", user_type: str = "User") -> Path:
        payload: dict[str, Any] = copy.deepcopy(
            json.loads((FIXTURES / "events" / "issue_comment.created.json").read_text())
        )
        payload["repository"]["full_name"] = REPO
        payload["issue"]["number"] = self.issue
        payload["issue"]["title"] = "median() is wrong for an even number of values"
        payload["issue"]["body"] = "median([4, 1, 3, 2]) should be 2.5"
        payload["comment"]["id"] = self.comment
        payload["comment"]["body"] = body
        payload["comment"]["user"] = {"login": user, "type": user_type}
        payload["sender"] = {"login": user, "type": user_type}
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload))
        return path

    def pr_event(self, pr: int, comment: int, body: str = "@bot fix this", user: str = "alice") -> Path:
        """A real PR-comment capture, pointed at this world's PR and comment."""
        payload = json.loads((FIXTURES / "events" / "issue_comment.created.pull_request.json").read_text())
        payload["repository"]["full_name"] = REPO
        payload["issue"]["number"] = pr
        payload["comment"].update({"id": comment, "body": body, "user": {"login": user, "type": "User"}})
        payload["sender"] = {"login": user, "type": "User"}
        path = self.tmp / "pr-event.json"
        path.write_text(json.dumps(payload))
        return path

    def run(self, *args: str, event: Path | None = None, policy: str = "fix", event_name: str = "issue_comment") -> Any:
        env = {
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event or self.event()),
            "GITHUB_API_URL": self.gh.api_url,
            "GITHUB_SERVER_URL": self.gh.server_url,
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(self.tmp / "gh-output"),
            "GITHUB_STEP_SUMMARY": str(self.tmp / "gh-summary"),
            "BOT_OUTPUT_DIR": str(self.tmp / "bot-output"),
            "BOT_POLICY": policy,
        }
        for name, value in env.items():
            self.monkeypatch.setenv(name, value)
        return CliRunner().invoke(app, ["run", *args])

    def outputs(self) -> dict[str, str]:
        text = (self.tmp / "gh-output").read_text() if (self.tmp / "gh-output").exists() else ""
        out: dict[str, str] = {}
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            name, _, delimiter = lines[i].partition("<<")
            j = lines.index(delimiter, i + 1)
            out[name] = "\n".join(lines[i + 1 : j])
            i = j + 1
        return out

    def origin_file(self, branch: str, path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.origin), "show", f"{branch}:{path}"], capture_output=True, text=True, check=True
        ).stdout


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    seed = tmp_path / "seed"
    shutil.copytree(DEMO, seed)
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    git(seed, "push", "-q", str(origin), "main")
    workspace = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
    with GitHubStandIn() as gh:
        gh.add_repo(REPO, git_dir=origin)
        gh.set_permission(REPO, "alice", "write")
        gh.add_user("mallory")
        issue = gh.add_issue(REPO, "median() is wrong for an even number of values", "see title", user="alice")
        comment = gh.add_comment(REPO, issue, "@bot fix this", user="alice")
        yield World(gh, origin, workspace, tmp_path, monkeypatch, issue, comment)


@pytest.fixture
def real_sandbox() -> None:
    """The attack tests need the real bwrap: without one they skip and say why."""
    import anyio

    from bot.shell.sandbox.status import probe_bwrap

    probe = anyio.run(probe_bwrap)
    if not probe.works:
        pytest.skip(f"bwrap cannot run here: {probe.reason}")
