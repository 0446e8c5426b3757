"""The seeds' three quote-stripped views, and the scanner's knowledge of comments, heredocs and
escapes (a naive character loop would be desynchronised by each of them)."""

from __future__ import annotations

import pytest

from bot.shell.quoting import quote_views


def test_the_three_views() -> None:
    views = quote_views("echo '$(a)' \"$(b)\" c")
    assert views.with_double_quotes == "echo  $(b) c"
    assert views.fully_unquoted == "echo   c"
    assert views.keep_quote_chars == "echo '' \"\" c"


@pytest.mark.parametrize(("description", "command", "unquoted"), [
    ("a comment's apostrophe does not open a quote", "ls # it's\necho $(x)", "ls \necho $(x)"),
    ("an escaped quote is not a quote", "echo \\' $(x)", "echo _ $(x)"),
    ("a quoted heredoc body is data", "cat <<'EOF'\n$(x) it's\nEOF\necho ok", "cat <<'EOF'\necho ok"),
    ("a partly quoted delimiter ends where bash ends it", "cat <<'E'OF\nEOF\nid", "cat <<'E'OF\nid"),
    ("an unquoted body joins a line continuation: EO\\<newline>F ends it",
     "cat <<EOF\nhello\nEO\\\nF\nrm -rf src\nEOF", "cat <<EOF\nrm -rf src\nEOF"),
    ("<<- strips the tabs of the first line of a joined line", "cat <<-EOF\n\tEO\\\nF\nid\nEOF", "cat <<-EOF\nid\nEOF"),
    ("an escaped backslash does not join", "cat <<EOF\nEO\\\\\nF\nEOF\nid", "cat <<EOF\nid"),
    ("a quoted delimiter does not join", "cat <<'EOF'\nEO\\\nF\nEOF\nid", "cat <<'EOF'\nid"),
    ("the commit-message idiom is literal", "git commit -m \"$(cat <<'EOF'\nit's $(x)\nEOF\n)\"",
     "git commit -m "),
])
def test_the_scanner_follows_bash(description: str, command: str, unquoted: str) -> None:
    assert quote_views(command).fully_unquoted == unquoted, description


def test_escapes_and_comments_are_reported() -> None:
    views = quote_views("find . -exec ls {} \\; # done")
    assert views.escapes == ((19, ";"),)
    assert views.comments == ("# done",)


@pytest.mark.parametrize(("description", "command"), [
    ("single quote", "echo 'a"),
    ("double quote", 'echo "a'),
    ("heredoc", "cat <<EOF\na"),
])
def test_unterminated_constructs_are_reported(description: str, command: str) -> None:
    assert quote_views(command).unterminated, description
