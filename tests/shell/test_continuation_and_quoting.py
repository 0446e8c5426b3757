"""Shell syntax whose meaning depends on line continuation or on quoting inside double quotes
(issue 16's last family): what bash joins, ends or expands differently from how the text reads
is judged as bash runs it. Each attack is a command a prefix rule must not approve; each benign
form is the same text where bash really does read it as harmless."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision

ATTACKS = [
    ("Bash(echo:*)", "echo hi \\\n&& touch pwned", "a continued line still ends at &&"),
    ("Bash(echo:*)", 'echo "a\\\nb"; touch pwned', "a continuation inside double quotes joins, then ; ends"),
    ("Bash(echo:*)", 'echo "$(touch pwned)"', "command substitution runs inside double quotes"),
    ("Bash(echo:*)", 'echo "`touch pwned`"', "backquotes run inside double quotes"),
    ("Bash(echo:*)", 'echo "${x:-$(touch pwned)}"', "a default value is expanded"),
    ("Bash(echo:*)", 'echo "$((1+$(touch pwned)))"', "arithmetic expands its substitutions"),
    ("Bash(echo:*)", 'echo "${PATH/#/$(touch pwned)}"', "a replacement string is expanded"),
    ("Bash(echo:*)", 'echo "$(\\\ntouch pwned)"', "a continuation at the start of a substitution"),
    ("Bash(echo:*)", 'echo "\\\n$(touch pwned)"', "a continuation before a substitution"),
    ("Bash(echo:*)", 'echo \\"$(touch pwned)\\"', "escaped quotes leave the substitution unquoted"),
    ("Bash(echo:*)", "ec\\\nho x; to\\\nuch pwned", "continuations inside command words"),
    ("Bash(echo:*)", "echo x\\\n;touch pwned", "a continuation before ;"),
    ("Bash(echo:*)", "echo a \\# ; touch pwned", "an escaped # is not a comment"),
    ("Bash(echo:*)", "echo a # \\\ntouch pwned", "a comment ends at the newline; the backslash is in it"),
    ("Bash(echo:*)", "echo $'\\''; touch pwned #'", "ANSI-C quoting ends where bash ends it"),
    ("Bash(echo:*)", "echo 'a\\'; touch pwned; echo '", "a backslash does not escape in single quotes"),
    ("Bash(echo:*)", 'echo ${a:-"}"}; touch pwned', "a quoted brace inside an expansion"),
    ("Bash(echo:*)", 'echo "${a#"}"}" ; touch pwned', "nested quotes inside a quoted expansion"),
    ("Bash(echo:*)", 'echo "a" \\\n> /etc/x', "a redirection on the continued line"),
    ("Bash(cat:*)", "cat <<EOF\n$(touch pwned)\nEOF", "an unquoted heredoc expands"),
    ("Bash(cat:*)", "cat <<E\\\nOF\n$(touch pwned)\nEOF", "a delimiter split by a continuation"),
    ("Bash(cat:*)", "cat <<EOF\nx\nEOF \ntouch pwned", "a delimiter line with a trailing blank does not end"),
    ("Bash(git diff:*)", "git diff \\\n--output=/tmp/x", "an option on the continued line"),
    ("Bash(git diff:*)", "git diff --out\\\nput=/tmp/x", "an option joined by a continuation"),
    ("Bash(git diff:*)", 'git diff "--out"put=/tmp/x', "an option assembled from quoted parts"),
    ("Bash(git log:*)", "git log --ext\\\n-diff", "git's external diff, joined"),
    ("Bash(git status:*)", "git status\\\n;touch pwned", "a continuation then ;"),
]

BENIGN = [
    ("Bash(echo:*)", 'echo "\\$(touch pwned)"', "an escaped $ in double quotes is a literal"),
    ("Bash(echo:*)", 'echo "foo\\"; touch pwned; echo \\""', "escaped quotes keep it one argument"),
    ("Bash(cat:*)", "cat <<'EOF'\n$(touch pwned)\nEOF", "a quoted heredoc is literal text"),
]


@pytest.mark.parametrize(("rule", "command", "why"), ATTACKS, ids=[w for _, _, w in ATTACKS])
def test_what_bash_reads_differently_is_not_approved(ws: Path, rule: str, command: str, why: str) -> None:
    assert not isinstance(final_decision(command, context_for(ws, [rule])), Allow), why


@pytest.mark.parametrize(("rule", "command", "why"), BENIGN, ids=[w for _, _, w in BENIGN])
def test_what_bash_reads_as_harmless_is_approved(ws: Path, rule: str, command: str, why: str) -> None:
    assert isinstance(final_decision(command, context_for(ws, [rule])), Allow), why
