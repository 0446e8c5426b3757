"""Which words are paths (``bot.shell.paths.arguments``): options read the way ``getopt_long`` reads them,
links written through, ``cd``/``pushd`` with one directory or an unknown one."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.parse.syntax import DYN, literal
from bot.shell.paths.arguments import has_extractor, path_uses, symlink_targets
from tests.shell.conftest import Check


def _uses(argv: list[str]) -> list[tuple[str, str]]:
    return [(u.value, u.access) for u in path_uses([literal(a) for a in argv])]


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        (
            "sort -o in a bundle",
            ["sort", "-uo", ".git/config", "README.md"],
            [(".git/config", "write"), ("README.md", "read")],
        ),
        (
            "sort -o attached in a bundle",
            ["sort", "-uo.git/config", "README.md"],
            [(".git/config", "write"), ("README.md", "read")],
        ),
        ("sort --output abbreviated", ["sort", "--outp=~/.bashrc", "x"], [("~/.bashrc", "write"), ("x", "read")]),
        (
            "sort --random-source abbreviated is read",
            ["sort", "--random-sou=/home/x", "f"],
            [("/home/x", "read"), ("f", "read")],
        ),
        ("sort --random-sort is a flag", ["sort", "--random-sort", "f"], [("f", "read")]),
        (
            "cp -t in a bundle",
            ["cp", "-vt", ".git/hooks", "pre-commit"],
            [(".git/hooks", "write"), ("pre-commit", "read")],
        ),
        ("cp -t attached in a bundle", ["cp", "-vt.git/hooks", "x"], [(".git/hooks", "write"), ("x", "read")]),
        ("cp --target-directory abbreviated", ["cp", "--targ=/etc", "evil"], [("/etc", "write"), ("evil", "read")]),
        (
            "mv -t attached after a flag",
            ["mv", "-ft.git/hooks", "x"],
            [(".git/hooks", "write"), ("x", "delete"), ("x", "read")],
        ),
        ("install -t in a bundle", ["install", "-Dt", ".git/hooks", "x"], [(".git/hooks", "write"), ("x", "read")]),
        (
            "install abbreviated with an attached mode",
            ["install", "--targ=.git/hooks", "-m755", "x"],
            [(".git/hooks", "write"), ("x", "read")],
        ),
        ("grep -f attached in a bundle", ["grep", "-rf/etc/shadow", "src"], [("/etc/shadow", "read"), ("src", "read")]),
        ("grep -f last in a bundle", ["grep", "-hf", "/etc/shadow", "src"], [("/etc/shadow", "read"), ("src", "read")]),
        ("grep --color takes no separate value", ["grep", "--color", "x", "/etc/passwd"], [("/etc/passwd", "read")]),
        (
            "grep --binary is a flag, not --binary-files",
            ["grep", "--binary", "x", "/etc/passwd"],
            [("/etc/passwd", "read")],
        ),
        ("du --time is a flag, not --time-style", ["du", "--time", "/etc"], [("/etc", "read")]),
        (
            "diff --color takes its value attached only",
            ["diff", "--color", "/etc/shadow", "x"],
            [("/etc/shadow", "read"), ("x", "read")],
        ),
        ("mkdir --context takes its value attached only", ["mkdir", "--context", ".git/x"], [(".git/x", "write")]),
        (
            "an abbreviation's value is checked as an operand too",
            ["head", "--lin", "/etc/shadow"],
            [("/etc/shadow", "read")],
        ),
        ("a value letter's value is not a path", ["head", "-n5", "f"], [("f", "read")]),
        ("less -o writes its log", ["less", "-o", "log", "f"], [("log", "write"), ("f", "read")]),
        ("chmod -w: the mode written like an option", ["chmod", "-w", ".git/config"], [(".git/config", "write")]),
        ("chmod: the mode is no path", ["chmod", "+x", "run.sh"], [("run.sh", "write")]),
        ("jq --arg takes a name and a value", ["jq", "--arg", "n", "/etc/x", ".", "f"], [("f", "read")]),
        ("tee --append abbreviated is a flag", ["tee", "--app", "x"], [("x", "write")]),
    ],
)
def test_options_are_read_like_getopt_long(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("a symbolic link's target is written", ["ln", "-s", ".git", "b"], [("b", "write"), (".git", "write")]),
        (
            "a hard link's target is written",
            ["ln", ".git/config", "c"],
            [("c", "write"), (".git/config", "write"), (".git/config", "read")],
        ),
        (
            "a link into the workflows",
            ["ln", "-s", ".github/workflows", "w"],
            [("w", "write"), (".github/workflows", "write")],
        ),
        (
            "a relative target is relative to the link's directory",
            ["ln", "-s", "../README.md", "docs/README.md"],
            [("docs/README.md", "write"), ("docs/../README.md", "write")],
        ),
        ("a target climbing out", ["ln", "-s", "../../etc", "link"], [("link", "write"), ("../../etc", "write")]),
        (
            "-t: targets are relative to the directory",
            ["ln", "-st", "d", "x", "y"],
            [("d", "write"), ("d/x", "write"), ("d/y", "write")],
        ),
        ("a trailing slash names the directory", ["ln", "-s", "x", "d/"], [("d/", "write"), ("d/x", "write")]),
        (
            "-r: the target is relative to the working directory",
            ["ln", "-rs", "src/x", "d/y"],
            [("d/y", "write"), ("src/x", "write"), ("src/x", "read")],
        ),
        ("one operand: the link is made here", ["ln", "-s", ".git/hooks"], [(".git/hooks", "write")]),
        (
            "an absolute target",
            ["ln", "-sf", "/usr/bin/python3", "py"],
            [("py", "write"), ("/usr/bin/python3", "write")],
        ),
        (
            "cp -l links its sources",
            ["cp", "-l", ".git/config", "c"],
            [("c", "write"), (".git/config", "write"), (".git/config", "read")],
        ),
        (
            "cp --link abbreviated",
            ["cp", "--li", ".git/config", "c"],
            [("c", "write"), (".git/config", "write"), (".git/config", "read")],
        ),
        ("cp -s in a bundle", ["cp", "-rs", ".git", "c"], [("c", "write"), (".git", "write"), (".git", "read")]),
        (
            "cp --symbolic-link",
            ["cp", "--symbolic-link", ".git/config", "c"],
            [("c", "write"), (".git/config", "write"), (".git/config", "read")],
        ),
        ("a plain cp reads its sources", ["cp", "-r", ".git", "backup"], [(".git", "read"), ("backup", "write")]),
    ],
)
def test_what_a_link_points_at_is_written(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description
    words = [literal(a) for a in argv]
    uses = path_uses(words)
    assert symlink_targets(words, uses) == uses


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("one operand", ["cd", "src"], [("src", "cd")]),
        ("none: home", ["cd"], [("~", "cd")]),
        ("-- ends the options", ["cd", "--", ".git"], [(".git", "cd")]),
        ("-P is an option", ["cd", "-P", "link"], [("link", "cd")]),
        ("bundled options", ["cd", "-LPe", "x"], [("x", "cd")]),
        ("-@", ["cd", "-@", "x"], [("x", "cd")]),
        ("two operands fail", ["cd", "src", ".git"], [(DYN, "cd")]),
        ("an unknown option fails", ["cd", "-x", "src"], [(DYN, "cd")]),
        ("cd -- - is the previous directory", ["cd", "--", "-"], [(DYN, "cd")]),
        ("a directory named +1", ["cd", "+1"], [("+1", "cd")]),
        ("pushd a directory", ["pushd", "src"], [("src", "cd")]),
        ("pushd +N rotates the stack", ["pushd", "+1"], [(DYN, "cd")]),
        ("pushd -N rotates the stack", ["pushd", "-0"], [(DYN, "cd")]),
        ("pushd -n only changes the stack", ["pushd", "-n", "/etc"], [(DYN, "cd")]),
        ("pushd alone swaps the top two", ["pushd"], [(DYN, "cd")]),
    ],
)
def test_cd_has_one_directory_or_an_unknown_one(
    description: str, argv: list[str], expected: list[tuple[str, str]]
) -> None:
    assert _uses(argv) == expected, description


def test_extractors_are_known_for_the_programs_they_read() -> None:
    for program in ("cat", "cd", "pushd", "find", "dd", "tar", "zip", "unzip", "rsync", "patch"):
        assert has_extractor(program), program
    assert not has_extractor("pytest")


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("sort -uo into .git", "sort -uo .git/config README.md", ["Bash(sort:*)"]),
        ("sort --outp abbreviated", "sort --outp=~/.bashrc README.md", ["Bash(sort:*)"]),
        ("cp -vt into hooks", "cp -vt .git/hooks pre-commit", ["Bash(cp:*)"]),
        ("cp --targ outside", "cp --targ=/etc evil.sh", ["Bash(cp:*)", "Edit"]),
        ("mv -ft attached", "mv -ft.git/hooks pre-commit", ["Bash(mv:*)"]),
        ("install -Dt", "install -Dt .git/hooks pre-commit", ["Bash(install:*)"]),
        ("install --targ", "install --targ=.git/hooks --mode=755 pre-commit", ["Bash(install:*)", "Edit"]),
        ("grep -rf attached", "grep -rf/etc/shadow src", ["Bash(grep:*)"]),
        ("grep -hf", "grep -hf /etc/shadow src", ["Bash(grep:*)"]),
        ("a symbolic link to .git", "ln -s .git b && echo x > b/config", ["Bash(ln:*)", "Bash(echo:*)", "Edit"]),
        ("a hard link to .git/config", "ln .git/config c", ["Bash(ln:*)"]),
        ("cp -l of .git/config", "cp -l .git/config c && echo x >> c", ["Bash(cp:*)", "Edit"]),
        ("a link to the workflows", "ln -s .github/workflows w && cp evil.yml w/x.yml", ["Bash(ln:*)", "Bash(cp:*)"]),
        ("cd -- .git", "cd -- .git && echo x > config", ["Bash(echo:*)", "Edit"]),
        (
            "pushd rotating back into .git",
            "pushd .git; pushd ../src; pushd +1; echo x >> config",
            ["Bash(echo:*)", "Edit"],
        ),
        ("pushd -n then rotate", "pushd -n /etc; pushd +1; cat shadow", ["Bash(cat:*)"]),
        ("cd with two operands", "cd src .git; cat ../x", ["Bash(cat:*)"]),
    ],
)
def test_bundles_abbreviations_links_and_cd_forms_are_caught(
    check: Check, description: str, command: str, allow: list[str]
) -> None:
    assert not isinstance(check(command, allow=allow), Allow), description


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("a relative link inside", "ln -s ../README.md docs/README.md", ["Bash(ln:*)"]),
        ("cp into a directory", "cp -v README.md docs/", ["Bash(cp:*)"]),
        ("sort -o inside", "sort -uo out.txt README.md", ["Bash(sort:*)", "Edit"]),
        ("grep with a bundle", "grep -rn TODO src", ["Bash(grep:*)"]),
        ("cd -P inside", "cd -P src && cat app.py", ["Bash(cat:*)"]),
    ],
)
def test_ordinary_forms_stay_allowed(check: Check, description: str, command: str, allow: list[str]) -> None:
    assert isinstance(check(command, allow=allow), Allow), description
