"""Calling the file, search and web tools in tests: directly (``call``) or through the whole
pipeline with the real policy engine (``run_tool``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from bot.errors import ToolError
from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import AnyTool, ValidationReject
from bot.permissions.context import PermissionContext
from bot.permissions.engine import PolicyEngine
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from bot.tools.registry import all_base_tools


def call(tool: AnyTool, context: ToolUseContext, **raw: Any) -> Any:
    """validate_input then call; returns the mapped result. Raises what the tool raises, or
    :class:`Rejected` for a validation rejection."""

    async def main() -> Any:
        parsed = tool.parse_input(raw)
        verdict = await tool.validate_input(parsed, context)
        if isinstance(verdict, ValidationReject):
            raise Rejected(verdict.message)
        result = await tool.call(parsed, context, Progress("toolu_test", tool.name))
        return tool.map_result(result.data)

    return anyio.run(main)


def call_error(tool: AnyTool, context: ToolUseContext, **raw: Any) -> str:
    """The message of the error a call ends with (validation or execution)."""
    try:
        call(tool, context, **raw)
    except (Rejected, ToolError) as exc:
        return str(exc)
    raise AssertionError("the call succeeded")


class Rejected(Exception):
    pass


def permission_context(allow: Sequence[str] = (), deny: Sequence[str] = (), **extra: object) -> PermissionContext:
    base = flag_permission_context(allow, deny, ())
    return PermissionContext(mode=base.mode, allow=base.allow, deny=base.deny, ask=base.ask, extra=dict(extra))


def context_for(
    workspace: Path, scratch: Path, *, allow: Sequence[str] = (), deny: Sequence[str] = (), **extra: object
) -> ToolUseContext:
    return make_context(workspace, scratch_dir=scratch, permission=permission_context(allow, deny, **extra))


def run_tool(context: ToolUseContext, name: str, raw: Any, tool_use_id: str = "toolu_1") -> ToolCallOutcome:
    """One call through the eight stages with the policy engine and the registered tools."""
    pool = ToolPool(all_base_tools())

    async def main() -> ToolCallOutcome:
        return await ToolRunner(pool, PolicyEngine()).run(ToolUseBlock(tool_use_id, name, raw), context)

    return anyio.run(main)


def decide_tool(context: ToolUseContext, name: str, raw: Any) -> Any:
    """Stages 1–4 only: the decision the pipeline would make for this call."""
    pool = ToolPool(all_base_tools())

    async def main() -> Any:
        return (await ToolRunner(pool, PolicyEngine()).decide(ToolUseBlock("toolu_d", name, raw), context)).decision

    return anyio.run(main)
