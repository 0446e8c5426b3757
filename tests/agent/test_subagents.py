"""Sub-agents in a run: worktree isolation with real git, the model chain, background runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.agent.events import TextDelta, TurnStarted
from bot.agent.prompts import SUBAGENT_SYSTEM_PROMPT
from bot.interface.context import make_context
from bot.interface.messages import ToolUseBlock
from bot.permissions.engine import PolicyEngine
from bot.runtime.pipeline import ToolPool, ToolRunner
from bot.tools.registry import all_base_tools
from tests.agent.conftest import Harness, git

pytestmark = pytest.mark.anyio

AGENT_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-agents"
REVIEWER_FIXTURE = AGENT_FIXTURES / "21st-dev__1code__code-reviewer.md"


async def test_a_worktree_sub_agent_edits_in_isolation_and_returns_its_diff(
    harness: Harness, git_repo: Callable[..., None]
) -> None:
    git_repo(**{"README.md": "# Calculater\n\nAdds numbers.\n"})

    outcome, cassette = await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    assert outcome.stop.reason == "completed" and cassette.all_played
    assert (harness.workspace / "README.md").read_text().startswith("# Calculater")  # the parent's copy
    result = outcome.messages[2]["content"][0]
    assert result["type"] == "tool_result" and not result.get("is_error")
    assert "-# Calculater" in result["content"] and "+# Calculator" in result["content"]
    diff_file = next(w for w in result["content"].split() if w.endswith(".diff"))
    git(harness.workspace, "apply", "--check", diff_file)
    assert "git apply" not in result["content"]


async def test_the_model_can_read_the_whole_diff_the_worktree_agent_names(
    harness: Harness, git_repo: Callable[..., None]
) -> None:
    git_repo(**{"README.md": "# Calculater\n\nAdds numbers.\n"})

    outcome, _ = await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    result = outcome.messages[2]["content"][0]["content"]
    diff_file = next(w for w in result.split() if w.endswith(".diff"))
    context = make_context(harness.workspace, scratch_dir=harness.scratch)
    read = await ToolRunner(ToolPool(all_base_tools()), PolicyEngine()).run(
        ToolUseBlock("toolu_r", "Read", {"file_path": diff_file}), context
    )
    assert not read.result.is_error, read.result.text
    assert "+# Calculator" in read.result.text


async def test_the_worktree_and_its_branch_are_removed_afterwards(
    harness: Harness, git_repo: Callable[..., None]
) -> None:
    git_repo(**{"README.md": "# Calculater\n"})

    await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    assert len(git(harness.workspace, "worktree", "list").splitlines()) == 1
    assert "bot/agent-" not in git(harness.workspace, "branch", "--list")


async def test_a_sub_agent_gets_its_own_prompt_model_and_tools_and_never_the_agent_tool(
    harness: Harness, git_repo: Callable[..., None]
) -> None:
    git_repo(**{"README.md": "# Calculater\n"})

    await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    parent, child = harness.request(0), harness.request(1)
    assert parent["model"] == "claude-sonnet-5-5" and child["model"] == "claude-haiku-5-5"  # call > parent
    assert "Agent" in [t["name"] for t in parent["tools"]]
    assert "Agent" not in [t["name"] for t in child["tools"]]
    assert child["system"][0]["text"].startswith(SUBAGENT_SYSTEM_PROMPT)
    assert "isolated git worktree" in child["messages"][0]["content"][0]["text"]
    worktree_dir = Path(json.loads(json.dumps(child["system"][1]["text"])).split("Working directory: ")[1].split()[0])
    assert worktree_dir != harness.workspace and "worktrees" in worktree_dir.parts


async def test_sub_agent_turns_count_in_the_runs_usage_and_events_say_which_agent(
    harness: Harness, git_repo: Callable[..., None]
) -> None:
    git_repo(**{"README.md": "# Calculater\n"})

    outcome, _ = await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    # A turn is recorded when it ends: the sub-agent's three end inside the parent's first.
    agents = [t.agent_id for t in outcome.turns]
    sub_id = agents[0]
    assert sub_id is not None and agents == [sub_id, sub_id, sub_id, None, None]
    assert {t.model for t in outcome.turns if t.agent_id} == {"claude-haiku-5-5"}
    assert outcome.total_cost_usd == pytest.approx(outcome.cost_usd)
    sub_turns = [e for e in harness.events.of(TurnStarted) if e.agent_id is not None]
    assert len(sub_turns) == 3
    assert any(e.agent_id == sub_id for e in harness.events.of(TextDelta))
    assert (harness.scratch / f"agent-{sub_id}.jsonl").exists()


async def test_a_sub_agent_without_a_git_repository_cannot_be_isolated(harness: Harness) -> None:
    harness.write("README.md", "# Calculater\n")

    outcome, _ = await harness.run("subagent_worktree", harness.session(allow=("Read", "Edit")))

    result = outcome.messages[2]["content"][0]
    assert result["is_error"] is True and "needs the workspace to be a git repository" in result["content"]


async def test_a_background_agent_reports_through_a_notification_before_the_run_ends(harness: Harness) -> None:
    harness.write("src/a.py", "# TODO: a\n")

    outcome, cassette = await harness.run("background_agent", harness.session(allow=("Glob", "Grep")), by_model=True)

    assert outcome.stop.reason == "completed" and cassette.all_played
    started = outcome.messages[2]["content"][0]["content"]
    assert "in the background as task agent-1" in started
    notification = outcome.messages[4]["content"][0]["text"]
    assert notification.startswith("<task-notification>") and "Two files contain TODO notes." in notification
    assert outcome.final_text == "The explorer found TODO notes in two files."
    explorer_request = next(json.loads(r) for r in harness.capture.requests if b"claude-haiku-5-5" in r)
    assert not {"Edit", "Write", "Agent"} & {t["name"] for t in explorer_request["tools"]}


async def test_a_background_agents_report_can_be_read_with_task_output(harness: Harness) -> None:
    harness.write("src/a.py", "# TODO: a\n")

    outcome, cassette = await harness.run(
        "background_agent_task_output", harness.session(allow=("Glob", "Grep")), by_model=True
    )

    assert outcome.stop.reason == "completed" and cassette.all_played
    read = outcome.messages[4]["content"]
    assert read[0]["type"] == "tool_result" and not read[0].get("is_error")
    assert "Two files contain TODO notes." in json.dumps(read[0]["content"])
    task_output = next(c for c in outcome.tool_calls if c.record.tool_name == "TaskOutput")
    assert not task_output.denied


async def test_a_repository_agent_type_runs_with_its_own_prompt_tools_and_model(
    harness: Harness, tmp_path: Path
) -> None:
    from bot.orchestration.session import working_tree_files
    from bot.tools.agent_definitions import load_trusted_definitions

    trusted = tmp_path / "default-branch"
    (trusted / ".claude" / "agents").mkdir(parents=True)
    (trusted / ".claude" / "agents" / "code-reviewer.md").write_text(REVIEWER_FIXTURE.read_text())
    files = working_tree_files(trusted)
    definitions, warnings = load_trusted_definitions(files.read, files.list_dir, files.label)
    harness.write("calc.py", "def add(a, b):\n    return a - b\n")

    session = harness.session(allow=("Read",), agent_definitions=definitions)
    outcome, cassette = await harness.run("custom_agent", session)

    assert warnings == [] and outcome.stop.reason == "completed" and cassette.all_played
    parent, child = harness.request(0), harness.request(1)
    agent_tool = next(t for t in parent["tools"] if t["name"] == "Agent")
    assert "- code-reviewer: Reviews code changes for correctness" in agent_tool["description"]
    assert "You are a focused code reviewer for the 1Code desktop app." in child["system"][0]["text"]
    assert sorted(t["name"] for t in child["tools"]) == ["Bash", "Glob", "Grep", "Read"]
    assert child["model"] == "claude-sonnet-5-5"  # the definition's `model: sonnet`
    result = outcome.messages[2]["content"][0]
    assert not result.get("is_error") and "add() subtracts instead of adding" in result["content"]
