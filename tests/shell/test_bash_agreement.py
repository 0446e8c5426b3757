"""Differential tests against a real bash: whenever the analysis calls a command "simple", the words
it resolved must be the words bash passes, and every command bash runs must be one it saw.

bash runs with an empty ``PATH`` (only ``cat`` for the commit-message idiom) in a temporary
directory, and only commands without redirections and builtins are executed, so nothing the
mutated commands say can touch the machine. The fixed cases are the parser differentials these
tests found while the analysis was built; the seeded mutants keep looking for new ones.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.shell.judge.security_checks import text_findings
from bot.shell.parse.syntax import DYN, Parsed, SimpleCommand
from bot.shell.parse.walk import parse_command

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")
CORPUS = Path(__file__).parent / "corpus"
_TRACE = 'set -T; command_not_found_handle() { return 0; }; trap \'printf "%s\\0" "$BASH_COMMAND"\' DEBUG; '
_INSERTS = [*"'\"\\ $-=.,:{}*?#~\t;&|()!", "\\\n", "$'\\x41'", '"a b"', "'c d'", "\\ ", "\n", "'\\''", "&&", "||", "1"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    cwd = tmp_path_factory.mktemp("bash-cwd")
    bindir = tmp_path_factory.mktemp("bash-bin")
    os.symlink(shutil.which("cat") or "/bin/cat", bindir / "cat")
    return cwd, bindir


def _static(command: str) -> Parsed | None:
    if text_findings(command) is not None:
        return None
    outcome = parse_command(command)
    if not isinstance(outcome, Parsed) or not outcome.commands:
        return None
    for cmd in outcome.commands:
        if (
            cmd.redirects
            or cmd.kind != "command"
            or not cmd.argv
            or any(w.dynamic or w.glob or DYN in w.value or w.value.startswith("~") for w in cmd.argv)
        ):
            return None
    return outcome


def bash_words(command: str, first: str, sandbox: tuple[Path, Path]) -> list[str] | None:
    script = "f() { printf '%s\\0' \"$@\"; }; f" + command[len(first) :]
    result = subprocess.run(
        [BASH or "bash", "--norc", "--noprofile", "-c", script],
        cwd=sandbox[0],
        env={"PATH": str(sandbox[1])},
        capture_output=True,
        timeout=5,
        check=False,
    )
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def bash_programs(command: str, sandbox: tuple[Path, Path]) -> list[str]:
    result = subprocess.run(
        [BASH or "bash", "--norc", "--noprofile", "-c", _TRACE + command],
        cwd=sandbox[0],
        env={"PATH": "", "HOME": str(sandbox[0])},
        capture_output=True,
        timeout=5,
        check=False,
    )
    programs = []
    for line in result.stdout.decode("utf-8", "replace").split("\0"):
        if not line or line.startswith("return "):
            continue
        try:
            tokens = shlex.split(line)
        except ValueError:
            tokens = line.split()
        while tokens and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
            tokens.pop(0)
        if tokens:
            programs.append(tokens[0])
    return programs


COMPARED: list[str] = []


def _words_agree(command: str, sandbox: tuple[Path, Path]) -> bool:
    outcome = _static(command)
    if outcome is None or len(outcome.items) != 1 or len(outcome.commands[0].argv) < 2:
        return True  # not "simple": nothing to compare
    cmd: SimpleCommand = outcome.commands[0]
    if not command.startswith(cmd.argv[0].text):
        return True
    words = bash_words(command, cmd.argv[0].text, sandbox)
    COMPARED.append(command)
    return words is None or words == list(cmd.values[1:])


def _no_hidden_commands(command: str, sandbox: tuple[Path, Path]) -> bool:
    outcome = _static(command)
    if outcome is None:
        return True
    builtins = {"cd", "echo", "eval", "exec", "source", ".", "set", "export", "trap", "read", "printf", "test", "["}
    if any(c.values[0] in builtins or "/" in c.values[0] for c in outcome.commands):
        return True
    seen = {w for c in outcome.commands for w in c.values}
    COMPARED.append(command)
    return all(p in seen for p in bash_programs(command, sandbox))


FOUND = [
    ("an escaped comma after a brace", "uv run pyte}\\, st -q"),
    ("an ANSI-C string glued to an escape", "git branch --show$'\\t'\\-cur\t.rent"),
    ("quotes glued to an escape", "git f'c d'\\etch origin main"),
    ("an escaped leading space in an argument", "go fmt \\ ./..."),
    ("a hash after an escaped space", "ln -s \\ #../README.md docs/README.md"),
    ("an escaped space before a program", "\\ mvn -q package"),
    ("an invalid assignment name is a command", "GO&111MODULE=on go build ./..."),
    ("an escaped space in a pipeline element", "rg --files | \\ rg x"),
    ("a word node spanning a newline", "npm test \n\\-- --bail"),
    ("a continuation after an escaped space", "npm\\ \\\nru&&n\\  dev"),
    ("a heredoc idiom as a command name", "git commit -m| \"$(cat <<'EOF'\nx\nEOF\n)\""),
    ("a line continuation inside a word", "r\\\nm -rf src"),
    ("tabs and continuations between words", "git status \\\n\t--short"),
]


@pytest.mark.parametrize(("description", "command"), FOUND)
def test_the_analysis_agrees_with_bash_on_known_differentials(
    sandbox: tuple[Path, Path], description: str, command: str
) -> None:
    assert _words_agree(command, sandbox), description
    assert _no_hidden_commands(command, sandbox), description


def test_the_analysis_agrees_with_bash_on_mutated_corpus_commands(sandbox: tuple[Path, Path]) -> None:
    commands = [json.loads(line)["command"] for line in (CORPUS / "benign.jsonl").read_text().splitlines()]
    rng = random.Random(2024)
    disagreements = []
    COMPARED.clear()
    for command in rng.sample(commands, 60):
        mutant = command
        for _ in range(rng.randint(1, 3)):
            pos = rng.randint(0, len(mutant))
            mutant = mutant[:pos] + rng.choice(_INSERTS) + mutant[pos:]
        if not (_words_agree(mutant, sandbox) and _no_hidden_commands(mutant, sandbox)):
            disagreements.append(mutant)
    assert not disagreements
    assert len(COMPARED) >= 40, "too few mutants reached bash for the test to mean anything"


def test_the_harness_notices_a_disagreement(sandbox: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # A parser that joined `a\ b` into two words would be caught.
    assert bash_words("f a\\ b", "f", sandbox) == ["a b"]
    assert bash_programs("x; y", sandbox) == ["x", "y"]


def _judged_programs(command: str) -> set[str] | None:
    """Every word of every command the analysis judges (redirections and heredocs included), or
    ``None`` when it refuses the command."""
    if text_findings(command) is not None:
        return None
    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return None
    seen = {w for c in outcome.commands for w in c.values}
    if any(c.kind == "test" for c in outcome.commands):
        seen |= {"[", "[["}
    return seen


#: Shapes where tree-sitter and bash split commands differently (heredoc lines, redirection
#: targets, ``[ ]``, ``$'...'``, heredoc line continuations). ``zz*`` are programs that do not
#: exist: bash runs them through a no-op ``command_not_found_handle``; redirections go to files in
#: the sandbox (``HOME`` is the sandbox too).
SPLITS = [
    ("&& after a heredoc start", "true <<EOF && zz1 -rf src\nhi\nEOF"),
    ("|| after a heredoc start", "false <<EOF || zz1\nEOF"),
    ("a pipe after a heredoc start", "cat <<EOF | zz1\nx\nEOF"),
    ("a pipe and a list after a heredoc start", "true <<EOF | true && zz2 x | zz3 || zz4\nEOF"),
    ("a redirect and && after a heredoc start", "true <<'EOF' > out.txt && zz1\nx\nEOF"),
    ("an escaped blank before an input target", "echo hi <\\ \nzz1 -rf src"),
    ("an escaped blank before a here-string", "true <<<\\ \nzz1 -rf src"),
    ("an escaped blank before an output target", "echo hi >\\ \nzz1"),
    ("|| inside [ ]", "[ -z x || zz1 -rf src ]"),
    ("a pipe inside [ ]", "[ x | zz1 ]"),
    ("& inside [ ]", "[ x & zz1 ]"),
    ("-v evaluates a subscript", "[ -v 'a[$(zz1)]' ]"),
    ("$'\\\\' ends at its second quote", "echo $'\\\\' ; zz1 -rf src ; echo ' # '"),
    ("a line continuation forms the heredoc delimiter", "cat <<EOF\nhello\nEO\\\nF\nzz1 -rf src\nEOF"),
    ("bash does not end a heredoc at `EOF;`", "cat <<EOF\nx\nEOF; zz1 '\nEOF\nzz2\n'"),
    ("benign: a heredoc written to a file, then a command", "true <<'EOF' > out.txt && ls\nx\nEOF"),
    ("benign: a test or a command", "[ -f x ] || ls"),
]


@pytest.mark.parametrize(("description", "command"), SPLITS)
def test_every_program_bash_runs_is_one_the_analysis_judged(
    sandbox: tuple[Path, Path], description: str, command: str
) -> None:
    judged = _judged_programs(command)
    if judged is None:
        return  # refused: nothing was approved
    ran = bash_programs(command, sandbox)
    assert ran, description
    assert all(p in judged for p in ran), (description, ran, judged)


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("the `-` tree-sitter drops before a heredoc", "f - <<'EOF'\nx\nEOF"),
        ("two dashes", "f -F - <<EOF\nx\nEOF"),
        ("a dash, a heredoc and a redirect", "f - <<EOF > out.txt\nx\nEOF"),
    ],
)
def test_the_words_before_a_heredoc_are_the_words_bash_passes(
    sandbox: tuple[Path, Path], description: str, command: str
) -> None:
    outcome = parse_command(command)
    assert isinstance(outcome, Parsed), description
    words = bash_words(command.replace(" > out.txt", ""), "f", sandbox)
    assert words == list(outcome.commands[0].values[1:]), description
