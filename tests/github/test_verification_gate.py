"""The verification gate on re-runs (feature row 38): the bot's pull request is ready for review
after a run that finished and verified, a draft after one that did not, and the comment says which.
GitHub has no REST verb for it: the GraphQL mutations go to the stand-in as PyGithub sends them."""

from __future__ import annotations

import json
from pathlib import Path

from bot.github.api import PyGithubApi, RetryPolicy
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from bot.testing.github_standin import GitHubStandIn
from tests.github.conftest import DEMO_CASSETTE, REPO, TOKEN, World

VERIFY = "grep -q yes VERIFIED"


def _policy(world: World) -> str:
    path = world.tmp / "org-policy.json"
    path.write_text(json.dumps({"bot": {"extends": "fix", "verify": [VERIFY]}}))
    return str(path)


def _cassette(tmp: Path, name: str, calls: list[ToolCall], summary: str) -> Path:
    return write_cassette(tmp / f"{name}.yaml", [*(Turn([c]) for c in calls), Turn([Text(summary)])])


def _follow_up(world: World, body: str, cassette: Path) -> str:
    world.comment = world.gh.add_comment(REPO, world.issue, body, user="alice")
    result = world.run("--replay", str(cassette), event=world.event(body), policy=_policy(world))
    assert result.exit_code == 0, result.output
    return world.gh.comments(REPO, world.issue)[-1].body or ""


def test_a_rerun_that_verifies_makes_the_pr_ready_and_one_that_fails_makes_it_a_draft(world: World) -> None:
    first = world.run("--replay", str(DEMO_CASSETTE), policy=_policy(world))
    assert first.exit_code == 0, first.output
    (pull,) = world.gh.pulls(REPO)
    assert pull.draft  # verification failed: there is no VERIFIED file yet

    create = ToolCall("Write", {"file_path": "VERIFIED", "content": "yes\n"})
    comment = _follow_up(world, "@bot add the marker", _cassette(world.tmp, "add", [create], "Added it."))
    (pull,) = world.gh.pulls(REPO)
    assert not pull.draft
    assert f"The pull request is ready for review: verification passed (`{VERIFY}`)." in comment
    assert [e.operation for e in world.gh.requests("graphql/markPullRequestReadyForReview")]

    # An existing file is read before it is overwritten (the Write tool's own rule).
    read = ToolCall("Read", {"file_path": "VERIFIED"})
    remove = ToolCall("Write", {"file_path": "VERIFIED", "content": "no\n"})
    comment = _follow_up(world, "@bot drop the marker", _cassette(world.tmp, "drop", [read, remove], "Removed it."))
    (pull,) = world.gh.pulls(REPO)
    assert pull.draft
    assert f"The pull request is a draft again: verification failed (`{VERIFY}`)." in comment


def test_set_pull_draft_round_trips_through_graphql() -> None:
    with GitHubStandIn() as gh:
        gh.add_repo(REPO)
        gh.set_ref(REPO, "feature", "a" * 40)
        number = gh.add_pull(REPO, "feature", title="t", draft=True)
        api = PyGithubApi(repository=REPO, token=TOKEN, api_url=gh.api_url, policy=RetryPolicy(sleep=lambda s: None))
        try:
            assert api.set_pull_draft(number, False).draft is False
            assert gh.pulls(REPO)[0].draft is False
            assert api.set_pull_draft(number, True).draft is True
            assert gh.pulls(REPO)[0].draft is True
            # Already a draft: nothing is sent.
            gh.clear_requests()
            api.set_pull_draft(number, True)
            assert gh.requests("graphql/convertPullRequestToDraft") == []
        finally:
            api.close()
