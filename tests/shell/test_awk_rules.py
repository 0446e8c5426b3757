"""awk programs: strings, regexes and comments blanked in one left-to-right scan, so a quote inside a
regex cannot hide the code after it (red team programs #6)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.programs.awk import unsafe_awk_reason
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "program", "safe"),
    [
        ("a quote in a regex before system", '/"/ { system("id") }', False),
        ("a quote in a regex before a pipe", '/"/ { print | "sh" }', False),
        ("a quote in a regex before a redirect", '/"/ { print "x" > ".git/hooks/pre-commit" }', False),
        ("a regex after print", '{ print /"/; system("id"); x = "y" }', False),
        ("a quote in a comment", '# "\nBEGIN { system("id") } # "', False),
        ("a slash in a bracket expression", '/[/"]/ { system("id") }', False),
        ("gawk indirect call", 'BEGIN { f = "system"; @f("id") }', False),
        ("@include", '@include "x.awk"', False),
        ("an escaped quote in a string", '{ x = "a\\"b"; print x }', True),
        ("a pipe in a string", '{ print "a|b" }', True),
        ("a pipe in a regex", "/a|b/ { print }", True),
        ("a slash in a bracket expression alone", "/[/]/ { print }", True),
        ("division", "{ print $1/2 }", True),
        ("a comparison", "NR>=10 && NR<=20", True),
        ("a comment", "{ print } # system(x)", True),
    ],
)
def test_literals_and_comments_are_blanked_as_awk_reads_them(description: str, program: str, safe: bool) -> None:
    assert (unsafe_awk_reason(program) is None) is safe, description


@pytest.mark.parametrize(
    ("description", "command", "allowed"),
    [
        ("system behind a quoted regex", 'awk \'/"/ { system("id") }\' README.md', False),
        ("a field separator", "awk -F: '{print $1}' README.md", True),
    ],
)
def test_awk_commands(check: Check, description: str, command: str, allowed: bool) -> None:
    assert isinstance(check(command, allow=["Bash(awk:*)"]), Allow) is allowed, description
