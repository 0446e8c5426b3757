"""Where bash ends a heredoc body (shared by :mod:`bot.shell.parse.walk`
and :mod:`bot.shell.parse.quoting`, which must both agree with bash on it).

bash reads the body line by line and stops at the first line equal to the delimiter. Two details
make that line differ from what a line-splitting reader sees:

* with an unquoted delimiter (``<<EOF``), a line that ends in an unescaped backslash is joined to
  the next one before the comparison: ``EO\\`` + newline + ``F`` is the line ``EOF`` and ends the
  body, while ``EO\\\\`` + newline + ``F`` (an escaped backslash) does not;
* with ``<<-``, leading tabs are removed from each line read, but not from a continuation line
  (``\\tEO\\`` + newline + ``\\tF`` is ``EO\\tF``).

Both were checked against bash 5.2.
"""

from __future__ import annotations

import re

from bot.shell.parse.words import Unresolvable


def _continues(line: str) -> bool:
    """The line ends in an odd number of backslashes: the last one escapes the newline."""
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def heredoc_extent(text: str, pos: int, delimiter: str, *, quoted: bool, strip_tabs: bool) -> tuple[int, int] | None:
    """``(start, after)`` of the line at which bash ends a heredoc body that starts at ``pos``:
    ``start`` is where that (logical) line begins, ``after`` the position after its newline (or
    ``len(text)``). ``None`` when no line ends the body."""
    n = len(text)
    while pos < n:
        line_start = pos
        end = text.find("\n", pos)
        line = text[pos:] if end == -1 else text[pos:end]
        if strip_tabs:
            line = line.lstrip("\t")
        while not quoted and end != -1 and _continues(line):
            following = text.find("\n", end + 1)
            line = line[:-1] + (text[end + 1 :] if following == -1 else text[end + 1 : following])
            end = following
        if line == delimiter:
            return line_start, (n if end == -1 else end + 1)
        if end == -1:
            return None
        pos = end + 1
    return None


def heredoc_body(command: str, pos: int, delimiter: str, *, quoted: bool, strip_tabs: bool) -> tuple[str, int, bool]:
    """The body from ``pos`` up to the line bash ends it at; the position after that line; whether
    the heredoc is closed at all."""
    extent = heredoc_extent(command, pos, delimiter, quoted=quoted, strip_tabs=strip_tabs)
    if extent is None:
        return command[pos:], len(command), False
    return command[pos : extent[0]], extent[1], True


_LINE_CONTINUATION = re.compile(r"\\(\n)|\\.", re.S)


def _join(match: re.Match[str]) -> str:
    """Remove a line continuation, keep any other escape (``\\\\`` + newline ends the line)."""
    return "" if match.group(1) else match.group()


def check_heredoc(
    text: str, start: str, end: str, body: str, strip_tabs: bool, *, after_start: int, body_start: int, following: str
) -> bool:
    """Check tree-sitter's reading of a heredoc against bash's; return whether the delimiter is quoted.

    ``text`` runs from the operator to the end of tree-sitter's end line; ``start``/``end``/``body``
    are its delimiter, end line and body texts; ``after_start``/``body_start`` the offsets in
    ``text`` after the delimiter and of the body; ``following`` the character after the end line.
    bash's body starts after the first line break following the start (the rest of that line may
    hold no other), ends exactly at tree-sitter's end line, and that line holds nothing else
    (tree-sitter ends ``EOF; x`` at ``EOF``, bash does not)."""
    quoted = any(q in start for q in "'\"\\")
    delimiter = start.replace("'", "").replace('"', "").replace("\\", "")
    if (
        delimiter != end
        or not delimiter
        or not (delimiter[0].isalpha() or delimiter[0] == "_")
        or not delimiter.replace("_", "").replace("-", "").isalnum()
    ):
        raise Unresolvable("a heredoc delimiter that bash and the parser could read differently", 14)
    for line in body.split("\n"):
        if (line.lstrip("\t") if strip_tabs else line) == delimiter:
            raise Unresolvable("a heredoc body contains its own delimiter line", 14)
    head = text[after_start:body_start]
    newline = _start_line_end(head, strip_tabs)
    if newline == -1:
        raise Unresolvable("a line break inside the line that starts a heredoc", 14)
    extent = heredoc_extent(text, after_start + newline + 1, delimiter, quoted=quoted, strip_tabs=strip_tabs)
    if following not in ("", "\n") or extent != (text.rfind("\n") + 1, len(text)):
        raise Unresolvable("a heredoc body that bash ends on another line", 14)
    return quoted


def _start_line_end(head: str, strip_tabs: bool) -> int:
    """Where the line that starts a heredoc ends in ``head`` (the text between the delimiter and
    tree-sitter's body): the first line break that is not a line continuation, followed only by
    blank lines (tree-sitter starts the body after leading blank lines; for bash they are part of
    it; with ``<<-``, so are the tabs it strips). ``-1`` when the start line holds another line
    break."""
    for index, char in enumerate(head):
        if char != "\n":
            continue
        before = head[:index]
        if (len(before) - len(before.rstrip("\\"))) % 2:  # `\<newline>` continues the line
            continue
        if "\n" in _LINE_CONTINUATION.sub(_join, before) or head[index + 1 :].strip("\n\t" if strip_tabs else "\n"):
            return -1
        return index
    return -1
