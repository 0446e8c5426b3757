"""One tool call through the whole pipeline, outside a model run (``bot tools call``).

Lets a maintainer try a call under a policy on a laptop: same assembly, same pipeline, same
permission chain as a run.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from bot.interface.context import make_context
from bot.interface.messages import ProgressSink, ToolUseBlock, drop_progress
from bot.interface.tool import AnyTool
from bot.permissions.chain import PermissionEngine
from bot.permissions.context import PermissionContext
from bot.permissions.engine import PolicyEngine
from bot.permissions.rules import Behavior, make_rule
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.hooks import HookRunner, NoHooks
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner

if TYPE_CHECKING:
    # Policy files and hooks load with the first ``--policy``: a call under rule flags alone (the
    # common ``bot tools call Read``) parses no policy schema and imports no YAML or hook runner.
    from bot.permissions.stack import EffectivePolicy


@dataclass(frozen=True, slots=True)
class CallRequest:
    tool: str
    input: Any
    workspace: Path
    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    ask: Sequence[str] = ()
    scratch_dir: Path | None = None
    #: A trusted ``.mcp.json``: its servers are connected for the call and closed after it.
    mcp_config: Path | None = None
    #: Policy files (``--policy``), merged under the rule flags (:mod:`bot.permissions.stack`).
    policies: Sequence[str] = ()


def flag_permission_context(
    allow: Sequence[str], deny: Sequence[str], ask: Sequence[str], base: PermissionContext | None = None
) -> PermissionContext:
    """Rules given on the command line (source ``cliArg``) on top of a base context."""
    base = base or PermissionContext()

    def rules(texts: Sequence[str], behavior: Behavior) -> tuple[Any, ...]:
        return tuple(make_rule(t, behavior, "cliArg") for t in texts)

    return PermissionContext(
        mode=base.mode,
        allow=(*base.allow, *rules(allow, "allow")),
        deny=(*base.deny, *rules(deny, "deny")),
        ask=(*base.ask, *rules(ask, "ask")),
        additional_directories=base.additional_directories,
        simple_mode=base.simple_mode,
        allow_git_dir_writes=base.allow_git_dir_writes,
        allow_workflow_writes=base.allow_workflow_writes,
    )


def request_policy(request: CallRequest) -> EffectivePolicy | None:
    """The ``--policy`` files merged under the rule flags, or ``None`` without policy files."""
    if not request.policies:
        return None
    from bot.permissions.stack import layer_for, load_policy_stack

    layers = [layer_for(p, "flag") for p in request.policies]
    return load_policy_stack(layers, allow=request.allow, deny=request.deny, ask=request.ask)


def request_permission_context(request: CallRequest, policy: EffectivePolicy | None = None) -> PermissionContext:
    """The rule flags, on top of the ``--policy`` files when there are any."""
    policy = policy or request_policy(request)
    if policy is None:
        return flag_permission_context(request.allow, request.deny, request.ask)
    return policy.permission_context(Path(request.workspace).resolve())


def pool_for(permission: PermissionContext, mcp_tools: Sequence[AnyTool] = (), tool: str | None = None) -> ToolPool:
    """The pool for a call of ``tool``: the built-in alone when it does not read the pool (so one
    call imports one tool), else every tool, as in a run."""
    from bot.tools.registry import all_base_tools, base_tools_for

    base = base_tools_for(tool) if tool is not None else all_base_tools()
    return ToolPool(assemble_tool_pool(permission, mcp_tools, base))


async def call_tool(
    request: CallRequest,
    *,
    permission: PermissionContext | None = None,
    engine: PermissionEngine | None = None,
    sink: ProgressSink = drop_progress,
    mcp_tools: Sequence[AnyTool] = (),
) -> ToolCallOutcome:
    policy = request_policy(request) if permission is None else None
    permission = permission or request_permission_context(request, policy)
    engine = engine or PolicyEngine()
    pool = pool_for(permission, mcp_tools, request.tool)
    context = make_context(request.workspace, scratch_dir=request.scratch_dir, permission=permission, tools=pool.tools)
    hooks: HookRunner = NoHooks()
    if policy is not None:
        from bot.runtime.hook_runner import hooks_from_policy, make_hook_runner

        config = hooks_from_policy(policy.hooks, disabled=bool(policy.hooks_disabled and policy.hooks_disabled.value))
        transcript = context.scratch_dir / "transcript.jsonl"
        transcript.touch()
        hooks = make_hook_runner(config, context, session_id=f"cli-{uuid.uuid4().hex[:12]}", transcript_path=transcript)
    block = ToolUseBlock(id=f"toolu_cli_{uuid.uuid4().hex[:12]}", name=request.tool, input=request.input)
    return await ToolRunner(pool, engine, hooks).run(block, context, sink)


def call_tool_sync(request: CallRequest, **kwargs: Any) -> ToolCallOutcome:
    async def main() -> ToolCallOutcome:
        if request.mcp_config is None:
            return await call_tool(request, **kwargs)
        from bot.mcp import mcp_tools_from_file

        # The rules go to the manager too: a server that `mcp__server` denies is never started.
        permission = kwargs.get("permission") or request_permission_context(request)
        async with mcp_tools_from_file(
            request.mcp_config, workspace=request.workspace, permission=permission
        ) as mcp_tools:
            return await call_tool(request, mcp_tools=mcp_tools, **kwargs)

    return anyio.run(main)


def describe_pool(pool: ToolPool, *, schemas: bool = True) -> list[dict[str, Any]]:
    """The pool as data: what ``bot tools list --json`` prints. Without ``schemas`` the
    description and input schema are left out: building every tool's JSON Schema builds its input
    model, most of what the plain listing would cost."""
    out = []
    for tool in pool.tools:
        described: dict[str, Any] = {"name": tool.name, "aliases": list(tool.aliases)}
        if schemas:
            described["description"] = tool.description()
            described["input_schema"] = tool.input_json_schema()
        described.update(
            {
                "max_result_chars": None if tool.max_result_chars == float("inf") else int(tool.max_result_chars),
                "should_defer": tool.should_defer,
                "always_load": tool.always_load,
                "is_mcp": tool.is_mcp,
                "search_hint": tool.search_hint,
            }
        )
        out.append(described)
    return out


def outcome_json(outcome: ToolCallOutcome) -> str:
    record = outcome.record
    decision = record.decision
    data: dict[str, Any] = {
        "tool_result": outcome.result.to_api(),
        "decision": None if decision is None else type(decision).__name__.lower(),
        "reason": None if decision is None else decision.reason,
        "rule": None if decision is None or decision.rule is None else decision.rule.text,
        "error_kind": record.error_kind,
        "failed_stage": record.failed_stage,
        "duration_ms": round(record.duration_s * 1000, 3),
    }
    return json.dumps(data, ensure_ascii=False, indent=2)
