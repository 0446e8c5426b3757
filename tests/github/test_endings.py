"""Every ending goes through one finaliser: the comment says what happened and links what was
pushed, the outputs, the job summary and ``outcome.json`` are written, the exit code is right —
with faults injected into the GitHub stand-in, and a bug raised inside the run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.github.api import PyGithubApi, RetryPolicy
from tests.github.conftest import BRANCH, DEMO_CASSETTE, REPO, World

#: More failures than the client's attempts: GitHub answers 5xx on every retry.
ALWAYS = 50


@pytest.fixture(autouse=True)
def no_retry_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API client's retries, without their real waits (the clock is the only thing replaced)."""
    original = PyGithubApi.from_environment.__func__  # type: ignore[attr-defined]

    def from_environment(cls: type[PyGithubApi], env: Any = None, **kwargs: Any) -> PyGithubApi:
        kwargs["policy"] = RetryPolicy(sleep=lambda s: None, jitter=lambda: 0.0)
        return original(cls, env, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(PyGithubApi, "from_environment", classmethod(from_environment))


def _result_comment(world: World) -> str:
    comments = world.gh.comments(REPO, world.issue)
    assert len(comments) == 2, [c.body for c in comments]  # the request, and the sticky comment
    return comments[1].body or ""


def _outcome(world: World) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((world.tmp / "bot-output" / "outcome.json").read_text())
    return data


def test_opening_the_pr_failing_after_the_push_says_so_and_links_the_pushed_branch(world: World) -> None:
    world.gh.fail("pulls/create", status=502, times=ALWAYS)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 1, result.output
    # The work reached GitHub.
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in world.origin_file(BRANCH, "stats.py")
    assert world.gh.pulls(REPO) == []
    comment = _result_comment(world)
    assert "Working…" not in comment
    assert "❌" in comment
    assert "pull request could not be opened" in comment
    assert f"{world.gh.server_url}/{REPO}/tree/{BRANCH}" in comment
    outputs = world.outputs()
    assert outputs["conclusion"] == "failure"
    assert outputs["branch"] == BRANCH
    assert "pull request could not be opened" in (world.tmp / "gh-summary").read_text()
    assert _outcome(world)["conclusion"] == "failure"


def test_a_permission_check_that_keeps_failing_fails_loudly(world: World) -> None:
    world.gh.fail("repos/get-collaborator-permission-level", status=503, times=ALWAYS)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 1, result.output
    assert "could not be checked" in result.output
    assert world.outputs()["conclusion"] == "failure"
    assert "could not be checked" in (world.tmp / "gh-summary").read_text()
    # Nobody unverified gets a comment: the thread is left alone.
    assert len(world.gh.comments(REPO, world.issue)) == 1


def test_a_refusal_is_in_the_job_summary(world: World) -> None:
    result = world.run("--replay", str(DEMO_CASSETTE), event=world.event(user="mallory"))
    assert result.exit_code == 0
    assert world.outputs()["conclusion"] == "refused"
    assert "mallory" in (world.tmp / "gh-summary").read_text()


def test_a_bug_in_our_own_code_still_ends_with_the_comment_outputs_and_the_work_pushed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> str:
        raise ZeroDivisionError("a bug of ours")

    # The pull request's body is built after the push: a bug there must not lose what was pushed.
    monkeypatch.setattr("bot.github.publish.run_part", broken)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 1, result.output
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in world.origin_file(BRANCH, "stats.py")
    comment = _result_comment(world)
    assert "internal error (ZeroDivisionError: a bug of ours)" in comment
    assert world.outputs()["conclusion"] == "failure"
    assert (world.tmp / "bot-output" / "error.txt").is_file()
    assert "ZeroDivisionError" in (world.tmp / "bot-output" / "error.txt").read_text()
    assert _outcome(world)["conclusion"] == "failure"


def test_a_result_comment_that_cannot_be_posted_still_leaves_outputs_and_summary(world: World) -> None:
    # The sticky comment is created; every later edit of it fails, and so does a new comment.
    world.gh.fail("issues/update-comment", status=502, times=ALWAYS)
    result = world.run("--replay", str(DEMO_CASSETTE))
    comments = world.gh.comments(REPO, world.issue)
    # The sticky could not be edited: the result is posted as a new comment instead.
    assert any("✅ Done" in (c.body or "") for c in comments), [c.body for c in comments]
    assert result.exit_code == 0, result.output
    assert world.outputs()["conclusion"] == "success"
    assert "✅ Done" in (world.tmp / "gh-summary").read_text()


def test_a_protected_branch_puts_the_work_on_a_fresh_branch_with_its_own_pr(world: World) -> None:
    hook = world.origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\nwhile read old new ref; do\n"
        f'  if [ "$ref" = "refs/heads/{BRANCH}" ]; then echo "GH006: Protected branch update failed" >&2; exit 1; fi\n'
        "done\n"
    )
    hook.chmod(0o755)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 0, result.output
    (pull,) = world.gh.pulls(REPO)
    assert pull.head_ref.startswith(BRANCH + "-")
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in world.origin_file(pull.head_ref, "stats.py")
    comment = _result_comment(world)
    assert f"The push to `{BRANCH}` was refused" in comment
    assert "Protected branch update failed" in comment
    assert f"`{pull.head_ref}`" in comment
    assert world.outputs()["branch"] == pull.head_ref


def test_a_bug_in_building_the_report_still_ends_with_a_failure_comment_and_outputs(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug in the report")

    monkeypatch.setattr("bot.orchestration.finish.build_report", broken)
    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 1, result.output
    comment = _result_comment(world)
    assert "Working…" not in comment
    assert "internal error (KeyError" in comment
    assert world.outputs()["conclusion"] == "failure"
    assert _outcome(world)["conclusion"] == "failure"
