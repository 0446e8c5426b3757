"""Glob syntax for Glob and Grep, and the split between what rg matches and what we match."""

from __future__ import annotations

import itertools

import pytest

from bot.tools.files.globs import TYPE_NAME, glob_regex, name_glob, select_files, split_globs


@pytest.mark.parametrize(
    ("description", "pattern", "path", "matches"),
    [
        ("a name pattern matches at any depth", "*.py", "a/b/c.py", True),
        ("a star stays within a segment", "*/index.ts", "a/b/index.ts", False),
        ("a star matches one segment", "*/index.ts", "a/index.ts", True),
        ("a double star matches zero directories", "**/tests/*.py", "tests/t.py", True),
        ("a double star matches several directories", "**/tests/**/*.py", "x/y/tests/a/b.py", True),
        ("a trailing double star matches everything below", "docs/**", "docs/a/b.md", True),
        ("braces are alternatives", "src/*.{ts,tsx}", "src/a.tsx", True),
        ("braces exclude other names", "src/*.{ts,tsx}", "src/a.js", False),
        ("a question mark is one character", "a/?.py", "a/bc.py", False),
        ("a negated class", "[!a]/x", "a/x", False),
        ("a class", "[ab]/x", "b/x", True),
        ("an escaped star is literal", r"a/\*.py", "a/x.py", False),
        ("anchored patterns are anchored", "src/*.py", "lib/src/a.py", False),
    ],
)
def test_glob_regex(description: str, pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is matches


@pytest.mark.parametrize(
    ("description", "pattern", "name"),
    [
        ("a bare name glob", "*.py", "*.py"),
        ("under any directory", "**/*.py", "*.py"),
        ("braces stay", "**/*.{ts,tsx}", "*.{ts,tsx}"),
        ("everything", "**", "*"),
        ("a directory in the pattern", "a/*.py", None),
        ("a directory after a double star", "**/tests/*.py", None),
    ],
)
def test_name_globs_are_recognised(description: str, pattern: str, name: str | None) -> None:
    assert name_glob(pattern) == name


def test_name_globs_become_a_file_type_so_gitignore_holds() -> None:
    selection = select_files(["*.py", "!*_test.py"])
    assert selection.rg_args == ["--glob", "!*_test.py", "--type-add", f"{TYPE_NAME}:*.py", "--type", TYPE_NAME]
    args = selection.rg_args
    assert [b for a, b in itertools.pairwise(args) if a == "--glob"] == ["!*_test.py"]  # no whitelist
    assert selection.path_patterns == ()


def test_a_directory_glob_is_matched_here_and_never_passed_as_a_whitelist() -> None:
    selection = select_files(["*.md", "docs/*.py"])
    assert selection.rg_args == []
    assert selection.wants("docs/a.py") and selection.wants("x/y.md") and not selection.wants("src/a.py")


@pytest.mark.parametrize(
    ("description", "text", "globs"),
    [
        ("spaces", "*.js *.ts", ["*.js", "*.ts"]),
        ("commas", "*.js,*.ts", ["*.js", "*.ts"]),
        ("commas inside braces are kept", "*.{ts,tsx},*.js", ["*.{ts,tsx}", "*.js"]),
        ("exclusions", "*.js !*.min.js", ["*.js", "!*.min.js"]),
        ("empty", "", []),
    ],
)
def test_split_globs(description: str, text: str, globs: list[str]) -> None:
    assert split_globs(text) == globs
