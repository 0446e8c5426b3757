"""Precision on real commands: what the analysis can prove harmless at decision time is allowed
under the rule the command names, and the attack each relaxation could open stays denied."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision

GIT = ["Bash(git status:*)", "Bash(git log:*)", "Bash(git diff:*)", "Bash(python3:*)", "Bash(mkdir:*)", "Edit"]


@pytest.mark.parametrize(
    "command",
    [
        "cd src && git status",
        "cd sub/deeper && git log --oneline -3",
        "git -C src status --short",
        "cd docs && git diff --stat",
        "cd src; git status",
    ],
)
def test_git_in_a_subdirectory_without_a_repository_is_the_workspaces_git(ws: Path, command: str) -> None:
    assert isinstance(final_decision(command, context_for(ws, GIT)), Allow)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("cd evil && git status", "a bare repository (HEAD, config with core.fsmonitor)"),
        ("git -C worktree status", "a .git file pointing at another git directory"),
        ("python3 mk.py && cd src && git status", "an earlier command may have made src/.git"),
        ("echo 'ref: refs/heads/main' > src/HEAD; cd src && git status", "an earlier redirection wrote HEAD"),
        ("cd src && git status & python3 mk.py", "a job alongside may make src/.git first"),
        ("(cd src && git log) | python3 mk.py", "a pipeline's parts run at the same time"),
        ("cd .. && git status", "outside the workspace"),
    ],
)
def test_git_where_a_repository_exists_or_may_appear_is_not_approved(ws: Path, command: str, why: str) -> None:
    assert not isinstance(final_decision(command, context_for(ws, GIT)), Allow), why


def test_a_repository_made_by_an_earlier_bash_call_is_seen_at_decision_time(ws: Path) -> None:
    (ws / "sub" / "deeper" / ".git").write_text("gitdir: ../../modgit\n")
    try:
        assert not isinstance(final_decision("cd sub/deeper && git status", context_for(ws, GIT)), Allow)
        # above it, git does not look into sub/deeper
        assert isinstance(final_decision("cd sub && git status", context_for(ws, GIT)), Allow)
    finally:
        (ws / "sub" / "deeper" / ".git").unlink()


@pytest.mark.parametrize(
    "command",
    ["cd src && git log --oneline | head -5", "git -C docs diff --stat 2>&1 | tail -1", "cd src && git status | cat"],
)
def test_git_in_a_subdirectory_piped_into_filters_that_write_nothing(ws: Path, command: str) -> None:
    assert isinstance(
        final_decision(command, context_for(ws, [*GIT, "Bash(head:*)", "Bash(tail:*)", "Bash(cat:*)"])), Allow
    )


@pytest.mark.parametrize(
    "command",
    [
        "cd src && git log | tee src/HEAD",
        "cd src && git log | head > HEAD",
        "(cd src && git status) | git init src",
    ],
)
def test_a_pipeline_part_that_writes_alongside_git_in_a_subdirectory_is_not_approved(ws: Path, command: str) -> None:
    allow = [*GIT, "Bash(head:*)", "Bash(tee:*)", "Bash(git init:*)"]
    assert not isinstance(final_decision(command, context_for(ws, allow)), Allow)
