"""Curly/straight quote normalisation for Edit (seeds 8.2.3 ``findActualString``,
``preserveQuoteStyle``).

A model often cannot reproduce the typographic quotes of a file (“ ” ‘ ’) and sends straight ones
(or the reverse). Edit then finds the text with quotes normalised on both sides, takes the
file's *actual* text as the string to replace, and writes the new text in the file's quote style.
Each curly quote is one character, like its straight counterpart, so positions in the normalised
text are positions in the file.
"""

from __future__ import annotations

LEFT_SINGLE = "\u2018"
RIGHT_SINGLE = "\u2019"
LEFT_DOUBLE = "\u201c"
RIGHT_DOUBLE = "\u201d"
_CURLY_DOUBLE = LEFT_DOUBLE + RIGHT_DOUBLE
_CURLY_SINGLE = LEFT_SINGLE + RIGHT_SINGLE
_TO_STRAIGHT = str.maketrans({LEFT_SINGLE: "'", RIGHT_SINGLE: "'", LEFT_DOUBLE: '"', RIGHT_DOUBLE: '"'})
#: A quote after one of these (or at the start) opens; anywhere else it closes.
_OPENING_CONTEXT = frozenset(" \t\n\r([{\u2014\u2013")


def normalize_quotes(text: str) -> str:
    """Curly quotes to straight ones; the length never changes."""
    return text.translate(_TO_STRAIGHT)


def find_actual_string(content: str, search: str) -> str | None:
    """The text of ``content`` that ``search`` means: itself when present verbatim, else the first
    match with quotes normalised on both sides, else ``None``."""
    if search in content:
        return search
    index = normalize_quotes(content).find(normalize_quotes(search))
    if index < 0:
        return None
    return content[index : index + len(search)]


def preserve_quote_style(old_string: str, actual_old: str, new_string: str) -> str:
    """Write ``new_string`` in the quote style of the file's text that was matched."""
    if old_string == actual_old:
        return new_string
    has_double = any(c in actual_old for c in _CURLY_DOUBLE)
    has_single = any(c in actual_old for c in _CURLY_SINGLE)
    if not has_double and not has_single:
        # The model sent curly quotes where the file has straight ones: keep the file straight.
        return normalize_quotes(new_string)
    result = new_string
    if has_double:
        result = _curl(result, '"', LEFT_DOUBLE, RIGHT_DOUBLE, apostrophes=False)
    if has_single:
        result = _curl(result, "'", LEFT_SINGLE, RIGHT_SINGLE, apostrophes=True)
    return result


def _curl(text: str, straight: str, left: str, right: str, *, apostrophes: bool) -> str:
    if straight not in text:
        return text
    out: list[str] = []
    for i, char in enumerate(text):
        if char != straight:
            out.append(char)
            continue
        prev = text[i - 1] if i > 0 else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if apostrophes and prev.isalpha() and nxt.isalpha():
            out.append(right)  # don’t: an apostrophe is a right single quote
        elif i == 0 or prev in _OPENING_CONTEXT:
            out.append(left)
        else:
            out.append(right)
    return "".join(out)
