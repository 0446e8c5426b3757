"""Small real tools for exercising the pipeline and the schedulers. Ordering is driven by events
(gates), never by sleeps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import anyio
from pydantic import Field

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.decision import Allow, Ask, Deny, PermissionResult
from bot.runtime.hooks import PostToolHookOutcome, PreToolHookOutcome
from bot.tools.coercion import SemanticBool, SemanticInt


class EchoInput(ToolInput):
    text: str
    times: SemanticInt = 1
    shout: SemanticBool = False


class EchoTool(Tool[EchoInput, str]):
    """Echoes text."""

    name = "Echo"
    aliases = ("Say",)
    input_model = EchoInput

    def is_concurrency_safe(self, input: EchoInput) -> bool:
        return True

    def is_read_only(self, input: EchoInput) -> bool:
        return True

    def permission_subject(self, input: EchoInput) -> str:
        return input.text

    async def validate_input(self, input: EchoInput, context: ToolUseContext) -> ValidationResult:
        if input.text == "invalid":
            return ValidationReject("text must not be 'invalid'", code=7)
        return VALID

    async def call(self, input: EchoInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        progress("echo", text=input.text)
        text = " ".join([input.text] * input.times)
        return ToolResult(text.upper() if input.shout else text)


class GateInput(ToolInput):
    key: str
    fail: bool = False
    safe: bool = True
    size: int = Field(default=0, description="pad the result to this many characters")


@dataclass
class Gates:
    """Per-key events a test opens in the order it wants tools to finish."""

    events: dict[str, anyio.Event] = field(default_factory=dict)
    started: dict[str, anyio.Event] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    def gate(self, key: str) -> anyio.Event:
        return self.events.setdefault(key, anyio.Event())

    def started_event(self, key: str) -> anyio.Event:
        return self.started.setdefault(key, anyio.Event())

    def open(self, *keys: str) -> None:
        for key in keys:
            self.gate(key).set()


class GateTool(Tool[GateInput, str]):
    """Waits for its gate to open, then returns (or fails)."""

    name = "Gate"
    input_model = GateInput
    gates: Gates

    def __init__(self, gates: Gates) -> None:
        self.gates = gates

    def is_concurrency_safe(self, input: GateInput) -> bool:
        return input.safe

    async def call(self, input: GateInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        self.gates.started_event(input.key).set()
        progress("started", key=input.key)
        try:
            await self.gates.gate(input.key).wait()
        except anyio.get_cancelled_exc_class():
            self.gates.cancelled.append(input.key)
            raise
        self.gates.order.append(input.key)
        if input.fail:
            raise ToolExecutionError(f"{input.key} failed")
        return ToolResult(f"done {input.key}" + "x" * input.size)


class ShellLikeTool(GateTool):
    """Like Bash: an error aborts its siblings."""

    name = "Shellish"
    aborts_siblings_on_error: ClassVar[bool] = True


class CdInput(ToolInput):
    to: str


class CdTool(Tool[CdInput, str]):
    """Changes the working directory through a context modifier."""

    name = "Cd"
    input_model = CdInput

    async def call(self, input: CdInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        target = context.workspace / input.to

        def modify(ctx: ToolUseContext) -> ToolUseContext:
            return ctx.with_(cwd=target)

        return ToolResult(f"cwd {input.to}", context_modifier=modify)


class CdSafeTool(CdTool):
    """The same, but claiming concurrency safety: its modifier must be ignored (seeds)."""

    name = "CdSafe"

    def is_concurrency_safe(self, input: CdInput) -> bool:
        return True


class BoomInput(ToolInput):
    kind: str = "runtime"


class BoomTool(Tool[BoomInput, str]):
    """Raises."""

    name = "Boom"
    input_model = BoomInput

    async def call(self, input: BoomInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        if input.kind == "oserror":
            raise FileNotFoundError(2, "No such file or directory", "/nope")
        if input.kind == "reported":
            return ToolResult("it went wrong", is_error=True)
        if input.kind == "hang":
            await anyio.Event().wait()
        raise RuntimeError("kaput")


class OpinionatedInput(ToolInput):
    verdict: str


class OpinionatedTool(Tool[OpinionatedInput, str]):
    """Its own check returns what the input says."""

    name = "Opinionated"
    input_model = OpinionatedInput

    async def check_permissions(self, input: OpinionatedInput, context: ToolUseContext) -> PermissionResult:
        match input.verdict:
            case "allow":
                return Allow("the tool allows it", source="tool")
            case "deny":
                return Deny("the tool refuses", source="tool")
            case "ask":
                return Ask("the tool would ask", source="tool")
        return await super().check_permissions(input, context)

    async def call(self, input: OpinionatedInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        return ToolResult("ran")


@dataclass
class RecordingHooks:
    """A HookRunner whose answers are set by the test and which records every event."""

    pre: PreToolHookOutcome = field(default_factory=PreToolHookOutcome)
    post: PostToolHookOutcome = field(default_factory=PostToolHookOutcome)
    events: list[tuple[str, str, Any]] = field(default_factory=list)

    async def pre_tool_use(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, context: ToolUseContext
    ) -> PreToolHookOutcome:
        self.events.append(("PreToolUse", tool_name, dict(tool_input)))
        return self.pre

    async def post_tool_use(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_response: Any,
        tool_use_id: str,
        context: ToolUseContext,
    ) -> PostToolHookOutcome:
        self.events.append(("PostToolUse", tool_name, tool_response))
        return self.post

    async def post_tool_use_failure(
        self, tool_name: str, tool_input: Mapping[str, Any], error: str, tool_use_id: str, context: ToolUseContext
    ) -> PostToolHookOutcome:
        self.events.append(("PostToolUseFailure", tool_name, error))
        return self.post

    async def permission_denied(
        self, tool_name: str, tool_input: Mapping[str, Any], reason: str, tool_use_id: str, context: ToolUseContext
    ) -> None:
        self.events.append(("PermissionDenied", tool_name, reason))
