"""The common shapes of a command, flattened in one pass over the tree-sitter tree.

Most commands a model sends are one simple command, or a short ``&&``/``;``/``|`` chain of them,
with plain or quoted words and at most a redirection such as ``2>&1``. For those, :func:`fast_parsed`
produces exactly the :class:`~bot.shell.parse.syntax.Parsed` that the general walker of
:mod:`bot.shell.parse.walk` would, reading each node's ``type``, ``children`` and byte range once (a
tree-sitter ``Node`` attribute is a C call that builds a new Python object every time).

It performs every check the general walker performs on these shapes (the gaps between words and
statements, the edges of the command, the word resolution of :mod:`bot.shell.parse.words`). It
returns ``None`` — and the general walker decides — on anything else: another statement kind, a
background ``&``, a comment, an assignment, a redirection other than a plain file redirection,
a word the resolver refuses, a gap check that fails. So the fast path never produces an outcome
the general walker would not; ``tests/shell/test_fast_parse.py`` checks that the two agree on the
corpora and a seeded mutation set.

Only ASCII commands take this path (byte offsets are then string offsets).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, cast

from bot.shell.parse.syntax import Item, Parsed, Redirect, ScopeMarker, SimpleCommand, Word
from bot.shell.parse.words import ARG_NODES, Unresolvable, resolve_word

#: The operators between statements the fast path keeps (``&`` opens a background scope: the
#: general walker handles it).
_SEPARATORS = frozenset({"&&", "||", ";", "\n", ";;"})
_PIPES = frozenset({"|", "|&"})
_WORD_SPECIAL = frozenset("\\*?[\n \t")
_ASSIGNMENT_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_ENTER = ScopeMarker(True)
_LEAVE = ScopeMarker(False)
_new = tuple.__new__
#: A command or a redirection written only with these characters, words separated by blanks, is
#: read the same way by bash and tree-sitter: one word per blank-separated token (number or word
#: nodes alike, whose values are their texts), checked against the node's child count.
_PLAIN_CHARS = r"[A-Za-z0-9_./:=@%+,-]"
_PLAIN_COMMAND = re.compile(rf"{_PLAIN_CHARS}+(?:[ \t]+{_PLAIN_CHARS}+)*\Z")
#: ``[fd] op target``. The target may not start with ``-`` or ``=``: tree-sitter has ``>&-``/``<&-``
#: (close a descriptor) and arithmetic tokens (``>=``) that would split the text differently.
_PLAIN_REDIRECT = re.compile(rf"([0-9]*)(>>|>&|&>>|&>|>\||<&|>|<)[ \t]*([A-Za-z0-9_./:@%+,]{_PLAIN_CHARS}*)\Z")
#: The grammar's keywords (its anonymous alphabetic tokens, ``if`` ... ``unsetenv`` and the letters
#: of ``${x@Q}``): a token equal to one goes through the node-by-node path.
_KEYWORDS = frozenset(
    {
        "case",
        "declare",
        "do",
        "done",
        "elif",
        "else",
        "end",
        "esac",
        "export",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "local",
        "readonly",
        "select",
        "then",
        "typeset",
        "unset",
        "unsetenv",
        "until",
        "while",
        "A",
        "E",
        "K",
        "L",
        "P",
        "Q",
        "U",
        "a",
        "k",
        "u",
    }
)


class _Fallback(Exception):
    """The general walker must decide (a shape the fast path does not cover, or a check failed)."""


#: Plain words already built, by text: the same program names and flags come back in command after
#: command, and a :class:`Word` is immutable. Past :data:`_PLAIN_WORDS_SIZE` the memory starts over.
_PLAIN_WORDS: dict[str, Word] = {}
_PLAIN_WORDS_SIZE = 8192
_PLAIN_WORD_CHARS = 64


def plain_word(text: str) -> Word:
    """``Word(text, text)`` without the named tuple's keyword handling (the walkers build many)."""
    word = _PLAIN_WORDS.get(text)
    if word is None:
        word = _new(Word, (text, text, False, False, False, False, False, False))
        if len(text) <= _PLAIN_WORD_CHARS:  # (a long word is rarely seen twice: not kept)
            if len(_PLAIN_WORDS) >= _PLAIN_WORDS_SIZE:
                _PLAIN_WORDS.clear()
            _PLAIN_WORDS[text] = word
    return word


def fast_parsed(root: Any, src: str, size: int) -> Parsed | None:
    """The general walker's outcome for ``src`` (ASCII, parsed without errors into ``root``), when
    the command has one of the common shapes; ``None`` otherwise."""
    start = root.start_byte
    end = root.end_byte
    if start > 0 and src[:start].replace("\\\n", "").strip(" \t\n"):
        return None
    if end < size and src[end:].replace("\\\n", "").strip(" \t\n"):
        return None
    items: list[Item] = []
    operators: list[str] = []
    try:
        _statements(root, start, end, src, items, operators, ())
    except (_Fallback, Unresolvable):
        return None
    whole = tuple(items)
    # (without a pipeline there are no scope markers: every item is a command)
    commands = whole if _ENTER not in whole else tuple([i for i in items if type(i) is SimpleCommand])
    return _new(Parsed, (whole, tuple(operators), commands))


def _no_gap(src: str, start: int, end: int) -> None:
    """Text between two children that is not whitespace or a line continuation: the general walker
    decides (tree-sitter skipped something)."""
    if end > start:
        gap = src[start:end]
        if gap != " " and gap.replace("\\\n", "").strip(" \t\n"):
            raise _Fallback


def _statements(
    node: Any,
    node_start: int,
    node_end: int,
    src: str,
    items: list[Item],
    operators: list[str],
    redirects: tuple[Redirect, ...],
) -> None:
    """``program`` and ``list``: statements separated by operators. (Byte ranges read once are
    passed down: each read is a call into tree-sitter.)"""
    previous_end = node_start
    for child in node.children:
        start = child.start_byte
        if start > previous_end:
            _no_gap(src, previous_end, start)
        previous_end = child.end_byte
        kind = child.type
        if kind in _SEPARATORS:
            operators.append(kind)
        else:
            _statement(child, kind, start, previous_end, src, items, operators, redirects)
    _no_gap(src, previous_end, node_end)


def _statement(
    node: Any,
    kind: str,
    node_start: int,
    node_end: int,
    src: str,
    items: list[Item],
    operators: list[str],
    redirects: tuple[Redirect, ...],
) -> None:
    if kind == "command":
        items.append(_command(node, node_start, node_end, src, redirects))
    elif kind == "list":
        _statements(node, node_start, node_end, src, items, operators, redirects)
    elif kind == "pipeline":
        previous_end = node_start
        for child in node.children:
            start = child.start_byte
            if start > previous_end:
                _no_gap(src, previous_end, start)
            previous_end = child.end_byte
            child_kind = child.type
            if child_kind in _PIPES:
                operators.append(child_kind)
            else:
                items.append(_ENTER)
                _statement(child, child_kind, start, previous_end, src, items, operators, redirects)
                items.append(_LEAVE)
        if node_end > previous_end and src[previous_end:node_end].replace("\\\n", "").strip(" \t\n"):
            raise _Fallback
    elif kind == "redirected_statement":
        _redirected(node, node_start, node_end, src, items, redirects)
    else:
        raise _Fallback


def _redirected(
    node: Any, node_start: int, node_end: int, src: str, items: list[Item], redirects: tuple[Redirect, ...]
) -> None:
    """``command 2>&1 >/dev/null``: a command followed by plain file redirections only (a ``list``
    body, tree-sitter's reading of ``a && b 2>&1 | c``, goes to the general walker)."""
    children = node.children
    body = children[0]
    if body.type != "command" or len(children) < 2:
        raise _Fallback
    previous_end = node_start
    body_start = body_end = 0
    extra: list[Redirect] = []
    for index, child in enumerate(children):
        child_start = child.start_byte
        if child_start > previous_end and src[previous_end:child_start].replace("\\\n", "").strip(" \t\n"):
            raise _Fallback
        previous_end = child.end_byte
        if not index:
            body_start, body_end = child_start, previous_end
            continue
        if child.type != "file_redirect":
            raise _Fallback
        extra.append(_file_redirect(child, src))
    _no_gap(src, previous_end, node_end)
    items.append(_command(body, body_start, body_end, src, redirects + tuple(extra)))


def _file_redirect(node: Any, src: str) -> Redirect:
    """``[fd] op target`` with a plain target; anything the general walker would refuse falls back."""
    plain = _PLAIN_REDIRECT.match(src, node.start_byte, node.end_byte)
    if plain is not None:
        digits, op, target_text = plain.groups()
        if op == "<>" or (op == "<" and digits in ("1", "2")):
            raise _Fallback  # refused by the general walker (bot.shell.parse.redirects)
        if node.child_count == (3 if digits else 2):
            return Redirect(op, int(digits) if digits else None, plain_word(target_text))
    fd: int | None = None
    op = ""
    target: Word | None = None
    previous_end = node.start_byte
    for child in node.children:
        kind = child.type
        start = child.start_byte
        # only blanks between the parts (tree-sitter skips an escaped blank before the target)
        if start > previous_end and src[previous_end:start].replace("\\\n", "").strip(" \t"):
            raise _Fallback
        previous_end = child.end_byte
        if kind == "file_descriptor":
            text = src[child.start_byte : child.end_byte]
            fd = int(text) if text.isdigit() else None
        elif kind in ARG_NODES:
            if kind == "process_substitution" or target is not None:
                raise _Fallback  # a second word: bash passes it to the command
            target = resolve_word(child, src, True)
        elif not op and kind not in (">&-", "<&-"):
            op = kind
        else:
            raise _Fallback
    if (
        target is None
        or op == "<>"
        or (op == "<" and fd in (1, 2))
        or target.dynamic
        or target.glob
        or node.end_byte > previous_end
        or (op in (">&", "<&") and target.value.startswith("-"))
    ):
        raise _Fallback
    return Redirect(op, fd, target)


def _command(node: Any, node_start: int, node_end: int, src: str, redirects: tuple[Redirect, ...]) -> SimpleCommand:
    """A simple command of words (the general walker's ``command`` and ``check_gaps``)."""
    if _PLAIN_COMMAND.match(src, node_start, node_end):
        text = src[node_start:node_end]
        tokens = text.split()
        if node.child_count == len(tokens) and "=" not in tokens[0] and _KEYWORDS.isdisjoint(tokens):
            known = tuple(map(_PLAIN_WORDS.get, tokens))
            if None in known:  # (built once: later commands find them all in the memory)
                words = tuple([w or plain_word(t) for w, t in zip(known, tokens, strict=True)])
            else:
                words = cast("tuple[Word, ...]", known)
            if tokens[0] == "time" and assigns_after_time(words):
                raise _Fallback
            return _new(SimpleCommand, (words, (), redirects, text, "command"))
    argv: list[Word] = []
    previous_end = node_start
    previous_word = False
    for child in node.children:
        kind = child.type
        start = child.start_byte
        end = child.end_byte
        # The gap rules of the general walker's check_gaps (every child here is word-like).
        if start > previous_end:
            gap = src[previous_end:start].replace("\\\n", "")
            if gap.strip(" \t") or (previous_word and not gap):
                raise _Fallback
        elif previous_word and start == previous_end:
            raise _Fallback
        previous_end = end
        previous_word = True
        if kind == "word":
            text = src[start:end]
            if _WORD_SPECIAL.isdisjoint(text):
                argv.append(plain_word(text))
            else:
                argv.append(resolve_word(child, src, True))
        elif kind == "command_name":
            inner = child.children
            if len(inner) != 1:
                raise _Fallback
            name = inner[0]
            if name.type != "word":
                raise _Fallback
            text = src[name.start_byte : name.end_byte]
            if not _WORD_SPECIAL.isdisjoint(text):
                raise _Fallback
            argv.append(plain_word(text))
        elif kind in ARG_NODES:
            argv.append(resolve_word(child, src, True))
        else:
            raise _Fallback
    if argv and argv[0].text == "time" and assigns_after_time(argv):
        raise _Fallback
    return _new(SimpleCommand, (tuple(argv), (), redirects, src[node_start:node_end], "command"))


def assigns_after_time(argv: Sequence[Word]) -> bool:
    """``time y=1 cmd``: ``time`` is a keyword for bash, which reads ``y=1`` as an assignment for
    ``cmd``; tree-sitter reads a command ``time`` with the argument ``y=1``."""
    for word in argv[1:]:
        if word.text in ("-p", "--"):
            continue
        return _ASSIGNMENT_LIKE.match(word.text) is not None
    return False
