"""``bot policy check``: what a run would decide for a call, without running it.

Every check goes through :meth:`bot.runtime.pipeline.ToolRunner.decide` — stages 1 to 4 of the
pipeline a run uses (lookup, schema, the tool's own check, hooks, the permission chain with the
:class:`~bot.permissions.engine.PolicyEngine`), so a check can never disagree with a run. It lives
in the runtime layer because it drives the pipeline and runs hooks; the permission layer itself stays
pure.

For batches of thousands of calls in one process: the tool pool and the runner are built once,
parsed policy files are cached by path (:mod:`bot.permissions.stack`), and the merged context is
cached per (policies, rules, mode, workspace). An MCP tool name that is not in the pool gets a
stand-in tool, so MCP rules can be tested without starting servers.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from bot.errors import ConfigError, ToolExecutionError
from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import AnyTool, Tool, ToolResult
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Allow, Decision, Deny
from bot.permissions.engine import PolicyEngine
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.hook_runner import hooks_from_policy, make_hook_runner
from bot.runtime.hooks import HookRunner
from bot.runtime.pipeline import ToolPool, ToolRunner

#: Keys a batch line may have (the documented ones, plus ``mode`` and ``expect`` for tests).
LINE_KEYS = frozenset({"tool", "input", "allow", "deny", "ask", "policy", "workspace", "mode", "expect"})


@dataclass(frozen=True, slots=True)
class CheckInput:
    tool: str
    input: Any
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    workspace: str | None = None
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    decision: Decision
    #: The check itself could not be evaluated (bad line, bad policy file): it is denied.
    error: bool = False

    @property
    def allowed(self) -> bool:
        return isinstance(self.decision, Allow)

    @property
    def reason(self) -> str:
        ref = self.decision.rule
        if ref is None:
            return self.decision.reason
        return (
            f"{self.decision.reason} (rule from {ref.source}: {ref.where()})"
            if ref.file
            else f"{self.decision.reason} (rule from {ref.source})"
        )

    def batch_json(self) -> dict[str, Any]:
        """The batch interface's line: ``{"decision", "reason", "rule"}``."""
        rule = self.decision.rule
        return {
            "decision": "allow" if self.allowed else "deny",
            "reason": self.reason,
            "rule": None if rule is None else rule.text,
        }

    def full_json(self) -> dict[str, Any]:
        d = self.decision
        rule = d.rule
        data = self.batch_json()
        data.update(
            {
                "decided_by": d.source,
                "source": None if rule is None else rule.source,
                "file": None if rule is None else rule.file,
                "line": None if rule is None else rule.line,
                "was_ask": isinstance(d, Deny) and d.was_ask,
                "suggestions": list(d.suggestions) if isinstance(d, Deny) else [],
                "warnings": list(d.warnings),
            }
        )
        return data


@dataclass(slots=True)
class BatchStats:
    lines: int = 0
    allowed: int = 0
    denied: int = 0
    errors: int = 0


def parse_check_line(raw: str | dict[str, Any]) -> CheckInput:
    """A batch line as a :class:`CheckInput`; raises ``ValueError`` saying what is wrong."""
    data = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    unknown = set(data) - LINE_KEYS
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
    tool = data.get("tool")
    if not isinstance(tool, str) or not tool:
        raise ValueError('"tool" must be a tool name')
    if "input" not in data:
        raise ValueError('"input" is missing')
    policy = data.get("policy")
    policies = (policy,) if isinstance(policy, str) else tuple(_strings(policy, "policy"))
    workspace, mode = data.get("workspace"), data.get("mode")
    if workspace is not None and not isinstance(workspace, str):
        raise ValueError('"workspace" must be a path')
    if mode is not None and not isinstance(mode, str):
        raise ValueError('"mode" must be a permission mode')
    return CheckInput(
        tool,
        data["input"],
        tuple(_strings(data.get("allow"), "allow")),
        tuple(_strings(data.get("deny"), "deny")),
        tuple(_strings(data.get("ask"), "ask")),
        policies,
        workspace,
        mode,
    )


def _strings(value: Any, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f'"{key}" must be a list of strings')
    return value


class _AnyInput(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class _McpStandIn(Tool[_AnyInput, str]):
    """Stands in for an MCP tool in policy checks: its rules are checked; nothing ever runs."""

    name: ClassVar[str] = "mcp__standin"
    is_mcp = True
    input_model = _AnyInput

    async def call(self, input: _AnyInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        raise ToolExecutionError("a policy check never runs a tool")


def _stand_in(name: str) -> AnyTool:
    cls = type(f"StandIn_{name}", (_McpStandIn,), {"name": name})
    tool: AnyTool = cls()
    return tool


@dataclass(slots=True)
class PolicyChecker:
    """Decides :class:`CheckInput`\\ s. Use as a context manager (it owns a scratch directory)."""

    workspace: Path
    layers: Sequence[PolicyLayer] = ()
    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    ask: Sequence[str] = ()
    mode: str | None = None
    #: Relative ``policy``/``workspace`` paths in lines are relative to this (default: cwd).
    base_dir: Path | None = None
    hooks: HookRunner | None = None
    tools: Sequence[AnyTool] | None = None
    _pool: ToolPool = field(init=False)
    _runner: ToolRunner = field(init=False)
    _contexts: dict[tuple[Any, ...], tuple[ToolUseContext, HookRunner | None]] = field(init=False, default_factory=dict)
    _scratch: str = field(init=False, default="")

    def __post_init__(self) -> None:
        base = self.tools if self.tools is not None else assemble_tool_pool(PermissionContext())
        self._build(list(base))
        self._scratch = tempfile.mkdtemp(prefix="bot-policy-check-")

    def _build(self, tools: list[AnyTool]) -> None:
        self._pool = ToolPool(tools)
        self._runner = ToolRunner(self._pool, PolicyEngine(), self.hooks)

    def close(self) -> None:
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = ""

    def __enter__(self) -> PolicyChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def check(self, item: CheckInput) -> CheckOutcome:
        try:
            context, hooks = self._context(item)
        except (ConfigError, ValueError, OSError) as exc:
            return CheckOutcome(
                Deny(f"the check cannot be evaluated: {_describe(exc)}", source="validation"), error=True
            )
        if item.tool.startswith("mcp__") and self._pool.lookup(item.tool)[0] is None:
            self._build([*self._pool.tools, _stand_in(item.tool)])
        block = ToolUseBlock(id="toolu_policy_check", name=item.tool, input=item.input)
        runner = self._runner if hooks is None else ToolRunner(self._pool, self._runner.engine, hooks)
        outcome = await runner.decide(block, context)
        decision = outcome.decision
        assert not isinstance(decision, str)
        return CheckOutcome(decision)

    async def run_batch(self, lines: Iterable[str], write: Any) -> BatchStats:
        """Decide each JSON line; ``write`` receives one output JSON line (with ``\\n``) per input
        line, in order. A line that cannot be evaluated is denied with the reason and counted."""
        stats = BatchStats()
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            stats.lines += 1
            try:
                item = parse_check_line(raw)
            except (ValueError, json.JSONDecodeError) as exc:
                result = CheckOutcome(Deny(f"line {number}: invalid check: {exc}", source="validation"), error=True)
            else:
                result = await self.check(item)
            if result.error:
                stats.errors += 1
            elif result.allowed:
                stats.allowed += 1
            else:
                stats.denied += 1
            write(json.dumps(result.batch_json(), ensure_ascii=False) + "\n")
        return stats

    def _context(self, item: CheckInput) -> tuple[ToolUseContext, HookRunner | None]:
        """The context of a line's policy, and its hooks (PreToolUse hooks take part in decisions,
        as in a run; ``None`` when the policy has none)."""
        key = (item.policies, item.allow, item.deny, item.ask, item.mode, item.workspace)
        found = self._contexts.get(key)
        if found is not None:
            return found
        workspace = self._path(item.workspace) if item.workspace is not None else self.workspace
        line_layers = [PolicyLayer("flag", path=str(self._path(p))) for p in item.policies]
        policy = load_policy_stack(
            [*self.layers, *line_layers],
            allow=[*self.allow, *item.allow],
            deny=[*self.deny, *item.deny],
            ask=[*self.ask, *item.ask],
            mode=item.mode or self.mode,
        )
        ws = Path(workspace).resolve(strict=True)
        if not ws.is_dir():
            raise ValueError(f"workspace {workspace} is not a directory")
        context = make_context(
            ws, scratch_dir=self._scratch, permission=policy.permission_context(ws), tools=self._pool.tools
        )
        hooks: HookRunner | None = None
        if self.hooks is None:
            disabled = bool(policy.hooks_disabled and policy.hooks_disabled.value)
            config = hooks_from_policy(policy.hooks, disabled=disabled)
            if config:
                transcript = Path(self._scratch) / "transcript.jsonl"
                transcript.touch()
                hooks = make_hook_runner(config, context, session_id="policy-check", transcript_path=transcript)
        self._contexts[key] = (context, hooks)
        return context, hooks

    def _path(self, raw: str) -> Path:
        path = Path(os.path.expanduser(raw))
        if path.is_absolute() or self.base_dir is None:
            return path
        return self.base_dir / path


def _describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"no such directory: {exc.filename}"
    return str(exc)
