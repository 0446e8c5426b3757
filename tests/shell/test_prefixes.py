"""Stable prefixes and rule suggestions (seeds 4.6.2 step 4)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Ask
from bot.shell.api import suggest_rules
from bot.shell.judge.prefixes import command_prefix, merge_suggestions, suggestion_for
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "words", "prefix"),
    [
        ("git subcommand", ["git", "commit", "-m", "fix typo"], "git commit"),
        ("npm run", ["npm", "run", "build"], "npm run"),
        ("a flag is not a subcommand", ["ls", "-la"], None),
        ("a file is not a subcommand", ["cat", "README.md"], None),
        ("bare shell", ["bash", "-c", "rm -rf /"], None),
        ("sudo", ["sudo", "apt-get", "install"], None),
        ("env", ["env", "make"], None),
        ("xargs", ["xargs", "rm"], None),
        ("python -m module", ["python", "-m", "pytest", "-q"], "python -m pytest"),
        ("python script", ["python", "x.py"], None),
        ("single word", ["make"], None),
    ],
)
def test_the_two_word_prefix(description: str, words: list[str], prefix: str | None) -> None:
    assert command_prefix(words) == prefix, description


@pytest.mark.parametrize(
    ("description", "words", "suggestion"),
    [
        ("prefix rule", ["git", "commit", "-m", "x"], "Bash(git commit:*)"),
        ("exact rule with quoting", ["ls", "-la", "my dir"], "Bash(ls -la 'my dir')"),
        ("no rule for a bare shell", ["bash", "-c", "id"], None),
        ("no rule for run-time values", ["cat", "\ue000"], None),
        ("no rule for a very long command", ["cat", "x" * 300], None),
    ],
)
def test_the_suggested_rule(description: str, words: list[str], suggestion: str | None) -> None:
    assert suggestion_for(words) == suggestion, description


def test_suggestions_are_deduplicated_and_capped_at_five() -> None:
    merged = merge_suggestions(["a", "b", "a", None, "c", "d", "e", "f", "g"])
    assert merged == ("a", "b", "c", "d", "e")


def test_a_compound_command_suggests_one_rule_per_subcommand() -> None:
    assert suggest_rules("cd src && npm run build && ls -la") == ("Bash(npm run:*)", "Bash(ls -la)")


def test_the_denial_carries_the_suggestions(check: Check) -> None:
    result = check("git status && npm run build", allow=["Bash(git status:*)"])
    assert isinstance(result, Ask)
    assert result.suggestions == ("Bash(npm run:*)",)


def test_the_suggestion_for_a_wrapped_command_is_for_the_inner_program(check: Check) -> None:
    result = check("timeout 60 cargo test --all", allow=[])
    assert isinstance(result, Ask) and result.suggestions == ("Bash(cargo test:*)",)
    result = check("sudo apt-get install -y jq", allow=[])
    assert isinstance(result, Ask) and result.suggestions == ("Bash(sudo apt-get install:*)",)
