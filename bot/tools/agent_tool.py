"""Agent: start a sub-agent (seeds 4.7, 8.3) and return its final report as the tool result.

Input as in the seeds: ``description``, ``prompt``, ``subagent_type``, ``model``,
``run_in_background``, ``isolation`` (``worktree``). The work is done by the run's sub-agent
launcher (``services["subagents"]``, :mod:`bot.agent.subagents`): definition lookup, the model
chain, a fresh read-file state and abort signal, the parent's permission context (never more),
the worktree, background runs. A sub-agent never gets this tool, so there is no recursion.

Allowed without a rule: starting a sub-agent does nothing by itself, and every call the sub-agent
makes passes the same permission rules as the parent's (a deny rule still removes this tool).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import Field

from bot.core.services import ServiceKey
from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.decision import Allow, PermissionResult
from bot.tools.agent_definitions import BUILTIN_AGENTS, GENERAL_PURPOSE, AgentDefinition, find_definition
from bot.tools.coercion import SemanticBool

SUBAGENT_SERVICE: ServiceKey[SubagentLauncher] = ServiceKey("subagents")
#: Diff shown inline in the tool result; the whole diff is in a file the result names.
MAX_INLINE_DIFF_CHARS = 20_000


class AgentInput(ToolInput):
    description: str = Field(min_length=1, description="A short (3-5 word) description of the task")
    prompt: str = Field(min_length=1, description="The task for the agent: everything it needs to know")
    subagent_type: str | None = Field(default=None, description="The type of agent to use (see the list)")
    model: Literal["sonnet", "opus", "haiku"] | None = Field(
        default=None, description="A model for this agent; by default the agent type's, else yours"
    )
    run_in_background: SemanticBool | None = Field(
        default=None,
        description="Run the agent in the background; you are notified when it finishes and can "
        "read its report with TaskOutput",
    )
    isolation: Literal["worktree"] | None = Field(
        default=None,
        description='"worktree" runs the agent in a temporary git worktree; its changes come back '
        "as a diff instead of touching your workspace",
    )


@dataclass(frozen=True, slots=True)
class SubagentRequest:
    description: str
    prompt: str
    subagent_type: str | None
    model: str | None
    run_in_background: bool
    isolation: str | None
    tool_use_id: str


@dataclass(frozen=True, slots=True)
class WorktreeReport:
    base: str
    diff: str
    stat: str
    files_changed: int
    #: The whole diff, in the run's persisted results (readable with Read and Grep).
    diff_path: str


@dataclass(frozen=True, slots=True)
class SubagentReport:
    agent_id: str
    agent_type: str
    model: str
    text: str
    stop_reason: str
    stop_detail: str = ""
    turns: int = 0
    cost_usd: float = 0.0
    worktree: WorktreeReport | None = None
    #: Set when the agent was started in the background (the rest is then empty).
    background_task_id: str | None = None


class SubagentLauncher(Protocol):
    async def launch(self, request: SubagentRequest, context: ToolUseContext, progress: Progress) -> SubagentReport: ...


class AgentTool(Tool[AgentInput, SubagentReport]):
    name = "Agent"
    aliases = ("Task",)  # Claude Code's earlier name for it
    search_hint = "subagent delegate parallel task explore worktree"
    input_model = AgentInput

    def __init__(self, definitions: Sequence[AgentDefinition] = BUILTIN_AGENTS) -> None:
        self.definitions = tuple(definitions)

    def description(self) -> str:
        types = "\n".join(f"- {d.agent_type}: {d.description}" for d in self.definitions)
        return (
            "Launch a sub-agent to handle a complex, multi-step task on its own. It starts with no memory of "
            "this conversation: give it a complete prompt. Its final message is returned to you; the user sees "
            "nothing of it, so summarise what matters. Launch several in one response to run them in parallel.\n"
            f"Available agent types (subagent_type; default {GENERAL_PURPOSE}):\n{types}"
        )

    def _definition(self, input: AgentInput) -> AgentDefinition | None:
        return find_definition(self.definitions, input.subagent_type)

    def is_concurrency_safe(self, input: AgentInput) -> bool:
        # Parallel only when the agents cannot step on each other's files.
        definition = self._definition(input)
        read_only = definition is not None and definition.permission_mode == "plan"
        return input.isolation == "worktree" or bool(input.run_in_background) or read_only

    def is_read_only(self, input: AgentInput) -> bool:
        definition = self._definition(input)
        return definition is not None and definition.permission_mode == "plan" and input.isolation is None

    def is_destructive(self, input: AgentInput) -> bool:
        return not self.is_read_only(input)

    async def check_permissions(self, input: AgentInput, context: ToolUseContext) -> PermissionResult:
        return Allow("a sub-agent's calls pass the same permission rules as the parent's", source="tool")

    async def call(self, input: AgentInput, context: ToolUseContext, progress: Progress) -> ToolResult[SubagentReport]:
        launcher = context.services.get(SUBAGENT_SERVICE)
        if launcher is None:
            raise ToolExecutionError("Sub-agents are not available here (a sub-agent cannot start another).")
        request = SubagentRequest(
            input.description,
            input.prompt,
            input.subagent_type,
            input.model,
            bool(input.run_in_background),
            input.isolation,
            progress.tool_use_id,
        )
        report: SubagentReport = await launcher.launch(request, context, progress)
        return ToolResult(report, is_error=report.stop_reason == "error")

    def map_result(self, output: SubagentReport) -> str:
        return render_report(output)

    def summarize_input(self, input: AgentInput) -> str:
        kind = input.subagent_type or GENERAL_PURPOSE
        return f"{kind}: {input.description}"


def render_report(report: SubagentReport) -> str:
    """The tool result: the sub-agent's final text, how it ended, and its diff when isolated."""
    if report.background_task_id is not None:
        return (
            f"Started {report.agent_type} agent {report.agent_id} in the background as task "
            f"{report.background_task_id}. You will be notified when it finishes; read its report with "
            f"TaskOutput (task_id {report.background_task_id})."
        )
    parts = [report.text or "(The agent ended without a final message.)"]
    if report.stop_reason != "completed":
        detail = f": {report.stop_detail}" if report.stop_detail else ""
        parts.append(f"[The agent stopped before finishing ({report.stop_reason}{detail}).]")
    wt = report.worktree
    if wt is not None:
        if wt.files_changed == 0:
            parts.append(f"The agent worked in an isolated worktree (from commit {wt.base[:12]}) and changed no files.")
        else:
            diff = wt.diff
            cut = ""
            if len(diff) > MAX_INLINE_DIFF_CHARS:
                diff = diff[:MAX_INLINE_DIFF_CHARS]
                cut = f"\n… (diff cut; read the rest of {wt.diff_path} with Read, offset/limit, or search it with Grep)"
            fence = "````" if "```" in diff else "```"
            # Not applied for you, and not `git apply`: the diff lies outside the workspace, where
            # shell commands do not reach; taking changes with Edit/Write keeps every file change
            # under the same permission rules as your own, and you decide what to keep.
            parts.append(
                f"The agent worked in an isolated worktree (from commit {wt.base[:12]}, now removed) and changed "
                f"{wt.files_changed} file(s). Its changes are NOT in your workspace: to keep them, make them "
                f"with Edit or Write. The whole diff is in {wt.diff_path} (Read and Grep can open it)."
                f"\n{wt.stat}\n{fence}diff\n{diff}\n{fence}{cut}"
            )
    return "\n\n".join(parts)
