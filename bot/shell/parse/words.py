"""Turning tree-sitter word nodes into :class:`~bot.shell.parse.syntax.Word` values, the way bash does.

Quote removal and escape processing follow bash, not tree-sitter: tree-sitter keeps escapes raw
(``string_content`` of ``"a\\"b"`` is ``a\\"b``). Anything whose value cannot be known before the
command runs is either marked :data:`~bot.shell.parse.syntax.DYN` (a plain ``$VAR``) or refused with
:class:`Unresolvable` (command and process substitution, arithmetic, ``${x:-...}`` operators,
brace expansion), which the parser reports as "too complex".

The one substitution that is resolved is the heredoc idiom models use for multi-line commit
messages, ``"$(cat <<'EOF' ... EOF)"``: a quoted delimiter makes the body literal, so its value is
known exactly — inside double quotes only (unquoted, bash splits and globs the output: ``cp $(cat
<<'EOF' ... README.md .git/config ... EOF)`` copies onto ``.git/config``).
"""

from __future__ import annotations

import re
from typing import Any

from bot.shell.parse.syntax import DYN, Word

#: ``$(cat <<'EOF'\n...\nEOF\n)`` with a quoted delimiter: the body is literal text (no expansion,
#: no line continuation). bash ends the body at the first line equal to the delimiter, and inside
#: ``$(...)`` bash 5.2 also at a line that starts with it and holds a ``)`` (``EOFx)`` ends the
#: heredoc, closes the substitution and runs ``x``): no body line may start with the delimiter, so
#: the end bash finds is the one line after the body. Only whitespace may follow before the
#: closing parenthesis.
SAFE_HEREDOC_SUBSTITUTION = re.compile(
    r"\$\(cat <<(?P<q>['\"])(?P<d>[A-Za-z_][A-Za-z0-9_]*)(?P=q)\n"
    r"(?P<body>(?:(?!(?P=d))[^\n]*\n)*)(?P=d)\n[ \t\n]*\)\Z"
)

_FLAG_LIKE = re.compile(r"-{1,2}[A-Za-z0-9]")
#: bash's ``$'...'``: backslash escapes any character, the first unescaped quote ends it.
_ANSI_C = re.compile(r"\$'(?:[^'\\]|\\.)*'", re.S)
_GLOB_CHARS = frozenset("*?[")
_DQ_ESCAPABLE = frozenset('$`"\\\n')

#: The tree-sitter nodes that are one shell word (an argument, a redirect target): what
#: :func:`resolve_word` resolves, for every walker.
ARG_NODES = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "number",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "ansi_c_string",
        "arithmetic_expansion",
        "brace_expression",
        "translated_string",
    }
)


class Unresolvable(Exception):
    """The word's value cannot be known statically; ``check_id`` names the security check."""

    def __init__(self, reason: str, check_id: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.check_id = check_id


def node_text(node: Any, src: str, ascii_src: bool) -> str:
    if ascii_src:
        return src[node.start_byte : node.end_byte]
    return str(node.text.decode("utf-8", "surrogateescape"))


def resolve_word(node: Any, src: str, ascii_src: bool) -> Word:
    """The :class:`Word` for an argument-like node, or raise :class:`Unresolvable`."""
    kind = node.type
    text = node_text(node, src, ascii_src)
    if kind == "word":
        return _unquoted_word(text)
    if kind == "number":
        return Word(text, text)
    if kind == "raw_string":
        return _flagged(Word(text[1:-1], text, quoted=True))
    if kind == "string":
        value, dynamic = _double_quoted(node, src, ascii_src)
        return _flagged(Word(value, text, quoted=True, dynamic=dynamic))
    if kind == "ansi_c_string":
        if _ANSI_C.fullmatch(text) is None:
            # the grammar ends $'\\' at the second quote it finds, bash at the first unescaped one
            raise Unresolvable(f"the ANSI-C string {text[:20]!r} ends where bash and the parser disagree", 14)
        return _flagged(Word(decode_ansi_c(text[2:-1]), text, quoted=True))
    if kind == "concatenation":
        return _concatenation(node, text, src, ascii_src)
    if kind in ("simple_expansion", "expansion"):
        _check_expansion(node, src, ascii_src)
        return Word(DYN, text, dynamic=True, splits=True)
    if kind == "command_substitution":
        if SAFE_HEREDOC_SUBSTITUTION.match(text) is not None:
            raise Unresolvable(
                "an unquoted $(cat <<'EOF' ...) is split into words and globbed by bash; put it inside double quotes", 8
            )
        raise Unresolvable("command substitution $(...) runs a command whose output cannot be known", 8)
    if kind == "process_substitution":
        raise Unresolvable("process substitution <(...) / >(...) runs a hidden command", 8)
    if kind == "arithmetic_expansion":
        raise Unresolvable("arithmetic expansion $((...)) is evaluated at run time", 8)
    if kind == "brace_expression":
        raise Unresolvable("brace expansion {a..b} turns one word into several", 16)
    if kind == "translated_string":
        raise Unresolvable('locale strings $"..." are not supported', 14)
    raise Unresolvable(f"unsupported shell syntax ({kind})", 14)


def _unquoted_word(text: str) -> Word:
    if "\n" in text.replace("\\\n", ""):
        # an unquoted newline ends a command for bash; a word node spanning one is a parser slip
        raise Unresolvable("a word that spans a line break", 14)
    if "\\" not in text:
        if " " in text or "\t" in text:
            # bash splits at an unquoted blank; tree-sitter reads `[ {` as one word
            raise Unresolvable("a word that holds an unquoted blank", 14)
        glob = _has_glob(text)
        return Word(text, text, glob=glob)
    out: list[str] = []
    glob = False
    escaped_space = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt in " \t":
                escaped_space = True
            out.append(nxt)
            i += 2
            continue
        if ch in " \t":
            raise Unresolvable("a word that holds an unquoted blank", 14)
        if ch in _GLOB_CHARS and (ch != "[" or "]" in text[i + 1 :]):
            glob = True
        out.append(ch)
        i += 1
    return _flagged(Word("".join(out), text, quoted=True, glob=glob, escaped_space=escaped_space))


def _has_glob(text: str) -> bool:
    if "*" in text or "?" in text:
        return True
    bracket = text.find("[")
    return bracket != -1 and "]" in text[bracket + 1 :]


def _flagged(word: Word) -> Word:
    """Set ``obfuscated_flag`` when quoting or escaping produced the flag-like start of the word."""
    value = word.value
    if not value.startswith("-") or not _FLAG_LIKE.match(value):
        return word
    dashes = 2 if value.startswith("--") else 1
    if word.text.startswith(value[: dashes + 1]):
        return word
    return word._replace(obfuscated_flag=True)


def _double_quoted(node: Any, src: str, ascii_src: bool) -> tuple[str, bool]:
    """Text between the children counts too: tree-sitter does not always cover a newline inside the
    quotes with a ``string_content`` node, and dropping it would change the value."""
    parts: list[str] = []
    dynamic = False
    raw: bytes = node.text
    base = node.start_byte
    pos = base + 1
    for child in node.children:
        kind = child.type
        if kind == '"':
            continue
        if child.start_byte > pos:
            parts.append(_unescape_double(raw[pos - base : child.start_byte - base].decode("utf-8", "surrogateescape")))
        pos = child.end_byte
        if kind == "string_content":
            parts.append(_unescape_double(node_text(child, src, ascii_src)))
        elif kind in ("simple_expansion", "expansion"):
            _check_expansion(child, src, ascii_src)
            parts.append(DYN)
            dynamic = True
        elif kind == "$":
            parts.append("$")
        elif kind == "command_substitution":
            parts.append(_heredoc_value(node_text(child, src, ascii_src)))
        else:
            inner = resolve_word(child, src, ascii_src)
            parts.append(inner.value)
            dynamic = dynamic or inner.dynamic
    end = base + len(raw) - 1
    if end > pos:
        parts.append(_unescape_double(raw[pos - base : end - base].decode("utf-8", "surrogateescape")))
    return "".join(parts), dynamic


def _heredoc_value(text: str) -> str:
    """The output of a substitution inside double quotes: only the safe heredoc idiom is known (its
    body, trailing newlines removed as bash removes them)."""
    match = SAFE_HEREDOC_SUBSTITUTION.match(text)
    if match is None:
        raise Unresolvable("command substitution $(...) runs a command whose output cannot be known", 8)
    return match.group("body").rstrip("\n")


def _unescape_double(text: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _DQ_ESCAPABLE:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _check_expansion(node: Any, src: str, ascii_src: bool) -> None:
    """Only plain ``$NAME``, ``${NAME}`` and the special parameters (``$?``, ``$#``...) are accepted."""
    if node.type == "simple_expansion":
        return
    kinds = [c.type for c in node.children]
    if kinds == ["${", "variable_name", "}"]:
        return
    raise Unresolvable(
        f"parameter expansion {node_text(node, src, ascii_src)!r} uses operators evaluated at run time", 8
    )


def _concatenation(node: Any, text: str, src: str, ascii_src: bool) -> Word:
    """tree-sitter splits ``.[g]it`` into ``.``, ``[``, ``g``, ``]``, ``it``: no part is a glob on its
    own, the word is. bash opens a bracket expression at an unquoted ``[`` that a ``]`` follows
    (counted here even when that ``]`` is quoted, or a run-time value could hold it)."""
    values: list[str] = []
    quoted = dynamic = splits = glob = escaped_space = False
    bracket_open = False
    previous_end = node.start_byte
    for child in node.children:
        if child.start_byte != previous_end:
            raise Unresolvable("a word whose parts the parser does not join the way bash does", 14)
        previous_end = child.end_byte
        part = resolve_word(child, src, ascii_src)
        values.append(part.value)
        quoted = quoted or part.quoted
        dynamic = dynamic or part.dynamic
        splits = splits or part.splits
        glob = glob or part.glob
        escaped_space = escaped_space or part.escaped_space
        if not glob:
            if bracket_open and ("]" in part.value or part.dynamic):
                glob = True
            elif child.type == "word" and _unescaped_bracket(part.text):
                bracket_open = True
    return _flagged(Word("".join(values), text, quoted, dynamic, splits, glob, False, escaped_space))


def _unescaped_bracket(text: str) -> bool:
    """An unquoted word part holds a ``[`` not escaped by a backslash."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            return True
        i += 1
    return False


_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The value of ``$'...'`` (bash's ANSI-C quoting)."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[esc])
            i += 2
        elif esc in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8) & 0xFF))
            i = j
        elif esc in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[esc]
            j = i + 2
            while j < n and j < i + 2 + limit and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                out.append("\\" + esc)
            else:
                code = int(body[i + 2 : j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            i = j
        elif esc == "c" and i + 2 < n:
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + esc)
            i += 2
    return "".join(out)
