from __future__ import annotations

import anyio
import pytest

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.runtime.pipeline import ToolPool
from bot.tools.agent_definitions import BUILTIN_AGENTS, AgentDefinition
from bot.tools.agent_tool import (
    MAX_INLINE_DIFF_CHARS,
    AgentTool,
    SubagentReport,
    WorktreeReport,
    render_report,
)

TOOL = AgentTool()


def test_the_description_lists_every_agent_type() -> None:
    custom = AgentTool([*BUILTIN_AGENTS, AgentDefinition("test-runner", "Runs the tests.", "p")])
    text = custom.description()
    assert "- general-purpose:" in text and "- Explore:" in text and "- test-runner: Runs the tests." in text


@pytest.mark.parametrize(
    ("case", "raw", "safe", "read_only"),
    [
        ("a general agent shares the workspace", {}, False, False),
        ("an isolated one does not", {"isolation": "worktree"}, True, False),
        ("a background one returns at once", {"run_in_background": "true"}, True, False),
        ("the explorer only reads", {"subagent_type": "Explore"}, True, True),
    ],
)
def test_safety_flags_follow_the_input(case: str, raw: dict[str, str], safe: bool, read_only: bool) -> None:
    parsed = TOOL.parse_input({"description": "d", "prompt": "p", **raw})
    assert TOOL.is_concurrency_safe(parsed) is safe, case
    assert TOOL.is_read_only(parsed) is read_only, case


def test_the_old_name_task_still_reaches_it() -> None:
    tool, by_alias = ToolPool([TOOL]).lookup("Task")
    assert tool is TOOL and by_alias


def test_without_a_launcher_the_call_fails_with_a_clear_message(context: ToolUseContext) -> None:
    parsed = TOOL.parse_input({"description": "d", "prompt": "p"})
    with pytest.raises(ToolExecutionError, match="Sub-agents are not available here"):
        anyio.run(TOOL.call, parsed, context, Progress("t", "Agent"))


def report(**changes: object) -> SubagentReport:
    base: dict[str, object] = {
        "agent_id": "a1",
        "agent_type": "general-purpose",
        "model": "m",
        "text": "Found it.",
        "stop_reason": "completed",
    }
    return SubagentReport(**{**base, **changes})  # type: ignore[arg-type]


def test_a_report_is_the_agents_final_text() -> None:
    assert render_report(report()) == "Found it."


def test_a_report_says_when_the_agent_stopped_early() -> None:
    text = render_report(report(stop_reason="budget", stop_detail="spent $1.00"))
    assert text.endswith("[The agent stopped before finishing (budget: spent $1.00).]")


def test_a_large_worktree_diff_is_cut_inline_and_named_in_full() -> None:
    diff = "+x\n" * MAX_INLINE_DIFF_CHARS
    text = render_report(report(worktree=WorktreeReport("abc123", diff, "1 file changed", 1, "/s/a1.diff")))
    assert "NOT in your workspace" in text and "The whole diff is in /s/a1.diff (Read and Grep can open it)" in text
    assert "git apply" not in text
    assert "(diff cut; read the rest of /s/a1.diff with Read" in text and len(text) < MAX_INLINE_DIFF_CHARS + 1_000


def test_a_worktree_without_changes_says_so() -> None:
    text = render_report(report(worktree=WorktreeReport("abc123", "", "", 0, "/s/a1.diff")))
    assert "changed no files" in text


def test_a_background_start_names_the_task_to_read() -> None:
    text = render_report(report(text="", stop_reason="running", background_task_id="agent-3"))
    assert "task agent-3" in text and "TaskOutput (task_id agent-3)" in text
