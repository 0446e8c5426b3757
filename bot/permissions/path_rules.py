"""Path patterns in file-tool rules: ``Read(src/**)``, ``Edit(//etc/**)``, ``Read(~/.ssh/**)``.

Gitignore semantics, as Claude Code's rules use them:

* where a pattern is anchored:

  ==================  ==========================================================================
  ``//abs/path``      the filesystem root
  ``~/x``             the home directory
  ``/x``              the rule's base: the directory of the policy file that wrote it (for a file
                      inside ``.claude/``, the directory that holds ``.claude/``), else the workspace
  ``./x``, ``a/b``    the workspace (a ``/`` at the start or in the middle anchors, as in gitignore)
  ``x``, ``*.env``    unanchored: a name matched at any depth (below the workspace for paths inside
                      it, anywhere for paths outside it)
  ``**/x``            unanchored too: ``x`` at any depth
  ==================  ==========================================================================

* ``*`` and ``?`` never cross a ``/``; ``[...]`` is a character class (``[!...]`` negated);
  ``**`` as a whole segment spans zero or more directories; ``\\`` escapes the next character;
* a pattern that matches a directory covers everything below it (gitignore ignores a directory's
  contents with it), and ``dir/**`` covers ``dir`` itself as well, so a search rooted at a denied
  directory is denied too;
* a trailing ``/`` makes the pattern match directories only.

Paths are compared after symlinks are resolved (the literal prefix of an absolute pattern is
resolved too, so ``//tmp/**`` still works where ``/tmp`` is a symlink). :func:`path_rule_matches`
answers for the resolved path *and* the path as written (normalised, links not followed): a deny
rule must catch both. An allow decision should look at the resolved path only
(:meth:`PathPattern.matches` on :func:`resolve_subject`'s second value).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: Compiled patterns kept per (content, workspace, base, home); policies hold a few hundred rules.
_PATTERN_CACHE_SIZE = 4_096

_GLOB_CHARS = frozenset("*?[\\")


class PathRuleError(ValueError):
    """A path pattern that cannot be compiled. The message says what is wrong."""


@dataclass(frozen=True, slots=True)
class PathPattern:
    """A compiled path pattern. Match with :meth:`matches` on an absolute path."""

    content: str
    regex: re.Pattern[str]
    #: Unanchored patterns match the part of a path below this directory (the workspace) when the
    #: path is inside it; ``None`` for anchored patterns (matched against the absolute path).
    unanchored_base: str | None
    dir_only: bool

    def matches(self, path: Path | str, *, is_dir: bool | None = None) -> bool:
        """Does the pattern cover this absolute path (or a directory above it)?

        ``is_dir`` says whether the path is a directory (for ``dir/`` patterns); ``None`` asks the
        filesystem, only when the answer matters.
        """
        text = str(path)
        if self.unanchored_base is not None:
            base = self.unanchored_base
            if text == base:
                return False
            if text.startswith(base.rstrip("/") + "/"):
                text = text[len(base.rstrip("/")) :]
        m = self.regex.match(text)
        if m is None:
            return False
        if not self.dir_only or m.group("below"):
            return True
        if is_dir is None:
            is_dir = os.path.isdir(path)
        return is_dir


def validate_path_rule(content: str) -> None:
    """Raise :class:`PathRuleError` if the pattern cannot be compiled. Needs no workspace."""
    _check_syntax(content)


def compile_path_rule(
    content: str, *, workspace: Path, rule_base: Path | None = None, home: str | None = None
) -> PathPattern:
    """Compile a rule's path pattern against a workspace (and the rule's own base for ``/x``).

    ``home`` is what ``~`` means (default: ``$HOME`` now); compiled patterns are cached."""
    return _compile(
        content,
        str(workspace),
        None if rule_base is None else str(rule_base),
        os.path.expanduser("~") if home is None else home,
    )


def resolve_subject(raw: str, *, cwd: Path) -> tuple[Path, Path]:
    """A file tool's path as ``(written, resolved)``: both absolute; the first normalised
    (``..`` folded as text), the second as the kernel reads it — each symbolic link resolved
    *before* the ``..`` that follows it (``lsub/../key.txt`` with ``lsub -> secrets/sub`` is
    ``secrets/key.txt``); for a path that does not exist yet, its longest existing prefix."""
    expanded = os.path.expanduser(raw)
    joined = os.path.join(cwd, expanded)
    return Path(os.path.normpath(joined)), Path(joined).resolve(strict=False)


def path_rule_matches(content: str, path: Path, *, workspace: Path, rule_base: Path | None = None) -> bool:
    """Does the rule content ``content`` (as in ``Read(content)``) cover ``path``?

    A relative ``path`` is taken relative to the workspace. True when the pattern covers the path
    as written (normalised) or the path with symlinks resolved — the answer a deny rule needs.
    Raises :class:`PathRuleError` for a malformed pattern.
    """
    pattern = compile_path_rule(content, workspace=workspace, rule_base=rule_base)
    literal, resolved = resolve_subject(str(path), cwd=workspace)
    return pattern.matches(resolved) or (literal != resolved and pattern.matches(literal))


def literal_root(
    content: str, *, workspace: Path, rule_base: Path | None = None, home: str | None = None
) -> tuple[Path, bool] | None:
    """Where every path an anchored pattern matches lies: ``(path, exact)``, ``exact`` when the
    pattern names that one path (and what is below it) and no glob follows; ``None`` for an
    unanchored pattern (``.env``, ``*.pem``, ``**/x``: a name at any depth)."""
    _check_syntax(content)
    pattern = content.rstrip("/") if content not in ("/", "//") else content
    home = os.path.expanduser("~") if home is None else home
    if pattern.startswith("//"):
        anchor, rest = "/", pattern[2:]
    elif pattern == "~" or pattern.startswith("~/"):
        anchor, rest = home, pattern[2:]
    elif pattern.startswith("/"):
        anchor, rest = str(rule_base or workspace), pattern[1:]
    elif pattern.startswith("./") or pattern in (".", "..") or ("/" in pattern and not pattern.startswith("**/")):
        anchor, rest = str(workspace), pattern
    else:
        return None
    prefix, glob_segments = _split_literal_prefix(anchor, rest)
    return Path(prefix), not glob_segments


# ---------------------------------------------------------------------------------------------


def _check_syntax(content: str) -> None:
    if not content or not content.strip():
        raise PathRuleError("empty path pattern")
    if content != content.strip():
        raise PathRuleError(f"path pattern {content!r} has leading or trailing spaces")
    if "\x00" in content:
        raise PathRuleError("path pattern contains a NUL character")
    if content.startswith("~") and not (content == "~" or content.startswith("~/")):
        raise PathRuleError(f"path pattern {content!r}: only '~/' (this user's home) is supported")
    if content.endswith("\\") and not content.endswith("\\\\"):
        raise PathRuleError(f"path pattern {content!r} ends with a lone backslash")
    if content.startswith("///"):
        raise PathRuleError(f"path pattern {content!r}: write '//abs/path' for an absolute path")
    i = 0
    while i < len(content):
        c = content[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = _class_end(content, i)
            if end < 0:
                raise PathRuleError(f"path pattern {content!r} has an unclosed '['")
            i = end + 1
            continue
        i += 1


@lru_cache(maxsize=_PATTERN_CACHE_SIZE)
def _compile(content: str, workspace: str, rule_base: str | None, home: str) -> PathPattern:
    _check_syntax(content)
    pattern = content
    dir_only = pattern.endswith("/") and not pattern.endswith("\\/") and pattern not in ("/", "//")
    if dir_only:
        pattern = pattern.rstrip("/")

    anchor: str | None
    if pattern.startswith("//"):
        anchor, rest = "/", pattern[2:]
    elif pattern == "~" or pattern.startswith("~/"):
        anchor, rest = home, pattern[2:]
    elif pattern.startswith("/"):
        anchor, rest = rule_base or workspace, pattern[1:]
    elif pattern.startswith("./") or pattern in (".", ".."):
        anchor, rest = workspace, pattern
    elif pattern.startswith("**/"):
        anchor, rest = None, pattern[3:]
    elif "/" in pattern:
        anchor, rest = workspace, pattern
    else:
        anchor, rest = None, pattern

    if anchor is None:
        segments = rest.split("/")
        while len(segments) > 1 and segments[-1] == "**":
            segments.pop()
        if segments in ([""], ["**"]):
            regex = re.compile(r"(?P<below>/.*)\Z", re.DOTALL)
        else:
            regex = re.compile(rf"(?:.*/)?{_segments_regex(segments)}(?P<below>/.*)?\Z", re.DOTALL)
        return PathPattern(content, regex, str(Path(workspace).resolve(strict=False)), dir_only)

    prefix, glob_segments = _split_literal_prefix(anchor, rest)
    head = re.escape(prefix.rstrip("/"))
    # `dir/**` covers everything below dir and dir itself (see the module docstring): the
    # optional `below` group already says that.
    while glob_segments and glob_segments[-1] == "**":
        glob_segments.pop()
    body = f"/{_segments_regex(glob_segments)}" if glob_segments else ""
    regex = re.compile(rf"{head}{body}(?P<below>/.*)?\Z", re.DOTALL)
    return PathPattern(content, regex, None, dir_only)


def _split_literal_prefix(anchor: str, rest: str) -> tuple[str, list[str]]:
    """Fold the literal segments of ``anchor/rest`` into a resolved directory; return it and the
    segments from the first one with a glob character on."""
    segments = [s for s in rest.split("/") if s != ""] if rest else []
    literal: list[str] = []
    while segments and not (_GLOB_CHARS & set(segments[0])):
        literal.append(segments.pop(0))
    joined = os.path.normpath(os.path.join(anchor, *literal)) if literal else os.path.normpath(anchor)
    resolved = str(Path(joined).resolve(strict=False))
    # `..` after a glob segment cannot be folded; it only ever matches a literal `..`, which a
    # normalised path never contains, so it is harmless and left as is.
    return resolved, segments


def _segments_regex(segments: list[str]) -> str:
    """Segments joined by ``/``; callers have dropped a trailing ``**`` (the ``below`` group)."""
    parts: list[str] = []
    last = len(segments) - 1
    for idx, seg in enumerate(segments):
        if seg == "**":
            parts.append("(?:[^/]+/)*")  # zero or more directories
        else:
            parts.append(_segment_regex(seg) + ("" if idx == last else "/"))
    return "".join(parts)


def _segment_regex(seg: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "\\" and i + 1 < len(seg):
            out.append(re.escape(seg[i + 1]))
            i += 2
        elif c == "*":
            while i < len(seg) and seg[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = _class_end(seg, i)
            body = seg[i + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            for special in ("\\", "[", "&", "~", "|"):
                body = body.replace(special, "\\" + special)
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _class_end(text: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start``, or -1."""
    j = start + 1
    if j < len(text) and text[j] in "!^":
        j += 1
    if j < len(text) and text[j] == "]":
        j += 1
    while j < len(text):
        if text[j] == "]":
            return j
        if text[j] == "/":
            return -1
        j += 1
    return -1
