"""Unified diffs of edits: correct hunks with whole-file line numbers, fast on large files."""

from __future__ import annotations

import random
import re
import sys

import pytest

from bot.tools.files.diff import diff_stats, unified_diff


def apply_diff(old: str, diff: str) -> list[str]:
    """Apply a unified diff to ``old``'s lines (checks every context and removed line)."""
    lines = old.splitlines()
    out: list[str] = []
    pos = 0
    for line in diff.splitlines()[2:]:
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if m:
            count = int(m.group(2)) if m.group(2) is not None else 1
            start = int(m.group(1)) - 1 if count else int(m.group(1))
            out.extend(lines[pos:start])
            pos = start
            continue
        tag, text = line[0], line[1:]
        if tag in " -":
            assert lines[pos] == text
            pos += 1
        if tag in " +":
            out.append(text)
    return out + lines[pos:]


def test_a_one_line_change_has_three_lines_of_context_and_true_line_numbers() -> None:
    old = "".join(f"line {i}\n" for i in range(1, 21))
    new = old.replace("line 10\n", "LINE TEN\n")
    diff = unified_diff(old, new, "f.txt")
    assert diff.splitlines() == [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -7,7 +7,7 @@",
        " line 7",
        " line 8",
        " line 9",
        "-line 10",
        "+LINE TEN",
        " line 11",
        " line 12",
        " line 13",
    ]
    assert diff_stats(diff) == (1, 1)


@pytest.mark.parametrize(
    ("description", "old", "new"),
    [
        ("insertion at the start", "a\nb\n", "x\na\nb\n"),
        ("insertion at the end", "a\nb\n", "a\nb\nc\n"),
        ("deletion of everything", "a\nb\n", ""),
        ("creation from nothing", "", "a\nb\n"),
        ("a change inside a line that continues", "ab\ncd\n", "aXb\ncd\n"),
        ("a change that joins lines", "a\nb\nc\n", "a b\nc\n"),
        ("CRLF text", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"),
    ],
)
def test_the_diff_applies_back_to_the_new_text(description: str, old: str, new: str) -> None:
    assert apply_diff(old, unified_diff(old, new, "f")) == new.splitlines()


def test_random_edits_always_give_a_diff_that_applies() -> None:
    rng = random.Random(7)
    for _ in range(2_000):
        old = "\n".join(rng.choice(["a", "b", "", "cc"]) for _ in range(rng.randint(0, 10)))
        chars = list(old)
        for _ in range(rng.randint(1, 3)):
            pos = rng.randint(0, len(chars))
            if rng.random() < 0.5:
                chars[pos:pos] = list(rng.choice(["x", "\n", "y\n"]))
            elif chars:
                del chars[min(pos, len(chars) - 1)]
        new = "".join(chars)
        assert apply_diff(old, unified_diff(old, new, "f")) == new.splitlines(), (old, new)


def test_equal_texts_have_no_diff() -> None:
    assert unified_diff("same\n", "same\n", "f") == ""


def test_a_small_change_in_a_large_text_is_diffed_without_reading_it_all_line_by_line() -> None:
    old = "".join(f"line {i} with some padding text\n" for i in range(300_000))  # ~10 MB
    new = old.replace("line 150000 ", "LINE 150000 ", 1)
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    # Counted, not timed (the machine may be busy): difflib over all 300,000 lines makes millions of calls.
    sys.setprofile(count)
    try:
        diff = unified_diff(old, new, "big")
    finally:
        sys.setprofile(None)
    assert calls < 10_000
    assert "@@ -149998,7 +149998,7 @@" in diff
