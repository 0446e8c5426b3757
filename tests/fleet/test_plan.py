"""The plan: which repositories get a leg, and why the others do not, asked of the stand-in."""

from __future__ import annotations

import pytest

from bot.errors import GitHubAuthError, GitHubNotFound, GitHubUnavailable
from bot.fleet.plan import plan_fleet
from bot.fleet.spec import parse_fleet
from bot.github.api import RetryPolicy
from bot.github.fleet_api import PyGithubFleetApi, access_from_error, access_from_repo
from tests.fleet.conftest import APP_TOKEN, FleetWorld


@pytest.mark.parametrize(
    ("description", "data", "reachable", "fragment"),
    [
        ("push permission", {"permissions": {"push": True}}, True, "can push"),
        ("read only", {"permissions": {"push": False, "pull": True}}, False, "read it but not push"),
        ("archived", {"archived": True, "permissions": {"push": True}}, False, "archived"),
        ("no permissions reported", {}, True, "can push"),
    ],
)
def test_access_from_the_repository_json(
    description: str, data: dict[str, object], reachable: bool, fragment: str
) -> None:
    verdict = access_from_repo("octo/x", data)
    assert verdict.reachable is reachable, description
    assert fragment in verdict.reason


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (GitHubNotFound("x", status=404), "not visible to the token"),
        (GitHubAuthError("x", status=401), "401 Bad credentials"),
        (GitHubAuthError("refused", status=403), "forbidden (403)"),
        (GitHubUnavailable("down", status=502), "could not be checked"),
    ],
)
def test_access_from_an_error(error: Exception, fragment: str) -> None:
    verdict = access_from_error("octo/x", error)  # type: ignore[arg-type]
    assert not verdict.reachable
    assert fragment in verdict.reason


def _api(world: FleetWorld, token: str = APP_TOKEN) -> PyGithubFleetApi:
    return PyGithubFleetApi(token=token, api_url=world.gh.api_url, policy=RetryPolicy(attempts=1, sleep=lambda _: None))


def test_a_query_finds_the_orgs_repositories_with_the_topic_less_the_excluded(fleet_world: FleetWorld) -> None:
    fleet_world.gh.add_repo("octo/docs", topics=["docs"])
    fleet_world.gh.add_repo("octo/old", topics=["fleet-demo"], archived=True)
    fleet_world.gh.add_repo("other/alpha", topics=["fleet-demo"])
    spec = parse_fleet(
        "name: q\nprompt: p\nquery: {org: octo, topic: fleet-demo}\nexclude: [octo/delta]\n"
        "repositories: [{repository: octo/gamma, limits: {max_turns: 3}}]\n",
        "fleet.yml",
    )
    plan = plan_fleet(spec, _api(fleet_world))
    assert [t.repository for t, _ in plan.legs] == ["octo/gamma", "octo/alpha", "octo/beta"]
    assert [a.repository for a in plan.unreachable] == ["octo/epsilon"]
    assert plan.matrix()["include"][0]["max_turns"] == 3
    assert plan.as_json()["query"] == "org:octo archived:false topic:fleet-demo"
    [search] = fleet_world.gh.requests(method="GET")[:1]
    assert search.path.endswith("/search/repositories")
    assert search.query["q"] == ["org:octo archived:false topic:fleet-demo"]


def test_a_private_repository_without_the_app_is_not_found_and_a_bad_token_is_refused(fleet_world: FleetWorld) -> None:
    fleet_world.gh.add_repo("octo/secret", private=True)
    spec = parse_fleet("name: q\nprompt: p\nrepositories: [octo/secret, octo/alpha]\n", "fleet.yml")
    plan = plan_fleet(spec, _api(fleet_world))
    assert [(a.repository, a.reason) for a in plan.unreachable] == [
        ("octo/secret", "not found, or not visible to the token (is the App installed on it?)")
    ]
    refused = plan_fleet(spec, _api(fleet_world, token="ghs_" + "x" * 36))
    assert {a.reason for a in refused.unreachable} == {"the token was refused (401 Bad credentials)"}
    assert refused.legs == ()
