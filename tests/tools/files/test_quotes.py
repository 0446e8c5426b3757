"""Curly/straight quote normalisation: find what the model meant, write in the file's style."""

from __future__ import annotations

import pytest

from bot.tools.files.quotes import find_actual_string, normalize_quotes, preserve_quote_style


def test_normalising_never_changes_the_length() -> None:
    text = "“a” ‘b’ \"c\" 'd'"
    assert normalize_quotes(text) == "\"a\" 'b' \"c\" 'd'"
    assert len(normalize_quotes(text)) == len(text)


@pytest.mark.parametrize(
    ("description", "content", "search", "actual"),
    [
        ("verbatim match wins", 'say "hi"', 'say "hi"', 'say "hi"'),
        ("straight quotes find curly ones", "say “hi” now", 'say "hi"', "say “hi”"),
        ("curly quotes find straight ones", 'say "hi" now', "say “hi”", 'say "hi"'),
        ("apostrophes", "don’t stop", "don't stop", "don’t stop"),
        ("absent", "nothing here", "something", None),
    ],
)
def test_find_actual_string(description: str, content: str, search: str, actual: str | None) -> None:
    assert find_actual_string(content, search) == actual


@pytest.mark.parametrize(
    ("description", "old", "actual", "new", "expected"),
    [
        ("no normalisation happened: new text as sent", 'a "b"', 'a "b"', 'c "d"', 'c "d"'),
        ("file uses curly doubles: new text curled", 'a "b"', "a “b”", 'c "d" e', "c “d” e"),
        ("opening after a bracket", 'x "y"', "x “y”", '("d")', "(“d”)"),
        ("apostrophe inside a word is a right quote", "it's", "it’s", "don't 'go'", "don’t ‘go’"),
        ("file is straight, model sent curly: new text straightened", "a “b”", 'a "b"', "c “d”", 'c "d"'),
        ("only doubles curled when the file has only curly doubles", 'a "b"', "a “b”", "'x' \"y\"", "'x' “y”"),
    ],
)
def test_preserve_quote_style(description: str, old: str, actual: str, new: str, expected: str) -> None:
    assert preserve_quote_style(old, actual, new) == expected
