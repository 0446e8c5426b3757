"""Ignore files above a search root: which rules cannot reach under it, which ignore names, and
when rg may skip them all (``--no-ignore-parent``)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from bot.tools.files.parent_ignores import (
    MAX_IGNORE_FILE_BYTES,
    ParentRules,
    _glob_source,
    _may_match,
    classify_rule,
    parent_rules,
)
from bot.tools.ripgrep import rg_path

#: The root lies at ``versions/3.11/lib`` below the directory holding the rules.
BELOW = ("versions", "3.11", "lib")


@pytest.mark.parametrize(
    ("line", "inert"),
    [
        (b"# a comment", True),
        (b"", True),
        (b"   \t\r", True),
        (b"/versions", True),  # names a directory above the root
        (b"/versions/3.11/lib", True),  # names the root itself: rg never matches it
        (b"!/versions/", True),
        (b"/src/*.o", True),  # another directory
        (b"/v*/3.12/lib/x", True),  # the second segment is not the root's
        (b"versions/3.11/lib/", True),  # a slash inside anchors it too
        (b"/libexec/*.dylib", True),
        (b"/versions/3.11/lib/*.txt", False),  # reaches into the root
        (b"/versions/*/lib/x/y", False),
        (b"/v?rsions/3.11/lib/x", False),
        (b"/versions/**/x", False),  # ** may stand for any number of segments
        (b"/**/x", False),
        (b"/vers[io]ons/3.11/lib/x", False),
        (b"/v[ae]rz/3.11/lib/x", True),  # no class makes this "versions"
        (b"/versions/3.??/lib/x", False),
        (b"/versions/3.???/lib/x", True),  # one byte too few
        (b"**/a/b", False),  # at any depth
        (b"!*.txt", False),  # a whitelist by name
        (b"\\#x", False),  # an escape
        (b"/{a,versions}/3.11/lib/x", False),
        (b"caf\xc3\xa9", False),  # non-ASCII
    ],
)
def test_a_rule_is_inert_only_when_it_cannot_match_under_the_root(line: bytes, inert: bool) -> None:
    assert (classify_rule(line, BELOW) == "") is inert


@pytest.mark.parametrize(
    ("line", "hidden", "kept"),
    [
        (b"*.un~", [b"a.un~", b"d/x.un~", b"x.UN~/f"], [b"a.un", b"un~", b"a.un~x"]),
        (b".idea", [b".idea/workspace.xml", b"d/.idea"], [b"idea", b"x.idea"]),
        (b"node_modules/", [b"node_modules/x.js", b"a/node_modules/b/c"], [b"node_modules.txt"]),
        (b"**/__pycache__", [b"__pycache__/m.pyc"], [b"pycache/m.pyc"]),
        (b"*.py[cod]", [b"m.pyc", b"p/m.pyo"], [b"m.py"]),
        (b"*.[!a]x", [b"m.bx", b"m.\xc3\xa9x"], [b"m.x"]),  # a character may be several bytes
        (b"?.txt", [b"a.txt", b"\xc3\xa9.txt"], [b".txt", b"a.txt.x"]),
        (b"x??", [b"xab", b"x\xc3\xa9"], [b"xa"]),  # \xc3\xa9: one character, two bytes
        (b"a[]]b", [b"a]b"], [b"ab"]),
        (b"a[b", [b"anything"], []),  # malformed: rg drops it; matching any name is still safe
        (b"  trailing-blanks  ", [b"  trailing-blanks"], []),
    ],
)
def test_a_name_rule_matches_at_least_every_path_rg_would_ignore_by_it(
    line: bytes, hidden: list[bytes], kept: list[bytes]
) -> None:
    source = classify_rule(line, BELOW)
    assert source, line
    rules = ParentRules(skippable=True, names=re.compile(f"(?:^|/)(?:{source})(?:/|$)".encode(), re.IGNORECASE))
    assert all(rules.may_hide(p) for p in hidden)
    assert not any(rules.may_hide(p) for p in kept)


def tree_under(tmp_path: Path, files: dict[str, str]) -> Path:
    """``outer/`` holding ``files`` (ignore files and the like), and the root ``outer/ws/src``."""
    outer = tmp_path / "outer"
    for name, text in files.items():
        (outer / name).parent.mkdir(parents=True, exist_ok=True)
        (outer / name).write_text(text)
    root = outer / "ws" / "src"
    root.mkdir(parents=True, exist_ok=True)
    return root


def test_no_ignore_file_above_means_rg_may_skip_them_with_nothing_to_check(tmp_path: Path) -> None:
    root = tree_under(tmp_path, {})
    assert parent_rules(root, root) == ParentRules(skippable=True)


def test_inert_rules_let_rg_skip_and_name_rules_are_checked_afterwards(tmp_path: Path) -> None:
    root = tree_under(tmp_path, {".gitignore": "/build\n/ws/other/\n*.log\n", ".ignore": "# c\n.idea\n"})
    rules = parent_rules(root, root)
    assert rules.skippable and rules.may_hide(b"a/b.log") and rules.may_hide(b".idea/x")
    assert not rules.may_hide(b"a/b.py")


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({".gitignore": "!keep.log\n"}, "a whitelist by name"),
        ({".gitignore": "/ws/src/*.py\n"}, "an anchored rule reaching under the root"),
        ({".rgignore": "ws/**/x\n"}, "a ** after the path"),
        ({".git": "gitdir: /elsewhere\n"}, "a .git file: its exclude file is elsewhere"),
        ({".git/info/exclude": "!x\n"}, "the exclude file of a repository above"),
        ({".ignore": "x" * (MAX_IGNORE_FILE_BYTES + 1)}, "an ignore file too big to read here"),
        ({".gitignore/x": ""}, "an ignore 'file' that is a directory"),
    ],
)
def test_rules_not_worked_out_leave_rg_its_own_handling(tmp_path: Path, files: dict[str, str], why: str) -> None:
    assert not parent_rules(tree_under(tmp_path, files), tmp_path / "outer" / "ws" / "src").skippable, why


def test_name_rules_from_inside_the_workspace_leave_rg_its_own_handling(tmp_path: Path) -> None:
    """The project's own ignore files name directories that are there (``node_modules``): rg would
    walk them only for the search to be run again."""
    root = tree_under(tmp_path, {"ws/.gitignore": "node_modules/\n/build\n"})
    assert not parent_rules(root, root.parent).skippable  # Glob of src/** in the workspace ws
    assert parent_rules(root, root).skippable  # the workspace is src: ws's file is above it
    inert_only = tree_under(tmp_path / "b", {"ws/.gitignore": "/build\n/docs/*.html\n"})
    assert parent_rules(inert_only, inert_only.parent) == ParentRules(skippable=True)


def test_a_root_that_is_a_repository_ignores_the_gitignore_files_above_it(tmp_path: Path) -> None:
    root = tree_under(tmp_path, {".gitignore": "!x\n", ".git/info/exclude": "!y\n"})
    (root / ".git").mkdir()
    assert parent_rules(root, root) == ParentRules(skippable=True)  # rg applies neither
    (tmp_path / "outer" / ".ignore").write_text("!z\n")
    assert not parent_rules(root, root).skippable  # .ignore above still applies


def test_a_dangling_git_link_in_the_root_is_no_repository(tmp_path: Path) -> None:
    root = tree_under(tmp_path, {".gitignore": "!x\n"})
    os.symlink(tmp_path / "missing", root / ".git")
    assert not parent_rules(root, root).skippable  # rg follows the link: no .git, the file applies


# rg itself: what --no-ignore-parent changes, on the rules classified above.


def rg_files(root: Path, *extra: str) -> set[str]:
    args = [rg_path(), "--files", "--hidden", "--null", "--glob", "!.git", *extra]
    out = subprocess.run(args, cwd=root, capture_output=True, check=False, env={"PATH": os.environ["PATH"]}).stdout
    return {os.fsdecode(n) for n in out.split(b"\0") if n}


def test_rg_lists_the_same_files_without_inert_rules_and_more_only_where_a_name_rule_matches(
    tmp_path: Path,
) -> None:
    outer = tmp_path / "outer"
    subprocess.run(["git", "init", "-q", str(outer)], check=True)  # its .gitignore applies below
    root = tree_under(tmp_path, {})
    for name in ("a.txt", "deep/b.txt", "c.md", "d.log", ".idea/e.py", "build/f.py", "h/build", "g.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    inert = "/ws/other\n/w*/src\n/ws/lib/*/x/\n/v*/src/a.txt\n"
    (outer / ".gitignore").write_text(inert)
    assert parent_rules(root, root) == ParentRules(skippable=True)
    assert (
        rg_files(root)
        == rg_files(root, "--no-ignore-parent")
        == {"a.txt", "deep/b.txt", "c.md", "d.log", ".idea/e.py", "build/f.py", "h/build", "g.py"}
    )

    (outer / ".gitignore").write_text(inert + "*.log\n.idea\nbuild/\n")
    rules = parent_rules(root, root)
    everything, listed = rg_files(root, "--no-ignore-parent"), rg_files(root)
    assert rules.skippable and listed == {"a.txt", "deep/b.txt", "c.md", "h/build", "g.py"}
    assert everything - listed == {"d.log", ".idea/e.py", "build/f.py"}
    assert all(rules.may_hide(p.encode()) for p in everything - listed)
    assert not any(rules.may_hide(p.encode()) for p in listed - {"h/build"})  # build/ is for directories

    (outer / ".gitignore").write_text(inert + "/ws/src/*.txt\n")  # reaches into the root
    assert not parent_rules(root, root).skippable and "a.txt" not in rg_files(root)


@pytest.mark.parametrize(
    ("glob", "name", "matches"),
    [
        ("*a" * 16 + "*c", "a" * 40, False),  # backtracking regex: hours; here one pass
        ("*a" * 16 + "*c", "a" * 40 + "c", True),
        ("ver*ons", "versions", True),
        ("ver*ons", "verso", False),
        ("v?rsions", "versions", True),
        ("v?rsions", "vrsions", False),
        ("*s", "s", True),
        ("a*b*c", "abbc", True),
        ("a*b*c", "acb", False),
        ("[!x]y", "zy", True),
        ("[bad", "anything", True),  # malformed: rg drops it; "may match" is the safe answer
        ("lib", "lib", True),
        ("lib", "lib64", False),
        ("a?", "a", False),
        ("a*", "a", True),
    ],
)
def test_a_segment_is_matched_in_linear_time_as_the_regex_would(glob: str, name: str, matches: bool) -> None:
    assert _may_match(glob, name.encode()) is matches
    if glob.count("*") < 6:  # the regex answers quickly here: both must agree
        assert (re.fullmatch(_glob_source(glob).encode(), name.encode(), re.DOTALL) is not None) is matches


def test_a_name_rule_with_many_wildcards_leaves_rg_its_own_handling() -> None:
    assert classify_rule(b"*a*a*a*a*a*c", ()) is None
    assert classify_rule(b"*.log", ()) not in (None, "")
