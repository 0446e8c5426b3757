"""Quote-stripped views of a command string, for the text-level security checks (seeds 4.6.1).

Three variants, as the seeds describe ``extractQuotedContent()``:

* ``with_double_quotes`` — single-quoted content removed, double-quoted content kept (``$(`` is
  live inside double quotes, so command-substitution checks look here);
* ``fully_unquoted`` — all quoted content removed (what bash itself interprets as syntax);
* ``keep_quote_chars`` — content removed but the quote characters kept, to see adjacency
  (``""#x`` is a mid-word ``#``).

Unlike a naive character loop, the scanner knows comments (``# it's`` does not open a quote),
heredoc bodies (data, not syntax) and backslash escapes (``\\$(`` is not a substitution): an
escaped character becomes ``_`` in every variant and is listed in ``escapes`` for the checks
that look at escapes themselves. Inside double quotes, the safe heredoc substitution
(:data:`~bot.shell.parse.words.SAFE_HEREDOC_SUBSTITUTION`) is literal text for bash and becomes
``_``; anywhere else (unquoted, inside single quotes) it is scanned like any other text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.shell.parse.heredoc import heredoc_body
from bot.shell.parse.words import SAFE_HEREDOC_SUBSTITUTION

_TOKEN = re.compile(
    r"""(?P<esc>\\.)
      |(?P<ansi>\$'(?:[^'\\]|\\.)*(?:'|\Z))
      |(?P<sq>'[^']*(?:'|\Z))
      |(?P<dq>")
      |(?P<hd>(?<!<)<<(?!<)-?[ \t]*(?:'[^'\n]*'|"[^"\n]*"|\\.|[A-Za-z0-9_-])+)
      |(?P<com>(?<![^\s;&|()])\#[^\n]*)
      |(?P<nl>\n)
      |(?P<other>[^\\'"$<\#\n]+|[$<\#]|\\\Z)""",
    re.S | re.X,
)
_DQ_ESCAPE = re.compile(r"\\.", re.S)
#: The safe substitution where it starts: ``$(cat <<'EOF'`` ... the closing parenthesis.
_SAFE_SUBST_ANYWHERE = re.compile(SAFE_HEREDOC_SUBSTITUTION.pattern.removesuffix(r"\Z"))
#: The text of a double-quoted string up to its closing quote, a backslash or a ``$``.
_DQ_PLAIN = re.compile(r'[^"\\$]+')


@dataclass(frozen=True, slots=True)
class QuoteViews:
    with_double_quotes: str
    fully_unquoted: str
    keep_quote_chars: str
    #: ``(position, character)`` of each backslash escape outside single quotes.
    escapes: tuple[tuple[int, str], ...]
    #: Comment texts (outside quotes), ``#`` included.
    comments: tuple[str, ...]
    #: A quote or heredoc that never closes.
    unterminated: bool


def quote_views(command: str) -> QuoteViews:
    """Scan ``command`` once."""
    wdq: list[str] = []
    full: list[str] = []
    keep: list[str] = []
    escapes: list[tuple[int, str]] = []
    comments: list[str] = []
    unterminated = False
    pending: list[tuple[str, bool, bool]] = []  # heredocs opened on the current line
    pos, n = 0, len(command)
    escaped_until = -1
    while pos < n:
        match = _TOKEN.match(command, pos)
        if match is None:  # pragma: no cover - the pattern matches every character
            break
        kind = match.lastgroup
        token = match.group()
        if kind == "com" and match.start() == escaped_until:
            # `\ #x`: the # follows an escaped blank, so it is inside a word, not a comment.
            kind, token = "other", "#"
            pos = match.start() + 1
        else:
            pos = match.end()
        if kind == "esc":
            escaped_until = pos
        if kind == "other":
            wdq.append(token)
            full.append(token)
            keep.append(token)
        elif kind == "esc":
            escapes.append((match.start(), token[1]))
            wdq.append("_")
            full.append("_")
            keep.append("_")
        elif kind in ("sq", "ansi"):
            closed = len(token) >= (3 if kind == "ansi" else 2) and token.endswith("'")
            unterminated = unterminated or not closed
            keep.append("''")
        elif kind == "dq":
            content, pos, closed = _double_quoted(command, pos)
            unterminated = unterminated or not closed
            wdq.append(content)
            keep.append('""')
        elif kind == "com":
            comments.append(token)
        elif kind == "hd":
            wdq.append(token)
            full.append(token)
            keep.append(token)
            spec = token[2:]
            strip_tabs = spec.startswith("-")
            spec = spec[1:].strip() if strip_tabs else spec.strip()
            # bash removes the quotes of a partly quoted delimiter: <<'E'OF ends at a line "EOF"
            quoted = any(q in spec for q in "'\"\\")
            pending.append((spec.replace("'", "").replace('"', "").replace("\\", ""), quoted, strip_tabs))
        else:  # newline
            wdq.append("\n")
            full.append("\n")
            keep.append("\n")
            for delimiter, quoted, strip_tabs in pending:
                body, pos, closed = heredoc_body(command, pos, delimiter, quoted=quoted, strip_tabs=strip_tabs)
                unterminated = unterminated or not closed
                if not quoted:
                    wdq.append(_DQ_ESCAPE.sub("_", body))
            pending.clear()
    if pending:
        unterminated = True
    return QuoteViews("".join(wdq), "".join(full), "".join(keep), tuple(escapes), tuple(comments), unterminated)


def _double_quoted(command: str, pos: int) -> tuple[str, int, bool]:
    """The content of the double-quoted string whose text starts at ``pos`` (after the opening
    quote), escapes and safe heredoc substitutions replaced by ``_``; the position after the
    closing quote; whether there is one."""
    out: list[str] = []
    n = len(command)
    while pos < n:
        plain = _DQ_PLAIN.match(command, pos)
        if plain is not None:
            out.append(plain.group())
            pos = plain.end()
            continue
        char = command[pos]
        if char == '"':
            return "".join(out), pos + 1, True
        if char == "\\":
            out.append("_")
            pos += 2
            continue
        safe = _SAFE_SUBST_ANYWHERE.match(command, pos) if command.startswith("$(cat <<", pos) else None
        if safe is not None:
            out.append("_")
            pos = safe.end()
        else:
            out.append(char)
            pos += 1
    return "".join(out), n, False
