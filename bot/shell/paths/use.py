"""A path argument of a command and what the command does to it (the currency of
:mod:`bot.shell.paths.arguments`, :mod:`bot.shell.programs.archives`, :mod:`bot.shell.paths.fallback` and the
program facts)."""

from __future__ import annotations

from typing import NamedTuple

from bot.shell.parse.syntax import Word
from bot.shell.paths.resolve import Access


class PathUse(NamedTuple):
    #: Position of the word in the argv (``index`` is taken by ``tuple.index``).
    pos: int
    value: str
    access: Access
    word: Word


def plain(word: Word) -> Word:
    """``word`` for a value the extractor built itself (an unknown place, a joined path): no longer
    a glob or a run-time value, so the judge checks the value as given."""
    return Word(word.value, word.text, word.quoted)
