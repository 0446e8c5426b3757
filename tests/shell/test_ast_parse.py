"""The tree-sitter parse: the three outcomes, simple commands with quotes resolved as bash does,
and the constructs that are never "simple"."""

from __future__ import annotations

import pytest

from bot.shell import ast_parse
from bot.shell.ast_parse import parse_command
from bot.shell.syntax import DYN, Parsed, ParseUnavailable, ScopeMarker, SimpleCommand, TooComplex
from bot.shell.word_resolve import decode_ansi_c


def argvs(command: str) -> list[tuple[str, ...]]:
    outcome = parse_command(command)
    assert isinstance(outcome, Parsed), outcome
    return [c.values for c in outcome.commands]


@pytest.mark.parametrize(("description", "command", "expected"), [
    ("plain words", "git status --short", [("git", "status", "--short")]),
    ("double quotes", 'git commit -m "fix: a bug"', [("git", "commit", "-m", "fix: a bug")]),
    ("single quotes", "grep 'a b' f", [("grep", "a b", "f")]),
    ("escapes in double quotes", 'echo "a\\"b \\$x \\\\ c"', [("echo", 'a"b $x \\ c')]),
    ("backslash outside quotes", "echo a\\ b \\*", [("echo", "a b", "*")]),
    ("ANSI-C string", "echo $'a\\tb\\x41'", [("echo", "a\tbA")]),
    ("concatenation", "echo --format='%H'x", [("echo", "--format=%Hx")]),
    ("a newline inside double quotes is kept", 'echo "a\n  b"', [("echo", "a\n  b")]),
    ("heredoc commit idiom resolves to its body", "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\nEOF\n)\"",
     [("git", "commit", "-m", "fix: x\n\nbody")]),
    ("variable becomes a run-time marker", 'echo "a$X"', [("echo", f"a{DYN}")]),
    ("and-list", "make && make test", [("make",), ("make", "test")]),
    ("or-list, semicolons, newlines", "a || b; c\nd", [("a",), ("b",), ("c",), ("d",)]),
    ("pipeline", "ls | wc -l", [("ls",), ("wc", "-l")]),
    ("subshell and group", "(cd x && ls); { pwd; }", [("cd", "x"), ("ls",), ("pwd",)]),
    ("negation", "! grep -q x f", [("grep", "-q", "x", "f")]),
    ("background", "sleep 1 & wait", [("sleep", "1"), ("wait",)]),
    ("comment dropped", "ls # list", [("ls",)]),
    ("every branch of an if", "if [ -f x ]; then make; elif true; then ls; else echo no; fi",
     [("[[",), ("make",), ("true",), ("ls",), ("echo", "no")]),
    ("while and until loops", "while read -r l; do echo x; done < f; until make; do sleep 1; done",
     [("read", "-r", "l"), ("echo", "x"), ("make",), ("sleep", "1")]),
    ("find placeholder", "find . -exec ls {} \\;", [("find", ".", "-exec", "ls", "{}", ";")]),
])
def test_a_simple_command_resolves_words_like_bash(description: str, command: str,
                                                   expected: list[tuple[str, ...]]) -> None:
    assert argvs(command) == expected, description


def test_assignments_and_redirects_are_kept_apart_from_the_argv() -> None:
    outcome = parse_command("NODE_ENV=prod npm run build > out.log 2>&1")
    assert isinstance(outcome, Parsed)
    cmd = outcome.commands[0]
    assert cmd.values == ("npm", "run", "build")
    assert [(a.name, a.value.value) for a in cmd.assignments] == [("NODE_ENV", "prod")]
    assert [(r.op, r.target.value if r.target else None, r.is_fd_dup) for r in cmd.redirects] == [
        (">", "out.log", False), (">&", "1", True)]


def test_redirects_after_a_heredoc_delimiter_are_found() -> None:
    outcome = parse_command("cat <<'EOF' > notes.txt\nhello\nEOF\n")
    assert isinstance(outcome, Parsed)
    ops = [(r.op, r.target.value if r.target else None) for r in outcome.commands[0].redirects]
    assert ops == [("<<", None), (">", "notes.txt")]


def test_pipeline_elements_and_background_jobs_are_scoped() -> None:
    outcome = parse_command("cd a | ls; cd b & ls")
    assert isinstance(outcome, Parsed)
    shape = ["(" if isinstance(i, ScopeMarker) and i.enter else ")" if isinstance(i, ScopeMarker)
             else i.program for i in outcome.items]
    assert shape == ["(", "cd", ")", "(", "ls", ")", "(", "cd", ")", "ls"]


def test_if_and_loop_bodies_are_branch_scopes() -> None:
    outcome = parse_command("if true; then cd src; fi")
    assert isinstance(outcome, Parsed)
    markers = [i for i in outcome.items if isinstance(i, ScopeMarker)]
    assert markers and all(m.branch for m in markers)


def test_declarations_export_their_assignments() -> None:
    outcome = parse_command("export A=1 B; declare -x C=2; x=3")
    assert isinstance(outcome, Parsed)
    kinds = [(c.kind, [(a.name, a.exported) for a in c.assignments]) for c in outcome.commands]
    assert kinds == [("declare", [("A", True)]), ("declare", [("C", True)]), ("assign", [("x", False)])]


def test_glob_quoting_and_obfuscation_facts_are_recorded() -> None:
    outcome = parse_command("ls *.py '*.md' -\"la\"")
    assert isinstance(outcome, Parsed)
    words = outcome.commands[0].argv
    assert [w.glob for w in words] == [False, True, False, False]
    assert words[3].obfuscated_flag and not words[1].obfuscated_flag


@pytest.mark.parametrize(("description", "command", "check_id"), [
    ("command substitution", "echo $(id)", 8),
    ("process substitution", "diff <(ls) f", 8),
    ("arithmetic", "echo $((1+2))", 8),
    ("parameter operators", 'echo "${x:-y}"', 8),
    ("brace sequence", "echo {1..3}", 16),
    ("for loop", "for f in *; do echo $f; done", None),
    ("case statement", "case x in a) ls;; esac", None),
    ("function definition shadowing a command", "git() { rm -rf /; }; git status", None),
    ("arithmetic comparison in [[ ]]", "[[ $x -eq 1 ]]", None),
    ("array assignment", "a=(1 2)", None),
    ("subscripted assignment", "a[$(id)]=1", None),
    ("command name from a variable", "$CMD x", 6),
    ("redirect target from a variable", "ls > $OUT", 6),
    ("heredoc body with a substitution", "cat <<EOF\n$(id)\nEOF\n", 8),
    ("missing closer", "if true; then", 1),
    ("unterminated quote", "echo 'abc", 14),
])
def test_constructs_that_are_too_complex(description: str, command: str, check_id: int | None) -> None:
    outcome = parse_command(command)
    assert isinstance(outcome, TooComplex), description
    assert outcome.check_id == check_id, description


def test_a_partly_quoted_heredoc_delimiter_is_never_simple() -> None:
    # bash ends <<'E'OF at the first EOF line and runs `id`; tree-sitter does not agree.
    outcome = parse_command("cat <<'E'OF\nEOF\nid\nEOF")
    assert isinstance(outcome, TooComplex)


def test_the_walker_refuses_a_body_that_contains_its_delimiter_line() -> None:
    from bot.shell.ast_parse import _Walker

    class Node:
        def __init__(self, type: str, text: str = "", children: tuple[object, ...] = ()) -> None:
            self.type, self.children = type, children
            self.text = text.encode()
            self.start_byte, self.end_byte = 0, 0

    walker = _Walker("", False)
    body = Node("heredoc_body", "hello\nEOF\nid\n")
    parts = (Node("<<"), Node("heredoc_start", "EOF"), body, Node("heredoc_end", "EOF"))
    node = Node("heredoc_redirect", children=parts)
    with pytest.raises(Exception, match="delimiter"):
        walker.heredoc(node)


def test_long_commands_are_too_complex() -> None:
    outcome = parse_command("echo " + "a" * ast_parse.MAX_COMMAND_CHARS)
    assert isinstance(outcome, TooComplex)


def test_the_parser_unavailable_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ast_parse, "_PARSER", None)
    ast_parse.clear_parse_cache()
    try:
        assert isinstance(parse_command("ls"), ParseUnavailable)
    finally:
        monkeypatch.undo()
        ast_parse.clear_parse_cache()


def test_parse_results_are_cached_per_command() -> None:
    first = parse_command("git status")
    assert parse_command("git status") is first
    assert isinstance(first, Parsed) and isinstance(first.commands[0], SimpleCommand)


@pytest.mark.parametrize(("description", "body", "value"), [
    ("named escapes", "a\\nb\\tc", "a\nb\tc"),
    ("hex", "\\x72\\x6d", "rm"),
    ("octal", "\\101", "A"),
    ("unicode", "\\u00e9", "é"),
    ("control", "\\cA", "\x01"),
    ("unknown escape kept", "\\q", "\\q"),
])
def test_ansi_c_strings_decode_like_bash(description: str, body: str, value: str) -> None:
    assert decode_ansi_c(body) == value, description


def test_a_pipeline_binds_tighter_than_a_list_even_when_tree_sitter_reads_it_otherwise() -> None:
    """tree-sitter-bash reads ``a && b 2>&1 | c`` as ``(a && b) 2>&1 | c``; bash runs
    ``a && (b 2>&1 | c)``. The ``cd`` must stay in the current shell and the redirect with ``b``."""
    from bot.shell.ast_parse import parse_fresh
    from bot.shell.syntax import Parsed, ScopeMarker, SimpleCommand

    outcome = parse_fresh("cd src && make 2>&1 | tail", fast=False)
    assert isinstance(outcome, Parsed)
    shape = [("scope" if i.enter else "end") if isinstance(i, ScopeMarker) else
             (" ".join(w.value for w in i.argv), len(i.redirects)) for i in outcome.items
             if isinstance(i, ScopeMarker | SimpleCommand)]
    assert shape == [("cd src", 0), "scope", ("make", 1), "end", "scope", ("tail", 0), "end"]
