"""Writes into .git (at any depth) and .github/workflows are refused unless the policy allows them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.permissions.decision import Deny, Passthrough
from bot.tools.context import make_context
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
