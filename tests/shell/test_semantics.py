"""Exit codes by command (seeds 4.6.7)."""

from __future__ import annotations

import pytest

from bot.shell.api import interpret_exit_code


@pytest.mark.parametrize(
    ("description", "command", "code", "is_error", "message"),
    [
        ("success", "make", 0, False, None),
        ("grep no match", "grep foo README.md", 1, False, "No matches found"),
        ("rg no match", "rg foo", 1, False, "No matches found"),
        ("git grep no match", "git grep foo", 1, False, "No matches found"),
        ("grep error", "grep foo missing", 2, True, None),
        ("diff differences", "diff a b", 1, False, "Files differ"),
        ("git diff --exit-code", "git diff --exit-code", 1, False, "Files differ"),
        ("test false", "test -f x", 1, False, "Condition is false"),
        ("[ false", "[ -f x ]", 1, False, "Condition is false"),
        ("[[ false", "[[ -n '' ]]", 1, False, "Condition is false"),
        ("find partial", "find / -name x", 1, False, None),
        ("last command decides", "cd src && grep x f", 1, False, "No matches found"),
        ("behind a wrapper", "timeout 10 grep x f", 1, False, "No matches found"),
        ("timed out", "timeout 1 sleep 5", 124, True, "Command timed out"),
        ("not found", "nosuchcmd", 127, True, "Command not found: nosuchcmd"),
        ("killed", "sleep 100", 137, True, "Command was terminated by SIGKILL"),
        ("ordinary failure", "make test", 2, True, "Command make exited with code 2"),
    ],
)
def test_exit_codes_are_interpreted_by_command(
    description: str, command: str, code: int, is_error: bool, message: str | None
) -> None:
    result = interpret_exit_code(command, code)
    assert result.is_error is is_error, description
    if message is not None:
        assert result.message == message, description
