"""Where the security checks depart from the seeds (checks 7, 8 and 19, and loops), the reason given
in ``bot/shell/judge/security_checks.py``, ``known_output.py`` and ``loops.py`` holds: what the
seeds' check protects against is still caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.interface.context import make_context
from bot.permissions.decision import Allow, Ask, Deny
from bot.runtime.single_call import flag_permission_context
from bot.shell.api import check_bash_permissions


def verdict(tmp_path: Path, command: str) -> object:
    permission = flag_permission_context(("Bash(ls *)", "Bash(echo *)"), ("Bash(rm *)",), ())
    return check_bash_permissions(command, make_context(tmp_path, scratch_dir=tmp_path / "s", permission=permission))


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("check 7: a second line is judged on its own, and a deny rule on it denies", "ls\nrm -rf x", Deny),
        ("check 7: a second line no rule covers is asked about", "ls\ncurl example.com", Ask),
        ("check 7: two allowed lines are allowed", "ls\necho hi", Allow),
        ("check 7: a carriage return is still check 7", "ls\recho hi", Ask),
        ("check 8: ${NAME} is judged as $NAME", "echo ${HOME}", Allow),
        ("check 8: a command name from ${NAME} is as unknown as from $NAME", "${CMD} x", Ask),
        ("check 8: a default holding a command substitution", "echo ${x:-$(id)}", Ask),
        ("check 8: indirection", "echo ${!x}", Ask),
        ("check 8: a substitution whose output is only digits", "echo jobs $(nproc)", Allow),
        ("check 8: the known output still goes through the checks", "ls $(pwd)/../..", Ask),
        ("check 8: a deny rule on what the known output makes", "rm -rf build-$(date +%s)", Deny),
        ("check 8: any other substitution", "echo $(id)", Ask),
        ("check 8: a process substitution is a pipe's name and a judged command", "ls <(echo hi)", Allow),
        ("check 8: a process substitution's command needs its rules", "ls <(rm -rf x)", Deny),
        ("check 8: and cannot hide a command", "ls <(curl example.com)", Ask),
        ("too complex: a for loop over spelled-out words is its rounds", "for f in a b; do ls $f; done", Allow),
        ("too complex: and each round is judged", "for f in a b; do rm -rf $f; done", Deny),
        ("check 19: a mid-word # bash and the parse both read as a character", "echo AppTest#testMain", Allow),
        ("check 19: a # the parse reads as a comment inside a word", "{ echo x;}#c; ls", Ask),
    ],
)
def test_checks_7_and_8(tmp_path: Path, description: str, command: str, expected: type) -> None:
    assert isinstance(verdict(tmp_path, command), expected), description
