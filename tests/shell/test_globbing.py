"""Globs expanded as bash expands them (a superset where bash is unspecified)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.shell.paths import globbing
from bot.shell.paths.globbing import Match, expand


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for d in (".git/hooks", ".github/workflows", "src/pkg", "docs"):
        (tmp_path / d).mkdir(parents=True)
    for f in (".git/config", ".git/HEAD", "src/app.py", "src/pkg/mod.py", "docs/a.md", ".env", "README.md"):
        (tmp_path / f).write_text("x")
    os.symlink("/etc", tmp_path / "out")
    return tmp_path


def names(matches: list[Match] | None, root: Path) -> set[str]:
    assert matches is not None
    return {os.path.relpath(m.path, root) for m in matches if not m.partial}


@pytest.mark.parametrize(
    ("description", "pattern", "expected"),
    [
        ("a star skips dot files", "*", {"src", "docs", "out", "README.md"}),
        ("a literal dot matches dot files, and . and ..", ".*", {".git", ".github", ".env", ".", ".."}),
        ("a question mark inside a dotted name", ".gi?/config", {".git/config"}),
        ("a bracket expression in the middle", ".[g]it/HEAD", {".git/HEAD"}),
        ("a bracket with a dot may match the leading dot", "[.]git", {".git"}),
        ("negation with !", "src/[!a]*", {"src/pkg"}),
        ("negation with ^ (bash accepts both)", "src/[^a]*", {"src/pkg"}),
        ("directories only with a trailing slash are a superset", "*/", {"src", "docs", "out", "README.md"}),
        ("nested wildcards", "*/*.py", {"src/app.py"}),
        ("a character class matches anything", ".[[:alpha:]]it", {".git"}),
        ("an unterminated bracket is literal", "src/[app.py", set()),
        ("no match", "*.rs", set()),
        ("globstar is a plain star", "**/mod.py", set()),
    ],
)
def test_expansion(tree: Path, description: str, pattern: str, expected: set[str]) -> None:
    assert names(expand(pattern, str(tree)), tree) == expected, description


def test_a_match_through_a_symbolic_link_says_so(tree: Path) -> None:
    matches = expand("*/passwd", str(tree))
    assert matches is not None
    linked = [m for m in matches if m.path.endswith("out/passwd")]
    assert linked and linked[0].through_link


def test_absolute_patterns_start_at_the_root(tree: Path) -> None:
    assert names(expand(f"{tree}/src/*.py", "/nowhere"), tree) == {"src/app.py"}


def test_too_many_matches_give_up(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(globbing, "MAX_GLOB_MATCHES", 2)
    assert expand("*", str(tree)) is None
    monkeypatch.setattr(globbing, "MAX_GLOB_MATCHES", 5_000)
    monkeypatch.setattr(globbing, "MAX_GLOB_ENTRIES", 3)
    assert expand("*", str(tree)) is None


def test_wildcard_components_report_where_the_rest_would_look(tree: Path) -> None:
    # */.ssh/id_rsa finds nothing here, but its `*` reaches through the link out.
    matches = expand("*/.ssh/id_rsa", str(tree))
    assert matches is not None
    assert not [m for m in matches if not m.partial]
    assert any(m.partial and m.through_link and m.path.endswith("/out/.ssh/id_rsa") for m in matches)
