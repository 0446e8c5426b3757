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

The globbing of what follows the anchor is gitignore's, done by ``pathspec`` (its
``GitIgnoreSpecPattern`` regex, matched against the path relative to the anchor); the anchors,
``~``, the rule base, ``dir/**`` covering ``dir`` whatever it is, and symlink resolution are ours,
on top.

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
    """A compiled path pattern. Match with :meth:`matches` on an absolute path.

    Anchored patterns are a resolved directory (``prefix``) and, below it, the rest of the pattern
    as a gitignore pattern anchored there; unanchored ones a gitignore pattern matched below the
    workspace (``unanchored_base``) or, for a path outside it, anywhere in the absolute path."""

    content: str
    #: The gitignore part, compiled by ``pathspec`` (``None``: the prefix alone, and what is below it).
    regex: re.Pattern[str] | None
    #: Unanchored patterns match the part of a path below this directory (the workspace) when the
    #: path is inside it; ``None`` for anchored patterns.
    unanchored_base: str | None
    dir_only: bool
    #: Anchored patterns: the resolved directory the pattern starts from.
    prefix: str | None = None

    def matches(self, path: Path | str, *, is_dir: bool | None = None) -> bool:
        """Does the pattern cover this absolute path (or a directory above it)?

        ``is_dir`` says whether the path is a directory (for ``dir/`` patterns); ``None`` asks the
        filesystem, only when the answer matters.
        """
        text = str(path)
        if self.prefix is not None:
            head = self.prefix.rstrip("/")
            if self.regex is None:
                if text.startswith(head + "/"):
                    return True
                if text != head:
                    return False
                return not self.dir_only or (os.path.isdir(path) if is_dir is None else is_dir)
            if not text.startswith(head + "/"):
                return False
            rel = text[len(head) + 1 :]
        else:
            base = (self.unanchored_base or "/").rstrip("/")
            if text == base:
                return False
            rel = text[len(base) + 1 :] if text.startswith(base + "/") else text.lstrip("/")
        assert self.regex is not None
        if self.regex.match(rel):
            return True
        if not self.dir_only:
            return False
        # A directory-only pattern matches the directory itself only when it is one.
        if self.regex.match(rel + "/") is None:
            return False
        return os.path.isdir(path) if is_dir is None else is_dir


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
        segments = _without_trailing_globstar(rest.split("/"))
        base = str(Path(workspace).resolve(strict=False))
        if segments in ([""], ["**"]):
            return PathPattern(content, re.compile(r".", re.DOTALL), base, dir_only)
        return PathPattern(content, _gitignore_regex("**/" + "/".join(segments), dir_only), base, dir_only)

    prefix, glob_segments = _split_literal_prefix(anchor, rest)
    while glob_segments and glob_segments[-1] == "**":  # see _without_trailing_globstar
        glob_segments.pop()
    if not glob_segments:
        # Our extension: the literal prefix itself is covered (`src/**` covers `src`).
        return PathPattern(content, None, None, dir_only, prefix)
    return PathPattern(content, _gitignore_regex("/" + "/".join(glob_segments), dir_only), None, dir_only, prefix)


def _without_trailing_globstar(segments: list[str]) -> list[str]:
    """``dir/**`` covers ``dir`` itself as well (our extension to gitignore, where it covers only
    what is below): a trailing ``**`` is dropped, and a match of ``dir`` covers what is below it."""
    segments = list(segments)
    while len(segments) > 1 and segments[-1] == "**":
        segments.pop()
    return segments


def _gitignore_regex(pattern: str, dir_only: bool) -> re.Pattern[str]:
    """The regex ``pathspec`` compiles from a gitignore pattern, matched against a relative path.

    ``pathspec`` does gitignore's globbing (``*``, ``?``, classes, ``**``, escapes); anchoring,
    home, rule bases and symlink resolution stay ours (the module docstring). ``pathspec`` loads
    with the first glob to compile (some 10 ms: a call under rules that name no path needs none)."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    text = pattern + ("/" if dir_only else "")
    regex, include = GitIgnoreSpecPattern.pattern_to_regex(text)
    if regex is None or not include:
        raise PathRuleError(f"path pattern {pattern!r} cannot be compiled")
    return re.compile(regex, re.DOTALL)


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
