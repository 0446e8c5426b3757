"""Only write, maintain or admin may start a run; everything else, and every doubt, is a refusal."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from bot.errors import GitHubNotFound, GitHubUnavailable
from bot.github.api import CollaboratorPermission, PyGithubApi, RetryPolicy
from bot.github.authorize import Authorized, Refused, authorize, decide
from bot.github.events import Trigger, TriggerSettings, decide_trigger
from bot.testing.github_standin import GitHubStandIn
from tests.conftest import FIXTURES


def payload(name: str, **edits: Any) -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(json.loads((FIXTURES / "events" / f"{name}.json").read_text()))
    for dotted, value in edits.items():
        target = data
        *path, last = dotted.split("__")
        for key in path:
            target = target[key]
        target[last] = value
    return data


class Permissions:
    """A PermissionSource that answers from a table and counts the questions."""

    def __init__(self, answers: dict[str, tuple[str, str] | Exception]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def collaborator_permission(self, login: str) -> CollaboratorPermission:
        self.asked.append(login)
        answer = self.answers.get(login, GitHubNotFound("404", operation="read", status=404))
        if isinstance(answer, Exception):
            raise answer
        return CollaboratorPermission(login, *answer)


def comment_trigger(actor: str = "alice", *, is_bot: bool = False) -> Trigger:
    return Trigger(
        True,
        "mentioned",
        "issue_comment",
        issue=1,
        event_name="issue_comment",
        actor=actor,
        actor_is_bot=is_bot,
        repository="octo/app",
    )


@pytest.mark.parametrize(
    ("description", "permission", "role", "allowed"),
    [
        ("admin", "admin", "admin", True),
        ("write", "write", "write", True),
        ("maintain reported as write", "write", "maintain", True),
        ("maintain reported unmapped", "maintain", "maintain", True),
        ("a custom role on a write base", "write", "release-manager", True),
        ("triage reported as read", "read", "triage", False),
        ("read", "read", "read", False),
        ("none", "none", "none", False),
        ("a custom role on a read base", "read", "auditor", False),
        ("an empty permission", "", "", False),
        ("an unexpected value", "owner", "owner", False),
    ],
)
def test_decide_allows_write_maintain_and_admin_only(
    description: str, permission: str, role: str, allowed: bool
) -> None:
    result = decide("alice", CollaboratorPermission("alice", permission, role))
    assert result.allowed is allowed, description
    match result:
        case Authorized():
            assert (result.permission, result.role_name) == (permission, role)
        case Refused():
            assert result.kind == "insufficient_permission"
            assert "write, maintain or admin is needed" in result.reason


def test_the_reason_names_the_role_when_it_differs_from_the_permission() -> None:
    result = decide("alice", CollaboratorPermission("alice", "read", "triage"))
    assert result.reason == "alice has read permission (role triage); write, maintain or admin is needed"


def test_a_collaborator_with_write_is_authorized() -> None:
    source = Permissions({"alice": ("write", "maintain")})
    result = authorize(comment_trigger(), source)
    assert isinstance(result, Authorized)
    assert (result.actor, result.permission, result.role_name) == ("alice", "write", "maintain")
    assert source.asked == ["alice"]


def test_a_listed_bot_is_still_permission_checked() -> None:
    source = Permissions({"renovate[bot]": ("read", "read")})
    result = authorize(comment_trigger("renovate[bot]", is_bot=True), source)
    assert isinstance(result, Refused)
    assert result.kind == "insufficient_permission"
    assert result.reason.startswith("the bot renovate[bot] has read permission")
    assert source.asked == ["renovate[bot]"]


@pytest.mark.parametrize(
    ("description", "answer", "kind"),
    [
        ("GitHub does not know the user", GitHubNotFound("404", status=404), "unknown_user"),
        ("the lookup failed", GitHubUnavailable("GitHub refused to read: 502", status=502), "check_failed"),
    ],
)
def test_a_lookup_that_does_not_answer_fails_closed(description: str, answer: Exception, kind: str) -> None:
    result = authorize(comment_trigger(), Permissions({"alice": answer}))
    assert isinstance(result, Refused), description
    assert result.kind == kind


def test_an_untriggered_event_is_not_looked_up() -> None:
    source = Permissions({})
    trigger = Trigger(False, "the comment does not mention @bot", "issue_comment", actor="alice")
    result = authorize(trigger, source)
    assert isinstance(result, Refused) and result.kind == "not_triggered"
    assert source.asked == []


def test_a_schedule_has_no_actor_and_is_authorized_by_the_workflow() -> None:
    trigger = decide_trigger("schedule", {"schedule": "0 3 * * 1"}, TriggerSettings(prompt="update deps"))
    source = Permissions({})
    result = authorize(trigger, source)
    assert isinstance(result, Authorized)
    assert result.actor is None and "no actor" in result.reason
    assert source.asked == []


def test_another_event_without_an_actor_is_refused() -> None:
    trigger = decide_trigger("workflow_dispatch", payload("workflow_dispatch", sender=None, inputs={"prompt": "go"}))
    assert trigger.triggered
    result = authorize(trigger, Permissions({}))
    assert isinstance(result, Refused) and result.kind == "no_actor"


# ----- end to end: a real payload, the stand-in, PyGithub ---------------------------------------------


@pytest.fixture
def standin() -> Iterator[GitHubStandIn]:
    with GitHubStandIn() as server:
        server.add_repo("Codertocat/Hello-World")
        yield server


@pytest.mark.parametrize(
    ("description", "role", "allowed"),
    [
        ("a maintainer", "maintain", True),
        ("a triager", "triage", False),
        ("no role on a public repository", None, False),
    ],
)
def test_a_real_issue_comment_is_authorized_against_the_standin(
    standin: GitHubStandIn, description: str, role: str | None, allowed: bool
) -> None:
    # The payload's commenter owns the repository (admin); make it someone else.
    event = payload("issue_comment.created", comment__body="@bot fix this", comment__user__login="hubot")
    trigger = decide_trigger("issue_comment", event)
    assert trigger.triggered and trigger.actor == "hubot"
    standin.add_user("hubot")
    if role:
        standin.set_permission("Codertocat/Hello-World", "hubot", role)
    api = PyGithubApi(repository="Codertocat/Hello-World", token="t", api_url=standin.api_url)
    result = authorize(trigger, api)
    api.close()
    assert result.allowed is allowed, description
    assert [e.operation for e in standin.exchanges] == ["repos/get-collaborator-permission-level"]


def test_a_permission_lookup_that_keeps_failing_refuses_the_run(standin: GitHubStandIn) -> None:
    standin.fail("repos/get-collaborator-permission-level", status=502, times=10)
    trigger = decide_trigger("issue_comment", payload("issue_comment.created", comment__body="@bot fix this"))
    api = PyGithubApi(
        repository="Codertocat/Hello-World",
        token="t",
        api_url=standin.api_url,
        policy=RetryPolicy(sleep=lambda _: None),
    )
    result = authorize(trigger, api)
    api.close()
    assert isinstance(result, Refused) and result.kind == "check_failed"
    assert "502" in result.reason
