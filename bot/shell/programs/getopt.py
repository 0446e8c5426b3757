"""Reading a program's options the way its option parser will (GNU ``getopt_long``, git's
parse-options, npm's nopt, wget).

Two habits of real option parsers defeat a word-by-word comparison, and both let an option the
analysis looks for slip past it:

* **bundles and attached values** — ``tar -xfC x.tar /`` is ``-x -f x.tar -C /``; ``-C/etc`` is
  ``-C /etc``; ``git rebase -fx 'sh -c id'`` is ``-f -x 'sh -c id'``. A letter that takes a value
  takes the rest of the word, or the next word when the rest is empty.
* **abbreviated long options** — ``--upload-pa=…`` is ``--upload-pack=…``, ``--outp`` is
  ``--output``: any unambiguous prefix is accepted. An ambiguous prefix is an error for the
  program, so the analysis may (and does) assume that a prefix of an option it looks for *is* that
  option.

:func:`options` walks an argv once and yields every option with its value, whichever way it was
written; the per-program tables (which letters and names take a value) stay with the callers.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import NamedTuple

#: A long-option prefix shorter than this (``--``) is not an abbreviation; ``--t`` is (getopt_long
#: accepts any unambiguous prefix: ``cp --t=DIR`` is ``--target-directory``).
MIN_ABBREVIATION = 3


class Option(NamedTuple):
    #: ``-C`` or the full long name (``--directory`` for ``--dir``); for a word that is not an
    #: option (a positional), ``""``.
    name: str
    #: The value: attached (``-C/etc``, ``--directory=/etc``) or the next word; ``None`` when the
    #: option takes none, or when its value is missing (the word at the end).
    value: str | None
    #: Index of the word the option is written in (``index`` would shadow the tuple method).
    at: int
    #: Index of the word holding the value (``at`` when attached), ``None`` without a value.
    value_index: int | None
    #: For a positional, its text (``name`` is then ``""``).
    word: str = ""


def long_name(written: str, names: Collection[str]) -> str | None:
    """The option of ``names`` that ``written`` (``--name`` without ``=value``) spells or
    abbreviates: an exact match first, then the first name it is a prefix of."""
    if written in names:
        return written
    if len(written) < MIN_ABBREVIATION or not written.startswith("--"):
        return None
    for name in sorted(names):
        if name.startswith(written):
            return name
    return None


def is_option(written: str, names: Collection[str]) -> bool:
    """``written`` (a whole word, ``--x=v`` allowed) is one of ``names`` or abbreviates one."""
    head = written.partition("=")[0]
    return long_name(head, names) is not None


def short_letters(word: str, value_letters: Collection[str]) -> list[tuple[str, str | None]]:
    """The letters of a short-option bundle: ``-xfC`` → ``[("x", None), ("f", "C")]`` when ``f``
    takes a value (it takes the rest of the word). A value letter at the end of the word has its
    value in the next word, shown as ``None``."""
    letters: list[tuple[str, str | None]] = []
    for i in range(1, len(word)):
        letter = word[i]
        if letter in value_letters:
            rest = word[i + 1 :]
            letters.append((letter, rest if rest else None))
            return letters
        letters.append((letter, None))
    return letters


def options(
    values: Sequence[str],
    value_letters: Collection[str] = (),
    value_names: Collection[str] = (),
    known_names: Collection[str] = (),
    start: int = 1,
    stop_at_positional: bool = False,
) -> Iterator[Option]:
    """Every option of ``values[start:]`` in order, and the positionals (``name == ""``).

    ``value_letters``: short letters that take a value; ``value_names``: long options that take a
    value (written ``--name value`` or ``--name=value``); ``known_names``: long options without a
    value, so that an abbreviation resolves to them too. ``--`` ends the options (GNU: options
    may follow positionals); ``stop_at_positional`` ends them at the first positional instead
    (POSIX order, and programs whose subcommand comes first).
    """
    i, n = start, len(values)
    options_over = False
    all_names: tuple[str, ...] | None = None  # (built at the first long option: most have none)
    while i < n:
        word = values[i]
        if options_over or word == "-" or not word.startswith("-"):
            yield Option("", None, i, None, word)
            if stop_at_positional:
                options_over = True
            i += 1
            continue
        if word == "--":
            options_over = True
            i += 1
            continue
        if word.startswith("--"):
            written, eq, attached = word.partition("=")
            if all_names is None:
                all_names = (*value_names, *known_names)
            name = long_name(written, all_names) or written
            if eq:
                yield Option(name, attached, i, i)
            elif name in value_names:
                has_next = i + 1 < n
                yield Option(name, values[i + 1] if has_next else None, i, i + 1 if has_next else None)
                i += 1
            else:
                yield Option(name, None, i, None)
            i += 1
            continue
        consumed_next = False
        for letter, attached_value in short_letters(word, value_letters):
            if letter not in value_letters:
                yield Option("-" + letter, None, i, None)
            elif attached_value is not None:
                yield Option("-" + letter, attached_value, i, i)
            else:
                has_next = i + 1 < n
                yield Option("-" + letter, values[i + 1] if has_next else None, i, i + 1 if has_next else None)
                consumed_next = has_next
        i += 2 if consumed_next else 1
