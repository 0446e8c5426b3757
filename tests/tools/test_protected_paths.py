"""Writes into .git (at any depth) and .github/workflows are refused unless the policy allows them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.interface.context import make_context
from bot.permissions.decision import Deny, Passthrough
from bot.tools.paths import check_path_access


@pytest.mark.parametrize(
    ("description", "path", "denied"),
    [
        ("the workspace's .git/config", ".git/config", True),
        ("a hook", ".git/hooks/pre-commit", True),
        ("a nested repository's config", "vendor/lib/.git/config", True),
        ("a workflow", ".github/workflows/ci.yml", True),
        ("an ordinary file", "src/app.py", False),
        ("a file named like .gitignore", ".gitignore", False),
        ("a directory merely starting with .git", ".github/CODEOWNERS", False),
    ],
)
def test_protected_writes(tmp_path: Path, description: str, path: str, denied: bool) -> None:
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")
    decision = check_path_access(path, context, write=True)
    assert isinstance(decision, Deny) is denied, description
    assert isinstance(check_path_access(path, context), Passthrough), "reading is not a write"


def test_the_policy_can_allow_git_dir_writes(tmp_path: Path) -> None:
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")
    allowed = context.with_(permission=replace(context.permission, allow_git_dir_writes=True))
    assert isinstance(check_path_access("vendor/.git/config", allowed, write=True), Passthrough)


def test_a_git_directory_outside_dot_git_is_protected(workspace: Path, tmp_path: Path) -> None:
    # A worktree or submodule checkout has a `.git` file (`gitdir: ../../modgit`) whose target
    # holds config and hooks that git runs.
    from bot.tools.paths import protected_write_reason
    from tests.tools.helpers import context_for as tools_context

    (workspace / "vendor" / "lib").mkdir(parents=True)
    (workspace / "vendor" / "lib" / ".git").write_text("gitdir: ../../modgit\n")
    for sub in ("hooks", "objects", "refs"):
        (workspace / "modgit" / sub).mkdir(parents=True)
    (workspace / "modgit" / "HEAD").write_text("ref: refs/heads/main\n")
    context = tools_context(workspace, tmp_path / "scratch")
    hook = (workspace / "modgit" / "hooks" / "pre-commit").resolve()
    assert protected_write_reason(hook, context) is not None
    assert protected_write_reason((workspace / "modgit" / "config").resolve(), context) is not None
    assert protected_write_reason((workspace / "vendor" / "lib" / "x.py").resolve(), context) is None
