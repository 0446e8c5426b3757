"""A fleet end to end, with no network: a fleet file naming six repositories, `bot fleet plan`
against the stand-in (one App token: four it can push to, one it can only read, one it cannot
see), four legs as parallel `bot fleet leg` processes — each a real `bot run` against a replayed
cassette pushing to its own bare origin — then `bot fleet report` over their records, row by row,
and the tracking issue in the home repository kept across two runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bot.testing.cassettes import HttpError, Text, ToolCall, Turn, write_cassette
from tests.fleet.conftest import APP_TOKEN, BOT, HOME, FleetWorld
from tests.github.conftest import DEMO_CASSETTE

FIX = {
    "file_path": "stats.py",
    "old_string": "        return ordered[middle]\n    return ordered[middle]\n",
    "new_string": "        return ordered[middle]\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
}
FLEET = """\
name: median-fix
prompt: Fix median() for an even number of values.
policy: fix
limits:
  max_turns: 12
max_parallel: 3
repositories:
  - octo/alpha
  - {repository: octo/beta, limits: {max_turns: 8}}
  - octo/gamma
  - octo/delta
  - octo/epsilon
  - octo/ghost
"""


def _cassettes(tmp: Path) -> dict[str, Path]:
    """What each repository's model does: alpha the recorded demo session; beta tries a command the
    policy denies, then reads and fixes the file; gamma the demo again (its push will be refused); delta's
    model provider refuses the key (a model error)."""
    beta = write_cassette(
        tmp / "beta.yaml",
        [
            Turn([ToolCall("Bash", {"command": "curl -s https://example.com/median.py"})]),
            Turn([ToolCall("Read", {"file_path": "stats.py"})]),
            Turn([ToolCall("Edit", FIX)]),
            Turn([Text("Fixed median() for even counts.")]),
        ],
    )
    delta = write_cassette(
        tmp / "delta.yaml", [HttpError(401, "authentication_error", "invalid x-api-key", should_retry=None)]
    )
    return {"octo/alpha": DEMO_CASSETTE, "octo/beta": beta, "octo/gamma": DEMO_CASSETTE, "octo/delta": delta}


def _plan(world: FleetWorld, fleet: Path) -> tuple[dict[str, object], str]:
    done = subprocess.run(
        [*BOT, "fleet", "plan", str(fleet), "--plan-file", str(world.tmp / "plan" / "plan.json")],
        env=world.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _run_legs(world: FleetWorld, fleet: Path, matrix: dict[str, object], run: str) -> dict[str, int]:
    """The matrix job: one process per entry, all at once (the workflow's max-parallel is GitHub's)."""
    cassettes = _cassettes(world.tmp)
    procs = {}
    for entry in matrix["include"]:  # type: ignore[attr-defined]
        repository = entry["repository"]
        out = world.tmp / run / "legs" / f"leg-{repository.replace('/', '__')}"
        procs[repository] = subprocess.Popen(
            [
                *BOT,
                "fleet",
                "leg",
                str(fleet),
                "--repository",
                repository,
                "--workspace",
                str(world.checkout(repository) if run == "run1" else world.tmp / "checkouts" / "again" / repository),
                "--output-dir",
                str(out),
                "--replay",
                str(cassettes[repository]),
            ],
            env=world.env(GITHUB_STEP_SUMMARY=str(world.tmp / f"summary-{repository.replace('/', '_')}.md")),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    codes = {}
    for repository, proc in procs.items():
        proc.communicate()
        codes[repository] = proc.returncode
    return codes


def _report(world: FleetWorld, run: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *BOT,
            "fleet",
            "report",
            str(world.tmp / run / "legs"),
            "--plan",
            str(world.tmp / "plan" / "plan.json"),
            *args,
        ],
        env=world.env(GITHUB_REPOSITORY=HOME),
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_fleet_of_five_origins_plans_runs_in_parallel_and_reports_every_repository(fleet_world: FleetWorld) -> None:
    world = fleet_world
    fleet = world.tmp / "fleet.yml"
    fleet.write_text(FLEET)
    hook = world.origin("octo/gamma") / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n")
    hook.chmod(0o755)

    matrix, access = _plan(world, fleet)
    assert matrix == {
        "include": [
            {"repository": "octo/alpha", "owner": "octo", "name": "alpha", "max_turns": 12, "default_branch": "main"},
            {"repository": "octo/beta", "owner": "octo", "name": "beta", "max_turns": 8, "default_branch": "main"},
            {"repository": "octo/gamma", "owner": "octo", "name": "gamma", "max_turns": 12, "default_branch": "main"},
            {"repository": "octo/delta", "owner": "octo", "name": "delta", "max_turns": 12, "default_branch": "main"},
        ]
    }
    assert "refused octo/epsilon: the token can read it but not push" in access
    assert "refused octo/ghost: not found, or not visible to the token" in access

    codes = _run_legs(world, fleet, matrix, "run1")
    assert codes == {"octo/alpha": 0, "octo/beta": 0, "octo/gamma": 1, "octo/delta": 1}

    result = _report(world, "run1", "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["repository"]: r for r in json.loads(result.stdout)}
    assert list(rows) == ["octo/alpha", "octo/beta", "octo/gamma", "octo/delta", "octo/epsilon", "octo/ghost"]
    pulls = {name: world.gh.pulls(name) for name in ("octo/alpha", "octo/beta", "octo/gamma", "octo/delta")}

    alpha = rows["octo/alpha"]
    assert (alpha["conclusion"], alpha["turns"], alpha["denials"]) == ("success", 5, 0)
    assert alpha["pr_url"] == f"{world.gh.server_url}/octo/alpha/pull/{pulls['octo/alpha'][0].number}"
    assert alpha["cost_usd"] > 0
    assert (
        "(ordered[middle - 1] + ordered[middle]) / 2"
        in subprocess.run(
            ["git", "-C", str(world.origin("octo/alpha")), "show", f"{pulls['octo/alpha'][0].head_ref}:stats.py"],
            capture_output=True,
            text=True,
            check=True,
            env=world.git_env(),
        ).stdout
    )

    beta = rows["octo/beta"]
    assert (beta["conclusion"], beta["turns"], beta["denials"]) == ("success", 4, 1)
    assert beta["pr_url"] == f"{world.gh.server_url}/octo/beta/pull/{pulls['octo/beta'][0].number}"

    gamma = rows["octo/gamma"]
    assert (gamma["conclusion"], gamma["pr_url"], gamma["turns"]) == ("failure", None, 5)
    assert pulls["octo/gamma"] == []
    assert "was rejected" in gamma["note"]

    delta = rows["octo/delta"]
    assert delta["conclusion"] == "failure"
    assert "HTTP 401" in delta["note"]
    assert delta["pr_url"] is None
    assert pulls["octo/delta"] == []

    assert rows["octo/epsilon"] == {
        "repository": "octo/epsilon",
        "conclusion": "no access",
        "pr_url": None,
        "turns": None,
        "cost_usd": None,
        "denials": None,
        "note": "the token can read it but not push (the App needs contents: write on it)",
    }
    assert rows["octo/ghost"]["conclusion"] == "no access"
    assert "not visible to the token" in rows["octo/ghost"]["note"]

    markdown = _report(world, "run1").stdout
    print(markdown)
    assert "| repository | conclusion | pull request | turns | cost | denials |" in markdown
    assert f"| octo/alpha | ✅ success | [#{pulls['octo/alpha'][0].number}](" in markdown
    assert "| octo/epsilon | 🔒 no access | — | — | — | — |" in markdown
    assert "6 repositories: 2 success, 2 failure, 2 no access." in markdown
    assert APP_TOKEN not in markdown


def test_the_tracking_issue_is_created_once_updated_and_commented_on_every_run(fleet_world: FleetWorld) -> None:
    world = fleet_world
    legs = world.tmp / "run1" / "legs" / "leg-octo__alpha"
    legs.mkdir(parents=True)
    (legs / "leg.json").write_text(
        json.dumps({"repository": "octo/alpha", "owner": "octo", "name": "alpha", "exit_code": 0, "error": None})
    )
    (legs / "outcome.json").write_text(
        json.dumps({"conclusion": "success", "pr_url": None, "turns": 2, "cost_usd": 0.01, "denials": []})
    )
    plan = world.tmp / "plan" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(json.dumps({"fleet": "median-fix", "matrix": {"include": [{"repository": "octo/alpha"}]}}))
    for _ in range(2):
        result = _report(world, "run1", "--publish", HOME)
        assert result.returncode == 0, result.stderr
    issues = [i for i in world.gh.requests("issues/create")]
    assert len(issues) == 1
    number = issues[0].response["number"]
    assert world.gh.labels(HOME, number) == ["bot-fleet:median-fix"]
    assert len(world.gh.requests("issues/update")) == 1
    comments = world.gh.comments(HOME, number)
    assert len(comments) == 2
    assert "| octo/alpha | ✅ success | — | 2 | $0.0100 | 0 |" in comments[1].body
    assert "| octo/alpha | ✅ success |" in (world.gh.issue(HOME, number).body or "")
