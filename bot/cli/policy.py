"""``bot policy check``, ``bot policy test``, ``bot policy show`` and ``bot policy schema``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import AllowOpt, AskOpt, DenyOpt, WorkspaceOpt, fail
from bot.errors import ConfigError

policy_app = typer.Typer(
    help="Check calls against policies, run policy expectation files, show merged policies.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

PolicyOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--policy",
        help="A policy file (JSON, YAML or TOML; Claude Code settings schema) or a shipped preset's name "
        "(read-only, fix, maintenance), as in `bot run --policy`. Repeatable.",
    ),
]
RepoPolicyOpt = Annotated[
    Path | None, typer.Option("--repo-policy", help="The repository's policy file (as read from the default branch).")
]
OrgPolicyOpt = Annotated[
    Path | None, typer.Option("--org-policy", help="The organisation's policy file (as given by the workflow).")
]
# The old spelling of `--policy NAME`, kept working for scripts that use it.
PresetOpt = Annotated[
    str | None, typer.Option("--preset", hidden=True, help="A shipped preset's name: use --policy NAME.")
]
ModeOpt = Annotated[
    str | None, typer.Option("--mode", help="Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def policy_layers(
    policy: list[Path] | None, repo: Path | None = None, org: Path | None = None, preset: str | None = None
) -> list[Any]:
    """The layers the options name, in source order (for ``bot tools call --policy`` too)."""
    from bot.permissions.stack import PolicyLayer, layer_for

    layers: list[PolicyLayer] = []
    if preset:
        layers.append(PolicyLayer("preset", preset=preset))
    if repo:
        layers.append(PolicyLayer("repository", path=str(repo)))
    if org:
        layers.append(PolicyLayer("organisation", path=str(org)))
    layers.extend(layer_for(str(p), "flag") for p in policy or [])
    return layers


@policy_app.command("check")
def policy_check(
    tool: Annotated[str | None, typer.Argument(help="The tool's name.")] = None,
    input_json: Annotated[str | None, typer.Argument(help="The tool input as a JSON object.")] = None,
    batch: Annotated[
        str | None, typer.Option("--batch", help="JSON lines to check, one per call; - for stdin.")
    ] = None,
    policy: PolicyOpt = None,
    repo_policy: RepoPolicyOpt = None,
    org_policy: OrgPolicyOpt = None,
    preset: PresetOpt = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    ask: AskOpt = None,
    mode: ModeOpt = None,
    workspace: WorkspaceOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """What a run would decide for a call: the decision, the reason, the rule and where it is written."""
    import anyio

    from bot.runtime.policy_checker import CheckInput, PolicyChecker

    layers = policy_layers(policy, repo_policy, org_policy, preset)
    if not workspace.is_dir():
        raise fail(f"--workspace {workspace}: no such directory")
    _warn(layers, allow or [], deny or [], ask or [], mode)
    checker = PolicyChecker(
        workspace=workspace, layers=layers, allow=allow or [], deny=deny or [], ask=ask or [], mode=mode
    )
    with checker:
        if batch is not None:
            if tool is not None:
                raise fail("give either --batch or TOOL INPUT_JSON, not both")
            _run_batch(checker, batch)
            return
        if tool is None or input_json is None:
            raise fail("give TOOL and INPUT_JSON, or --batch FILE")
        raw = sys.stdin.read() if input_json == "-" else input_json
        try:
            payload = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise fail(f"INPUT_JSON is not valid JSON: {exc}") from None
        outcome = anyio.run(checker.check, CheckInput(tool, payload))
    if outcome.error:
        raise fail(outcome.decision.reason)
    if as_json:
        typer.echo(json.dumps(outcome.full_json(), ensure_ascii=False, indent=2))
        return
    decision = outcome.batch_json()
    typer.echo(f"{decision['decision']}: {outcome.decision.reason}")
    rule = outcome.decision.rule
    if rule is not None:
        typer.echo(f"rule: {rule.text}  ({rule.source}{', ' + rule.where() if rule.file else ''})")


def _warn(layers: list[Any], allow: list[str], deny: list[str], ask: list[str], mode: str | None) -> None:
    """The merged policy's warnings (shadowed allow rules, ignored keys), on stderr: a check's answer
    may hinge on one. A policy that does not load is left to the check, which reports it."""
    from bot.permissions.stack import load_policy_stack

    try:
        merged = load_policy_stack(layers, allow=allow, deny=deny, ask=ask, mode=mode)
    except ConfigError:
        return
    for warning in merged.warnings:
        typer.echo(f"warning: {warning}", err=True)


def _run_batch(checker: Any, batch: str) -> None:
    import anyio

    out = sys.stdout
    try:
        stream = sys.stdin if batch == "-" else open(batch, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise fail(f"--batch {batch}: {exc.strerror}") from None
    try:
        stats = anyio.run(checker.run_batch, stream, out.write)
    finally:
        if stream is not sys.stdin:
            stream.close()
    out.flush()
    if stats.errors:
        raise fail(f"{stats.errors} of {stats.lines} lines could not be evaluated (denied; see their reasons)")


@policy_app.command("test")
def policy_test(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Expectation files (*.expect.jsonl) or directories holding them. Default: policies/."),
    ] = None,
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Run expectation files: print each mismatch, then 'N passed, N failed'. Exit 1 on any mismatch."""
    import anyio

    from bot.runtime.policy_expectations import expectation_files, run_expectations

    roots = paths or [Path("policies")]
    missing = [str(p) for p in roots if not p.exists()]
    if missing:
        raise fail(f"no such file or directory: {', '.join(missing)}")
    files = expectation_files(roots)
    if not files:
        raise fail("no expectation files (*.expect.jsonl) found")
    report = anyio.run(lambda: run_expectations(files, workspace=workspace))
    for mismatch in report.mismatches:
        typer.echo(mismatch.describe())
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(1)


@policy_app.command("show")
def policy_show(
    policy: PolicyOpt = None,
    repo_policy: RepoPolicyOpt = None,
    org_policy: OrgPolicyOpt = None,
    preset: PresetOpt = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    ask: AskOpt = None,
    mode: ModeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The merged policy: every rule and setting with its source, file and line."""
    from bot.permissions.describe import policy_json, policy_text
    from bot.permissions.stack import load_policy_stack

    try:
        merged = load_policy_stack(
            policy_layers(policy, repo_policy, org_policy, preset),
            allow=allow or [],
            deny=deny or [],
            ask=ask or [],
            mode=mode,
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(policy_json(merged), ensure_ascii=False, indent=2))
    else:
        typer.echo(policy_text(merged))


@policy_app.command("schema")
def policy_schema() -> None:
    """The JSON Schema of a policy file, for editors: point "$schema" in .github/bot-policy.json at
    it (the repository keeps a copy in policies/bot-policy.schema.json)."""
    from bot.permissions.settings_model import schema_text

    typer.echo(schema_text(), nl=False)


# `bot policy explain` lives in its own module (bot.cli.explain).
from bot.cli.explain import policy_explain  # noqa: E402

policy_app.command("explain")(policy_explain)
