"""The read-only grant for persisted results: the model can Read and Grep exactly the files the bot
told it to read, and nothing else in the scratch directory."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext
from bot.permissions.decision import Allow, Deny
from bot.runtime.results import persist_content
from tests.tools.helpers import context_for, decide_tool, run_tool

BIG = "".join(f"line {i}: needle-{i}\n" for i in range(5_000))


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolUseContext:
    (workspace / "a.txt").write_text("workspace file\n")
    return context_for(workspace, tmp_path / "scratch")


def persisted_path(ctx: ToolUseContext, tool_use_id: str = "toolu_big") -> str:
    """Persist a large result the way the pipeline does and return the path the preview names."""
    preview = persist_content(BIG, tool_use_id, ctx.scratch_dir)
    assert isinstance(preview, str)
    match = re.search(r"Full output saved to: (\S+)", preview)
    assert match is not None
    return match.group(1)


def test_the_model_can_read_the_file_the_preview_names(ctx: ToolUseContext) -> None:
    path = persisted_path(ctx)
    outcome = run_tool(ctx, "Read", {"file_path": path, "offset": 4_000, "limit": 3})
    assert not outcome.result.is_error, outcome.result.text
    assert "line 3999: needle-3999" in outcome.result.text
    assert "4002\tline 4001: needle-4001" in outcome.result.text


def test_the_model_can_grep_the_file_the_preview_names(ctx: ToolUseContext) -> None:
    path = persisted_path(ctx)
    outcome = run_tool(ctx, "Grep", {"pattern": "needle-4321$", "path": path, "output_mode": "content"})
    assert not outcome.result.is_error, outcome.result.text
    assert "line 4321: needle-4321" in outcome.result.text


def test_a_relative_path_to_the_persisted_file_works_too(ctx: ToolUseContext) -> None:
    path = Path(persisted_path(ctx))
    relative = os.path.relpath(path, ctx.workspace)
    assert isinstance(decide_tool(ctx, "Read", {"file_path": relative}), Allow)


def _secret(ctx: ToolUseContext) -> Path:
    secret = ctx.scratch_dir / "transcript.jsonl"
    secret.write_text("the run's transcript: not for the model\n")
    return secret


def _attack_paths(ctx: ToolUseContext) -> dict[str, str]:
    """Paths a grant wider than 'exactly the persisted files' would let through."""
    granted = Path(persisted_path(ctx))
    directory = granted.parent
    secret = _secret(ctx)
    (directory / "toolu_link.txt").symlink_to(secret)
    os.link(secret, directory / "toolu_hard.txt")
    (directory / "notes.json").write_text("{}")
    (ctx.workspace / "into-results").symlink_to(directory)
    sandbox_tmp = ctx.scratch_dir / "sandbox" / "tmp"
    sandbox_tmp.mkdir(parents=True)
    (sandbox_tmp / "x.txt").write_text("written by a command\n")
    return {
        "another file of the scratch directory": str(secret),
        "a symbolic link in tool-results to another scratch file": str(directory / "toolu_link.txt"),
        "a hard link in tool-results to another scratch file": str(directory / "toolu_hard.txt"),
        "'..' out of tool-results": f"{directory}/../transcript.jsonl",
        "a file of tool-results the bot does not write": str(directory / "notes.json"),
        "the persisted file through a link in the workspace": str(ctx.workspace / "into-results" / granted.name),
        "the sandbox's own corner of the scratch directory": str(sandbox_tmp / "x.txt"),
        "the tool-results directory itself": str(directory),
    }


@pytest.mark.parametrize(
    "attack",
    [
        "another file of the scratch directory",
        "a symbolic link in tool-results to another scratch file",
        "a hard link in tool-results to another scratch file",
        "'..' out of tool-results",
        "a file of tool-results the bot does not write",
        "the persisted file through a link in the workspace",
        "the sandbox's own corner of the scratch directory",
    ],
)
def test_nothing_but_the_persisted_files_is_readable(ctx: ToolUseContext, attack: str) -> None:
    path = _attack_paths(ctx)[attack]
    outcome = run_tool(ctx, "Read", {"file_path": path})
    assert outcome.result.is_error, attack
    assert "transcript: not for the model" not in outcome.result.text
    assert isinstance(decide_tool(ctx, "Read", {"file_path": path}), Deny), attack


def test_grep_of_the_whole_directory_is_not_granted(ctx: ToolUseContext) -> None:
    path = _attack_paths(ctx)["the tool-results directory itself"]
    outcome = run_tool(ctx, "Grep", {"pattern": "transcript", "path": path, "output_mode": "content"})
    assert outcome.result.is_error
    assert "not for the model" not in outcome.result.text


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        ("Write", {"content": "overwritten"}),
        ("Edit", {"old_string": "needle-1\n", "new_string": "changed\n"}),
    ],
)
def test_the_grant_is_read_only(ctx: ToolUseContext, tool: str, raw: dict[str, str]) -> None:
    path = persisted_path(ctx)
    run_tool(ctx, "Read", {"file_path": path, "limit": 3})
    outcome = run_tool(ctx, tool, {"file_path": path, **raw}, tool_use_id="toolu_w")
    assert outcome.result.is_error
    assert Path(path).read_text() == BIG


def test_deny_rules_still_apply_to_persisted_files(workspace: Path, tmp_path: Path) -> None:
    scratch = (tmp_path / "scratch").resolve()
    ctx = context_for(workspace, scratch, deny=[f"Read(/{scratch}/**)"])
    path = persisted_path(ctx)
    decision = decide_tool(ctx, "Read", {"file_path": path})
    assert isinstance(decision, Deny)
    assert decision.source == "rule"
