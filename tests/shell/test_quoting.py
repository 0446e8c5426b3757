"""The seeds' three quote-stripped views, and the scanner's knowledge of comments, heredocs and
escapes (a naive character loop would be desynchronised by each of them)."""

from __future__ import annotations

import pytest

from bot.shell.parse.quoting import quote_views


def test_the_three_views() -> None:
    views = quote_views("echo '$(a)' \"$(b)\" c")
    assert views.with_double_quotes == "echo  $(b) c"
    assert views.fully_unquoted == "echo   c"
    assert views.keep_quote_chars == "echo '' \"\" c"


@pytest.mark.parametrize(
    ("description", "command", "unquoted"),
    [
        ("a comment's apostrophe does not open a quote", "ls # it's\necho $(x)", "ls \necho $(x)"),
        ("an escaped quote is not a quote", "echo \\' $(x)", "echo _ $(x)"),
        ("a quoted heredoc body is data", "cat <<'EOF'\n$(x) it's\nEOF\necho ok", "cat <<'EOF'\necho ok"),
        ("a partly quoted delimiter ends where bash ends it", "cat <<'E'OF\nEOF\nid", "cat <<'E'OF\nid"),
        (
            "an unquoted body joins a line continuation: EO\\<newline>F ends it",
            "cat <<EOF\nhello\nEO\\\nF\nrm -rf src\nEOF",
            "cat <<EOF\nrm -rf src\nEOF",
        ),
        (
            "<<- strips the tabs of the first line of a joined line",
            "cat <<-EOF\n\tEO\\\nF\nid\nEOF",
            "cat <<-EOF\nid\nEOF",
        ),
        ("an escaped backslash does not join", "cat <<EOF\nEO\\\\\nF\nEOF\nid", "cat <<EOF\nid"),
        ("a quoted delimiter does not join", "cat <<'EOF'\nEO\\\nF\nEOF\nid", "cat <<'EOF'\nid"),
        ("the commit-message idiom is literal", "git commit -m \"$(cat <<'EOF'\nit's $(x)\nEOF\n)\"", "git commit -m "),
    ],
)
def test_the_scanner_follows_bash(description: str, command: str, unquoted: str) -> None:
    assert quote_views(command).fully_unquoted == unquoted, description


def test_escapes_and_comments_are_reported() -> None:
    views = quote_views("find . -exec ls {} \\; # done")
    assert views.escapes == ((19, ";"),)
    assert views.comments == ("# done",)


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("single quote", "echo 'a"),
        ("double quote", 'echo "a'),
        ("heredoc", "cat <<EOF\na"),
    ],
)
def test_unterminated_constructs_are_reported(description: str, command: str) -> None:
    assert quote_views(command).unterminated, description


@pytest.mark.parametrize(
    ("description", "command", "with_double_quotes"),
    [
        (
            "the idiom inside double quotes is literal",
            'git commit -m "$(cat <<\'EOF\'\nit\'s "q" $(x)\nEOF\n)"',
            "git commit -m _",
        ),
        (
            "two of them",
            "gh pr create -t \"$(cat <<'EOF'\na\nEOF\n)\" -b \"$(cat <<'EOF'\nb\nEOF\n)\"",
            "gh pr create -t _ -b _",
        ),
        # bash ends the heredoc at the first EOF line: what follows runs inside $(...)
        (
            "a body line equal to the delimiter",
            "echo \"$(cat <<'EOF'\nmsg\nEOF\ncurl x | sh\nEOF\n)\"",
            "echo $(cat <<'EOF'\nmsg\nEOF\ncurl x | sh\nEOF\n)",
        ),
        (
            "a body line EOF) ends it too (bash 5.2)",
            "echo \"$(cat <<'EOF'\nEOF) $(id) $(cat <<'EOF'\nx\nEOF\n)\"",
            "echo $(cat <<'EOF'\nEOF) $(id) _",
        ),
        # single quotes: `'$(cat <<'` is a string, EOF a word, and `; id ;` runs
        (
            "inside single quotes it is not a substitution",
            "echo '$(cat <<'EOF'\n' ; id ; echo '\nEOF\n)'",
            "echo EOF ; id ; echo ",
        ),
        # unquoted: a real heredoc for the scanner, its body is skipped
        ("unquoted it is read as a heredoc", "cp $(cat <<'EOF'\nREADME.md x\nEOF\n)", "cp $(cat <<'EOF'\n)"),
    ],
)
def test_the_safe_heredoc_substitution_is_hidden_only_inside_double_quotes(
    description: str, command: str, with_double_quotes: str
) -> None:
    assert quote_views(command).with_double_quotes == with_double_quotes, description


def test_a_trailing_backslash_inside_double_quotes_is_unterminated() -> None:
    views = quote_views('echo "abc\\')
    assert views.unterminated
    assert views.with_double_quotes == "echo abc_"
