"""``bot fleet plan``, ``bot fleet leg`` and ``bot fleet report``: the three steps of ``workflows/fleet.yml``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.common import fail
from bot.errors import BotError, ConfigError

if TYPE_CHECKING:
    from bot.fleet.spec import FleetSpec
    from bot.github.fleet_api import PyGithubFleetApi

fleet_app = typer.Typer(
    help="Run one task across many repositories (see docs/fleet.md).", no_args_is_help=True, rich_markup_mode=None
)

FleetFile = Annotated[Path, typer.Argument(help="The fleet file (YAML).")]


def _api() -> PyGithubFleetApi:
    from bot.core.secrets import full_environ, secret
    from bot.github.api import DEFAULT_API_URL
    from bot.github.fleet_api import PyGithubFleetApi

    token = secret("GITHUB_TOKEN")
    if not token:
        raise ConfigError("no GitHub token: set GITHUB_TOKEN (the fleet App's installation token)")
    return PyGithubFleetApi(token=token, api_url=full_environ().get("GITHUB_API_URL") or DEFAULT_API_URL)


def _load(path: Path) -> FleetSpec:
    from bot.fleet.spec import load_fleet

    try:
        return load_fleet(path)
    except ConfigError as exc:
        raise fail(str(exc)) from None


@fleet_app.command("plan")
def fleet_plan(
    fleet: FleetFile,
    plan_file: Annotated[
        Path | None, typer.Option("--plan-file", help="Also write the whole plan (for the report job).")
    ] = None,
    github_output: Annotated[
        bool, typer.Option("--github-output", help="Write matrix, max_parallel and count to $GITHUB_OUTPUT.")
    ] = False,
) -> None:
    """Print the job matrix (JSON for `strategy.matrix` through `fromJSON`) of the repositories the
    token can push to; say on stderr which it cannot reach, and why."""
    from bot.fleet.plan import dumps, plan_fleet
    from bot.github.outputs import write_outputs, write_step_summary

    spec = _load(fleet)
    try:
        api = _api()
        plan = plan_fleet(spec, api)
    except BotError as exc:
        raise fail(str(exc), 1) from None
    for line in plan.access_lines():
        typer.echo(line, err=True)
    matrix = dumps(plan.matrix())
    if plan_file is not None:
        plan_file.parent.mkdir(parents=True, exist_ok=True)
        plan_file.write_text(json.dumps(plan.as_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if github_output:
        write_outputs({"matrix": matrix, "max_parallel": str(plan.max_parallel), "count": str(len(plan.legs))})
        write_step_summary(
            f"### Fleet `{plan.fleet}`: {len(plan.legs)} to run, {len(plan.unreachable)} unreachable\n\n```\n"
            + "\n".join(plan.access_lines())
            + "\n```\n"
        )
    typer.echo(matrix)


@fleet_app.command("leg")
def fleet_leg(
    fleet: FleetFile,
    repository: Annotated[str, typer.Option("--repository", help="owner/name of this leg's repository.")],
    workspace: Annotated[Path, typer.Option("--workspace", "-w", help="Its checkout.")] = Path("."),
    output_dir: Annotated[
        Path, typer.Option("--output-dir", "-o", help="Where the run's outcome and the leg's record go.")
    ] = Path("bot-output"),
    replay: Annotated[Path | None, typer.Option("--replay", help="Replay the model from a cassette.")] = None,
) -> None:
    """Run the fleet's task in one repository's checkout; write leg.json whatever happens.
    Exits with the run's exit code (1 when the leg failed), after the record is written."""
    from bot.fleet.leg import Leg, run_leg
    from bot.fleet.spec import REPOSITORY

    spec = _load(fleet)
    if not REPOSITORY.fullmatch(repository):
        raise fail(f"--repository {repository!r} is not owner/name")
    leg = Leg(
        spec,
        repository,
        workspace.resolve(),
        output_dir.resolve(),
        replay=replay,
        base_dir=fleet.resolve().parent,
    )
    record = run_leg(leg)
    code = record.get("exit_code")
    raise typer.Exit(1 if code is None else int(code))


@fleet_app.command("report")
def fleet_report(
    directory: Annotated[Path, typer.Argument(help="The downloaded leg artifacts (each with leg.json).")],
    plan: Annotated[
        Path | None, typer.Option("--plan", help="The plan file from `bot fleet plan --plan-file`.")
    ] = None,
    fleet_name: Annotated[str | None, typer.Option("--fleet", help="The fleet's name (else the plan's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    summary: Annotated[bool, typer.Option("--summary", help="Append the report to $GITHUB_STEP_SUMMARY.")] = False,
    publish_to: Annotated[
        str | None,
        typer.Option("--publish", help="owner/name of the home repository: update the fleet's tracking issue there."),
    ] = None,
) -> None:
    """Build the report (repository, conclusion, PR, turns, cost, denials) from the legs' records."""
    from bot.fleet.plan import load_plan
    from bot.fleet.report import build_rows, gather, publish, render
    from bot.github.outputs import write_step_summary

    if not directory.is_dir():
        raise fail(f"{directory}: no such directory")
    plan_data = None
    if plan is not None:
        try:
            plan_data = load_plan(plan.read_text(encoding="utf-8"), str(plan))
        except FileNotFoundError:
            raise fail(f"{plan}: no such plan file") from None
        except ConfigError as exc:
            raise fail(str(exc)) from None
    name = fleet_name or (str(plan_data.get("fleet")) if plan_data else "") or "fleet"
    rows = build_rows(plan_data, gather(directory))
    env = os.environ
    server, repo, run_id = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_RUN_ID")
    run_url = f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else None
    markdown = render(name, rows, run_url=run_url)
    if summary:
        write_step_summary(markdown)
    if publish_to is not None:
        try:
            issue = publish(_api(), publish_to, name, markdown)
        except BotError as exc:
            raise fail(str(exc), 1) from None
        typer.echo(f"tracking issue: {issue.html_url or '#' + str(issue.number)}", err=True)
    if as_json:
        typer.echo(json.dumps([r.as_json() for r in rows], indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(markdown)
