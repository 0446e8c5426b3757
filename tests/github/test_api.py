"""The PyGithub adapter: what it asks, what it returns, how it retries and what it raises."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator

import pytest
import requests
from github import GithubException

from bot.errors import (
    ConfigError,
    GitHubAuthError,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubUnavailable,
    GitHubValidationError,
)
from bot.github.api import MAX_ATTEMPTS, PyGithubApi, RetryPolicy, is_retryable, requested_wait, translate
from bot.testing.github_standin import GitHubStandIn
from tests.github import openapi_schema

REPO = "octo/app"
TOKEN = "ghs_s3cr3t-token-value"


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def standin() -> Iterator[GitHubStandIn]:
    with GitHubStandIn() as server:
        server.add_repo(REPO)
        server.set_ref(REPO, "bot/issue-1-crash", "b" * 40)
        yield server


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def api(standin: GitHubStandIn, sleeps: Sleeps) -> Iterator[PyGithubApi]:
    client = PyGithubApi(
        repository=REPO, token=TOKEN, api_url=standin.api_url, policy=RetryPolicy(sleep=sleeps, jitter=lambda: 0.0)
    )
    yield client
    client.close()


def assert_shapes_match_the_description(standin: GitHubStandIn) -> None:
    problems = []
    for exchange in standin.exchanges:
        assert exchange.operation is not None, exchange.path
        request = openapi_schema.request_schema(exchange.operation)
        if request is not None and exchange.status < 400:
            problems += [f"request {exchange.operation}: {e}" for e in openapi_schema.errors(request, exchange.body)]
        response = openapi_schema.response_schema(exchange.operation, exchange.status)
        if response is not None:
            problems += [
                f"{exchange.operation} {exchange.status}: {e}"
                for e in openapi_schema.errors(response, exchange.response)
            ]
    assert not problems, "\n".join(problems[:20])


# ----- construction ------------------------------------------------------------------------------


def test_it_is_built_from_the_actions_environment(standin: GitHubStandIn) -> None:
    env = {"GITHUB_API_URL": standin.api_url, "GITHUB_REPOSITORY": REPO, "GITHUB_TOKEN": TOKEN}
    api = PyGithubApi.from_environment(env)
    assert api.repository == REPO
    assert api.default_branch() == "main"
    (exchange,) = standin.exchanges
    assert exchange.path == f"/api/v3/repos/{REPO}"  # the GitHub Enterprise layout
    assert exchange.headers["Authorization"] == f"token {TOKEN}"
    api.close()


@pytest.mark.parametrize(
    ("description", "env", "token", "message"),
    [
        ("no repository", {"GITHUB_TOKEN": "t"}, None, "GITHUB_REPOSITORY is not set"),
        (
            "a repository that is not owner/name",
            {"GITHUB_REPOSITORY": "app", "GITHUB_TOKEN": "t"},
            None,
            "must be owner/name",
        ),
        ("no token anywhere", {"GITHUB_REPOSITORY": REPO}, None, "no GitHub token"),
        ("an empty token argument", {"GITHUB_REPOSITORY": REPO, "GITHUB_TOKEN": "t"}, "", "no GitHub token"),
    ],
)
def test_a_missing_setting_is_a_config_error(
    description: str, env: dict[str, str], token: str | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        PyGithubApi.from_environment(env, token=token)


# ----- operations --------------------------------------------------------------------------------


def test_the_default_branch_is_read_once(standin: GitHubStandIn, api: PyGithubApi) -> None:
    assert api.default_branch() == "main"
    assert api.default_branch() == "main"
    assert len(standin.requests("repos/get")) == 1


@pytest.mark.parametrize(
    ("description", "role", "expected"),
    [
        ("maintain reads as write, with its role name", "maintain", ("write", "maintain")),
        ("triage reads as read", "triage", ("read", "triage")),
        ("admin", "admin", ("admin", "admin")),
    ],
)
def test_collaborator_permission_returns_permission_and_role(
    standin: GitHubStandIn, api: PyGithubApi, description: str, role: str, expected: tuple[str, str]
) -> None:
    standin.set_permission(REPO, "alice", role)
    answer = api.collaborator_permission("alice")
    assert (answer.login, answer.permission, answer.role_name) == ("alice", *expected), description
    assert len(standin.requests("repos/get-collaborator-permission-level")) == 1  # one call for both fields


def test_an_unknown_user_is_not_found(api: PyGithubApi) -> None:
    with pytest.raises(GitHubNotFound, match="read the permission of ghost"):
        api.collaborator_permission("ghost")


def test_a_login_with_brackets_is_quoted(standin: GitHubStandIn, api: PyGithubApi) -> None:
    standin.add_user("renovate[bot]", bot=True)
    standin.set_permission(REPO, "renovate[bot]", "write")
    assert api.collaborator_permission("renovate[bot]").permission == "write"


def test_get_pull_returns_head_and_base(standin: GitHubStandIn, api: PyGithubApi) -> None:
    number = standin.add_pull(REPO, "bot/issue-1-crash", title="Fix crash", body="Fixes #1")
    pr = api.get_pull(number)
    assert (pr.number, pr.state, pr.draft, pr.title, pr.body) == (number, "open", False, "Fix crash", "Fixes #1")
    assert (pr.head_ref, pr.head_sha, pr.head_repository, pr.base_ref) == ("bot/issue-1-crash", "b" * 40, REPO, "main")
    assert pr.html_url.endswith(f"/{REPO}/pull/{number}")


def test_a_pull_from_a_fork_names_the_fork(standin: GitHubStandIn, api: PyGithubApi) -> None:
    standin.add_repo("someone/app")
    number = standin.add_pull(REPO, "patch-1", head_repo="someone/app", user="someone")
    assert api.get_pull(number).head_repository == "someone/app"


def test_find_open_pull_asks_for_owner_and_branch(standin: GitHubStandIn, api: PyGithubApi) -> None:
    number = standin.add_pull(REPO, "bot/issue-1-crash")
    found = api.find_open_pull("bot/issue-1-crash")
    assert found is not None and found.number == number
    (exchange,) = standin.requests("pulls/list")
    assert exchange.query["head"] == ["octo:bot/issue-1-crash"]
    assert exchange.query["state"] == ["open"]


@pytest.mark.parametrize(
    ("description", "setup", "expected"),
    [
        ("no PR at all", [], None),
        ("a PR for another branch", [("other", None)], None),
        ("a fork's PR with the same branch name", [("bot/issue-1-crash", "someone/app")], None),
        ("ours among others", [("other", None), ("bot/issue-1-crash", None)], "bot/issue-1-crash"),
    ],
)
def test_find_open_pull_only_returns_this_repositorys_branch(
    standin: GitHubStandIn,
    api: PyGithubApi,
    description: str,
    setup: list[tuple[str, str | None]],
    expected: str | None,
) -> None:
    standin.add_repo("someone/app")
    for head, head_repo in setup:
        standin.add_pull(REPO, head, head_repo=head_repo)
    found = api.find_open_pull("bot/issue-1-crash")
    assert (found.head_ref if found else None) == expected, description


def test_a_closed_pull_is_not_found_as_open(standin: GitHubStandIn, api: PyGithubApi) -> None:
    number = standin.add_pull(REPO, "bot/issue-1-crash")
    standin.pulls(REPO)[0].state = "closed"
    assert api.find_open_pull("bot/issue-1-crash") is None
    assert api.get_pull(number).state == "closed"


def test_create_pull_sends_the_draft_flag(standin: GitHubStandIn, api: PyGithubApi) -> None:
    pr = api.create_pull(head="bot/issue-1-crash", base="main", title="Fix crash", body="Fixes #1", draft=True)
    assert pr.draft is True
    (exchange,) = standin.requests("pulls/create")
    assert exchange.body == {
        "head": "bot/issue-1-crash",
        "base": "main",
        "title": "Fix crash",
        "body": "Fixes #1",
        "draft": True,
    }
    assert_shapes_match_the_description(standin)


def test_creating_a_pull_that_already_exists_returns_the_open_one(standin: GitHubStandIn, api: PyGithubApi) -> None:
    number = standin.add_pull(REPO, "bot/issue-1-crash")
    pr = api.create_pull(head="bot/issue-1-crash", base="main", title="t", body="b", draft=False)
    assert pr.number == number


def test_creating_a_pull_without_commits_is_a_validation_error(api: PyGithubApi) -> None:
    with pytest.raises(GitHubValidationError, match="No commits between main and main"):
        api.create_pull(head="main", base="main", title="t", body="b", draft=False)


def test_update_pull_changes_only_what_is_given(standin: GitHubStandIn, api: PyGithubApi) -> None:
    number = standin.add_pull(REPO, "bot/issue-1-crash", title="Old", body="old")
    pr = api.update_pull(number, body="new")
    assert (pr.title, pr.body) == ("Old", "new")
    (exchange,) = standin.requests("pulls/update")
    assert exchange.body == {"body": "new"}
    assert_shapes_match_the_description(standin)


def test_issue_comments_are_created_read_and_updated(standin: GitHubStandIn, api: PyGithubApi) -> None:
    issue = standin.add_issue(REPO, "Crash")
    created = api.create_issue_comment(issue, "working…")
    assert created.author == "github-actions[bot]"
    assert api.get_issue_comment(created.id).body == "working…"
    updated = api.update_issue_comment(created.id, "done")
    assert (updated.id, updated.body) == (created.id, "done")
    assert [c.body for c in standin.comments(REPO, issue)] == ["done"]
    assert created.html_url.endswith(f"#issuecomment-{created.id}")
    assert_shapes_match_the_description(standin)


def test_reactions_go_to_the_right_endpoint(standin: GitHubStandIn, api: PyGithubApi) -> None:
    issue = standin.add_issue(REPO, "Crash")
    comment = standin.add_comment(REPO, issue, "@bot fix")
    pr = standin.add_pull(REPO, "bot/issue-1-crash")
    review = standin.add_review_comment(REPO, pr, "@bot rename")
    api.add_reaction("issue_comment", comment)
    api.add_reaction("review_comment", review, "rocket")
    api.add_reaction("issue", issue)
    assert [(r.subject, r.content) for r in standin.reactions()] == [
        (("issue_comment", comment), "eyes"),
        (("review_comment", review), "rocket"),
        (("issue", issue), "eyes"),
    ]
    assert_shapes_match_the_description(standin)


def test_an_unknown_reaction_is_refused_before_any_call(standin: GitHubStandIn, api: PyGithubApi) -> None:
    with pytest.raises(ValueError, match="unknown reaction"):
        api.add_reaction("issue", 1, "party")
    assert standin.exchanges == []


def test_a_review_comment_gets_a_reply_in_its_thread(standin: GitHubStandIn, api: PyGithubApi) -> None:
    pr = standin.add_pull(REPO, "bot/issue-1-crash")
    review = standin.add_review_comment(REPO, pr, "@bot rename")
    reply = api.reply_to_review_comment(pr, review, "Done in abc123")
    (stored,) = [c for c in standin.review_comments(REPO, pr) if c.id == reply.id]
    assert (stored.in_reply_to, stored.body) == (review, "Done in abc123")
    assert_shapes_match_the_description(standin)


def test_writes_are_not_spaced_out(standin: GitHubStandIn, api: PyGithubApi) -> None:
    issue = standin.add_issue(REPO, "Crash")
    sleeps = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal sleeps
        sleeps += event == "c_call" and arg is time.sleep

    # PyGithub's default sleeps 1 s between writes; ours sleeps not at all (counted, not timed).
    sys.setprofile(count)
    try:
        for n in range(5):
            api.create_issue_comment(issue, f"c{n}")
    finally:
        sys.setprofile(None)
    assert sleeps == 0
    assert [c.body for c in standin.comments(REPO, issue)][-5:] == [f"c{n}" for n in range(5)]


# ----- retries and errors ------------------------------------------------------------------------


def test_a_502_is_retried_with_backoff_until_it_succeeds(
    standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps
) -> None:
    standin.fail("pulls/create", status=502, times=2)
    pr = api.create_pull(head="bot/issue-1-crash", base="main", title="t", body="b", draft=False)
    assert pr.head_ref == "bot/issue-1-crash"
    assert [e.status for e in standin.requests("pulls/create")] == [502, 502, 201]
    assert sleeps == [1.0, 2.0]


def test_a_secondary_rate_limit_waits_what_retry_after_asks(
    standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps
) -> None:
    issue = standin.add_issue(REPO, "Crash")
    standin.secondary_rate_limit("issues/create-comment", retry_after=7)
    api.create_issue_comment(issue, "hello")
    assert sleeps == [7.0]
    assert [e.status for e in standin.requests("issues/create-comment")] == [403, 201]


def test_a_429_with_retry_after_is_retried(standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps) -> None:
    standin.secondary_rate_limit("repos/get", retry_after=3, status=429)
    assert api.default_branch() == "main"
    assert sleeps == [3.0]


def test_a_wait_longer_than_allowed_fails_at_once(standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps) -> None:
    standin.secondary_rate_limit("repos/get", retry_after=3600)
    with pytest.raises(GitHubRateLimited, match="read the repository: 403"):
        api.default_branch()
    assert sleeps == []
    assert len(standin.requests("repos/get")) == 1


def test_a_lasting_outage_gives_up_after_the_bounded_attempts(
    standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps
) -> None:
    standin.fail("pulls/get", status=503, times=100)
    with pytest.raises(GitHubUnavailable, match=r"read PR #7: 503") as raised:
        api.get_pull(7)
    assert len(standin.requests("pulls/get")) == MAX_ATTEMPTS
    assert len(sleeps) == MAX_ATTEMPTS - 1
    assert raised.value.operation == "read PR #7"
    assert raised.value.status == 503


@pytest.mark.parametrize(
    ("description", "status", "error"),
    [
        ("404 is not found", 404, GitHubNotFound),
        ("422 is a validation error", 422, GitHubValidationError),
        ("a plain 403 is a permission problem", 403, GitHubAuthError),
        ("401 is a token problem", 401, GitHubAuthError),
    ],
)
def test_client_errors_are_translated_and_not_retried(
    standin: GitHubStandIn, api: PyGithubApi, sleeps: Sleeps, description: str, status: int, error: type[GitHubError]
) -> None:
    standin.fail("repos/get", status=status, times=5, message="Resource not accessible by integration")
    with pytest.raises(error):
        api.default_branch()
    assert len(standin.requests("repos/get")) == 1, description
    assert sleeps == []


def test_a_bad_token_is_an_auth_error_that_does_not_show_the_token(sleeps: Sleeps) -> None:
    with GitHubStandIn(tokens={"the-right-one": "octo-bot[bot]"}) as standin:
        standin.add_repo(REPO)
        api = PyGithubApi(repository=REPO, token=TOKEN, api_url=standin.api_url, policy=RetryPolicy(sleep=sleeps))
        with pytest.raises(GitHubAuthError) as raised:
            api.default_branch()
        api.close()
    assert "401" in str(raised.value)
    assert TOKEN not in str(raised.value)
    assert TOKEN not in repr(raised.value)


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_server_that_cannot_be_reached_is_unavailable_after_retries(sleeps: Sleeps) -> None:
    api = PyGithubApi(
        repository=REPO,
        token=TOKEN,
        api_url=f"http://127.0.0.1:{_unused_port()}/api/v3",
        policy=RetryPolicy(sleep=sleeps, jitter=lambda: 0.0),
        timeout=2,
    )
    with pytest.raises(GitHubUnavailable, match="could not be reached to read the repository"):
        api.default_branch()
    assert sleeps == [1.0, 2.0, 4.0]
    api.close()


def _error(status: int, headers: dict[str, str] | None = None, message: str = "x") -> GithubException:
    return GithubException(status, {"message": message}, headers or {})


POLICY = RetryPolicy(sleep=lambda s: None, clock=lambda: 1_000.0)
SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."


@pytest.mark.parametrize(
    ("description", "error", "retry", "wait"),
    [
        ("a 500", _error(500), True, None),
        ("a 502", _error(502), True, None),
        ("a 404", _error(404), False, None),
        ("a 422", _error(422), False, None),
        ("a plain 403", _error(403, message="Resource not accessible by integration"), False, None),
        ("a secondary limit by message", _error(403, message=SECONDARY), True, None),
        ("a 403 with retry-after", _error(403, {"Retry-After": "5"}), True, 5.0),
        ("a 429 without headers", _error(429), True, None),
        ("a 429 with a too-long retry-after", _error(429, {"retry-after": "600"}), False, 600.0),
        (
            "a primary limit resetting soon",
            _error(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1010"}, "API rate limit exceeded"),
            True,
            11.0,
        ),
        (
            "a primary limit resetting in an hour",
            _error(403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "4600"}, "API rate limit exceeded"),
            False,
            3601.0,
        ),
        (
            "a primary limit without reset",
            _error(403, {"x-ratelimit-remaining": "0"}, "API rate limit exceeded"),
            False,
            None,
        ),
        ("a dropped connection", requests.ConnectionError("reset"), True, None),
        ("a read timeout", requests.ReadTimeout("slow"), True, None),
        ("something else", ValueError("x"), False, None),
    ],
)
def test_what_is_retried(description: str, error: BaseException, retry: bool, wait: float | None) -> None:
    assert is_retryable(error, POLICY) is retry, description
    assert requested_wait(error, POLICY) == wait, description


@pytest.mark.parametrize(
    ("description", "error", "kind"),
    [
        ("401", _error(401, message="Bad credentials"), GitHubAuthError),
        ("403 secondary", _error(403, message=SECONDARY), GitHubRateLimited),
        (
            "403 primary",
            _error(403, {"x-ratelimit-remaining": "0"}, "API rate limit exceeded for x"),
            GitHubRateLimited,
        ),
        ("403 permission", _error(403, message="Must have admin rights"), GitHubAuthError),
        ("404", _error(404, message="Not Found"), GitHubNotFound),
        ("422", _error(422, message="Validation Failed"), GitHubValidationError),
        ("429", _error(429), GitHubRateLimited),
        ("500", _error(500), GitHubUnavailable),
        ("418", _error(418), GitHubError),
        ("connection", requests.ConnectionError("x"), GitHubUnavailable),
    ],
)
def test_errors_are_translated_by_kind(description: str, error: BaseException, kind: type[GitHubError]) -> None:
    translated = translate(error, "do a thing")
    assert type(translated) is kind, description
    assert "do a thing" in str(translated)


def test_a_validation_error_lists_githubs_reasons() -> None:
    error = GithubException(
        422,
        {
            "message": "Validation Failed",
            "errors": [
                {"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for octo:x."}
            ],
        },
        {},
    )
    assert str(translate(error, "open a PR")) == (
        "GitHub refused to open a PR: 422 Validation Failed; A pull request already exists for octo:x."
    )
