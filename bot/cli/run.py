"""``bot run``: one run, on GitHub (from the Actions environment) or locally (``--local``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.common import AllowOpt, DenyOpt, fail
from bot.errors import BotError, ConfigError, first_error

run_app = typer.Typer(help="Run the bot.", invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None)


def _split(values: list[str] | None) -> list[str]:
    """Repeatable options that may also come from one environment variable, space- or comma-separated."""
    out: list[str] = []
    for value in values or []:
        out.extend(v for v in value.replace(",", " ").split() if v)
    return out


@run_app.callback()
def run(
    local: Annotated[bool, typer.Option("--local", help="Run without GitHub: a branch in a local repository.")] = False,
    repo: Annotated[
        Path,
        typer.Option("--repo", "-C", envvar="GITHUB_WORKSPACE", help="The repository (default: current directory)."),
    ] = Path("."),
    prompt: Annotated[str | None, typer.Option("--prompt", envvar="BOT_PROMPT", help="The task.")] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", envvar="BOT_POLICY", help="Policy files or preset names (repeatable)."),
    ] = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    model: Annotated[
        str | None, typer.Option("--model", envvar="BOT_MODEL", help="The model (overrides the policy's bot.model).")
    ] = None,
    max_turns: Annotated[
        int | None,
        typer.Option(
            "--max-turns", envvar="BOT_MAX_TURNS", min=1, help="Most model turns (overrides the policy's limit)."
        ),
    ] = None,
    max_budget_usd: Annotated[
        float | None,
        typer.Option(
            "--max-budget-usd",
            envvar="BOT_MAX_BUDGET_USD",
            min=0,
            help="Most spend in US dollars (overrides the policy's limit).",
        ),
    ] = None,
    timeout_minutes: Annotated[
        float | None,
        typer.Option(
            "--timeout-minutes",
            envvar="BOT_TIMEOUT_MINUTES",
            min=0.1,
            help="Wall-time limit in minutes (overrides the policy's limit).",
        ),
    ] = None,
    mcp_config: Annotated[
        str | None,
        typer.Option("--mcp-config", envvar="BOT_MCP_CONFIG", help="A trusted .mcp.json (relative to the repository)."),
    ] = None,
    replay: Annotated[
        Path | None, typer.Option("--replay", envvar="BOT_REPLAY", help="Replay the model from a recorded cassette.")
    ] = None,
    output_dir: Annotated[
        Path,
        typer.Option(
            "--output-dir", "-o", envvar="BOT_OUTPUT_DIR", help="Where the comment, outcome and transcript go."
        ),
    ] = Path("bot-output"),
    branch: Annotated[str | None, typer.Option("--branch", help="Local mode: the branch to work on.")] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Local mode: continue the local session with this id (docs/sessions.md)."),
    ] = None,
    continue_: Annotated[
        bool, typer.Option("--continue", help="Local mode: continue the most recent local session.")
    ] = False,
    event_name: Annotated[
        str | None, typer.Option("--event-name", envvar="GITHUB_EVENT_NAME", help="The GitHub event (Actions sets it).")
    ] = None,
    event_path: Annotated[
        Path | None,
        typer.Option(
            "--event-path", envvar="GITHUB_EVENT_PATH", help="The event payload's JSON file (Actions sets it)."
        ),
    ] = None,
    trigger_phrase: Annotated[
        str, typer.Option("--trigger-phrase", envvar="BOT_TRIGGER_PHRASE", help="The mention that starts a run.")
    ] = "@bot",
    allowed_bots: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-bots",
            envvar="BOT_ALLOWED_BOTS",
            help="Bot logins allowed to trigger (still permission-checked); * for all. Repeatable.",
        ),
    ] = None,
    label_trigger: Annotated[
        str | None,
        typer.Option(
            "--label-trigger", envvar="BOT_LABEL_TRIGGER", help="An issue label that starts a run when added."
        ),
    ] = None,
    assignee_trigger: Annotated[
        str | None,
        typer.Option(
            "--assignee-trigger",
            envvar="BOT_ASSIGNEE_TRIGGER",
            help="A login that starts a run when an issue is assigned to it.",
        ),
    ] = None,
    bot_login: Annotated[
        str, typer.Option("--bot-login", envvar="BOT_LOGIN", help="The bot's own login: its comments never trigger.")
    ] = "github-actions[bot]",
    reply_on_refusal: Annotated[
        bool,
        typer.Option(
            "--reply-on-refusal",
            envvar="BOT_REPLY_ON_REFUSAL",
            help="Reply once when someone without write access mentions the bot.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Decide whether the event triggers; change nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --dry-run: print the decision as JSON.")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="With --dry-run: add what a run under the policy may do.")
    ] = False,
) -> None:
    """Start a run. Locally: `bot run --local --repo PATH --prompt TEXT [--replay CASSETTE]`.
    On GitHub: reads GITHUB_EVENT_NAME / GITHUB_EVENT_PATH and the rest of the Actions environment."""
    from bot.core.secrets import capture_process_secrets
    from bot.orchestration.session import RunConfig
    from bot.shell.execute.env import protect_own_environ

    # Also here, not only in main(): `bot run` may be invoked as a library (typer's CliRunner).
    capture_process_secrets()
    protect_own_environ()
    if not dry_run:
        from bot.agent.client import ProviderConfig
        from bot.cli.warm_up import modules_for, warm_up

        warm_up(modules_for(local=local, provider=ProviderConfig.from_env().provider))

    config = RunConfig(
        workspace=repo,
        scratch_dir=output_dir / "scratch",
        policies=_split(policy),
        allow=allow or [],
        deny=deny or [],
        model=model or None,
        max_turns=max_turns,
        max_budget_usd=max_budget_usd,
        timeout_minutes=timeout_minutes,
        mcp_config=mcp_config or None,
    )
    try:
        if local:
            if dry_run:
                raise fail("--dry-run applies to GitHub events; a local run has no trigger to decide")
            if not prompt:
                raise fail("--local needs --prompt")
            if not repo.is_dir():
                raise fail(f"--repo {repo}: no such directory")
            import anyio

            from bot.local.run import LocalRun, run_local

            local_run = LocalRun(
                repo=repo,
                prompt=prompt,
                output_dir=output_dir.resolve(),
                config=config,
                replay=replay,
                branch=branch,
                resume=resume,
                continue_last=continue_,
            )
            raise typer.Exit(anyio.run(run_local, local_run))
        import anyio

        from bot.github.events import TriggerSettings
        from bot.github.run import GitHubRun, dry_run_decision, run_github

        settings = TriggerSettings(
            trigger_phrase=trigger_phrase,
            bot_login=bot_login or None,
            allowed_bots=frozenset(_split(allowed_bots)),
            label_trigger=label_trigger or None,
            assignee_trigger=assignee_trigger or None,
            prompt=prompt or None,
            run_id=os.environ.get("GITHUB_RUN_ID"),
        )
        if not event_name or event_path is None:
            raise fail(
                "no event: set GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (or --event-name/--event-path), or use --local"
            )
        if dry_run:
            decision = dry_run_decision(event_name, event_path, settings, repo)
            if explain:
                from bot.cli.explain import dry_run_explanation

                decision["explain"] = dry_run_explanation(config)
            typer.echo(json.dumps(decision, indent=None if as_json else 2, ensure_ascii=False))
            raise typer.Exit(0)
        github_run = GitHubRun(
            event_name=event_name,
            event_path=event_path,
            settings=settings,
            config=config,
            output_dir=output_dir.resolve(),
            replay=replay,
            reply_on_refusal=reply_on_refusal,
        )
        raise typer.Exit(anyio.run(run_github, github_run))
    except (BotError, BaseExceptionGroup) as exc:
        error = _our_error(exc)
        if error is None:
            raise
        if isinstance(error, ConfigError):
            raise fail(str(error)) from None
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None


def _our_error(exc: BaseException) -> BotError | None:
    """Our error, also when a task group wrapped it (a setup failure inside the run's task groups)."""
    leaf = first_error(exc)
    return leaf if isinstance(leaf, BotError) else None
