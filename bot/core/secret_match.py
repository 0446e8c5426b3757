"""Known secret values found in text in every form they commonly leak in.

A prompt-injected model that wants a secret out does not print it plainly: it reverses it, hex- or
base64-encodes it (possibly inside a longer base64 blob), URL-encodes some of its characters, or
sprinkles invisible characters into it. :class:`SecretMatcher` finds all of those for a set of
named values, in one pass over the text:

* **forms** (:func:`leak_forms`): the value, reversed, hex (any letter case), base64 standard and
  URL-safe, padded or not, of the value and of the ``x-access-token:<value>`` pair that
  ``actions/checkout`` persists; and the three *stable cores* of the value's base64: the characters
  that depend only on the value's bytes when it sits at byte offset 0, 1 or 2 of a longer encoded
  blob, so the value is found wherever the blob starts;
* **a normalised view** of the text, where ``%XX`` escapes, Markdown backslash escapes and HTML
  character references are decoded, HTML comments and tags are dropped, and invisible characters
  (every Unicode format character, category Cf, plus the variation selectors and fillers that render
  as nothing) are dropped, so any mix of literal characters, escapes and invisible characters
  matches. Matches in the view are mapped back to the original text, invisible characters inside
  included.

Why a view and not one pattern with ``(?:c|%XX)[invisible]*`` after every character: Python's
regular expression compiler is written in Python, and such a pattern for a run's real secrets (two
~1,200-character runtime JWTs among them) is ~1 MB of pattern text — 1.5 to 6 s to compile — and
matches at ~0.6 s per MB; nested (as a trie) it exceeds the parser's recursion limit. The view costs
one linear pass (and none when the text holds no ``%`` or invisible character); the forms then
compile to one flat alternation of literals, tens of milliseconds, matching at ~0.06 s per MB
(``bench/redaction.py``). Linear either way: no pattern here can backtrack past one form's length.
"""

from __future__ import annotations

import base64
import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from html.entities import html5

#: Values shorter than this are not matched by value: a 3-character "secret" would blank out
#: ordinary words everywhere (GitHub Actions' own masker has the same kind of floor).
MIN_SECRET_LENGTH = 8

#: The basic-auth user ``actions/checkout`` pairs the token with in ``.git/config``'s extraheader.
BASIC_AUTH_USER = "x-access-token"

#: Characters that render as nothing: Unicode format characters (category Cf, as of Unicode 16),
#: the combining grapheme joiner, Hangul and Khmer fillers, Mongolian free variation selectors and
#: the variation selectors. ``tests/core`` checks the Cf part against ``unicodedata``.
INVISIBLE_CLASS = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
#: What the view decodes or drops: ``%XX``; invisible characters; and what Markdown and HTML render
#: as something else or as nothing — a backslash escape (``ghs\_…`` shows ``ghs_…``), a character
#: reference (``&#103;``, ``&#x67;``, ``&lowbar;``), a comment or a tag between two characters
#: (``ghs_E2e<b></b>E2e…``). A comment or tag longer than :data:`MAX_DROPPED_MARKUP` is left as it is.
MAX_DROPPED_MARKUP = 256
_SPECIAL = re.compile(
    rf"%[0-9A-Fa-f]{{2}}|[{INVISIBLE_CLASS}]+|\\[!-/:-@\[-`{{-~]|&#[0-9]{{1,7}};|&#[xX][0-9A-Fa-f]{{1,6}};"
    rf"|&[A-Za-z][A-Za-z0-9]{{1,31}};|<!--(?s:.){{0,{MAX_DROPPED_MARKUP}}}?-->"
    rf"|</?[A-Za-z][A-Za-z0-9-]{{0,31}}(?:\s[^<>]{{0,{MAX_DROPPED_MARKUP}}})?/?>"
)

#: How many compiled matchers are kept: a run builds the same few (process secrets, canaries) again
#: and again (the Bash tool per call), and each compile costs milliseconds.
MATCHER_CACHE_SIZE = 32

# Canonical keys for telling which value a match was: the alphabets' variants folded together.
_CANON = str.maketrans({"-": "+", "_": "/", " ": "+"})
_HEX_LETTERS = frozenset("abcdefABCDEF")


@dataclass(frozen=True, slots=True)
class Form:
    """One textual form of a value. ``alphabet`` says which characters may stand for which:
    ``hex`` (either letter case), ``base64`` (``+``/``-`` and ``/``/``_``), ``text`` (a space may be a
    ``+``, as in a URL query)."""

    text: str
    alphabet: str


def base64_cores(data: bytes, *, urlsafe: bool = False) -> tuple[str, ...]:
    """The base64 characters that depend only on ``data`` when it starts at byte offset 0, 1 or 2 of
    a longer blob (whatever comes before and after it): offset k's characters run from
    ``ceil(8k/6)`` to ``floor(8(k+n)/6)`` of the blob's encoding from its last 3-byte boundary."""
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    cores = []
    for offset in range(3):
        encoded = encode(b"\0" * offset + data).decode()
        start = -(-8 * offset // 6)
        end = (8 * (offset + len(data))) // 6
        cores.append(encoded[start:end])
    return tuple(cores)


def value_forms(value: str) -> tuple[Form, ...]:
    """Every form :class:`SecretMatcher` looks for, longest first (a longer form wins where two
    start at the same place: the padded base64 over its core)."""
    raw = value.encode("utf-8", errors="surrogateescape")
    forms = [Form(value, "text"), Form(value[::-1], "text"), Form(raw.hex(), "hex")]
    for data in (raw, f"{BASIC_AUTH_USER}:{value}".encode("utf-8", errors="surrogateescape")):
        encoded = base64.b64encode(data).decode()
        forms += [Form(encoded, "base64"), Form(encoded.rstrip("="), "base64")]
    forms += [Form(core, "base64") for core in base64_cores(raw)]
    if "\n" in value:  # a multi-line value (a key file) leaks line by line, as logs print it
        forms += [Form(line.strip(), "text") for line in value.splitlines()]
    unique = {(f.text, f.alphabet): f for f in forms if len(f.text) >= MIN_SECRET_LENGTH}
    return tuple(sorted(unique.values(), key=lambda f: len(f.text), reverse=True))


def leak_forms(value: str) -> tuple[str, ...]:
    """The value and the encodings it commonly leaks in, spelled out (hex in both cases, base64 in
    both alphabets): what a redactor built for the value removes."""
    out: list[str] = []
    for form in value_forms(value):
        if form.alphabet == "hex":
            out += [form.text, form.text.upper()]
        elif form.alphabet == "base64":
            out += [form.text, form.text.replace("+", "-").replace("/", "_")]
        else:
            out.append(form.text)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class Match:
    """A value found in text: ``text[start:end]`` is it (in whatever form), ``label`` its name."""

    start: int
    end: int
    label: str


class SecretMatcher:
    """Finds named values (name → value) in text in any of their leak forms. Immutable; build it
    with :func:`secret_matcher` to share the compiled pattern between equal value sets."""

    def __init__(self, named: Mapping[str, str]) -> None:
        self._labels: dict[str, str] = {}
        self._hex_labels: dict[str, str] = {}
        # Forms grouped by their first character: a group is tried only where its character is, so
        # each position costs a test per distinct first character, not per form (4× faster with ten
        # secrets). Groups have disjoint first characters, so the longest-first order within a group
        # is the whole order that matters.
        groups: dict[str, list[tuple[int, str]]] = {}
        for name, value in named.items():
            if len(value) < MIN_SECRET_LENGTH:
                continue
            for form in value_forms(value):
                # Matching happens in the normalised view, so a form is looked for as the view shows
                # it (a value holding "%41" reads "A" there) and, when that differs, as it is.
                for text in dict.fromkeys((_normalise(form.text), form.text)):
                    if len(text) < MIN_SECRET_LENGTH:
                        continue
                    rest = "".join(_unit_pattern(c, form.alphabet) for c in text[1:])
                    for lead, tail in _first_char_variants(text[0], form.alphabet):
                        groups.setdefault(lead, []).append((len(text), tail + rest))
                    key = text.translate(_CANON)
                    if form.alphabet == "hex":
                        self._hex_labels.setdefault(key.lower(), name)
                    else:
                        self._labels.setdefault(key, name)
        branches = []
        for lead, alternatives in groups.items():
            # Longest first: at one position the alternation takes the first form that matches.
            ordered = dict.fromkeys(p for _, p in sorted(alternatives, key=lambda a: a[0], reverse=True))
            branches.append(f"{re.escape(lead)}(?:{'|'.join(ordered)})")
        self._pattern = re.compile("|".join(branches)) if branches else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def finditer(self, text: str) -> Iterator[Match]:
        """Every non-overlapping occurrence, left to right, with spans in ``text`` itself."""
        if self._pattern is None or not text:
            return
        view = _View.of(text)
        for m in self._pattern.finditer(view.text):
            start, end = view.source_span(m.start(), m.end())
            yield Match(start, end, self._label(m.group(0)))

    def search(self, text: str) -> Match | None:
        return next(self.finditer(text), None)

    def sub(self, text: str, marker: str = "[REDACTED:{label}]") -> str:
        """``text`` with every occurrence replaced by ``marker`` formatted with its label."""
        pieces: list[str] = []
        last = 0
        for match in self.finditer(text):
            pieces += [text[last : match.start], marker.format(label=match.label)]
            last = match.end
        if not pieces:
            return text
        pieces.append(text[last:])
        return "".join(pieces)

    def _label(self, matched: str) -> str:
        key = matched.translate(_CANON)
        label = self._labels.get(key) or self._hex_labels.get(key.lower())
        if label is None:
            # Non-ASCII values URL-encoded byte by byte read as Latin-1 in the view: decode them back.
            try:
                key = matched.encode("latin-1").decode("utf-8").translate(_CANON)
            except (UnicodeEncodeError, UnicodeDecodeError):
                return "secret"
            label = self._labels.get(key, "secret")
        return label


@lru_cache(maxsize=MATCHER_CACHE_SIZE)
def _cached_matcher(items: tuple[tuple[str, str], ...]) -> SecretMatcher:
    return SecretMatcher(dict(items))


def secret_matcher(named: Mapping[str, str]) -> SecretMatcher:
    """A matcher for these values, shared with every other caller that asks for the same ones."""
    return _cached_matcher(tuple(sorted(named.items())))


def _unit_pattern(char: str, alphabet: str) -> str:
    """What may stand for one character of a form in the normalised view."""
    if alphabet == "hex" and char in _HEX_LETTERS:
        return f"[{char.lower()}{char.upper()}]"
    if alphabet == "base64" and char in "+/":
        return r"[+\-]" if char == "+" else "[/_]"
    if alphabet == "text" and char == " ":
        return "[ +]"
    if ord(char) > 0x7F:
        # URL-encoded, a non-ASCII character is its UTF-8 bytes, each decoded alone in the view.
        return f"(?:{re.escape(char)}|{re.escape(_utf8_as_latin1(char))})"
    return re.escape(char)


def _first_char_variants(char: str, alphabet: str) -> list[tuple[str, str]]:
    """The literal characters a form may start with, each with the pattern for the rest of its
    first character: :func:`_unit_pattern` spelled out as (first character, remainder)."""
    if alphabet == "hex" and char in _HEX_LETTERS:
        return [(char.lower(), ""), (char.upper(), "")]
    if alphabet == "base64" and char in "+/":
        return [("+", ""), ("-", "")] if char == "+" else [("/", ""), ("_", "")]
    if alphabet == "text" and char == " ":
        return [(" ", ""), ("+", "")]
    if ord(char) > 0x7F:
        as_bytes = _utf8_as_latin1(char)
        return [(char, ""), (as_bytes[0], re.escape(as_bytes[1:]))]
    return [(char, "")]


def _utf8_as_latin1(char: str) -> str:
    return char.encode("utf-8", errors="surrogateescape").decode("latin-1")


def _normalise(text: str) -> str:
    return _View.of(text).text


def normalised_spans(text: str, patterns: Sequence[tuple[re.Pattern[str], int, str]]) -> list[Match]:
    """Where each ``(pattern, group, label)`` matches the normalised view of ``text`` (escapes and
    references decoded, markup and invisible characters dropped), as non-overlapping spans of
    ``text`` itself, left to right; empty when the view is the text (a plain search finds the same)."""
    view = _View.of(text)
    if view.text == text:
        return []
    found: list[Match] = []
    for pattern, group, label in patterns:
        for m in pattern.finditer(view.text):
            start, end = m.span(group)
            if end > start:
                found.append(Match(*view.source_span(start, end), label))
    found.sort(key=lambda match: (match.start, -match.end))
    kept: list[Match] = []
    for match in found:
        if not kept or match.start >= kept[-1].end:
            kept.append(match)
    return kept


def _decode(token: str) -> str | None:
    """The one character ``token`` stands for, or ``None`` when it renders as nothing (invisible
    characters, a comment, a tag) or is not a reference to one character (it is then kept)."""
    first = token[0]
    if first == "%":
        return chr(int(token[1:], 16))
    if first == "\\":
        return token[1]
    if first == "&":
        if token[1] == "#":
            number = int(token[3:-1], 16) if token[2] in "xX" else int(token[2:-1])
            return chr(number) if 0 < number <= 0x10FFFF else token
        named = html5.get(token[1:])
        return named if named is not None and len(named) == 1 else token
    return None


class _View:
    """Text with escapes and character references decoded, invisible characters and markup dropped
    (:data:`_SPECIAL`), and the way back to the original.

    Kept as segments, not one index per character: a megabyte of output with a few escapes costs a
    few list entries. ``_starts[i]`` is where segment i starts in the view; it covers the source from
    ``_sources[i]`` on, character for character (``_decoded[i]`` 0), or is one decoded escape of
    ``_decoded[i]`` source characters.
    """

    __slots__ = ("_decoded", "_sources", "_starts", "text")

    def __init__(self, text: str, starts: list[int], sources: list[int], decoded: list[int]) -> None:
        self.text = text
        self._starts = starts
        self._sources = sources
        self._decoded = decoded

    @classmethod
    def of(cls, text: str) -> _View:
        if _SPECIAL.search(text) is None:  # the common case: nothing to normalise
            return cls(text, [0], [0], [0])
        pieces: list[str] = []
        starts: list[int] = []
        sources: list[int] = []
        decoded: list[int] = []
        at = 0  # position in the view
        last = 0  # position in the source
        for m in _SPECIAL.finditer(text):
            if m.start() > last:
                starts.append(at)
                sources.append(last)
                decoded.append(0)
                pieces.append(text[last : m.start()])
                at += m.start() - last
            token = m.group(0)
            char = _decode(token)
            if char == token:  # not a reference to one character: kept as it is
                starts.append(at)
                sources.append(m.start())
                decoded.append(0)
                pieces.append(token)
                at += len(token)
            elif char is not None:
                starts.append(at)
                sources.append(m.start())
                decoded.append(len(token))
                pieces.append(char)
                at += 1
            last = m.end()
        if last < len(text) or not starts:
            starts.append(at)
            sources.append(last)
            decoded.append(0)
            pieces.append(text[last:])
        return cls("".join(pieces), starts, sources, decoded)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The source span of view characters ``[start, end)`` (``end > start``)."""
        return self._source_start(start), self._source_end(end - 1)

    def _segment(self, index: int) -> int:
        return bisect_right(self._starts, index) - 1

    def _source_start(self, index: int) -> int:
        seg = self._segment(index)
        if self._decoded[seg]:
            return self._sources[seg]
        return self._sources[seg] + index - self._starts[seg]

    def _source_end(self, index: int) -> int:
        seg = self._segment(index)
        if self._decoded[seg]:
            return self._sources[seg] + self._decoded[seg]
        return self._sources[seg] + index - self._starts[seg] + 1


__all__ = [
    "BASIC_AUTH_USER",
    "INVISIBLE_CLASS",
    "MAX_DROPPED_MARKUP",
    "MIN_SECRET_LENGTH",
    "Form",
    "Match",
    "SecretMatcher",
    "base64_cores",
    "leak_forms",
    "normalised_spans",
    "secret_matcher",
    "value_forms",
]
