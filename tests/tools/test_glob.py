"""Glob: rg's file list, .gitignore honoured, newest first, at most 100, relative paths."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.tools.context import ToolUseContext
from bot.tools.glob import MAX_GLOB_RESULTS, GlobInput, GlobTool, glob_root
from tests.tools.helpers import call, context_for, run_tool

GLOB = GlobTool()


def touch(path: Path, mtime: int = 1_700_000_000, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


@pytest.fixture
def repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / ".gitignore").write_text("build/\n*.log\n")
    touch(workspace / "src" / "a.py", 1_700_000_300)
    touch(workspace / "src" / "pkg" / "b.py", 1_700_000_200)
    touch(workspace / "tests" / "test_a.py", 1_700_000_100)
    touch(workspace / "build" / "gen.py")
    touch(workspace / "debug.log")
    touch(workspace / ".hidden" / "c.py", 1_700_000_050)
    touch(workspace / ".git" / "hooks" / "x.py")
    return workspace


def names(out: str) -> list[str]:
    return [] if out == "No files found" else out.splitlines()


@pytest.mark.parametrize(
    ("description", "pattern", "path", "expected"),
    [
        ("a name pattern finds files at any depth, newest first", "*.py", None,
         ["src/a.py", "src/pkg/b.py", "tests/test_a.py", ".hidden/c.py"]),
        ("a double star prefix is the same", "**/*.py", None,
         ["src/a.py", "src/pkg/b.py", "tests/test_a.py", ".hidden/c.py"]),
        ("a literal directory prefix narrows the walk", "src/**/*.py", None, ["src/a.py", "src/pkg/b.py"]),
        ("a directory pattern is anchored", "src/*.py", None, ["src/a.py"]),
        ("a pattern with directories after a wildcard", "*/pkg/*.py", None, ["src/pkg/b.py"]),
        ("the path parameter is the root", "*.py", "src", ["src/a.py", "src/pkg/b.py"]),
        ("gitignored files never show, even when named", "*.log", None, []),
        ("gitignored directories never show under a wildcard", "**/gen.py", None, []),
        ("a directory named explicitly is searched, as rg searches paths it is given", "build/*.py", None,
         ["build/gen.py"]),
        ("nothing matches", "*.rs", None, []),
    ],
)
def test_glob_results(repo: Path, context: ToolUseContext, description: str, pattern: str, path: str | None,
                      expected: list[str]) -> None:
    raw = {"pattern": pattern} | ({"path": path} if path else {})
    assert names(call(GLOB, context, **raw)) == expected


def test_the_git_directory_is_never_listed(repo: Path, context: ToolUseContext) -> None:
    assert not any(".git/" in n for n in names(call(GLOB, context, pattern="**/*")))


def test_an_absolute_pattern_inside_the_workspace_gives_relative_paths(repo: Path, context: ToolUseContext) -> None:
    assert names(call(GLOB, context, pattern=f"{repo}/src/*.py")) == ["src/a.py"]


def test_more_than_100_files_are_truncated_newest_first(workspace: Path, context: ToolUseContext) -> None:
    for i in range(130):
        touch(workspace / "many" / f"f{i:03}.txt", 1_700_000_000 + i)
    out = call(GLOB, context, pattern="*.txt")
    lines = out.splitlines()
    assert lines[0] == "many/f129.txt" and lines[MAX_GLOB_RESULTS - 1] == "many/f030.txt"
    assert lines[-1].startswith("(Results are truncated")


def test_a_pattern_prefix_that_names_no_directory_finds_nothing(workspace: Path, context: ToolUseContext) -> None:
    assert call(GLOB, context, pattern="nowhere/*.py") == "No files found"


def test_the_literal_prefix_of_a_pattern_is_what_confinement_checks(workspace: Path, context: ToolUseContext) -> None:
    base, rest = glob_root(GlobInput(pattern="../other/**/*.py"), context)
    assert base == workspace.parent / "other" and rest == "**/*.py"
    ctx = context_for(workspace, workspace.parent / "s", allow=("Glob",))
    outcome = run_tool(ctx, "Glob", {"pattern": "../**/*.py"})
    assert outcome.result.is_error and "outside the workspace" in outcome.result.text


def test_glob_is_concurrency_safe_and_read_only() -> None:
    inp = GlobInput(pattern="*")
    assert GLOB.is_concurrency_safe(inp) and GLOB.is_read_only(inp) and not GLOB.is_destructive(inp)
