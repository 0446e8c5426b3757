"""What a run under a policy may do, computed from the engine.

Nothing here restates the policy in prose: the tool pool is the one a run assembles
(:func:`bot.runtime.assembly.assemble_tool_pool`), each tool's standing is the decision the
pipeline gives a probe call of it (:class:`bot.runtime.policy_checker.PolicyChecker`, the code
``bot policy check`` and a run share), a Bash rule's limits are the option classes of the analysis'
table with one example per class that the engine was asked about and refused, and settings are
read from the merged policy (:func:`bot.permissions.stack.load_policy_stack`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.explain.bash_rules import ALWAYS_SEPARATE, BashRuleView, describe_rule
from bot.interface.tool import AnyTool
from bot.permissions.decision import Allow, Deny
from bot.permissions.rules import Rule
from bot.permissions.stack import EffectivePolicy, PolicyLayer, load_policy_stack

#: Values for the option examples: each is something the rule does not spell out.
EXAMPLE_VALUES = {
    "runs": "'sh -c id'",
    "program": "sh",
    "loads": "/tmp/explain-probe.conf",
    "connects": "tcp://203.0.113.7:2375",
    "writes": "/tmp/explain-probe.out",
}
#: Tools whose ``Tool(content)`` rules name paths (gitignore patterns).
WRITE_TOOLS = ("Edit", "Write", "NotebookEdit")
READ_TOOLS = ("Read", "Glob", "Grep")
#: The file a probe call names: inside the workspace, never created (probes are decided, not run).
PROBE_FILE = "explain-probe.txt"


@dataclass(frozen=True, slots=True)
class ToolStanding:
    name: str
    #: ``no rule needed`` | ``allowed`` | ``workspace reads`` | ``needs a rule`` | ``denied`` | ``mode``
    standing: str
    why: str
    deferred: bool = False
    #: The ``Tool(content)`` allow rules that open it for some inputs.
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    mode: str
    sandbox: str
    tools: tuple[ToolStanding, ...]
    removed: tuple[tuple[str, str], ...]
    bash_rules: tuple[BashRuleView, ...]
    bash_denied: tuple[tuple[str, str], ...]
    bash_separate: tuple[tuple[str, str], ...]
    writable: tuple[str, ...]
    denied_paths: tuple[tuple[str, str], ...]
    protected: tuple[str, ...]
    directories: tuple[str, ...]
    network: tuple[str, ...]
    mcp_servers: tuple[dict[str, Any], ...]
    hooks: tuple[dict[str, Any], ...]
    limits: dict[str, Any]
    model: str | None
    files: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    trigger: dict[str, Any] | None = field(default=None)


def _where(rule: Rule) -> str:
    ref = rule.ref
    if ref.file is None:
        return ref.source
    from bot.permissions.describe import shown_path

    return f"{shown_path(ref.file)}:{ref.line}" if ref.line is not None else str(shown_path(ref.file))


def probe_input(tool: Any) -> dict[str, Any]:
    """A minimal valid-looking input for a tool, from its JSON schema (required fields only)."""
    schema = tool.input_json_schema()
    out: dict[str, Any] = {}
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        spec = props.get(name, {})
        kind = spec.get("type")
        if name in ("file_path", "path", "notebook_path"):
            out[name] = PROBE_FILE
        elif name == "command":
            out[name] = "explain-probe"
        elif name == "url":
            out[name] = "https://example.com/"
        elif "enum" in spec:
            out[name] = spec["enum"][0]
        elif kind == "array":
            out[name] = []
        elif kind == "object":
            out[name] = {}
        elif kind == "boolean":
            out[name] = False
        elif kind in ("integer", "number"):
            out[name] = 1
        else:
            out[name] = "explain probe"
    return out


def _standing(tool: Any, decision: Any, policy: EffectivePolicy) -> ToolStanding:
    from bot.tools.tool_search import is_deferred

    rules = tuple(r.text for r in policy.allow if r.tool == tool.name and r.content is not None)
    deferred = is_deferred(tool)
    match decision:
        case Allow(source="tool", reason=reason):
            return ToolStanding(tool.name, "no rule needed", reason, deferred, rules)
        case Allow(source="rule", rule=ref) if ref is not None and "(" not in ref.text:
            return ToolStanding(tool.name, "allowed", f"by `{ref.text}` ({ref.where()})", deferred, rules)
        case Allow(source="workspace"):
            return ToolStanding(
                tool.name,
                "workspace reads",
                "inside the workspace without a rule; elsewhere a rule must name the path",
                deferred,
                rules,
            )
        case Allow(source="mode", reason=reason):
            return ToolStanding(tool.name, "mode", reason, deferred, rules)
        case Allow(reason=reason):
            return ToolStanding(tool.name, "allowed", reason, deferred, rules)
        case Deny(source="default", reason=reason):
            why = "only what these rules name" if rules else reason
            return ToolStanding(tool.name, "needs a rule", why, deferred, rules)
        case Deny(reason=reason) if tool.matches_own_rule_content and reason.startswith("no allow rule"):
            # Bash judges its own rule contents: the probe command is simply one no rule names.
            why = "only what these rules name" if rules else reason
            return ToolStanding(tool.name, "needs a rule", why, deferred, rules)
        case Deny(reason=reason):
            return ToolStanding(tool.name, "denied", reason, deferred, rules)
    return ToolStanding(tool.name, "denied", str(decision), deferred, rules)


async def explain_policy(
    layers: Sequence[PolicyLayer],
    *,
    workspace: Path,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    mode: str | None = None,
    examples: bool = True,
    mcp_tools: Sequence[AnyTool] | None = None,
) -> Explanation:
    """The explanation of the merged policy. Raises ConfigError for a bad policy file.
    ``examples=False`` is the system prompt's summary's form: no Bash rule's option classes (the
    option table is not read) and no engine example of each (the summary shows neither).
    ``mcp_tools``: the tools the policy's MCP servers bring, when they were started
    (:func:`connected_mcp_tools`); each is then judged like a built-in, and each server lists its
    own. ``None``: the servers were not started."""
    from bot.runtime.assembly import assemble_tool_pool
    from bot.runtime.hooks import NoHooks
    from bot.runtime.policy_checker import CheckInput, PolicyChecker
    from bot.tools.registry import all_base_tools

    policy = load_policy_stack(list(layers), allow=list(allow), deny=list(deny), ask=list(ask), mode=mode)
    ws = workspace.resolve()  # noqa: ASYNC240 - one stat, before anything runs
    context = policy.permission_context(ws)
    pool = assemble_tool_pool(context, mcp_tools or ())
    names = {t.name for t in pool}
    removed = tuple(
        (
            t.name,
            "a deny rule removes it" if context.is_blanket_denied(t.name, t.aliases) else "not enabled in this mode",
        )
        for t in sorted(all_base_tools(), key=lambda t: t.name)
        if t.name not in names
    )
    # Hooks are listed, never run: a probe is not a call, and a hook command must not start
    # because someone asked what the policy allows (nor before the run's model starts).
    checker = PolicyChecker(
        hooks=NoHooks(),
        workspace=ws,
        layers=list(layers),
        allow=list(allow),
        deny=list(deny),
        ask=list(ask),
        mode=mode,
        tools=pool,
    )
    with checker:

        async def decide(tool: str, payload: dict[str, Any]) -> Any:
            return (await checker.check(CheckInput(tool, payload))).decision

        standings = []
        for t in pool:
            payload = probe_input(t)
            standing = _standing(t, await decide(t.name, payload), policy)
            if "task_id" in payload and standing.standing == "needs a rule":
                # The probe names a task this run did not start: the tool itself allows its own.
                standing = replace(standing, why=f"{standing.why} (asked about a task this run did not start)")
            standings.append(standing)
        tools = tuple(standings)
        bash = []
        separate: list[tuple[str, str]] = []
        if "Bash" in names:
            for rule in policy.allow:
                if rule.tool != "Bash" or rule.content is None:
                    continue
                view = describe_rule(rule, _where(rule), options=examples)
                never = []
                for cls in view.never:
                    example = None
                    for option in cls.options:
                        probe = f"{view.table_entry} {option} {EXAMPLE_VALUES[cls.name]}"
                        if isinstance(await decide("Bash", {"command": probe}), Deny):
                            example = probe
                            break
                    never.append(replace(cls, example=example))
                bash.append(replace(view, never=tuple(never)))
            separate = await _separate_examples(policy, decide) if examples else []
    return Explanation(
        mode=policy.mode.value,
        sandbox=str(policy.setting("sandbox", "auto")),
        tools=tools,
        removed=removed,
        bash_rules=tuple(bash),
        bash_denied=tuple((r.text, _where(r)) for r in (*policy.deny, *policy.ask) if r.tool == "Bash"),
        bash_separate=tuple(separate),
        writable=_writable(policy),
        denied_paths=tuple(
            (r.text, _where(r))
            for r in (*policy.deny, *policy.ask)
            if r.tool in (*READ_TOOLS, *WRITE_TOOLS) and r.content
        ),
        protected=tuple(
            p
            for p, on in (
                (".git/", context.allow_git_dir_writes),
                (".github/workflows/", context.allow_workflow_writes),
            )
            if not on
        ),
        directories=tuple(str(d) for d in context.additional_directories),
        network=_network(policy),
        mcp_servers=tuple(_mcp(name, s.value, policy, mcp_tools) for name, s in sorted(policy.mcp_servers.items())),
        hooks=_hooks(policy),
        limits={
            k.removeprefix("limits."): s.value for k, s in sorted(policy.settings.items()) if k.startswith("limits.")
        },
        model=policy.setting("model"),
        files=tuple(f"{f.source}: {f.path}" for f in policy.files),
        warnings=tuple(policy.warnings),
    )


async def _separate_examples(policy: EffectivePolicy, decide: Any) -> list[tuple[str, str]]:
    """For the first prefix rule, ask the engine about what no rule approves (a compound's other
    part, a launched command, a path outside): each statement shown with the refused example."""
    from bot.shell.judge.rule_match import compile_pattern

    for rule in policy.allow:
        if rule.tool == "Bash" and rule.content and compile_pattern(rule.content).kind == "prefix":
            literal = compile_pattern(rule.content).literal
            examples = (
                f"{literal} && touch explain-probe",
                f"sh -c '{literal}'",
                f"{literal} > /tmp/explain-probe.out",
            )
            out = []
            for statement, example in zip(ALWAYS_SEPARATE, examples, strict=True):
                if isinstance(await decide("Bash", {"command": example}), Deny):
                    out.append((statement, example))
            return out
    return []


def _writable(policy: EffectivePolicy) -> tuple[str, ...]:
    out = []
    for rule in policy.allow:
        if rule.tool in WRITE_TOOLS:
            out.append(f"{rule.tool}: {'anywhere in the workspace' if rule.content is None else rule.content}")
    return tuple(out)


def _network(policy: EffectivePolicy) -> tuple[str, ...]:
    out = []
    for rule in policy.allow:
        if rule.tool == "WebFetch":
            out.append("WebFetch: any public address" if rule.content is None else f"WebFetch: {rule.content}")
        elif rule.tool == "WebSearch":
            out.append("WebSearch")
    network = bool(policy.setting("network", False))
    out.append("shell commands: network " + ("on (bot.network)" if network else "off (the sandbox has none)"))
    return tuple(out)


def _mcp(name: str, config: Any, policy: EffectivePolicy, mcp_tools: Sequence[AnyTool] | None) -> dict[str, Any]:
    prefix = f"mcp__{name}"
    rules = [r.text for r in policy.allow if r.tool == prefix or r.tool.startswith(prefix + "__")]
    denied = [r.text for r in policy.deny if r.tool == prefix or r.tool.startswith(prefix + "__")]
    transport = config.get("type") or ("http" if config.get("url") else "stdio")
    target = config.get("url") or " ".join([str(config.get("command", "")), *map(str, config.get("args", []))]).strip()
    server = {"name": name, "transport": transport, "target": target, "allowed": rules, "denied": denied}
    if mcp_tools is not None:
        server["tools"] = sorted(t.name for t in mcp_tools if t.name.startswith(prefix + "__"))
    return server


@asynccontextmanager
async def connected_mcp_tools(
    layers: Sequence[PolicyLayer], *, workspace: Path, environ: Mapping[str, str]
) -> AsyncIterator[list[AnyTool]]:
    """The tools the policy's ``mcpServers`` bring, with the servers running for as long as the
    block lasts. The servers are the policy's own (trusted configuration) and start as a run starts
    them: a stdio server gets the SDK's minimal environment plus its entry's ``env``, never the
    bot's. A server that fails to start brings no tools, so its entry lists none."""
    from bot.mcp import McpConfig, McpManager, bridge_tools, config_from_policy

    policy = load_policy_stack(list(layers))
    if not policy.mcp_servers:
        yield []
        return
    servers = tuple(config_from_policy(policy.mcp_servers, environ=environ))
    permission = policy.permission_context(workspace.resolve())  # noqa: ASYNC240 - one stat, before servers start
    async with McpManager(McpConfig(servers), workspace=workspace, permission=permission) as manager:
        yield bridge_tools(manager)


def _hooks(policy: EffectivePolicy) -> tuple[dict[str, Any], ...]:
    from bot.runtime.hook_runner import hooks_from_policy

    disabled = bool(policy.hooks_disabled and policy.hooks_disabled.value)
    config = hooks_from_policy(policy.hooks, disabled=disabled)
    out = []
    for event, matchers in config.events.items():
        for group in matchers:
            for hook in group.hooks:
                out.append(
                    {
                        "event": event,
                        "matcher": group.matcher or "*",
                        "command": hook.command,
                        "if": hook.condition.text if hook.condition else None,
                        "timeout_s": hook.timeout_s,
                    }
                )
    return tuple(out)
