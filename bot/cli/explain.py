"""``bot policy explain``: what a run under the policy may do (registered on ``bot policy``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import AllowOpt, AskOpt, DenyOpt, WorkspaceOpt, fail
from bot.errors import BotError

if TYPE_CHECKING:
    from bot.explain.compute import Explanation

EventOpt = Annotated[Path | None, typer.Option("--event", help="An event payload: does it trigger, for whom, where.")]
EventNameOpt = Annotated[
    str | None, typer.Option("--event-name", help="The event's name (default: told from the payload).")
]


def explain_document(
    layers: list[Any],
    *,
    workspace: Path,
    allow: list[str],
    deny: list[str],
    ask: list[str],
    mode: str | None,
    event: Path | None = None,
    event_name: str | None = None,
    trigger_phrase: str = "@bot",
    connect_mcp: bool = False,
) -> Explanation:
    """The explanation (with the event's trigger when given); raises our errors. ``connect_mcp``
    starts the policy's MCP servers to list the tools they bring."""
    from dataclasses import replace

    import anyio

    from bot.core.secrets import full_environ
    from bot.explain.compute import connected_mcp_tools, explain_policy

    async def compute() -> Explanation:
        if not connect_mcp:
            return await explain_policy(layers, workspace=workspace, allow=allow, deny=deny, ask=ask, mode=mode)
        async with connected_mcp_tools(layers, workspace=workspace, environ=full_environ()) as tools:
            return await explain_policy(
                layers, workspace=workspace, allow=allow, deny=deny, ask=ask, mode=mode, mcp_tools=tools
            )

    explanation = anyio.run(compute)
    if event is not None:
        from bot.github.events import TriggerSettings
        from bot.github.explain import explain_trigger

        trigger = explain_trigger(event, event_name, TriggerSettings(trigger_phrase=trigger_phrase))
        explanation = replace(explanation, trigger=trigger)
    return explanation


def policy_explain(
    policy: Annotated[
        list[Path] | None,
        typer.Option("--policy", help="Policy files or preset names (read-only, fix, maintenance). Repeatable."),
    ] = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    ask: AskOpt = None,
    mode: Annotated[str | None, typer.Option("--mode", help="Permission mode.")] = None,
    event: EventOpt = None,
    event_name: EventNameOpt = None,
    trigger_phrase: Annotated[str, typer.Option("--trigger-phrase", help="The mention that starts a run.")] = "@bot",
    workspace: WorkspaceOpt = Path("."),
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    connect_mcp: Annotated[
        bool,
        typer.Option(
            "--connect-mcp", help="Start the policy's MCP servers to list, and judge, the tools each one brings."
        ),
    ] = False,
) -> None:
    """What a run under this policy may do: tools (available, deferred, needing no rule), each Bash
    rule in words with what it never approves, writable and denied paths, network, MCP servers,
    hooks, limits, the sandbox; with --event, whether it triggers, for whom and on which branch."""
    from bot.cli.policy import policy_layers
    from bot.explain.render import explanation_json, render_markdown

    if not workspace.is_dir():
        raise fail(f"--workspace {workspace}: no such directory")
    try:
        explanation = explain_document(
            policy_layers(policy),
            workspace=workspace,
            allow=allow or [],
            deny=deny or [],
            ask=ask or [],
            mode=mode,
            event=event,
            event_name=event_name,
            trigger_phrase=trigger_phrase,
            connect_mcp=connect_mcp,
        )
    except BotError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(explanation_json(explanation), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_markdown(explanation), nl=False)


def dry_run_explanation(config: Any) -> dict[str, Any]:
    """``bot run --dry-run --explain``: the explanation of the policy the run would load (the
    workflow's policies and the repository's own, here read from the working tree)."""
    import anyio

    from bot.explain.compute import explain_policy
    from bot.explain.render import explanation_json
    from bot.orchestration.session import policy_layers, working_tree_files

    layers, _ = policy_layers(config, working_tree_files(config.workspace))
    explanation = anyio.run(
        lambda: explain_policy(layers, workspace=config.workspace, allow=list(config.allow), deny=list(config.deny))
    )
    return explanation_json(explanation)
