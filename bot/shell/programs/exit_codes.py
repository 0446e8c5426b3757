"""Exit codes by command (seeds 4.6.7 ``commandSemantics``): ``grep`` 1 is "no match", not a failure.

A pure function of the command and its exit code; the Bash tool's execution uses it to decide
whether the result is an error for the model. The command that decides the exit status is the last
one that runs: the last simple command of the top-level list (behind wrappers such as ``timeout``).
"""

from __future__ import annotations

import shlex
import signal
from dataclasses import dataclass

from bot.shell.launch.wrappers import unwrap
from bot.shell.parse.syntax import Parsed, Word
from bot.shell.parse.walk import parse_command
from bot.shell.programs.flags import git_subcommand_index


@dataclass(frozen=True, slots=True)
class ExitInterpretation:
    is_error: bool
    #: A note for the model, e.g. "No matches found" for grep's exit code 1.
    message: str | None = None


_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "pgrep"})
_DIFFERS = frozenset({"diff", "cmp", "colordiff"})
_TESTS = frozenset({"test", "[", "[["})


def _last_argv(command: str) -> list[str]:
    outcome = parse_command(command)
    if isinstance(outcome, Parsed) and outcome.commands:
        argv: tuple[Word, ...] = outcome.commands[-1].argv
        if outcome.commands[-1].kind == "test":
            return ["["]
        for _ in range(6):
            inners = [i for i in unwrap(argv) if i.kind == "transparent" and i.argv is not None]
            if not inners:
                break
            argv = inners[0].argv or ()
        return [w.value for w in argv]
    try:
        return shlex.split(command.strip().splitlines()[-1]) if command.strip() else []
    except ValueError:
        return command.split()


def interpret_exit_code(command: str, exit_code: int, stdout: str = "", stderr: str = "") -> ExitInterpretation:
    if exit_code == 0:
        return ExitInterpretation(False)
    argv = _last_argv(command)
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    if program in _SEARCHERS or (program == "git" and _git_sub(argv) == "grep"):
        if exit_code == 1:
            return ExitInterpretation(False, "No matches found")
    elif program in _DIFFERS or (program == "git" and _git_sub(argv) == "diff"):
        if exit_code == 1:
            return ExitInterpretation(False, "Files differ")
    elif program in _TESTS:
        if exit_code == 1:
            return ExitInterpretation(False, "Condition is false")
    elif program == "find" and exit_code == 1:
        return ExitInterpretation(False, "Some directories could not be searched (partial results)")
    if exit_code == 124 and command.lstrip().startswith(("timeout", "gtimeout")):
        return ExitInterpretation(True, "Command timed out")
    if exit_code == 127:
        return ExitInterpretation(True, f"Command not found: {program}" if program else "Command not found")
    if exit_code == 126:
        return ExitInterpretation(True, f"Command is not executable: {program}")
    if 128 < exit_code < 128 + 65:
        try:
            name = signal.Signals(exit_code - 128).name
        except ValueError:
            name = f"signal {exit_code - 128}"
        return ExitInterpretation(True, f"Command was terminated by {name}")
    return ExitInterpretation(True, f"Command {program} exited with code {exit_code}".replace("  ", " "))


def _git_sub(argv: list[str]) -> str:
    words = [Word(v, v) for v in argv]
    sub = git_subcommand_index(words)
    return argv[sub] if sub is not None else ""
