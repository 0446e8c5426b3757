"""A program's colour switch in front of a command (``CARGO_TERM_COLOR=always cargo test``) leaves
the command under its rule; what else an assignment can do still keeps it from matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from bot.shell.parse.assignments import is_safe_env_var
from tests.shell.conftest import context_for, final_decision

RULES = ["Bash(cargo:*)", "Bash(make:*)", "Bash(pytest:*)"]


@pytest.mark.parametrize(
    "command",
    [
        "CARGO_TERM_COLOR=always cargo test",
        "RICHGO_FORCE_COLOR=1 make test",
        "PY_COLORS=1 pytest -q",
        "MYPY_FORCE_COLOR=1 CLICOLOR_FORCE=1 pytest",
        "export CARGO_TERM_COLOR=always; cargo build",
    ],
)
def test_a_colour_switch_leaves_the_command_under_its_rule(ws: Path, command: str) -> None:
    assert isinstance(final_decision(command, context_for(ws, RULES)), Allow)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("CARGO_TERM_COLOR=$(touch pwned) cargo test", "a substitution in the value runs"),
        ("CARGO_TERM_COLOR=`touch pwned` cargo test", "backquotes in the value run"),
        ("LD_PRELOAD=/tmp/x.so CARGO_TERM_COLOR=1 cargo test", "another assignment loads code"),
        ("CARGO_TERM_COLOR=1 RUSTC_WRAPPER=/tmp/x cargo test", "another assignment names a program"),
        ("CARGO_TERM_COLOR=1 cargo --config 'target.x.runner=\"sh\"' test", "the command's own option"),
    ],
)
def test_what_else_an_assignment_does_still_counts(ws: Path, command: str, why: str) -> None:
    assert not isinstance(final_decision(command, context_for(ws, RULES)), Allow), why


@pytest.mark.parametrize(
    "name",
    ["GIT_CONFIG_KEY_0", "GIT_CONFIG_COUNT", "COLORTERM_X", "CARGO_COLOR_CMD", "PAGER", "LESSOPEN", "color"],
)
def test_only_a_name_that_ends_in_the_colour_word_is_a_colour_switch(name: str) -> None:
    assert not is_safe_env_var(name)
