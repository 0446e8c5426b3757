"""``bot tools list`` and ``bot tools call``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import AllowOpt, AskOpt, DenyOpt, WorkspaceOpt, fail
from bot.cli.policy import PolicyOpt
from bot.errors import ConfigError

tools_app = typer.Typer(
    help="Inspect the tool pool and call tools through the full pipeline.", no_args_is_help=True, rich_markup_mode=None
)


@tools_app.command("list")
def tools_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print the pool with JSON Schemas.")] = False,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
) -> None:
    """The assembled tool pool, in the order the model sees it."""
    from bot.permissions.rules import RuleSyntaxError
    from bot.runtime.single_call import describe_pool, flag_permission_context, pool_for

    try:
        pool = pool_for(flag_permission_context(allow or [], deny or [], []))
    except RuleSyntaxError as exc:
        raise fail(str(exc)) from None
    described = describe_pool(pool, schemas=as_json)
    if as_json:
        typer.echo(json.dumps(described, indent=2, ensure_ascii=False))
        return
    for tool in described:
        flags = [f for f in ("should_defer", "always_load", "is_mcp") if tool[f]]
        limit = tool["max_result_chars"] or "∞"
        extra = f"  [{', '.join(flags)}]" if flags else ""
        typer.echo(f"{tool['name']:<24} max_result_chars={limit}{extra}")


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(help="The tool's name (or an alias).")],
    input_json: Annotated[str, typer.Argument(help="The tool input as a JSON object, or - for stdin.")],
    workspace: WorkspaceOpt = Path("."),
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    ask: AskOpt = None,
    scratch_dir: Annotated[Path | None, typer.Option("--scratch-dir", help="Where large results go.")] = None,
    mcp_config: Annotated[
        Path | None,
        typer.Option("--mcp-config", help="A trusted .mcp.json: its servers' tools join the pool for this call."),
    ] = None,
    policy: PolicyOpt = None,
) -> None:
    """One call through the whole pipeline. Prints the tool_result and the decision as JSON."""
    from bot.permissions.rules import RuleSyntaxError
    from bot.runtime.single_call import CallRequest, call_tool_sync, outcome_json

    raw = sys.stdin.read() if input_json == "-" else input_json
    try:
        payload: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise fail(f"INPUT_JSON is not valid JSON: {exc}") from None
    if not workspace.is_dir():
        raise fail(f"--workspace {workspace}: no such directory")
    request = CallRequest(
        tool=name,
        input=payload,
        workspace=workspace,
        allow=allow or [],
        deny=deny or [],
        ask=ask or [],
        scratch_dir=scratch_dir,
        mcp_config=mcp_config,
        policies=[str(p) for p in policy or []],
    )
    try:
        outcome = call_tool_sync(request)
    except (RuleSyntaxError, ConfigError) as exc:
        raise fail(str(exc)) from None
    typer.echo(outcome_json(outcome))
