"""What an unquoted glob in a path argument matches, expanded the way bash will (seeds 4.6.5).

Checking only the directory before the first wildcard misses what the wildcard reaches:
``rm -rf */`` goes through a symbolic link that points out of the workspace, ``cat .gi?/config``
and ``rm .[g]it/HEAD`` reach into ``.git``. So the analysis expands the glob against the files as
they are when it decides, and checks the matches that differ from their directory: a symbolic
link on the way, or a protected directory (``.git``, ``.github``).

The expansion over-approximates bash's (a superset is safe: more paths are checked):

* a quoted wildcard is indistinguishable here from an unquoted one, so every ``*``, ``?`` and
  ``[`` of the value counts;
* a leading dot is matched by a literal ``.`` *or* a bracket expression that contains one
  (``[.]git``; bash leaves that case to the implementation), and a component starting with a dot
  may match ``.`` and ``..`` (bash before 5.2 does, without ``globskipdots``);
* ``[[:class:]]`` matches any character; ``**`` is ``*`` (no ``globstar``: ``shopt`` is refused);
* ``!`` and ``^`` both negate a bracket expression; an unterminated ``[`` is a literal.

Bounded: more than :data:`MAX_GLOB_MATCHES` matches, or :data:`MAX_GLOB_ENTRIES` directory
entries read, and :func:`expand` gives up (``None``: the caller asks).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import NamedTuple

#: Matches a glob may have before the analysis stops checking them one by one and asks.
MAX_GLOB_MATCHES = 5_000
#: Directory entries read for one glob (a pattern such as ``*/*/*`` walks many directories).
MAX_GLOB_ENTRIES = 50_000
_WILDCARDS = frozenset("*?[")


class Match(NamedTuple):
    #: The matched path, absolute and lexical (``cwd`` joined with the matched names).
    path: str
    #: A component of the match (past the pattern's literal directory) is a symbolic link.
    through_link: bool
    #: Not a match of the whole pattern but of a wildcard component on the way (``*`` of
    #: ``*/.ssh/id_rsa``): where the rest of the pattern would look, whether or not it finds it.
    partial: bool = False


def has_wildcard(component: str) -> bool:
    return not _WILDCARDS.isdisjoint(component)


def expand(pattern: str, cwd: str) -> list[Match] | None:
    """The paths ``pattern`` (a word's value, relative to ``cwd`` unless absolute) matches now,
    then the :attr:`Match.partial` ones its wildcard components reach on the way; ``None`` when
    there are too many to check. A pattern that matches nothing has no full match (bash then
    passes the pattern itself: the caller checks that as a literal)."""
    absolute = pattern.startswith("/")
    parts = [p for p in pattern.split("/") if p]
    current: list[tuple[str, bool]] = [("/" if absolute else cwd.rstrip("/") or "/", False)]
    budget = [MAX_GLOB_ENTRIES]
    partial: list[Match] = []
    for index, part in enumerate(parts):
        following: list[tuple[str, bool]] = []
        if not has_wildcard(part):
            for base, linked in current:
                path = _join(base, part)
                if os.path.lexists(path):
                    following.append((path, linked or os.path.islink(path)))
        else:
            regex = _compile(part)
            dotted = part.startswith(".") or _bracket_with_dot(part)
            for base, linked in current:
                entries = _entries(base, budget)
                if entries is None:
                    return None
                for name, is_link in entries:
                    if name.startswith(".") and not dotted:
                        continue
                    if regex.fullmatch(name):
                        following.append((_join(base, name), linked or is_link))
                if dotted:  # `.*` may match `.` and `..` (bash < 5.2)
                    following.extend((_join(base, name), linked) for name in (".", "..") if regex.fullmatch(name))
            if len(following) > MAX_GLOB_MATCHES:
                return None
            if index < len(parts) - 1:
                # Where the rest would land: the literal components that follow, up to the next
                # wildcard (`.gith?b/workflows/x.yml` → `.github/workflows/x.yml`, even if absent).
                rest: list[str] = []
                for later in parts[index + 1 :]:
                    if has_wildcard(later):
                        break
                    rest.append(later)
                tail = "/" + "/".join(rest) if rest else ""
                partial.extend(Match(path + tail, linked, True) for path, linked in following)
        current = following
        if not current:
            break
    return [Match(path, linked) for path, linked in current] + partial


def _join(base: str, name: str) -> str:
    return base + name if base.endswith("/") else base + "/" + name


def _entries(directory: str, budget: list[int]) -> list[tuple[str, bool]] | None:
    """``(name, is_symlink)`` of a directory's entries (``[]`` if it cannot be read); ``None``
    once the budget of entries is spent."""
    try:
        with os.scandir(directory) as listing:
            found = [(entry.name, entry.is_symlink()) for entry in listing]
    except OSError:
        return []
    budget[0] -= len(found)
    return None if budget[0] < 0 else found


def _bracket_with_dot(part: str) -> bool:
    """The component starts with a bracket expression that can match a dot (``[.]git``)."""
    if not part.startswith("["):
        return False
    end = _bracket_end(part, 0)
    if end is None:
        return False
    body = part[1:end]
    # POSIX: a non-matching list ([!x]) never matches a leading dot; a matching list with a dot
    # or a class is unspecified (assumed to match).
    return not body.startswith(("!", "^")) and ("." in body or _has_class(body))


def _bracket_end(part: str, start: int) -> int | None:
    """Index of the ``]`` closing the bracket expression opening at ``start`` (a ``]`` right
    after ``[``, ``[!`` or ``[^`` is a member), or ``None`` when it is not closed."""
    i = start + 1
    if i < len(part) and part[i] in "!^":
        i += 1
    if i < len(part) and part[i] == "]":
        i += 1
    while i < len(part):
        if part[i] == "[" and part[i + 1 : i + 2] in (":", "=", "."):  # [:class:], [=equiv=], [.coll.]
            kind = part[i + 1]
            close = part.find(kind + "]", i + 2)
            if close != -1:
                i = close + 2
                continue
        if part[i] == "]":
            return i
        i += 1
    return None


def _has_class(body: str) -> bool:
    return "[:" in body or "[=" in body or "[." in body


@lru_cache(maxsize=256)
def _compile(part: str) -> re.Pattern[str]:
    try:
        return _translate(part)
    except re.error:  # a range bash accepts and Python does not ([z-a]): anything (a superset)
        return re.compile(".*", re.DOTALL)


def _translate(part: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(part):
        c = part[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = _bracket_end(part, i)
            if end is None:
                out.append(re.escape(c))
            else:
                out.append(_bracket(part[i + 1 : end]))
                i = end
        elif c == "\\" and i + 1 < len(part):
            i += 1
            out.append(re.escape(part[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _bracket(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    if _has_class(body):  # a class, an equivalence class or a collating symbol: any character
        return "."
    members = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[").replace("]", "\\]")
    # Keep ranges (a-z); a leading or trailing '-' is literal in both syntaxes.
    return f"[{'^' if negate else ''}{members}]"
