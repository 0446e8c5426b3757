"""`@bot fix this` end to end, with no network: the GitHub stand-in (GitHub's REST shapes), a local
bare repository as origin, the model from a cassette, every tool run for real."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.testing.cassettes import Text, ToolCall, Turn, Usage, write_cassette
from tests.conftest import FIXTURES
from tests.github.conftest import BRANCH, DEMO_CASSETTE, REPO, TOKEN, World, git


def test_bot_fix_this_on_an_issue_pushes_a_branch_opens_a_pr_and_comments(world: World) -> None:
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 0, result.output
    branch = BRANCH
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in world.origin_file(branch, "stats.py")
    log = subprocess.run(
        ["git", "-C", str(world.origin), "log", "-1", "--format=%B", branch], capture_output=True, text=True, check=True
    ).stdout
    assert "Co-authored-by: alice <alice@users.noreply.github.com>" in log
    pulls = world.gh.pulls(REPO)
    assert len(pulls) == 1
    assert pulls[0].head_ref == branch
    assert not pulls[0].draft
    assert "Fixes #1" in (pulls[0].body or "")
    comments = world.gh.comments(REPO, world.issue)
    assert len(comments) == 2  # the request, and the bot's sticky comment turned into the result
    result_comment = comments[1].body
    assert "✅ Done" in result_comment
    assert "+    return (ordered[middle - 1] + ordered[middle]) / 2" in result_comment
    pr_url = f"{world.gh.server_url}/{REPO}/pull/{pulls[0].number}"
    assert pr_url in result_comment
    assert "requested by `alice` (write)" in result_comment
    assert [r.content for r in world.gh.reactions()] == ["eyes"]
    outputs = world.outputs()
    assert outputs["conclusion"] == "success"
    assert outputs["pr_url"] == pr_url
    assert int(outputs["turns"]) == 5
    assert "✅ Done" in (world.tmp / "gh-summary").read_text()
    assert TOKEN not in result_comment
    assert TOKEN not in (world.workspace / ".git" / "config").read_text()


def test_running_again_reuses_the_branch_and_the_pr(world: World) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    # Second request on the same issue: the branch and PR are reused, nothing is duplicated.
    world.gh.add_comment(REPO, world.issue, "@bot fix this again", user="alice")
    second = world.run("--replay", str(_noop_cassette(world.tmp)))
    assert second.exit_code == 0, second.output
    assert len(world.gh.pulls(REPO)) == 1


def _noop_cassette(tmp: Path) -> Path:
    return write_cassette(tmp / "noop.yaml", [Turn([Text("Already fixed on this branch; nothing to change.")])])


def test_a_non_collaborator_triggers_nothing(world: World) -> None:
    world.gh.clear_requests()
    result = world.run("--replay", str(DEMO_CASSETTE), event=world.event(user="mallory"))
    assert result.exit_code == 0
    assert "refused" in result.output
    assert [e.operation for e in world.gh.requests()] == ["repos/get-collaborator-permission-level"]
    assert len(world.gh.comments(REPO, world.issue)) == 1
    assert world.outputs()["conclusion"] == "refused"


def test_the_bots_own_comment_triggers_nothing(world: World) -> None:
    world.gh.clear_requests()
    event = world.event(user="github-actions[bot]", user_type="Bot")
    result = world.run("--replay", str(DEMO_CASSETTE), event=event)
    assert result.exit_code == 0
    assert "bot itself" in result.output
    assert world.gh.requests() == []


def test_a_budget_exhausted_run_pushes_a_checkpoint_and_says_so(world: World) -> None:
    expensive = Usage(input_tokens=40_000, output_tokens=800)
    cassette = write_cassette(
        world.tmp / "budget.yaml",
        [
            Turn([ToolCall("Read", {"file_path": "stats.py"})], usage=expensive),
            Turn(
                [
                    Text("Fixing median()."),
                    ToolCall(
                        "Edit",
                        {
                            "file_path": "stats.py",
                            "old_string": "    middle = len(ordered) // 2\n",
                            "new_string": "    middle = len(ordered) // 2  # TODO even counts\n",
                        },
                    ),
                ],
                usage=expensive,
            ),
            Turn([ToolCall("Bash", {"command": "python3 -m unittest -q"})], usage=expensive),
        ],
    )
    result = world.run("--replay", str(cassette), "--max-budget-usd", "0.1")
    assert result.exit_code == 0, result.output
    branch = BRANCH
    assert "# TODO even counts" in world.origin_file(branch, "stats.py")
    message = subprocess.run(
        ["git", "-C", str(world.origin), "log", "-1", "--format=%s", branch], capture_output=True, text=True, check=True
    ).stdout
    assert "checkpoint" in message.lower()
    pulls = world.gh.pulls(REPO)
    assert pulls[0].draft
    comment = world.gh.comments(REPO, world.issue)[-1].body
    assert "Stopped at the budget" in comment
    assert world.outputs()["conclusion"] == "partial"


def test_a_github_502_is_retried(world: World) -> None:
    world.gh.fail("pulls/create", status=502, times=1)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 0, result.output
    assert len(world.gh.requests("pulls/create")) == 2
    assert len(world.gh.pulls(REPO)) == 1


def test_a_rejected_push_is_reported_and_the_work_is_kept(world: World) -> None:
    # Someone else pushed to the bot's branch meanwhile: a non-fast-forward push.
    branch = BRANCH
    other = world.tmp / "other"
    subprocess.run(["git", "clone", "-q", str(world.origin), str(other)], check=True)
    git(other, "checkout", "-q", "-b", branch)
    (other / "NOTES.md").write_text("someone else's work\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "other")
    git(other, "push", "-q", "origin", branch)
    hook = world.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'branch is protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 1
    comment = world.gh.comments(REPO, world.issue)[-1].body
    assert "push" in comment.lower()
    assert "rejected" in comment.lower()
    local = git(world.workspace, "show", "HEAD:stats.py")
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in local
    assert world.outputs()["conclusion"] == "failure"
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in (world.tmp / "bot-output" / "changes.diff").read_text()


def test_a_pr_that_edits_the_policy_runs_under_the_default_branchs_policy(world: World) -> None:
    # main's policy denies Edit; the PR's head rewrites it to allow everything.
    strict = {"permissions": {"allow": ["Read", "Bash(python3 -m unittest *)", "TodoWrite"], "deny": ["Edit"]}}
    (world.workspace / ".github").mkdir()
    (world.workspace / ".github" / "bot-policy.json").write_text(json.dumps(strict))
    git(world.workspace, "add", "-A")
    git(world.workspace, "commit", "-q", "-m", "policy")
    git(world.workspace, "push", "-q", "origin", "main")
    git(world.workspace, "checkout", "-q", "-b", "feature")
    (world.workspace / ".github" / "bot-policy.json").write_text(json.dumps({"permissions": {"allow": ["Edit"]}}))
    git(world.workspace, "commit", "-q", "-am", "loosen the bot's policy")
    git(world.workspace, "push", "-q", "origin", "feature")
    pr = world.gh.add_pull(REPO, "feature", title="Loosen policy", user="alice")
    comment = world.gh.add_comment(REPO, pr, "@bot fix this", user="alice")
    event = world.pr_event(pr, comment)
    result = world.run("--replay", str(DEMO_CASSETTE), event=event, policy="")
    assert result.exit_code == 0, result.output
    final = world.gh.comments(REPO, pr)[-1].body
    assert "the run used the versions on `main`" in final
    assert "`.github/bot-policy.json`" in final
    # main's policy denies Edit outright: the tool (and its family) never reaches the model.
    assert "No such tool available: Edit" in (world.tmp / "bot-output" / "scratch" / "transcript.jsonl").read_text()
    assert json.loads((world.tmp / "bot-output" / "outcome.json").read_text())["files"] == []
    assert "(ordered[middle - 1] + ordered[middle]) / 2" not in world.origin_file("feature", "stats.py")


def test_dry_run_prints_the_decision_and_calls_nothing(world: World) -> None:
    world.gh.clear_requests()
    result = world.run("--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "triggered": True,
        "reason": "alice mentioned @bot in an issue comment",
        "kind": "issue_comment",
        "issue": 1,
        "pr": None,
        "branch": BRANCH,
        "prompt": "fix this",
    }
    assert world.gh.requests() == []


@pytest.mark.parametrize(
    ("description", "content", "fragment"),
    [
        ("not JSON", "{oops", "invalid JSON"),
        ("nested a hundred thousand deep", '{"a":' * 100_000 + "1" + "}" * 100_000, "nested"),
        ("larger than GitHub sends", '{"a": "' + "x" * 27_000_000 + '"}', "at most 26,214,400"),
        ("not an object", "[]", "must be a JSON object"),
        ("no comment", '{"action": "created", "issue": {"number": 1}}', "no 'comment' object"),
    ],
)
def test_a_malformed_event_is_a_clear_error_not_a_traceback(
    world: World, description: str, content: str, fragment: str
) -> None:
    event = world.tmp / "bad.json"
    event.write_text(content)
    result = world.run("--dry-run", "--json", event=event)
    assert result.exit_code != 0, description
    assert fragment in result.output
    assert "Traceback" not in result.output


def test_a_failed_verification_makes_the_pr_a_draft(world: World) -> None:
    policy = world.tmp / "org-policy.json"
    policy.write_text(json.dumps({"bot": {"extends": "fix", "verify": ["python3 -c 'raise SystemExit(3)'"]}}))
    result = world.run("--replay", str(DEMO_CASSETTE), policy=str(policy))
    assert result.exit_code == 0, result.output
    assert world.gh.pulls(REPO)[0].draft
    comment = world.gh.comments(REPO, world.issue)[-1].body
    assert "verification failed" in comment
    assert world.outputs()["conclusion"] == "partial"


def test_a_cancelled_run_commits_a_checkpoint_and_says_so(world: World) -> None:
    # The workflow is cancelled (SIGTERM) while the model is mid-run: after the first edit.
    import os
    import signal
    import threading

    from bot.agent.events import ToolFinished
    from bot.github import progress

    original = progress.StickyProgress.sink

    def sink(self: progress.StickyProgress, event: object) -> None:
        original(self, event)  # type: ignore[arg-type]
        if isinstance(event, ToolFinished) and event.tool_name == "Edit":
            threading.Timer(0.0, os.kill, (os.getpid(), signal.SIGTERM)).start()

    world.monkeypatch.setattr(progress.StickyProgress, "sink", sink)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 0, result.output
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in world.origin_file(BRANCH, "stats.py")
    message = subprocess.run(
        ["git", "-C", str(world.origin), "log", "-1", "--format=%s", BRANCH], capture_output=True, text=True, check=True
    ).stdout
    assert "checkpoint" in message.lower()
    comment = world.gh.comments(REPO, world.issue)[-1].body
    assert "cancelled" in comment.lower()
    assert world.gh.pulls(REPO)[0].draft


def test_a_trigger_label_on_an_issue_starts_a_run(world: World) -> None:
    payload = json.loads((FIXTURES / "events" / "issues.labeled.json").read_text())
    payload["repository"]["full_name"] = REPO
    payload["issue"].update(
        {
            "number": world.issue,
            "title": "median() is wrong for an even number of values",
            "body": "median([4, 1, 3, 2]) should be 2.5",
        }
    )
    payload["label"]["name"] = "bot"
    payload["sender"] = {"login": "alice", "type": "User"}
    event = world.tmp / "labeled.json"
    event.write_text(json.dumps(payload))
    world.monkeypatch.setenv("BOT_LABEL_TRIGGER", "bot")
    result = world.run("--replay", str(DEMO_CASSETTE), event=event, event_name="issues")
    assert result.exit_code == 0, result.output
    assert [r.content for r in world.gh.reactions()][-1] == "eyes"
    assert world.gh.pulls(REPO)[0].head_ref == BRANCH
    assert "✅ Done" in world.gh.comments(REPO, world.issue)[-1].body


def test_secrets_never_reach_the_pr_or_the_comment(world: World) -> None:
    leaky = write_cassette(
        world.tmp / "leaky.yaml",
        [
            Turn([ToolCall("Read", {"file_path": "stats.py"})]),
            Turn(
                [
                    ToolCall(
                        "Edit",
                        {
                            "file_path": "stats.py",
                            "old_string": "    middle = len(ordered) // 2\n",
                            "new_string": "    middle = len(ordered) // 2  # checked\n",
                        },
                    )
                ]
            ),
            Turn([Text(f"Done. (The token is {TOKEN}; key sk-ant-api03-{'x' * 90}.)")]),
        ],
    )
    result = world.run("--replay", str(leaky))
    assert result.exit_code == 0, result.output
    body = world.gh.pulls(REPO)[0].body or ""
    comment = world.gh.comments(REPO, world.issue)[-1].body
    transcript = (world.tmp / "bot-output" / "scratch" / "transcript.jsonl").read_text()
    for text in (body, comment, (world.tmp / "gh-summary").read_text(), transcript):
        assert TOKEN not in text
        assert "sk-ant-api03-xxxx" not in text


def test_a_missing_model_key_is_reported_on_the_issue_not_a_traceback(world: World) -> None:
    world.monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    world.monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    result = world.run()  # no --replay: a real model would be called
    assert result.exit_code == 1
    comment = world.gh.comments(REPO, world.issue)[-1].body
    assert "no model API key" in comment
    assert "internal error" not in comment
    assert "Traceback" not in result.output


def test_hook_scripts_changed_by_a_pr_are_not_run(world: World) -> None:
    policy = {
        "bot": {"extends": "fix"},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Read",
                    "hooks": [{"type": "command", "command": 'bash "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"'}],
                }
            ]
        },
    }
    (world.workspace / ".github").mkdir()
    (world.workspace / ".github" / "bot-policy.json").write_text(json.dumps(policy))
    (world.workspace / ".claude" / "hooks").mkdir(parents=True)
    (world.workspace / ".claude" / "hooks" / "guard.sh").write_text("exit 0\n")
    git(world.workspace, "add", "-A")
    git(world.workspace, "commit", "-q", "-m", "hooks")
    git(world.workspace, "push", "-q", "origin", "main")
    git(world.workspace, "checkout", "-q", "-b", "feature")
    marker = world.tmp / "pwned"
    (world.workspace / ".claude" / "hooks" / "guard.sh").write_text(f"touch {marker}\nexit 0\n")
    git(world.workspace, "commit", "-q", "-am", "innocent-looking change")
    git(world.workspace, "push", "-q", "origin", "feature")
    pr = world.gh.add_pull(REPO, "feature", title="Tweak", user="alice")
    comment = world.gh.add_comment(REPO, pr, "@bot fix this", user="alice")
    event = world.pr_event(pr, comment)
    result = world.run("--replay", str(DEMO_CASSETTE), event=event, policy="")
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    final = world.gh.comments(REPO, pr)[-1].body
    assert "was not run" in final or "not run:" in final
    assert "`.claude/hooks/guard.sh`" in final
