"""``[ ... ]`` and ``[[ ... ]]``: accepted as a harmless test only when bash reads them as the same
test tree-sitter reports (the walker in :mod:`bot.shell.parse.walk` hands them here).

tree-sitter-bash parses both with one expression grammar, but bash does not:

* ``[`` is an ordinary command. ``&&``, ``||``, ``|``, ``&`` end it and ``<``, ``>`` are
  redirections: ``[ -z x || rm -rf src ]`` runs ``rm``, ``[ x > .git/config ]`` writes a file.
  Inside ``[`` only words, test operators, ``!`` and the comparison words are accepted.
* ``[[`` is a keyword whose ``&&``, ``||``, ``<``, ``>`` and parentheses are its own; still, nothing
  else (a nested command, a redirection) belongs there.

Some tests evaluate code: ``-v``/``-R`` evaluate an array subscript (``[ -v 'a[$(rm -rf src)]' ]``
runs ``rm``), and ``[[``'s arithmetic comparisons evaluate their operands as expressions. A
``-v``/``-R`` whose operand is dynamic or holds a ``[`` is refused; in ``[``, any dynamic word could
itself be ``-v`` (``[ "$op" "$name" ]``), and an unquoted expansion could become several words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.shell.parse.syntax import Word, literal
from bot.shell.parse.words import ARG_NODES, Unresolvable, node_text, resolve_word

#: What may stand inside ``[ ... ]`` besides words.
_SINGLE = frozenset({"unary_expression", "binary_expression", "test_operator", "!", "=", "==", "!="})
#: ``[[ ... ]]`` also has its own logical operators, string ordering, regex and pattern operands.
_DOUBLE = _SINGLE | frozenset(
    {"&&", "||", "<", ">", "=~", "parenthesized_expression", "(", ")", "regex", "extglob_pattern"}
)
#: Operand-like tokens kept whole (their text is a pattern, not words).
_PATTERNS = frozenset({"regex", "extglob_pattern"})
_RUNS_CODE = frozenset({"command_substitution", "process_substitution", "arithmetic_expansion"})
_ARITH_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
#: Unary tests that evaluate their operand's array subscript.
_SUBSCRIPT_TESTS = frozenset({"-v", "-R"})


def check_test_command(node: Any, src: str, ascii_src: bool) -> None:
    """Raise :class:`Unresolvable` unless the ``test_command`` node is a test that runs nothing and
    that bash reads as tree-sitter does."""
    children = node.children
    double = bool(children) and children[0].type == "[["
    allowed = _DOUBLE if double else _SINGLE
    tokens: list[tuple[Any, Word]] = []
    for leaf in _leaves(node, allowed, src, ascii_src):
        tokens.append(leaf)
    _check_gaps(node, [n for n, _ in tokens], src, ascii_src)
    words = [w for n, w in tokens if n.type not in ("[", "]", "[[", "]]")]
    _check_arithmetic(node, src, ascii_src)
    for index, word in enumerate(words):
        if not double and word.splits:
            raise Unresolvable(f"the unquoted expansion {word.text!r} in [ ] could become any test operator", 6)
        could_be_v = word.value in _SUBSCRIPT_TESTS or (not double and word.dynamic)
        if could_be_v and index + 1 < len(words):
            operand = words[index + 1]
            if operand.dynamic or "[" in operand.value:
                raise Unresolvable(f"-v/-R evaluates the array subscript of {operand.text!r} (it can run commands)", 8)


def _leaves(node: Any, allowed: frozenset[str], src: str, ascii_src: bool) -> Iterator[tuple[Any, Word]]:
    """The tokens of the test in source order, words resolved; anything not allowed is refused."""
    for child in node.children:
        kind = child.type
        if kind in ARG_NODES:
            yield child, resolve_word(child, src, ascii_src)
        elif kind in ("[", "]", "[[", "]]"):
            yield child, literal(kind)
        elif kind not in allowed:
            raise Unresolvable(f"{node_text(child, src, ascii_src)!r} inside a test is read differently by bash", 14)
        elif kind in _PATTERNS:
            _no_code(child)
            yield child, literal(node_text(child, src, ascii_src))
        elif child.child_count:
            yield from _leaves(child, allowed, src, ascii_src)
        else:
            yield child, literal(node_text(child, src, ascii_src))


def _no_code(node: Any) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _RUNS_CODE:
            raise Unresolvable("a test expression runs a command substitution", 8)
        stack.extend(current.children)


def _check_gaps(node: Any, leaves: list[Any], src: str, ascii_src: bool) -> None:
    """Between the tokens of a test only blanks and line continuations: anything else is text
    tree-sitter skipped (``\\ ``)."""
    data = None if ascii_src else src.encode("utf-8", "surrogateescape")
    previous_end = node.start_byte
    for leaf in [*leaves, None]:
        start = node.end_byte if leaf is None else leaf.start_byte
        if start > previous_end:
            gap = (
                src[previous_end:start] if data is None else data[previous_end:start].decode("utf-8", "surrogateescape")
            )
            if gap.replace("\\\n", "").strip(" \t"):
                raise Unresolvable("text inside a test that the parser skipped", 14)
        if leaf is not None:
            previous_end = leaf.end_byte


def _check_arithmetic(node: Any, src: str, ascii_src: bool) -> None:
    """Arithmetic comparisons in ``[[ ]]`` evaluate their operands as expressions (``a[$(cmd)]``
    would run ``cmd``): only number literals are accepted there (in ``[`` too, for simplicity)."""
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.type == "binary_expression":
            texts = [node_text(c, src, ascii_src) for c in child.children]
            if any(t in _ARITH_OPS for t in texts):
                operands = [
                    t
                    for c, t in zip(child.children, texts, strict=True)
                    if not (c.type == "test_operator" or t in _ARITH_OPS)
                ]
                if not all(t.lstrip("-").isdigit() for t in operands):
                    raise Unresolvable("an arithmetic comparison in [[ ]] evaluates its operands as code")
        stack.extend(child.children)
