"""The GitHub stand-in serves the description's operations with GitHub's shapes and behaviours."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from bot.testing.github_standin import OPERATIONS, GitHubStandIn
from tests.github import openapi_schema

REPO = "octo/app"
AUTH = {"Authorization": "token test-token"}


@pytest.fixture
def standin() -> Iterator[GitHubStandIn]:
    with GitHubStandIn() as server:
        server.add_repo(REPO)
        server.set_ref(REPO, "feature", "f" * 40)
        yield server


class Client:
    """Raw HTTP, so the tests see exactly what the stand-in sends."""

    def __init__(self, standin: GitHubStandIn) -> None:
        self.base = standin.api_url
        self.session = requests.Session()

    def __call__(
        self, method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None, **params: Any
    ) -> requests.Response:
        return self.session.request(
            method,
            f"{self.base}{path}",
            json=body,
            params=params or None,
            headers=AUTH if headers is None else headers,
            timeout=5,
        )


@pytest.fixture
def http(standin: GitHubStandIn) -> Iterator[Client]:
    client = Client(standin)
    yield client
    client.session.close()


def assert_all_responses_match_the_description(standin: GitHubStandIn) -> None:
    problems = []
    for exchange in standin.exchanges:
        assert exchange.operation is not None, f"{exchange.method} {exchange.path} matched no operation"
        schema = openapi_schema.response_schema(exchange.operation, exchange.status)
        if schema is not None:
            problems += [
                f"{exchange.operation} {exchange.status}: {e}" for e in openapi_schema.errors(schema, exchange.response)
            ]
    assert not problems, "\n".join(problems[:20])


def test_the_standin_serves_every_operation_of_the_description() -> None:
    assert set(OPERATIONS) == set(openapi_schema.operations())
    for operation in OPERATIONS:
        method, template, _ = openapi_schema.operations()[operation]
        assert method in ("GET", "POST", "PATCH"), template


def test_every_response_of_a_full_session_matches_the_description(standin: GitHubStandIn, http: Client) -> None:
    standin.set_permission(REPO, "alice", "maintain")
    issue = standin.add_issue(REPO, "Crash on empty input", "It crashes.", user="alice")
    repo = f"/repos/{REPO}"
    assert http("GET", repo).json()["default_branch"] == "main"
    assert http("GET", f"{repo}/issues/{issue}").json()["title"] == "Crash on empty input"
    comment = http("POST", f"{repo}/issues/{issue}/comments", {"body": "working…"}).json()
    assert http("GET", f"{repo}/issues/comments/{comment['id']}").json()["body"] == "working…"
    assert http("PATCH", f"{repo}/issues/comments/{comment['id']}", {"body": "done"}).json()["body"] == "done"
    assert [c["body"] for c in http("GET", f"{repo}/issues/{issue}/comments").json()] == ["done"]
    pr = http(
        "POST", f"{repo}/pulls", {"title": "Fix", "head": "feature", "base": "main", "body": "Fixes #1", "draft": True}
    ).json()
    assert pr["draft"] is True and pr["head"]["ref"] == "feature"
    assert http("GET", f"{repo}/pulls/{pr['number']}").json()["number"] == pr["number"]
    assert [p["number"] for p in http("GET", f"{repo}/pulls", head="octo:feature").json()] == [pr["number"]]
    assert http("PATCH", f"{repo}/pulls/{pr['number']}", {"body": "new body"}).json()["body"] == "new body"
    head_sha = pr["head"]["sha"]
    review = http(
        "POST",
        f"{repo}/pulls/{pr['number']}/comments",
        {"body": "@bot rename this", "commit_id": head_sha, "path": "app.py", "line": 3},
    ).json()
    reply = http("POST", f"{repo}/pulls/{pr['number']}/comments/{review['id']}/replies", {"body": "on it"}).json()
    assert reply["in_reply_to_id"] == review["id"]
    assert len(http("GET", f"{repo}/pulls/{pr['number']}/comments").json()) == 2
    assert http("GET", f"{repo}/collaborators/alice/permission").json()["permission"] == "write"
    for path in (f"issues/comments/{comment['id']}", f"issues/{issue}", f"pulls/comments/{review['id']}"):
        assert http("POST", f"{repo}/{path}/reactions", {"content": "eyes"}).status_code == 201
    assert [r["content"] for r in http("GET", f"{repo}/issues/comments/{comment['id']}/reactions").json()] == ["eyes"]
    assert http("GET", f"{repo}/git/ref/heads/feature").json()["object"]["sha"] == "f" * 40
    run = http("POST", f"{repo}/check-runs", {"name": "bot", "head_sha": head_sha, "status": "in_progress"}).json()
    done = http("PATCH", f"{repo}/check-runs/{run['id']}", {"conclusion": "success"}).json()
    assert (done["status"], done["conclusion"]) == ("completed", "success")
    # Error answers have GitHub's error shapes too.
    assert http("GET", f"{repo}/issues/999").status_code == 404
    assert http("POST", f"{repo}/pulls", {"title": "x", "head": "nope", "base": "main"}).status_code == 422
    assert http("GET", f"{repo}/collaborators/nobody-at-all/permission").status_code == 404
    assert http("GET", f"{repo}/git/ref/heads/missing").status_code == 404
    assert http("GET", repo, headers={}).status_code == 401

    assert {e.operation for e in standin.exchanges} == set(OPERATIONS)
    assert_all_responses_match_the_description(standin)


def test_a_request_without_a_token_is_refused_with_401(standin: GitHubStandIn, http: Client) -> None:
    response = http("GET", f"/repos/{REPO}", headers={})
    assert response.status_code == 401
    assert response.json()["message"] == "Requires authentication"


def test_with_a_token_list_only_those_tokens_are_accepted_and_act_as_their_user() -> None:
    with GitHubStandIn(tokens={"good": "octo-bot[bot]"}) as standin:
        standin.add_repo(REPO)
        issue = standin.add_issue(REPO, "x")
        http = Client(standin)
        assert http("GET", f"/repos/{REPO}", headers={"Authorization": "token bad"}).status_code == 401
        created = http(
            "POST", f"/repos/{REPO}/issues/{issue}/comments", {"body": "hi"}, headers={"Authorization": "Bearer good"}
        ).json()
        assert created["user"]["login"] == "octo-bot[bot]"
        assert created["user"]["type"] == "Bot"
        http.session.close()


def test_every_request_is_recorded_with_headers_and_body(standin: GitHubStandIn, http: Client) -> None:
    issue = standin.add_issue(REPO, "x")
    http("POST", f"/repos/{REPO}/issues/{issue}/comments", {"body": "hello"}, headers={**AUTH, "X-Trace": "1"})
    (exchange,) = standin.requests("issues/create-comment")
    assert exchange.method == "POST"
    assert exchange.path == f"/api/v3/repos/{REPO}/issues/{issue}/comments"
    assert exchange.body == {"body": "hello"}
    assert exchange.headers["X-Trace"] == "1"
    assert exchange.status == 201
    assert exchange.response["body"] == "hello"


def test_an_injected_failure_answers_the_next_calls_then_clears(standin: GitHubStandIn, http: Client) -> None:
    standin.fail("repos/get", status=502, times=2)
    statuses = [http("GET", f"/repos/{REPO}").status_code for _ in range(3)]
    assert statuses == [502, 502, 200]
    assert_all_responses_match_the_description(standin)


def test_an_injected_failure_leaves_other_operations_alone(standin: GitHubStandIn, http: Client) -> None:
    standin.fail("pulls/create", status=500)
    assert http("GET", f"/repos/{REPO}").status_code == 200


def test_a_secondary_rate_limit_is_a_403_with_retry_after(standin: GitHubStandIn, http: Client) -> None:
    standin.secondary_rate_limit("*", retry_after=7)
    response = http("GET", f"/repos/{REPO}")
    assert response.status_code == 403
    assert response.headers["Retry-After"] == "7"
    assert response.json()["message"].startswith("You have exceeded a secondary rate limit")
    assert http("GET", f"/repos/{REPO}").status_code == 200


def test_an_unknown_operation_cannot_be_given_a_fault(standin: GitHubStandIn) -> None:
    with pytest.raises(ValueError, match="unknown operation"):
        standin.fail("pulls/merge")


@pytest.mark.parametrize(
    ("description", "role", "base", "private", "expected"),
    [
        ("admin stays admin", "admin", None, False, ("admin", "admin")),
        ("maintain shows as write", "maintain", None, False, ("write", "maintain")),
        ("write is write", "write", None, False, ("write", "write")),
        ("triage shows as read", "triage", None, False, ("read", "triage")),
        ("read is read", "read", None, False, ("read", "read")),
        ("a custom role shows its base", "security-manager", "write", False, ("write", "security-manager")),
        ("no role on a public repository reads", None, None, False, ("read", "read")),
        ("no role on a private repository has none", None, None, True, ("none", "none")),
    ],
)
def test_collaborator_permission_follows_githubs_legacy_mapping(
    description: str,
    role: str | None,
    base: str | None,
    private: bool,
    expected: tuple[str, str],
) -> None:
    with GitHubStandIn() as standin:
        standin.add_repo(REPO, private=private)
        standin.add_user("carol")
        if role is not None:
            standin.set_permission(REPO, "carol", role, permission=base)
        http = Client(standin)
        data = http("GET", f"/repos/{REPO}/collaborators/carol/permission").json()
        http.session.close()
        assert (data["permission"], data["role_name"]) == expected, description
        assert_all_responses_match_the_description(standin)


def test_the_repository_owner_is_admin(standin: GitHubStandIn, http: Client) -> None:
    assert http("GET", f"/repos/{REPO}/collaborators/octo/permission").json()["permission"] == "admin"


def test_a_custom_role_without_its_base_permission_is_a_setup_error(standin: GitHubStandIn) -> None:
    with pytest.raises(ValueError, match="needs permission"):
        standin.set_permission(REPO, "carol", "security-manager")


@pytest.mark.parametrize(
    ("description", "params", "expected"),
    [
        ("owner:branch finds the PR", {"head": "octo:feature"}, ["feature"]),
        ("another owner finds nothing", {"head": "someone:feature"}, []),
        ("a head without owner is ignored, as GitHub does", {"head": "feature"}, ["other", "feature"]),
        ("closed lists closed ones", {"state": "closed"}, ["old"]),
        ("all lists every state", {"state": "all"}, ["other", "old", "feature"]),
        ("base filters on the base branch", {"base": "release"}, ["other"]),
    ],
)
def test_listing_pulls_filters_like_github(
    standin: GitHubStandIn, http: Client, description: str, params: dict[str, str], expected: list[str]
) -> None:
    standin.set_ref(REPO, "release", "r" * 40)
    standin.add_pull(REPO, "feature")
    closed = standin.add_pull(REPO, "old")
    standin.add_pull(REPO, "other", base="release")
    http("PATCH", f"/repos/{REPO}/pulls/{closed}", {"state": "closed"})
    got = [p["head"]["ref"] for p in http("GET", f"/repos/{REPO}/pulls", **params).json()]
    assert got == expected, description


@pytest.mark.parametrize(
    ("description", "body", "message"),
    [
        ("a head branch that does not exist", {"head": "nope", "base": "main"}, "head branch 'nope'"),
        ("a base branch that does not exist", {"head": "feature", "base": "nope"}, "base branch 'nope'"),
        ("no commits between base and head", {"head": "main", "base": "main"}, "No commits between main and main"),
        ("no title", {"head": "feature", "base": "main", "title": None}, "title is required"),
    ],
)
def test_creating_a_pull_request_is_validated(
    standin: GitHubStandIn, http: Client, description: str, body: dict[str, Any], message: str
) -> None:
    response = http("POST", f"/repos/{REPO}/pulls", {"title": "t", **body})
    assert response.status_code == 422, description
    assert message in response.json()["errors"][0]["message"]
    assert_all_responses_match_the_description(standin)


def test_a_second_open_pull_request_for_the_same_head_is_refused(standin: GitHubStandIn, http: Client) -> None:
    first = http("POST", f"/repos/{REPO}/pulls", {"title": "t", "head": "feature", "base": "main"})
    second = http("POST", f"/repos/{REPO}/pulls", {"title": "t", "head": "octo:feature", "base": "main"})
    assert first.status_code == 201
    assert second.status_code == 422
    assert "already exists for octo:feature" in second.json()["errors"][0]["message"]


def test_a_pull_request_from_a_fork_names_the_fork_as_head_repository(standin: GitHubStandIn, http: Client) -> None:
    standin.add_repo("someone/app")
    standin.set_ref("someone/app", "patch-1", "e" * 40)
    pr = http("POST", f"/repos/{REPO}/pulls", {"title": "t", "head": "someone:patch-1", "base": "main"}).json()
    assert pr["head"]["repo"]["full_name"] == "someone/app"
    assert pr["base"]["repo"]["full_name"] == REPO
    assert_all_responses_match_the_description(standin)


def test_pull_requests_are_issues_too(standin: GitHubStandIn, http: Client) -> None:
    number = standin.add_pull(REPO, "feature")
    issue = http("GET", f"/repos/{REPO}/issues/{number}").json()
    assert issue["pull_request"]["url"].endswith(f"/pulls/{number}")
    http("POST", f"/repos/{REPO}/issues/{number}/comments", {"body": "on the PR"})
    assert http("GET", f"/repos/{REPO}/pulls/{number}").json()["comments"] == 1


def test_reacting_twice_returns_the_existing_reaction(standin: GitHubStandIn, http: Client) -> None:
    issue = standin.add_issue(REPO, "x")
    comment = standin.add_comment(REPO, issue, "@bot go")
    first = http("POST", f"/repos/{REPO}/issues/comments/{comment}/reactions", {"content": "eyes"})
    second = http("POST", f"/repos/{REPO}/issues/comments/{comment}/reactions", {"content": "eyes"})
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"]
    assert len(standin.reactions("issue_comment", comment)) == 1
    assert http("GET", f"/repos/{REPO}/issues/comments/{comment}").json()["reactions"]["eyes"] == 1


def test_an_unknown_reaction_is_a_validation_error(standin: GitHubStandIn, http: Client) -> None:
    issue = standin.add_issue(REPO, "x")
    assert http("POST", f"/repos/{REPO}/issues/{issue}/reactions", {"content": "party"}).status_code == 422


def test_a_reply_to_a_reply_joins_the_thread_of_its_first_comment(standin: GitHubStandIn, http: Client) -> None:
    pr = standin.add_pull(REPO, "feature")
    root = standin.add_review_comment(REPO, pr, "@bot rename", path="app.py", line=4)
    first = http("POST", f"/repos/{REPO}/pulls/{pr}/comments/{root}/replies", {"body": "a"}).json()
    second = http("POST", f"/repos/{REPO}/pulls/{pr}/comments/{first['id']}/replies", {"body": "b"}).json()
    assert second["in_reply_to_id"] == root
    assert (second["path"], second["line"]) == ("app.py", 4)


def test_a_completed_check_run_needs_a_conclusion(standin: GitHubStandIn, http: Client) -> None:
    response = http("POST", f"/repos/{REPO}/check-runs", {"name": "bot", "head_sha": "a" * 40, "status": "completed"})
    assert response.status_code == 422


def test_lists_are_paginated_with_a_link_header(standin: GitHubStandIn, http: Client) -> None:
    issue = standin.add_issue(REPO, "x")
    for n in range(35):
        standin.add_comment(REPO, issue, f"c{n}")
    first = http("GET", f"/repos/{REPO}/issues/{issue}/comments")
    assert len(first.json()) == 30
    assert 'rel="next"' in first.headers["Link"]
    second = http("GET", first.links["next"]["url"].removeprefix(standin.api_url))
    assert [c["body"] for c in second.json()] == [f"c{n}" for n in range(30, 35)]
    assert "Link" in second.headers and 'rel="next"' not in second.headers["Link"]


def test_a_malformed_json_body_is_a_400(standin: GitHubStandIn) -> None:
    issue = standin.add_issue(REPO, "x")
    response = requests.post(
        f"{standin.api_url}/repos/{REPO}/issues/{issue}/comments", data=b"{nope", headers=AUTH, timeout=5
    )
    assert response.status_code == 400


def test_an_unknown_repository_or_path_is_a_404(standin: GitHubStandIn, http: Client) -> None:
    assert http("GET", "/repos/octo/missing").status_code == 404
    assert http("GET", f"/repos/{REPO}/branches").status_code == 404
    assert http("GET", "/user").status_code == 404


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_with_a_bare_repository_branches_and_stats_come_from_git(tmp_path: Path) -> None:
    origin = tmp_path / "origin.git"
    work = tmp_path / "work"
    _git("init", "--bare", "-b", "main", str(origin))
    _git("clone", "-q", str(origin), str(work))
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    (work / "a.txt").write_text("one\n")
    _git("add", ".", cwd=work)
    _git(*ident, "commit", "-qm", "one", cwd=work)
    _git("push", "-q", "origin", "main", cwd=work)
    _git("checkout", "-qb", "fix", cwd=work)
    (work / "a.txt").write_text("one\ntwo\nthree\n")
    _git(*ident, "commit", "-qam", "two", cwd=work)
    _git("push", "-q", "origin", "fix", cwd=work)
    with GitHubStandIn() as standin:
        standin.add_repo(REPO, git_dir=origin)
        http = Client(standin)
        assert http("POST", f"/repos/{REPO}/pulls", {"title": "t", "head": "nope", "base": "main"}).status_code == 422
        pr = http("POST", f"/repos/{REPO}/pulls", {"title": "t", "head": "fix", "base": "main"}).json()
        assert pr["head"]["sha"] == _git("rev-parse", "fix", cwd=work)
        assert (pr["commits"], pr["additions"], pr["deletions"], pr["changed_files"]) == (1, 2, 0, 1)
        ref = http("GET", f"/repos/{REPO}/git/ref/heads/main").json()
        assert ref["object"]["sha"] == _git("rev-parse", "main", cwd=work)
        http.session.close()
        assert_all_responses_match_the_description(standin)


def test_stopping_hangs_up_on_kept_alive_connections() -> None:
    standin = GitHubStandIn().start()
    standin.add_repo(REPO)
    session = requests.Session()
    assert session.get(f"{standin.api_url}/repos/{REPO}", headers=AUTH, timeout=5).status_code == 200
    standin.stop()
    with pytest.raises(requests.ConnectionError):
        session.get(f"{standin.api_url}/repos/{REPO}", headers=AUTH, timeout=5)
    session.close()
