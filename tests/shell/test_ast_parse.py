"""The tree-sitter parse: the three outcomes, simple commands with quotes resolved as bash does,
and the constructs that are never "simple"."""

from __future__ import annotations

import pytest

from bot.shell.parse import walk as ast_parse
from bot.shell.parse.syntax import DYN, Parsed, ParseUnavailable, ScopeMarker, SimpleCommand, TooComplex
from bot.shell.parse.walk import parse_command
from bot.shell.parse.words import decode_ansi_c


def argvs(command: str) -> list[tuple[str, ...]]:
    outcome = parse_command(command)
    assert isinstance(outcome, Parsed), outcome
    return [c.values for c in outcome.commands]


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("plain words", "git status --short", [("git", "status", "--short")]),
        ("double quotes", 'git commit -m "fix: a bug"', [("git", "commit", "-m", "fix: a bug")]),
        ("single quotes", "grep 'a b' f", [("grep", "a b", "f")]),
        ("escapes in double quotes", 'echo "a\\"b \\$x \\\\ c"', [("echo", 'a"b $x \\ c')]),
        ("backslash outside quotes", "echo a\\ b \\*", [("echo", "a b", "*")]),
        ("ANSI-C string", "echo $'a\\tb\\x41'", [("echo", "a\tbA")]),
        ("concatenation", "echo --format='%H'x", [("echo", "--format=%Hx")]),
        ("a newline inside double quotes is kept", 'echo "a\n  b"', [("echo", "a\n  b")]),
        (
            "heredoc commit idiom resolves to its body",
            "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\nEOF\n)\"",
            [("git", "commit", "-m", "fix: x\n\nbody")],
        ),
        ("variable becomes a run-time marker", 'echo "a$X"', [("echo", f"a{DYN}")]),
        ("and-list", "make && make test", [("make",), ("make", "test")]),
        ("or-list, semicolons, newlines", "a || b; c\nd", [("a",), ("b",), ("c",), ("d",)]),
        ("pipeline", "ls | wc -l", [("ls",), ("wc", "-l")]),
        ("subshell and group", "(cd x && ls); { pwd; }", [("cd", "x"), ("ls",), ("pwd",)]),
        ("negation", "! grep -q x f", [("grep", "-q", "x", "f")]),
        ("background", "sleep 1 & wait", [("sleep", "1"), ("wait",)]),
        ("comment dropped", "ls # list", [("ls",)]),
        (
            "every branch of an if",
            "if [ -f x ]; then make; elif true; then ls; else echo no; fi",
            [("[[",), ("make",), ("true",), ("ls",), ("echo", "no")],
        ),
        (
            "while and until loops",
            "while read -r l; do echo x; done < f; until make; do sleep 1; done",
            [("read", "-r", "l"), ("echo", "x"), ("make",), ("sleep", "1")],
        ),
        ("find placeholder", "find . -exec ls {} \\;", [("find", ".", "-exec", "ls", "{}", ";")]),
    ],
)
def test_a_simple_command_resolves_words_like_bash(
    description: str, command: str, expected: list[tuple[str, ...]]
) -> None:
    assert argvs(command) == expected, description


def test_assignments_and_redirects_are_kept_apart_from_the_argv() -> None:
    outcome = parse_command("NODE_ENV=prod npm run build > out.log 2>&1")
    assert isinstance(outcome, Parsed)
    cmd = outcome.commands[0]
    assert cmd.values == ("npm", "run", "build")
    assert [(a.name, a.value.value) for a in cmd.assignments] == [("NODE_ENV", "prod")]
    assert [(r.op, r.target.value if r.target else None, r.is_fd_dup) for r in cmd.redirects] == [
        (">", "out.log", False),
        (">&", "1", True),
    ]


def test_redirects_after_a_heredoc_delimiter_are_found() -> None:
    outcome = parse_command("cat <<'EOF' > notes.txt\nhello\nEOF\n")
    assert isinstance(outcome, Parsed)
    ops = [(r.op, r.target.value if r.target else None) for r in outcome.commands[0].redirects]
    assert ops == [("<<", None), (">", "notes.txt")]


def test_pipeline_elements_and_background_jobs_are_scoped() -> None:
    outcome = parse_command("cd a | ls; cd b & ls")
    assert isinstance(outcome, Parsed)
    shape = [
        "(" if isinstance(i, ScopeMarker) and i.enter else ")" if isinstance(i, ScopeMarker) else i.program
        for i in outcome.items
    ]
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


@pytest.mark.parametrize(
    ("description", "command", "check_id"),
    [
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
    ],
)
def test_constructs_that_are_too_complex(description: str, command: str, check_id: int | None) -> None:
    outcome = parse_command(command)
    assert isinstance(outcome, TooComplex), description
    assert outcome.check_id == check_id, description


def test_a_partly_quoted_heredoc_delimiter_is_never_simple() -> None:
    # bash ends <<'E'OF at the first EOF line and runs `id`; tree-sitter does not agree.
    outcome = parse_command("cat <<'E'OF\nEOF\nid\nEOF")
    assert isinstance(outcome, TooComplex)


def test_the_walker_refuses_a_body_that_contains_its_delimiter_line() -> None:
    from bot.shell.parse.walk import _Walker

    class Node:
        def __init__(self, type: str, text: str = "", children: tuple[object, ...] = ()) -> None:
            self.type, self.children = type, children
            self.text = text.encode()
            self.start_byte, self.end_byte = 0, 0

    walker = _Walker("", False)
    body = Node("heredoc_body", "hello\nEOF\nid\n")
    parts = (Node("<<", "<<"), Node("heredoc_start", "EOF"), body, Node("heredoc_end", "EOF"))
    node = Node("heredoc_redirect", children=parts)
    with pytest.raises(Exception, match="delimiter"):
        walker.redirects_of(node)


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


@pytest.mark.parametrize(
    ("description", "body", "value"),
    [
        ("named escapes", "a\\nb\\tc", "a\nb\tc"),
        ("hex", "\\x72\\x6d", "rm"),
        ("octal", "\\101", "A"),
        ("unicode", "\\u00e9", "é"),
        ("control", "\\cA", "\x01"),
        ("unknown escape kept", "\\q", "\\q"),
    ],
)
def test_ansi_c_strings_decode_like_bash(description: str, body: str, value: str) -> None:
    assert decode_ansi_c(body) == value, description


def test_a_pipeline_binds_tighter_than_a_list_even_when_tree_sitter_reads_it_otherwise() -> None:
    """tree-sitter-bash reads ``a && b 2>&1 | c`` as ``(a && b) 2>&1 | c``; bash runs
    ``a && (b 2>&1 | c)``. The ``cd`` must stay in the current shell and the redirect with ``b``."""
    from bot.shell.parse.syntax import Parsed, ScopeMarker, SimpleCommand
    from bot.shell.parse.walk import parse_fresh

    outcome = parse_fresh("cd src && make 2>&1 | tail", fast=False)
    assert isinstance(outcome, Parsed)
    shape = [
        ("scope" if i.enter else "end")
        if isinstance(i, ScopeMarker)
        else (" ".join(w.value for w in i.argv), len(i.redirects))
        for i in outcome.items
        if isinstance(i, ScopeMarker | SimpleCommand)
    ]
    assert shape == [("cd src", 0), "scope", ("make", 1), "end", "scope", ("tail", 0), "end"]


def shape(command: str, *, fast: bool = True) -> object:
    """The items of the parse as ``(``, ``)`` and argv strings, or the TooComplex check id."""
    from bot.shell.parse.walk import parse_fresh

    outcome = parse_fresh(command, fast=fast)
    if isinstance(outcome, TooComplex):
        return ("too complex", outcome.check_id)
    assert isinstance(outcome, Parsed)
    return [("(" if i.enter else ")") if isinstance(i, ScopeMarker) else " ".join(i.values) for i in outcome.items]


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        # attacks: tree-sitter hangs what follows `<<EOF` on its line inside the heredoc node
        ("&& after a heredoc start runs next", "cat <<EOF && rm -rf src\nhi\nEOF", ["cat", "rm -rf src"]),
        ("|| after a heredoc start", "false <<EOF || rm -rf src\nEOF", ["false", "rm -rf src"]),
        ("a pipe after a heredoc start", "cat <<EOF | sh\nrm -rf src\nEOF", ["(", "cat", ")", "(", "sh", ")"]),
        ("|& after a heredoc start", "cat <<EOF |& sh\nrm\nEOF", ["(", "cat", ")", "(", "sh", ")"]),
        ("a longer pipeline", "cat <<EOF | a | b\nEOF", ["(", "cat", ")", "(", "a", ")", "(", "b", ")"]),
        (
            "a list after the pipe: only its first command is piped",
            "cat <<EOF | sh && rm x | y || z\nEOF",
            ["(", "cat", ")", "(", "sh", ")", "(", "rm x", ")", "(", "y", ")", "z"],
        ),
        ("a redirect then a command", "cat <<'EOF' > notes.txt && rm -rf src\nx\nEOF", ["cat", "rm -rf src"]),
        ("words after the start are arguments", "cat <<EOF ~/.ssh/id_rsa\nEOF", ("too complex", 14)),
        ("a flag after the start", "git log <<EOF --output=.git/hooks/pre-commit\nEOF", ("too complex", 14)),
        ("a pipe after a list body", "x && cat <<EOF | sh\nEOF", ("too complex", 14)),
        (
            "EO\\<newline>F is the delimiter line for bash",
            "cat <<EOF\nhello\nEO\\\nF\nrm -rf src\nEOF",
            ("too complex", 14),
        ),
        ("same with <<-", "cat <<-EOF\n\tEO\\\nF\nrm -rf src\nEOF", ("too complex", 14)),
        ("a continuation joins the end line", "cat <<EOF\nhello\\\nEOF\necho hi\nEOF\n", ("too complex", 14)),
        ("bash does not end the body at `EOF; x`", "cat <<EOF\nx\nEOF; rm '\nEOF\nid\n'", ("too complex", 14)),
        ("a dash glued to the operator is an argument for bash", "cat x -<<EOF\nEOF", ("too complex", 14)),
        # benign
        ("a plain heredoc", "cat <<EOF\nx\nEOF\n", ["cat"]),
        ("the `-` tree-sitter drops before a heredoc is an argument", "python3 - <<'PY'\nprint(1)\nPY", ["python3 -"]),
        ("same with a tail", "kubectl apply -f - <<EOF && echo ok\nx\nEOF", ["kubectl apply -f -", "echo ok"]),
        ("an escaped backslash before the newline does not join", "cat <<EOF\nEO\\\\\nF\nEOF", ["cat"]),
        ("a quoted delimiter does not join lines", "cat <<'EOF'\nEO\\\nF\nrm -rf src\nEOF", ["cat"]),
        ("a redirect after the delimiter", "cat <<'EOF' > f\nhello\nEOF\n", ["cat"]),
        ("a line continuation on the start line", "cat <<EOF \\\n&& ls\nbody\nEOF\n", ["cat", "ls"]),
        ("<<- with a tail", "cat <<-EOF && ls\n\ta\n\tEOF", ["cat", "ls"]),
    ],
)
def test_what_follows_a_heredoc_start_is_walked_as_bash_runs_it(
    description: str, command: str, expected: object
) -> None:
    assert shape(command) == expected, description
    assert shape(command, fast=False) == expected, description


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("a second word after a redirect target", "echo x > .git/hooks/pre-commit README.md", ("too complex", 14)),
        ("after an input redirect", "cat - < ~/.ssh/id_rsa README.md", ("too complex", 14)),
        ("after 2>", "rm -rf src 2>/dev/null ~ /dev/null", ("too complex", 14)),
        ("after a here-string", "cat <<< x y > f z", ("too complex", 14)),
        ("an escaped space hides the target (newline)", "echo hi <\\ \nrm -rf src", ("too complex", 14)),
        ("an escaped space before a here-string word", "cat <<<\\  ~/.ssh/id_rsa", ("too complex", 14)),
        ("an escaped space before 2>", "echo hi 2>\\ \nsh -c id", ("too complex", 14)),
        ("a here-string flag", "git status <<<\\  --output=x", ("too complex", 14)),
        ("a word glued to >&- is an argument for bash", "git status 2>&---output=x", ("too complex", 14)),
        ("a word glued to <&-", "cat <&-/etc/shadow", ("too complex", 14)),
        ("a blank inside a word node (tree-sitter reads `[ {` as one word)", "ls [ {", ("too complex", 14)),
        ("a duplication to -word closes the descriptor and passes word", "git status 2>& -p", ("too complex", 14)),
        ("an assignment after the time keyword applies to the command", "time CI=1 rm -rf src", ("too complex", 14)),
        ("same after time -p", "time -p X=1 make", ("too complex", 14)),
        # benign
        ("closing a descriptor", "ls 2>&-", ["ls"]),
        ("closing a descriptor written apart", "ls 2>& -", ["ls"]),
        ("moving a descriptor", "ls 2>&1-", ["ls"]),
        ("time with an argument that looks like an assignment", "time make CC=gcc", ["time make CC=gcc"]),
        ("a target after blanks", "echo hi >  out.txt", ["echo hi"]),
        ("a line continuation before the target", "echo hi > \\\n  out.txt", ["echo hi"]),
        ("arguments before the redirect", "ls src > out.txt", ["ls src"]),
        ("a here-string", "cat <<< hello", ["cat"]),
    ],
)
def test_a_redirection_has_exactly_one_target(description: str, command: str, expected: object) -> None:
    assert shape(command) == expected, description
    assert shape(command, fast=False) == expected, description


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        # `[` is a command: bash ends it at && || | & and reads < > as redirections
        ("|| inside [ ]", "[ -z x || rm -rf src ]", ("too complex", 14)),
        ("&& inside [ ]", "[ -n x && rm -rf src ]", ("too complex", 14)),
        ("a pipe inside [ ]", "[ x | sh ]", ("too complex", 14)),
        ("& inside [ ]", "[ x & rm -rf src ]", ("too complex", 14)),
        ("> inside [ ]", "[ x > .git/config ]", ("too complex", 14)),
        ("< inside [ ]", "[ x < ~/.ssh/id_rsa ]", ("too complex", 14)),
        ("a redirected statement inside [ ]", "[ x -eq 1 2>> ~/.bashrc ]", ("too complex", 14)),
        # -v/-R evaluate an array subscript
        ("-v with a subscript in [ ]", "[ -v 'a[$(rm -rf src)]' ]", ("too complex", 8)),
        ("-v with a subscript in [[ ]]", "[[ -v 'a[$(rm -rf src)]' ]]", ("too complex", 8)),
        ("-R with a subscript", "[[ -R 'a[1]' ]]", ("too complex", 8)),
        ("-v with a dynamic operand", "[[ -v $x ]]", ("too complex", 8)),
        ("-v of a quoted variable in [ ]", '[ -v "$x" ]', ("too complex", 8)),
        ("a dynamic word that could be -v (tree-sitter already refuses it)", '[ ! "$op" "$name" ]', ("too complex", 1)),
        ("an unquoted expansion in [ ] could be several words", "[ -n $x ]", ("too complex", 6)),
        ("a substitution in a [[ ]] regex", "[[ x =~ $(id) ]]", ("too complex", 8)),
        # benign
        ("a file test", "[ -f requirements.txt ]", ["[["]),
        ("a negated file test", "[ ! -e x ]", ["[["]),
        ("a string comparison with a quoted variable", '[ "$a" = b ]', ["[["]),
        ("-n with a quoted variable", '[ -n "$X" ]', ["[["]),
        ("-a between tests", "[ -f a -a ! -d b ]", ["[["]),
        ("[ ] in a list", "[ -d node_modules ] || npm ci", ["[[", "npm ci"]),
        ("[[ ]] with && and ||", "[[ -f a && ! -d b || ( x < y ) ]]", ["[["]),
        ("[[ ]] pattern", "[[ $x == *.py ]]", ["[["]),
        ("[[ ]] regex", "[[ $x =~ ^v[0-9]+$ ]]", ["[["]),
        ("[[ -v ]] of a plain name", "[[ -v x ]]", ["[["]),
        ("[[ -n ]] of a variable", '[[ -n "$CI" ]]', ["[["]),
    ],
)
def test_a_test_command_runs_nothing_and_is_read_as_bash_reads_it(
    description: str, command: str, expected: object
) -> None:
    assert shape(command) == expected, description


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("$'\\\\' ends at its second quote for bash", "echo $'\\\\' ; rm -rf src ; echo ' # '", ("too complex", 14)),
        ("same with four backslashes", "git status $'\\\\\\\\' ; rm -rf src ; echo ' # '", ("too complex", 14)),
        # benign
        ("an escaped quote inside", "echo $'a\\'b' c", ["echo a'b c"]),
        ("a tab escape", "printf $'a\\tb'", ["printf a\tb"]),
    ],
)
def test_an_ansi_c_string_ends_where_bash_ends_it(description: str, command: str, expected: object) -> None:
    assert shape(command) == expected, description


@pytest.mark.parametrize(
    ("description", "command", "glob"),
    [
        (".[g]it is a bracket glob", "rm -rf .[g]it", True),
        ("[.]git", "rm -rf [.]git", True),
        ("a quoted closing bracket still counts", 'rm [."]"git', True),
        ("a bracket closed by a variable", "rm .[$x", True),
        ("a bracket with no closing ] is literal", "ls x[ab", False),
        ("an escaped [ is literal", "ls \\[a]", False),
        ("a quoted [ is literal", "ls '['a]", False),
    ],
)
def test_a_bracket_glob_split_by_the_parser_is_still_a_glob(description: str, command: str, glob: bool) -> None:
    from bot.shell.parse.walk import parse_fresh

    for fast in (True, False):
        outcome = parse_fresh(command, fast=fast)
        assert isinstance(outcome, Parsed)
        assert outcome.commands[0].argv[-1].glob is glob, description


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("a body that starts with a blank line", "cat >> README.md <<EOF\n\n## Usage\nEOF", [["cat"]]),
        (
            "blank lines, then a command after the end",
            "cat <<EOF\n\n\nhi\nEOF\nrm -rf src",
            [["cat"], ["rm", "-rf", "src"]],
        ),
        ("<<- with blank and tab-indented lines", "cat <<-EOF\n\n\thi\n\tEOF", [["cat"]]),
    ],
)
def test_heredoc_bodies_may_start_with_blank_lines(description: str, command: str, expected: list[list[str]]) -> None:
    outcome = ast_parse.parse_fresh(command)
    assert isinstance(outcome, Parsed), (description, outcome)
    assert [list(c.values) for c in outcome.commands] == expected, description


HEREDOC_SUBST = "$(cat <<'EOF'\n{body}EOF\n)"


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        (
            "the commit-message idiom",
            'git commit -m "' + HEREDOC_SUBST.format(body="fix: x\n\nmore\n") + '"',
            [("git", "commit", "-m", "fix: x\n\nmore")],
        ),
        (
            "attached to an option inside quotes",
            'gh pr create --body="' + HEREDOC_SUBST.format(body='it\'s "q" (x)\n') + '"',
            [("gh", "pr", "create", '--body=it\'s "q" (x)')],
        ),
        (
            "a body line that only contains the delimiter is data",
            'echo "' + HEREDOC_SUBST.format(body=" EOF\nEO\n") + '"',
            [("echo", " EOF\nEO")],
        ),
        ("a double-quoted delimiter", 'echo "$(cat <<"END"\n$x `y`\nEND\n)"', [("echo", "$x `y`")]),
    ],
)
def test_the_safe_heredoc_substitution_is_its_literal_body(
    description: str, command: str, expected: list[tuple[str, ...]]
) -> None:
    assert argvs(command) == expected, description


@pytest.mark.parametrize(
    ("description", "command"),
    [
        # bash ends the heredoc at the first EOF line and runs what follows inside $(...)
        ("a body line equal to the delimiter", 'echo "' + HEREDOC_SUBST.format(body="msg\nEOF\ncurl x | sh\n") + '"'),
        ("the same in a commit message", 'git commit -m "' + HEREDOC_SUBST.format(body="msg\nEOF\nrm -rf src\n") + '"'),
        # bash 5.2 also ends it at a line starting with the delimiter that holds a `)` (checked)
        (
            "a body line EOF) closes the substitution",
            'echo "' + HEREDOC_SUBST.format(body="EOF) $(touch pwned) $(cat <<'EOF'\nx\n") + '"',
        ),
        ("a body line EOFx) runs x", 'echo "' + HEREDOC_SUBST.format(body="a\nEOFx)\nb\n") + '"'),
        ("a body line EOF followed by text", 'echo "' + HEREDOC_SUBST.format(body="EOF is the marker\n") + '"'),
        # outside double quotes bash splits and globs the output
        ("unquoted: split into two words", "cp " + HEREDOC_SUBST.format(body="README.md .git/config\n")),
        ("unquoted: globbed", "rm -rf " + HEREDOC_SUBST.format(body=".gi?\n")),
        ("unquoted, joined to a word", "cat x" + HEREDOC_SUBST.format(body="y /etc/shadow\n")),
        ("unquoted assignment value", "X=" + HEREDOC_SUBST.format(body="hi\n")),
    ],
)
def test_the_safe_heredoc_substitution_is_refused_where_bash_reads_it_otherwise(description: str, command: str) -> None:
    outcome = parse_command(command)
    assert isinstance(outcome, TooComplex), (description, outcome)
