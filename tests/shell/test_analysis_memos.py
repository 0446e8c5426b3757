"""What the analysis remembers between decisions changes no decision.

The memories are keyed on what commands share, never on a command: the plain words the fast parse
built (by text), the option words each program's table entry has read, and within one decision the
``lstat`` modes and git-directory layouts (:mod:`bot.shell.paths.resolve`). A decision with them
warm from other commands, in another order, must be the decision with them cold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.shell.api import check_bash_permissions
from bot.shell.parse import fast
from bot.shell.parse.walk import clear_parse_cache
from bot.shell.programs.options import lookup
from tests.shell.conftest import case_context

CORPUS = Path(__file__).parent / "corpus"


def _cases(name: str, step: int) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[::step] if line.strip()]


def _forget_everything() -> None:
    clear_parse_cache()
    fast._PLAIN_WORDS.clear()
    lookup._table.cache_clear()


def _decide(case: dict[str, Any], ws: Path, contexts: dict[str, Any]) -> tuple[str, ...]:
    clear_parse_cache()  # the parse cache is keyed on the command: not what is under test
    result = check_bash_permissions(case["command"], case_context(case, ws, contexts))
    return (type(result).__name__, result.reason, repr(getattr(result, "suggestions", ())))


def test_warm_memories_decide_as_cold_ones(ws: Path) -> None:
    cases = _cases("benign.jsonl", 3) + _cases("attacks.jsonl", 17) + _cases("options_attacks.jsonl", 5)
    contexts: dict[str, Any] = {}
    cold = []
    for case in cases:
        _forget_everything()
        cold.append(_decide(case, ws, contexts))
    _forget_everything()
    warm = [_decide(case, ws, contexts) for case in reversed(cases)]
    warm.reverse()
    changed = [(c["command"], a, b) for c, a, b in zip(cases, cold, warm, strict=True) if a != b]
    assert not changed, changed[:5]


def test_a_plain_word_is_the_word_built_fresh_and_the_memory_is_bounded() -> None:
    fast._PLAIN_WORDS.clear()
    first = fast.plain_word("pytest")
    assert fast.plain_word("pytest") is first
    assert first == fast.Word("pytest", "pytest")
    long = "x" * (fast._PLAIN_WORD_CHARS + 1)
    assert fast.plain_word(long) == fast.Word(long, long)
    assert long not in fast._PLAIN_WORDS
    for n in range(fast._PLAIN_WORDS_SIZE + 10):
        fast.plain_word(f"w{n}")
    assert len(fast._PLAIN_WORDS) <= fast._PLAIN_WORDS_SIZE


def test_the_option_abbreviations_are_the_unambiguous_prefixes() -> None:
    """Bisection finds what the definition says: the one long option starting with the word."""
    table = lookup._table()
    checked = 0
    for program in sorted(table)[::7]:
        entry = lookup.Entry(table[program].options)
        names = entry.long
        for name in names:
            for cut in range(3, len(name) + 1):
                word = name[:cut]
                matching = [n for n in names if n.startswith(word)]
                found = entry.find(word)
                expected = matching[0] if len(matching) == 1 else (word if word in entry.options else None)
                assert (found[0] if found else None) == expected, (program, word)
                assert entry.find(word) == found  # the remembered answer is the same
                checked += 1
    assert checked > 1000
