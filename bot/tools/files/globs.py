"""File-name globs for Glob and Grep, chosen so ``.gitignore`` stays honoured.

ripgrep's ``--glob`` *whitelists*: a file matching it is listed even when ``.gitignore`` ignores
it. A file *type* (``--type-add name:glob --type name``) only narrows what the ignore rules let
through, but matches the file name alone. So:

* a glob on names (``*.py``, ``**/*.{ts,tsx}``, ``src/**/test_*.py`` once ``src/`` became the
  search root) becomes a type — rg matches, ignore rules hold;
* a glob with directories in it (``*/index.ts``, ``**/tests/**/*.py``) is matched here, on the
  paths rg lists (relative to the search root, ``/``-separated), with :func:`glob_regex`;
* an exclusion (``!*.min.js``) goes to rg as ``--glob`` — exclusions never whitelist.

Syntax, as ripgrep's globs: ``*`` and ``?`` within a segment, ``**`` across segments, ``[...]`` and
``[!...]`` classes, ``{a,b}`` alternatives, ``\\`` escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

#: The type name our name globs are registered under (any name rg does not define).
TYPE_NAME = "botglob"


@dataclass(frozen=True, slots=True)
class FileSelection:
    """How a set of globs selects files: rg arguments, plus path patterns checked here."""

    rg_args: list[str] = field(default_factory=list)
    path_patterns: tuple[re.Pattern[str], ...] = ()

    def wants(self, rel_path: str) -> bool:
        """For globs rg could not apply: does this path (relative to the root) match one?"""
        return not self.path_patterns or any(p.match(rel_path) for p in self.path_patterns)


def name_glob(pattern: str) -> str | None:
    """The file-name glob when ``pattern`` is one (``X`` or ``**/X`` with no ``/`` in ``X``)."""
    while pattern.startswith(("**/", "/**/")):
        pattern = pattern.removeprefix("/")[3:]
    if not pattern or "/" in pattern or pattern == "**":
        return "*" if pattern == "**" else None
    return pattern


def select_files(globs: list[str]) -> FileSelection:
    positive = [g for g in globs if g and not g.startswith("!")]
    args: list[str] = []
    for g in globs:
        if g.startswith("!") and len(g) > 1:
            args += ["--glob", g]
    names = [name_glob(g) for g in positive]
    if not positive:
        return FileSelection(args)
    if "*" in names:
        return FileSelection(args)  # every file: no type needed
    if all(n is not None for n in names):
        for n in names:
            args += ["--type-add", f"{TYPE_NAME}:{n}"]
        return FileSelection([*args, "--type", TYPE_NAME])
    return FileSelection(args, tuple(glob_regex(g) for g in positive))


def split_globs(text: str) -> list[str]:
    """Grep's ``glob`` parameter: globs separated by spaces or commas, commas in braces kept."""
    out: list[str] = []
    for word in text.split():
        depth, start = 0, 0
        for i, ch in enumerate(word):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth = max(0, depth - 1)
            elif ch == "," and depth == 0:
                if word[start:i]:
                    out.append(word[start:i])
                start = i + 1
        if word[start:]:
            out.append(word[start:])
    return out


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex matching ``/``-separated relative paths. A pattern without ``/`` matches a
    name at any depth (gitignore semantics, as rg's globs); with one, it is anchored at the root."""
    pattern = pattern.removeprefix("./")
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    return re.compile(_translate(pattern.lstrip("/")) + r"\Z", re.DOTALL)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == n and (i == 0 or pattern[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "[":
            j = i + 1
            j += pattern[j : j + 1] in ("!", "^")
            j += pattern[j : j + 1] == "]"  # a leading ] is a member, not the end
            end = pattern.find("]", j)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\").replace("[", "\\[")
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            i = end + 1
        elif c == "{":
            end, parts = _alternatives(pattern, i)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            out.append("(?:" + "|".join(_translate(p) for p in parts) + ")")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _alternatives(pattern: str, start: int) -> tuple[int, list[str]]:
    """The index of the ``}`` closing the brace at ``start`` and the top-level alternatives."""
    depth, parts, begin = 0, [], start + 1
    for i in range(start, len(pattern)):
        ch = pattern[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append(pattern[begin:i])
                return i, parts
        elif ch == "," and depth == 1:
            parts.append(pattern[begin:i])
            begin = i + 1
    return -1, []
