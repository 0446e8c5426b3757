"""Confinement, for every file tool: the workspace (and the policy's additional directories)
only, symlinks resolved first, `..` folded, device files refused, `.git/` and workflows
read-only unless the policy says otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Deny
from tests.tools.helpers import decide_tool, permission_context, run_tool

ALL = ("Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    (ws / ".git").mkdir(parents=True)
    (ws / ".github" / "workflows").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("TOKEN=abc\n")
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside)
    (ws / "ok.txt").write_text("fine\n")
    return ws, outside


def ctx(ws: Path, tmp_path: Path, **kwargs: Any) -> ToolUseContext:
    base = permission_context(allow=ALL)
    permission = PermissionContext(allow=base.allow, **kwargs)
    return make_context(ws, scratch_dir=tmp_path / "scratch", permission=permission)


def calls(path: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("Read", {"file_path": path}),
        ("Edit", {"file_path": path, "old_string": "TOKEN", "new_string": "X"}),
        ("Write", {"file_path": path, "content": "x"}),
        ("NotebookEdit", {"notebook_path": path, "cell_id": "a", "new_source": "x"}),
        ("Grep", {"pattern": "TOKEN", "path": path}),
        ("Glob", {"pattern": "*", "path": path}),
    ]


@pytest.mark.parametrize(
    ("description", "path"),
    [
        ("a symlink to a file outside", "link.txt"),
        ("a path through a symlinked directory", "linkdir/secret.txt"),
        ("a .. escape", "../outside/secret.txt"),
        ("a .. escape from inside a subdirectory", "sub/../../outside/secret.txt"),
    ],
)
def test_escapes_are_denied_for_every_file_tool(
    tree: tuple[Path, Path], tmp_path: Path, description: str, path: str
) -> None:
    ws, outside = tree
    context = ctx(ws, tmp_path)
    for name, raw in calls(path):
        if name == "Glob":
            raw = {"pattern": "*", "path": str(Path(path).parent) if "/" in path else path}
        decision = decide_tool(context, name, raw)
        assert isinstance(decision, Deny) and "outside the workspace" in decision.reason, (name, decision)
        outcome = run_tool(context, name, raw)
        assert outcome.result.is_error, (name, outcome.result.text)
        assert "TOKEN=abc" not in outcome.result.text
    assert (outside / "secret.txt").read_text() == "TOKEN=abc\n"


def test_an_absolute_path_outside_is_denied_and_inside_is_fine(tree: tuple[Path, Path], tmp_path: Path) -> None:
    ws, outside = tree
    context = ctx(ws, tmp_path)
    denied = run_tool(context, "Read", {"file_path": str(outside / "secret.txt")})
    assert denied.result.is_error and "outside the workspace" in denied.result.text
    allowed = run_tool(context, "Read", {"file_path": str(ws / "ok.txt")})
    assert not allowed.result.is_error and "fine" in allowed.result.text


def test_an_additional_directory_is_reachable(tree: tuple[Path, Path], tmp_path: Path) -> None:
    ws, outside = tree
    context = ctx(ws, tmp_path, additional_directories=(outside.resolve(),))
    assert "TOKEN=abc" in run_tool(context, "Read", {"file_path": str(outside / "secret.txt")}).result.text
    found = run_tool(context, "Grep", {"pattern": "TOKEN", "path": str(outside)})
    assert str(outside.resolve() / "secret.txt") in found.result.text


@pytest.mark.parametrize(
    ("description", "path", "setting"),
    [
        ("the git directory", ".git/config", "allow_git_dir_writes"),
        ("a workflow", ".github/workflows/ci.yml", "allow_workflow_writes"),
    ],
)
def test_protected_directories_are_read_only_unless_the_policy_allows(
    tree: tuple[Path, Path], tmp_path: Path, description: str, path: str, setting: str
) -> None:
    ws, _ = tree
    denied = run_tool(ctx(ws, tmp_path), "Write", {"file_path": path, "content": "x"})
    assert denied.result.is_error and "not allowed unless the policy allows them" in denied.result.text
    assert not (ws / path).exists()
    allowed = run_tool(ctx(ws, tmp_path, **{setting: True}), "Write", {"file_path": path, "content": "x"})
    assert not allowed.result.is_error and (ws / path).read_text() == "x"


def test_a_symlink_inside_the_workspace_to_a_file_inside_is_followed(tree: tuple[Path, Path], tmp_path: Path) -> None:
    ws, _ = tree
    (ws / "alias.txt").symlink_to(ws / "ok.txt")
    context = ctx(ws, tmp_path)
    run_tool(context, "Read", {"file_path": "alias.txt"})
    outcome = run_tool(context, "Edit", {"file_path": "alias.txt", "old_string": "fine", "new_string": "good"})
    assert not outcome.result.is_error, outcome.result.text
    assert (ws / "ok.txt").read_text() == "good\n" and (ws / "alias.txt").is_symlink()
