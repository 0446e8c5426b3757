"""`@bot explain` on an issue answers with the policy's explanation, without a model call; and
`bot run --dry-run --explain` adds the explanation to the dry run's JSON."""

from __future__ import annotations

import json

from tests.github.conftest import REPO, World


def test_bot_explain_comments_the_explanation_without_a_model_call(world: World) -> None:
    # No --replay and no model key: a model call would fail the run.
    result = world.run(event=world.event("@bot explain"))
    assert result.exit_code == 0, result.output
    comments = world.gh.comments(REPO, world.issue)
    assert len(comments) == 2
    answer = comments[1].body
    assert "What I may do here (the default branch (main))" in answer
    assert "- `Bash(git diff *)`: `git diff` followed by any arguments" in answer
    assert "no model was called" in answer
    assert world.outputs()["conclusion"] == "explained"
    assert not (world.tmp / "bot-output" / "scratch" / "transcript.jsonl").exists()
    assert world.gh.requests("pulls/create") == []


def test_explain_reads_the_policy_of_the_default_branch(world: World) -> None:
    (world.workspace / ".github").mkdir()
    (world.workspace / ".github" / "bot-policy.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make docs)"]}})
    )
    from tests.github.conftest import git

    git(world.workspace, "add", "-A")
    git(world.workspace, "commit", "-q", "-m", "policy")
    git(world.workspace, "push", "-q", "origin", "main")
    assert world.run(event=world.event("@bot explain")).exit_code == 0
    assert "`Bash(make docs)`: exactly `make docs`, nothing added" in world.gh.comments(REPO, world.issue)[-1].body


def test_dry_run_explain_adds_the_explanation(world: World) -> None:
    world.gh.clear_requests()
    result = world.run("--dry-run", "--json", "--explain")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["triggered"] is True
    assert data["explain"]["sandbox"] == "required"
    assert {t["name"]: t["standing"] for t in data["explain"]["tools"]}["TodoWrite"] == "no rule needed"
    assert world.gh.requests() == []
