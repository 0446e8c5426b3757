"""Read-only and concurrency-safe classification (seeds 4.6.8)."""

from __future__ import annotations

import pytest

from bot.shell.api import is_concurrency_safe_command, is_read_only_command, search_or_read_category
from bot.shell.judge.read_only import Category


@pytest.mark.parametrize(
    ("description", "command", "read_only"),
    [
        ("search", "grep -rn TODO src", True),
        ("find", "find . -name '*.py'", True),
        ("read", "cat README.md | head -n 5", True),
        ("list", "ls -la && tree -L 2", True),
        ("neutral between reads", "ls src && echo --- && ls docs", True),
        ("git status", "git status --short", True),
        ("git log", "git log --oneline -5", True),
        ("git branch listing", "git branch -a", True),
        ("stderr to /dev/null", "ls missing 2>/dev/null", True),
        ("jq", "jq '.name' package.json", True),
        ("sed print", "sed -n '1,5p' README.md", True),
        ("write redirect", "ls > files.txt", False),
        ("rm", "rm -f x", False),
        ("sed -i", "sed -i 's/a/b/' README.md", False),
        ("find -delete", "find . -name x -delete", False),
        ("find -exec", "find . -exec cat {} \\;", False),
        ("sort -o", "sort -o out.txt in.txt", False),
        ("git commit", "git commit -m x", False),
        ("git branch creation", "git branch feature", False),
        ("git -c", "git -c core.pager=cat log", False),
        ("git log --output", "git log --output=x.txt", False),
        ("awk system", "awk 'BEGIN{system(\"id\")}'", False),
        ("rg --pre", "rg --pre ./x.sh foo", False),
        ("wrapper", "timeout 5 cat README.md", False),
        ("substitution", "cat $(ls)", False),
        ("unknown program", "make test", False),
        ("assignment", "X=1", False),
    ],
)
def test_read_only_classification(description: str, command: str, read_only: bool) -> None:
    assert is_read_only_command(command) is read_only, description


def test_cd_is_read_only_but_not_concurrency_safe() -> None:
    assert is_read_only_command("cd src && ls")
    assert not is_concurrency_safe_command("cd src && ls")
    assert is_concurrency_safe_command("ls src")


@pytest.mark.parametrize(
    ("description", "command", "category"),
    [
        ("search", "rg foo | head", Category.SEARCH),
        ("read", "cat a && wc -l a", Category.READ),
        ("list", "ls && echo --- && du -sh .", Category.LIST),
        ("only neutral", "echo hi", None),
        ("not read-only", "make", None),
    ],
)
def test_the_ui_category_skips_neutral_commands(description: str, command: str, category: Category | None) -> None:
    assert search_or_read_category(command) == category, description
