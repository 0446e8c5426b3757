"""Gitignore-style path patterns of file-tool rules: anchoring, globs, directories, symlinks, ``..``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.permissions.path_rules import (
    PathRuleError,
    compile_path_rule,
    path_rule_matches,
    resolve_subject,
    validate_path_rule,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "repo").resolve()
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "build.txt").write_text("x")
    return root


@pytest.mark.parametrize(
    ("description", "pattern", "path", "expected"),
    [
        ("dir/** covers a file below", "src/**", "src/a.py", True),
        ("dir/** covers a file deep below", "src/**", "src/pkg/deep/a.py", True),
        ("dir/** covers the directory itself", "src/**", "src", True),
        ("dir/** is anchored to the workspace", "src/**", "lib/src/a.py", False),
        ("dir/** does not cover a sibling with a longer name", "src/**", "srcs/a.py", False),
        ("./dir/** is anchored to the workspace", "./src/**", "src/a.py", True),
        ("a middle slash anchors", "src/*.py", "other/src/a.py", False),
        ("* does not cross a slash", "src/*.py", "src/pkg/a.py", False),
        ("** spans directories", "src/**/*.py", "src/pkg/x/a.py", True),
        ("** spans zero directories", "src/**/*.py", "src/a.py", True),
        ("an unanchored name matches at any depth", ".env", "a/b/.env", True),
        ("an unanchored name matches at the top", ".env", ".env", True),
        ("an unanchored glob matches at any depth", "*.pem", "certs/x/key.pem", True),
        ("* matches dotfiles and the empty string, as in gitignore", "*.env", "a/.env", True),
        ("an unanchored name covers a directory's contents", "node_modules", "web/node_modules/x/y.js", True),
        ("an unanchored name is a whole component", "node_modules", "web/node_modules2/x.js", False),
        ("**/name matches at any depth", "**/secrets/**", "a/secrets/k", True),
        ("**/name matches at the top", "**/secrets/**", "secrets/k", True),
        ("? is one character", "a?c", "abc", True),
        ("? never matches a slash", "a?c", "a/c", False),
        ("a character class", "[ab].txt", "b.txt", True),
        ("a negated character class", "[!ab].txt", "c.txt", True),
        ("a negated character class refuses its members", "[!ab].txt", "a.txt", False),
        ("an escaped star is literal", r"a\*", "a*", True),
        ("an escaped star does not glob", r"a\*", "ab", False),
        ("a trailing slash matches directories", "build/", "build", True),
        ("a trailing slash matches what is below a directory", "build/", "build/out.o", True),
        ("a trailing slash does not match a file", "build.txt/", "build.txt", False),
        ("// is the filesystem root", "//etc/passwd", "/etc/passwd", True),
        ("// with a glob", "//etc/**", "/etc/ssl/certs/x", True),
        ("// is not the workspace", "//src/**", "src/a.py", False),
        ("** alone matches everything, even outside", "**", "/etc/hosts", True),
        ("./** is the workspace only", "./**", "/etc/hosts", False),
        ("./** covers the workspace", "./**", "src/pkg/a.py", True),
        ("a relative pattern with .. leaves the workspace", "../shared/**", "../shared/x", True),
        ("the path's .. is folded before matching", "src/**", "build/../src/a.py", True),
        ("a path escaping with .. is not under the pattern", "src/**", "src/../build/a", False),
        ("an unanchored pattern outside the workspace matches too", "*.key", "/opt/x/server.key", True),
    ],
)
def test_path_patterns_follow_gitignore(ws: Path, description: str, pattern: str, path: str, expected: bool) -> None:
    assert path_rule_matches(pattern, Path(path), workspace=ws) is expected, description


def test_a_negated_class_may_hold_a_closing_bracket(ws: Path) -> None:
    # git's wildmatch: `[!]]` is any one character but `]` (the hand-written matcher refused all).
    assert path_rule_matches("[!]]x", ws / "ax", workspace=ws)
    assert not path_rule_matches("[!]]x", ws / "]x", workspace=ws)
    assert path_rule_matches("[]]x", ws / "]x", workspace=ws)


def test_globbing_agrees_with_pathspec_except_for_the_documented_extension(ws: Path) -> None:
    """Every case of the gitignore table that plain gitignore can express (a pattern and a path
    relative to the workspace; a directory written with its trailing ``/``) decides as
    ``pathspec``'s GitIgnoreSpec does. Our extensions are the anchors (``//``, ``~/``, ``./``, a
    rule base for ``/``) and that ``dir/**`` covers the name ``dir`` whatever it is."""
    import pathspec

    marks = test_path_patterns_follow_gitignore.pytestmark  # type: ignore[attr-defined]
    cases = next(m.args[1] for m in marks if m.name == "parametrize")
    compared, different = 0, []
    for description, pattern, path, expected in cases:
        if pattern.startswith(("//", "~", "..", "./")) or path.startswith(("/", "..")) or ".." in path:
            continue
        is_dir = (ws / path).is_dir()
        gitignore = pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(path + ("/" if is_dir else ""))
        compared += 1
        if gitignore != expected:
            different.append(description)
    assert compared == 27 and different == []
    # The extension: `gen/**` covers `gen` when it is a file or does not exist yet (gitignore: no),
    # so a rule over a directory also covers creating or replacing the directory's own name.
    assert path_rule_matches("gen/**", ws / "gen", workspace=ws)
    assert not pathspec.GitIgnoreSpec.from_lines(["gen/**"]).match_file("gen")


def test_an_unanchored_name_never_matches_directories_above_the_workspace(tmp_path: Path) -> None:
    ws = (tmp_path / "secrets" / "repo").resolve()
    ws.mkdir(parents=True)
    assert not path_rule_matches("secrets", ws / "a.txt", workspace=ws)
    assert path_rule_matches("secrets", ws / "secrets" / "a.txt", workspace=ws)


def test_a_leading_slash_is_relative_to_the_rule_base(ws: Path) -> None:
    base = ws / "sub"
    base.mkdir()
    assert path_rule_matches("/x/**", ws / "sub" / "x" / "a", workspace=ws, rule_base=base)
    assert not path_rule_matches("/x/**", ws / "x" / "a", workspace=ws, rule_base=base)
    # Without a base, the workspace is the base.
    assert path_rule_matches("/x/**", ws / "x" / "a", workspace=ws)


def test_tilde_is_the_home_directory(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = (tmp_path / "home").resolve()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert path_rule_matches("~/.ssh/**", home / ".ssh" / "id_rsa", workspace=ws)
    assert not path_rule_matches("~/.ssh/**", ws / ".ssh" / "id_rsa", workspace=ws)
    assert path_rule_matches("~/.bashrc", Path("~/.bashrc"), workspace=ws)


def test_a_symlink_into_a_denied_directory_is_caught_by_its_target(ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "secrets" / "k").write_text("k")
    (ws / "src" / "link").symlink_to(ws / "secrets")
    assert path_rule_matches("secrets/**", ws / "src" / "link" / "k", workspace=ws)


def test_a_denied_symlink_name_is_caught_even_when_its_target_is_elsewhere(ws: Path) -> None:
    (ws / "data").mkdir()
    (ws / "private").symlink_to(ws / "data")
    assert path_rule_matches("private/**", ws / "private" / "f", workspace=ws)


def test_an_absolute_pattern_through_a_symlinked_directory_still_matches(tmp_path: Path, ws: Path) -> None:
    real = (tmp_path / "real").resolve()
    (real / "d").mkdir(parents=True)
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    pattern = f"/{alias}/d/**"  # `//<alias>/d/**`
    assert path_rule_matches(pattern, real / "d" / "f", workspace=ws)


def test_a_symlink_followed_by_dotdot_is_resolved_before_the_dotdot(ws: Path) -> None:
    # `lsub -> secrets/sub`: the kernel reads `lsub/../key.txt` as `secrets/key.txt`.
    (ws / "secrets" / "sub").mkdir(parents=True)
    (ws / "secrets" / "key.txt").write_text("k")
    (ws / "lsub").symlink_to(ws / "secrets" / "sub")
    (ws / "dangle").symlink_to(ws / "secrets" / "nonexist" / "deeper")
    assert path_rule_matches("secrets/**", Path("lsub/../key.txt"), workspace=ws)
    assert path_rule_matches("secrets/**", Path("dangle/../new.txt"), workspace=ws)
    written, resolved = resolve_subject("lsub/../key.txt", cwd=ws)
    assert (written, resolved) == (ws / "key.txt", ws / "secrets" / "key.txt")


def test_resolve_subject_gives_the_written_and_the_resolved_path(ws: Path) -> None:
    (ws / "ln").symlink_to(ws / "src")
    written, resolved = resolve_subject("ln/../ln/pkg/a.py", cwd=ws)
    assert written == ws / "ln" / "pkg" / "a.py"
    assert resolved == ws / "src" / "pkg" / "a.py"


def test_compiled_patterns_answer_for_a_directory_flag_without_touching_the_disk(ws: Path) -> None:
    pattern = compile_path_rule("gen/", workspace=ws)
    assert pattern.matches(ws / "gen", is_dir=True)
    assert not pattern.matches(ws / "gen", is_dir=False)
    assert pattern.matches(ws / "gen" / "x", is_dir=False)


@pytest.mark.parametrize(
    ("description", "pattern", "message"),
    [
        ("empty", "", "empty"),
        ("spaces only", "   ", "empty"),
        ("surrounding spaces", " src/** ", "spaces"),
        ("an unclosed class", "src/[ab", "unclosed"),
        ("a class across a slash", "src/[a/b]", "unclosed"),
        ("another user's home", "~bob/x", "home"),
        ("a lone trailing backslash", "a\\", "backslash"),
        ("three slashes", "///etc", "absolute"),
        ("a NUL byte", "a\x00b", "NUL"),
    ],
)
def test_malformed_patterns_are_errors_that_say_why(ws: Path, description: str, pattern: str, message: str) -> None:
    with pytest.raises(PathRuleError, match=message):
        validate_path_rule(pattern)
    with pytest.raises(PathRuleError, match=message):
        path_rule_matches(pattern, ws / "a", workspace=ws)


def test_home_from_the_environment_is_part_of_the_cache_key(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "ha", tmp_path / "hb"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("HOME", str(a))
    assert path_rule_matches("~/x", a / "x", workspace=ws)
    monkeypatch.setenv("HOME", str(b))
    assert path_rule_matches("~/x", b / "x", workspace=ws)
    assert not path_rule_matches("~/x", a / "x", workspace=ws)
    assert os.path.expanduser("~") == str(b)
