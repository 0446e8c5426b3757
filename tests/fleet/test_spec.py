"""The fleet file: what it may say, and errors that name the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.fleet.spec import Limits, Query, load_fleet, parse_fleet

GOOD = """\
name: bump-actions
prompt: Bump every actions/* step to its latest major version.
policy: [fix]
limits: {max_turns: 30, max_budget_usd: 2}
max_parallel: 5
repositories:
  - octo/api
  - repository: octo/web
    limits: {max_turns: 50}
query: {org: octo, topic: python}
exclude: [octo/legacy]
"""


def test_a_fleet_file_names_its_task_repositories_policy_and_limits() -> None:
    spec = parse_fleet(GOOD, "fleet.yml")
    assert spec.name == "bump-actions"
    assert spec.policy == ("fix",)
    assert spec.max_parallel == 5
    assert [t.repository for t in spec.targets] == ["octo/api", "octo/web"]
    assert spec.targets[0].limits == Limits(30, 2.0, None)
    assert spec.targets[1].limits == Limits(50, 2.0, None)
    assert spec.targets[1].line == 8
    assert spec.query == Query("octo", "python", 10)
    assert spec.query.search_terms() == "org:octo archived:false topic:python"
    assert spec.exclude == frozenset({"octo/legacy"})
    # A repository the query found gets the fleet's limits.
    assert spec.target("octo/other").limits == Limits(30, 2.0, None)


@pytest.mark.parametrize(
    ("description", "text", "where", "fragment"),
    [
        ("an unknown key", GOOD + "max_paralel: 3\n", "fleet.yml:12", "unknown key 'max_paralel'"),
        ("a malformed repository", GOOD.replace("octo/api", "octo api"), "fleet.yml:7", "not a repository name"),
        ("a path for a repository", GOOD.replace("octo/api", "octo/../x"), "fleet.yml:7", "not a repository name"),
        ("a repository twice", GOOD.replace("octo/web", "octo/api"), "fleet.yml:8", "listed twice"),
        ("an unknown limit", GOOD.replace("max_budget_usd: 2", "max_budget: 2"), "fleet.yml:4", "unknown limit"),
        ("zero turns", GOOD.replace("max_turns: 50", "max_turns: 0"), "fleet.yml:9", "max_turns"),
        ("a budget that is text", GOOD.replace("max_budget_usd: 2", "max_budget_usd: lots"), "fleet.yml:4", "positive"),
        ("max_parallel of zero", GOOD.replace("max_parallel: 5", "max_parallel: 0"), "fleet.yml:5", "max_parallel"),
        ("a topic with capitals", GOOD.replace("topic: python", "topic: Python"), "fleet.yml:10", "query.topic"),
        ("no prompt", GOOD.replace("prompt:", "promptx:"), "fleet.yml:2", "unknown key"),
        (
            "an empty prompt",
            GOOD.replace("Bump every actions/* step to its latest major version.", "''"),
            "fleet.yml:2",
            "prompt is empty",
        ),
        ("neither list nor query", "name: x\nprompt: y\n", "fleet.yml", "give repositories"),
        ("not YAML", "name: [\n", "fleet.yml", ""),
        ("a list at the top", "- octo/api\n", "fleet.yml", "is a mapping"),
    ],
)
def test_a_bad_fleet_file_is_an_error_naming_file_and_line(
    description: str, text: str, where: str, fragment: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_fleet(text, "fleet.yml")
    message = str(raised.value)
    assert message.startswith(where), (description, message)
    assert fragment in message, (description, message)


def test_an_alias_bomb_is_refused_within_bounds() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    with pytest.raises(ConfigError):
        parse_fleet(bomb + "name: x\nprompt: y\nrepositories: [octo/a]\n", "fleet.yml")


def test_a_missing_fleet_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such fleet file"):
        load_fleet(tmp_path / "fleet.yml")
