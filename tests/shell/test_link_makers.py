"""Which commands may leave symbolic links for the later commands of a compound."""

from __future__ import annotations

import pytest

from bot.shell.paths.link_makers import created, is_extraction, rewrites_tree
from bot.shell.programs.find import read_expression


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("tar -x", "tar -xf a.tar", True),
        ("tar old style", "tar xzf a.tgz", True),
        ("tar --extract abbreviated", "tar --ext -f a.tar", True),
        ("tar --get abbreviated", "tar --ge -f a.tar", True),
        ("tar listing", "tar -tzf a.tgz", False),
        ("tar creating", "tar -czf out.tgz src", False),
        ("unzip", "unzip a.zip", True),
        ("unzip -l lists", "unzip -l a.zip", False),
        ("7z x", "7z x a.7z", True),
        ("7z l", "7z l a.7z", False),
        ("pax -r", "pax -r -f a.pax", True),
        ("jar xf", "jar xf a.jar", True),
        ("dpkg-deb -x", "dpkg-deb -x a.deb .", True),
        ("dpkg -l", "dpkg -l", False),
        ("python -m tarfile -e", "python3 -m tarfile -e a.tar", True),
        ("python -m zipfile -l", "python -m zipfile -l a.zip", False),
        ("cmake -E tar xf", "cmake -E tar xf a.tar", True),
        ("cmake -E tar cf", "cmake -E tar cf a.tar src", False),
    ],
)
def test_extractions(description: str, command: str, expected: bool) -> None:
    assert is_extraction(command.split()) is expected, description


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("checkout of another branch", "git checkout other", True),
        ("a new branch where we are", "git checkout -b feature", False),
        ("switch -c", "git switch -c feature", False),
        ("pull", "git pull --rebase", True),
        ("apply", "git apply p.diff", True),
        ("apply --check", "git apply --check p.diff", False),
        ("stash pop", "git stash pop", True),
        ("stash (push)", "git stash", False),
        ("reset --hard", "git reset --hard HEAD~1", True),
        ("reset --soft", "git reset --soft HEAD~1", False),
        ("status", "git status", False),
        ("behind global options", "git -C sub checkout main", True),
    ],
)
def test_git_tree_writers(description: str, command: str, expected: bool) -> None:
    assert rewrites_tree(command.split()) is expected, description


def test_created_names_paths_and_trees() -> None:
    assert created(["ln", "-s", "/etc", "x"], ["/ws/x"], ["/ws"]) == (["/ws/x"], [])
    assert created(["timeout", "60", "git", "pull"], [], ["/ws", None]) == ([], ["/ws"])
    assert created(["tar", "-xf", "a.tar", "-C", "sub"], ["/ws/sub"], ["/ws"]) == ([], ["/ws", "/ws/sub"])
    assert created(["cat", "x"], [], ["/ws"]) == ([], [])
    assert created(["npm", "ci"], [], ["/ws"]) == ([], ["/ws"])  # file: dependencies are links
    assert created(["npm", "test"], [], ["/ws"]) == ([], [])
    assert created(["git", "sparse-checkout", "reapply"], [], ["/ws"]) == ([], ["/ws"])


@pytest.mark.parametrize(
    ("description", "command", "names", "problem"),
    [
        ("a name test before the action", "find . -name *.pyc -delete", [("*.pyc", False)], None),
        ("-iname", "find . -iname *.PYC -type f -delete", [("*.PYC", True)], None),
        ("a test after the action guards nothing", "find . -delete -name *.pyc", [], "no -name test"),
        ("-printf takes -name as its format", "find . -printf -name -delete", [], "no -name test"),
        ("-fprintf takes two words", "find . -fprintf f -name -name x -delete", [("x", False)], None),
        ("routing with -o", "find . -name a -o -delete", [], "'-o'"),
        ("parentheses", "find . ( -name a ) -delete", [], "'('"),
        ("GNU-only pattern syntax", "find . -name [^a]* -delete", [], "syntax"),
        ("an unknown primary", "find . -frobnicate -name a -delete", [], "does not read"),
        ("start points from a file", "find -files0-from list -name a -delete", [], "-files0-from"),
    ],
)
def test_find_expressions(description: str, command: str, names: list[tuple[str, bool]], problem: str | None) -> None:
    expression = read_expression(command.split())
    assert list(expression.names) == names, description
    if problem is None:
        assert expression.problem is None, description
    else:
        assert expression.problem is not None and problem in expression.problem, description
