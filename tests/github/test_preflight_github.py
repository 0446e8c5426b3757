"""On GitHub too, what can be checked is checked before the checkout is touched; the thread is told."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.github.conftest import DEMO_CASSETTE, REPO, World


def _branches(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "branch", "--format=%(refname:short)"], capture_output=True, text=True
    )
    return out.stdout.split()


def test_on_github_a_bad_policy_is_said_on_the_thread_and_no_branch_is_made(world: World) -> None:
    (world.workspace / ".github").mkdir(exist_ok=True)
    policy = world.workspace / ".github" / "bot-policy.json"
    policy.write_text('{"permissions": {"allow": "Read"}}')
    subprocess.run(["git", "-C", str(world.workspace), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(world.workspace), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "policy"],
        check=True,
    )
    subprocess.run(["git", "-C", str(world.workspace), "push", "-q", "origin", "main"], check=True)
    result = world.run("--replay", str(DEMO_CASSETTE), policy="")
    assert result.exit_code == 1, result.output
    comment = world.gh.comments(REPO, world.issue)[-1].body or ""
    assert "the run did not start" in comment and ".github/bot-policy.json" in comment
    assert _branches(world.workspace) == ["main"]
    assert world.outputs()["conclusion"] == "failure"
