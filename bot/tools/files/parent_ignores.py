"""What the ignore files *above* a search root mean for rg's listing of it.

rg reads the ignore files of every directory above the root it walks (``.rgignore``, ``.ignore``,
``.gitignore``, and ``.git/info/exclude`` of a repository there) and, for every entry the walk
meets, joins the entry's path to the root's absolute path and matches that against those rules.
Where a name glob matches few files that per-entry join and match is a large share of rg's CPU
time: 35-40 of its ≈ 100 ms of user time on the standard library tree of bench/search.py (which
sits inside pyenv's git checkout, under its ``.gitignore``), about a fifth of the whole listing.
``--no-ignore-parent`` skips it — the rules above the root only: a ``.git`` up there still makes
the tree a repository whose own ``.gitignore`` files hold.

:func:`parent_rules` reads those files and sorts every rule, as rg's ignore crate parses it
(comments, trailing blanks, ``!``, a leading or trailing ``/``):

* **inert** — it can match no path under the root: it is anchored (holds a ``/`` before its
  end), and either has no more segments than the root lies below the rule's directory (it names
  the root or a directory above it; rg never matches the root itself) or a leading segment, before
  any ``**``, does not match the root's own path there (``/versions`` or ``/src/*.o`` in
  ``~/.pyenv/.gitignore`` seen from ``~/.pyenv/versions/3.11/lib``);
* **a name rule** — it ignores names at any depth (``*.log``, ``.idea``, ``node_modules/``);
  taken only from directories above the workspace (see :func:`parent_rules`);
* anything else (a ``!`` rule that is not inert, an anchored rule that may reach under the root,
  an escape or brace, non-ASCII, a file too big or unreadable, a ``.git`` that is a file: its
  exclude file is elsewhere) — rg keeps its own handling (:attr:`ParentRules.skippable` is False).

A root that holds a ``.git`` is a repository of its own: rg applies no ``.gitignore`` or
``.git/info/exclude`` from above it, so those are not read (a CI checkout's Glob: nothing above
it usually has rules, and rg is told to skip them all).

With inert and name rules only, ``--no-ignore-parent`` lists a superset: the same files plus, at
most, some whose path has a component a name rule matches (that name, or a directory of that
name, would have been ignored). :meth:`ParentRules.may_hide` tells those apart, conservatively —
it may say yes to more names than rg's glob would match, never fewer. A caller that shows the
newest files checks the ones it shows (and the one that makes "more than a page"); only if one of
them may be hidden does it ask rg again without the flag. The rest of the listing cannot change
the page: it only ever lacks files.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Ignore files rg reads in every directory (``.rgignore`` and ``.ignore`` are its own).
IGNORE_FILE_NAMES = (".rgignore", ".ignore", ".gitignore")
#: A bigger ignore file is not read here: rg keeps its own handling of the rules above the root.
MAX_IGNORE_FILE_BYTES = 256 * 1024
#: A name rule with more wildcards than this leaves rg its own handling.
MAX_NAME_WILDCARDS = 4

_SPECIAL = frozenset("{}\\")


@dataclass(frozen=True, slots=True)
class ParentRules:
    """The ignore rules above a root, as far as rg's walk under it goes."""

    #: rg may be given ``--no-ignore-parent`` (check what is shown with :meth:`may_hide`).
    skippable: bool
    #: Matches a path (relative to the root, ``/``-separated) with a component a name rule matches.
    names: re.Pattern[bytes] | None = None

    def may_hide(self, rel_path: bytes) -> bool:
        """Might a rule above the root hide this path that rg listed under ``--no-ignore-parent``?"""
        return self.names is not None and self.names.search(rel_path) is not None


#: rg's own handling of the rules above the root (nothing analysed, or something not inert).
KEEP = ParentRules(skippable=False)


class _NotAnalysed(Exception):
    """A rule or file whose effect under the root is not worked out here."""


def parent_rules(root: Path, workspace: Path) -> ParentRules:
    """What the ignore files in the directories above ``root`` amount to for a walk under it.

    Name rules are taken (checked afterwards) only from directories above ``workspace``: the
    project's own ignore files name directories that are there and often big (``node_modules``),
    which rg would then walk, only to be asked again; a file above the project rarely names one
    inside it. Their rules leave rg its own handling unless they are inert."""
    real = PurePosixPath(os.path.realpath(root))  # rg canonicalises the root too
    project = PurePosixPath(os.path.realpath(workspace))
    parts = real.parts
    # A .git in the root makes the walk a repository of its own: rg then applies no .gitignore or
    # .git/info/exclude from above it (its .ignore and .rgignore still hold).
    own_repository = os.path.exists(real / ".git")  # as rg tells: following a link
    files = IGNORE_FILE_NAMES[:2] if own_repository else IGNORE_FILE_NAMES
    names: list[str] = []
    try:
        for depth in range(1, len(parts)):
            above = PurePosixPath(*parts[:depth])
            below = parts[depth:]
            foreign = not above.is_relative_to(project)
            for name in files:
                names += _file_rules(str(above / name), below, foreign)
            if own_repository:
                continue
            try:
                git = os.stat(above / ".git").st_mode  # rg follows a link here too
            except OSError:
                continue
            if not stat.S_ISDIR(git):
                raise _NotAnalysed  # a worktree's or submodule's: its exclude file is elsewhere
            names += _file_rules(str(above / ".git" / "info" / "exclude"), below, foreign)
    except _NotAnalysed:
        return KEEP
    if not names:
        return ParentRules(skippable=True)
    alternatives = "|".join(sorted(set(names)))
    return ParentRules(skippable=True, names=re.compile(f"(?:^|/)(?:{alternatives})(?:/|$)".encode(), re.IGNORECASE))


def _file_rules(path: str, below: tuple[str, ...], names_allowed: bool) -> list[str]:
    """The name rules of one ignore file, as regex sources (:class:`_NotAnalysed` if not all its
    other rules are inert, or if it has name rules and they are not allowed)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_IGNORE_FILE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return []  # no file, no rules
    except OSError:
        raise _NotAnalysed from None
    if len(data) > MAX_IGNORE_FILE_BYTES:
        raise _NotAnalysed
    found = []
    for line in data.split(b"\n"):
        rule = classify_rule(line, below)
        if rule is None or (rule and not names_allowed):
            raise _NotAnalysed
        if rule:
            found.append(rule)
    return found


def classify_rule(line: bytes, below: tuple[str, ...]) -> str | None:
    """One line of an ignore file in a directory above the root, ``below`` being the root's path
    relative to that directory (segments): ``""`` when it can match nothing under the root (or is
    no rule), a regex source (bytes, one path component) over-approximating the names it ignores
    when it is a name rule, ``None`` when neither is sure."""
    if line.startswith(b"#"):
        return ""  # a comment
    line = line.rstrip(b" \t\r\n\v\f")  # rg trims these too (it keeps a blank after a backslash)
    if not line:
        return ""
    if any(b < 0x20 or b > 0x7E for b in line) or _SPECIAL & set(line.decode("ascii")):
        return None  # rg trims other blanks too and has its own ways with non-ASCII; escapes, braces
    text = line.decode("ascii")
    whitelist = text.startswith("!")
    text = text.removeprefix("!")
    anchored = text.startswith("/")
    text = text.removeprefix("/").removesuffix("/")
    if not anchored and "/" not in text.removeprefix("**/"):  # a name at any depth
        text = text.removeprefix("**/")
        if whitelist or not text or "**" in text or sum(map(text.count, "*?[")) > MAX_NAME_WILDCARDS:
            return None  # (many wildcards: a regex search that could backtrack on every path shown)
        return _glob_source(text)
    if not anchored and text.startswith("**/"):
        return None  # ``**/a/b``: at any depth
    # Anchored at the ignore file's directory (a leading ``/``, or a ``/`` inside).
    segments = text.split("/")
    if "**" not in text and len(segments) <= len(below):
        return ""  # names the root or a directory above it
    for segment, part in zip(segments, below, strict=False):
        if "**" in segment:
            break  # it may stand for any number of segments: nothing after it is sure
        if not _may_match(segment, os.fsencode(part)):
            return ""  # no wildcard crosses ``/``; this segment is not the root's
    return None


def _may_match(glob: str, name: bytes) -> bool:
    """Whether ``glob`` (one segment) may match ``name``, as :func:`_glob_source`'s regex would
    answer, but in linear time: that regex is literal pieces between gaps of "n bytes or more",
    and a backtracking match of ``*a*a*a…*c`` against ``aaaa…`` (a rule and a directory name the
    model can both write) tries every way of splitting the name. Each piece is placed leftmost
    after the one before; the last one, after a gap, at the very end — leftmost placements leave
    the most room for what follows, so this finds a match whenever one exists."""
    pieces = _pieces(glob)
    if pieces is None:
        return True  # a malformed class: rg drops the glob; "anything" is the safe answer here
    first, rest = pieces
    if not name.startswith(first):
        return False
    position = len(first)
    if not rest:
        return position == len(name)
    for at_least, literal in rest[:-1]:
        found = name.find(literal, position + at_least)
        if found < 0:
            return False
        position = found + len(literal)
    at_least, last = rest[-1]
    return len(name) - len(last) >= position + at_least and name.endswith(last)


def _pieces(glob: str) -> tuple[bytes, list[tuple[int, bytes]]] | None:
    """``glob`` as a leading literal and (gap's least bytes, literal) pairs: a run of wildcards
    needs as many bytes as it has ``?`` and classes; None for a malformed class."""
    first = bytearray()
    rest: list[tuple[int, bytearray]] = []
    run: int | None = None
    i = 0
    while i < len(glob):
        c = glob[i]
        if c in "*?[":
            run = (run or 0) + (c != "*")
            if c == "[":
                j = i + 1 + (glob[i + 1 : i + 2] in ("!", "^"))
                j += glob[j : j + 1] == "]"
                i = glob.find("]", j)
                if i < 0:
                    return None
        else:
            if run is not None:
                rest.append((run, bytearray()))
                run = None
            (rest[-1][1] if rest else first).extend(c.encode("ascii"))
        i += 1
    if run is not None:
        rest.append((run, bytearray()))
    return bytes(first), [(n, bytes(literal)) for n, literal in rest]


def _glob_source(glob: str) -> str:
    """A regex source (bytes, within one path component) matching at least the names rg's glob
    (``*``, ``?``, classes and literals, no ``/``) matches. rg's ``?`` or class is one
    character, which may be several bytes, so a run of wildcards with n of them becomes "n bytes
    or more"; a malformed class (rg drops such a glob) "anything"."""
    pieces = _pieces(glob)
    if pieces is None:
        return "[^/]*"
    first, rest = pieces
    return re.escape(first.decode("ascii")) + "".join(
        f"[^/]{{{at_least},}}" + re.escape(literal.decode("ascii")) for at_least, literal in rest
    )


__all__ = ["IGNORE_FILE_NAMES", "KEEP", "MAX_IGNORE_FILE_BYTES", "ParentRules", "classify_rule", "parent_rules"]
