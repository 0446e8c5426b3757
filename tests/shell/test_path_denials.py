"""Read/Edit deny rules hold for the paths shell commands use (red team round 3: the read-only
preset's git rules printed files its Read deny rules hid)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow, Deny
from tests.shell.conftest import Check, context_for, final_decision


@pytest.mark.parametrize(
    ("description", "command", "allow", "deny"),
    [
        ("cat a denied file", "cat .env", ["Bash(cat:*)"], ["Read(.env)"]),
        ("git diff --no-index prints it", "git diff --no-index .env /dev/null", ["Bash(git diff:*)"], ["Read(.env)"]),
        ("git blame --contents reads it", "git blame --contents=.env README.md", ["Bash(git blame:*)"], ["Read(.env)"]),
        ("an input redirection", "wc -l < .env", ["Bash(wc:*)"], ["Read(.env)"]),
        ("git show of the file's blob", "git show HEAD:.env", ["Bash(git show:*)"], ["Read(.env)"]),
        ("git show from the index", "git show :.env", ["Bash(git show:*)"], ["Read(.env)"]),
        ("a glob that matches it", "cat src/app.p?", ["Bash(cat:*)"], ["Read(src/app.py)"]),
        ("a directory pattern", "head src/app.py", ["Bash(head:*)"], ["Read(src/**)"]),
        ("a write under an Edit deny rule", "echo x > src/new.py", ["Bash(echo:*)", "Edit"], ["Edit(src/**)"]),
        ("cp into a denied directory", "cp README.md src/x", ["Bash(cp:*)", "Edit"], ["Edit(src/**)"]),
    ],
)
def test_path_deny_rules_apply_to_shell_commands(
    check: Check, description: str, command: str, allow: list[str], deny: list[str]
) -> None:
    result = check(command, allow=allow, deny=deny)
    assert isinstance(result, Deny), (description, result)
    assert "deny rule" in result.reason


@pytest.mark.parametrize(
    ("description", "command", "allow", "deny"),
    [
        ("another file", "cat README.md", ["Bash(cat:*)"], ["Read(.env)"]),
        ("reading under an Edit-only deny rule", "cat src/app.py", ["Bash(cat:*)"], ["Edit(src/**)"]),
        ("a glob that does not reach it", "cat docs/*", ["Bash(cat:*)"], ["Read(src/**)"]),
    ],
)
def test_other_paths_stay_allowed(
    check: Check, description: str, command: str, allow: list[str], deny: list[str]
) -> None:
    assert isinstance(check(command, allow=allow, deny=deny, mode="acceptEdits"), Allow), description


@pytest.mark.parametrize(
    ("description", "command", "allow", "deny", "allowed"),
    [
        ("grep -r over a directory holding it", "grep -r x .", ["Bash(grep:*)"], ["Read(src/app.py)"], False),
        ("rg reads its working directory", "rg x", ["Bash(rg:*)"], ["Read(src/**)"], False),
        ("tar of the workspace", "tar czf o.tgz .", ["Bash(tar:*)", "Edit"], ["Read(src/app.py)"], False),
        (
            "find -exec cat over it",
            "find . -name app.py -exec cat {} +",
            ["Bash(find:*)", "Bash(cat:*)"],
            ["Read(src/app.py)"],
            False,
        ),
        ("grep -r over another directory", "grep -r x docs", ["Bash(grep:*)"], ["Read(src/app.py)"], True),
        ("grep of one file", "grep x README.md", ["Bash(grep:*)"], ["Read(src/app.py)"], True),
        ("grep -r without deny rules", "grep -r x .", ["Bash(grep:*)"], [], True),
        ("rg leaves hidden files out", "rg x", ["Bash(rg:*)"], ["Read(.env)"], True),
        ("rg --hidden reads them", "rg --hidden x", ["Bash(rg:*)"], ["Read(.env)"], False),
        ("rg -uu reads them", "rg -uu x", ["Bash(rg:*)"], ["Read(.env)"], False),
    ],
)
def test_recursive_reads_hold_nothing_a_read_deny_rule_covers(
    check: Check, description: str, command: str, allow: list[str], deny: list[str], allowed: bool
) -> None:
    # Red team round 4: `grep -r SECRET .` read `.env` without naming it.
    assert isinstance(check(command, allow=allow, deny=deny, mode="acceptEdits"), Allow) is allowed, description


@pytest.mark.parametrize(
    "command",
    [
        "mv .env src/",
        "mv .env src/x",
        "mv -t src .env",
        "ln .env src/x",
        "cp -l .env src/x",
        "link .env src/x",
        "mv -b README.md .env",  # the replaced .env is kept as .env~
        "cp --backup -S .bak README.md .env",
        "ln -sb README.md .env",
        "mv secrets src/",  # what lies below a moved directory
    ],
)
def test_a_read_denied_file_is_not_moved_or_hard_linked_under_a_readable_name(ws: Path, command: str) -> None:
    rules = ["Bash(mv:*)", "Bash(ln:*)", "Bash(cp:*)", "Bash(link:*)", "Edit"]
    decision = final_decision(command, context_for(ws, rules, deny=["Read(.env)", "Read(secrets/**)"]))
    assert not isinstance(decision, Allow), command


@pytest.mark.parametrize("command", ["mv README.md docs/", "ln -s ../README.md src/r", "ln src/app.py src/hard"])
def test_moving_and_linking_readable_files_stays_allowed(ws: Path, command: str) -> None:
    rules = ["Bash(mv:*)", "Bash(ln:*)", "Edit"]
    assert isinstance(final_decision(command, context_for(ws, rules, deny=["Read(.env)"])), Allow), command
