"""Path arguments of archivers and copiers (``bot.shell.programs.archives``): tar, zip, unzip, rsync,
patch — their bundles, attached values and abbreviations, and what each writes."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.parse.syntax import literal
from bot.shell.paths.arguments import path_uses
from bot.shell.paths.resolve import UNKNOWN_PLACE
from tests.shell.conftest import Check

UNKNOWN = "?"


def _uses(argv: list[str]) -> list[tuple[str, str]]:
    return [
        (UNKNOWN if u.value.startswith(UNKNOWN_PLACE) else u.value, u.access)
        for u in path_uses([literal(a) for a in argv])
    ]


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("-C attached", ["tar", "-xf", "x.tar", "-C/"], [("x.tar", "read"), ("/", "write")]),
        ("-C attached .git", ["tar", "-xf", "x.tar", "-C.git"], [("x.tar", "read"), (".git", "write")]),
        (
            "old-style: value letters take the next words in order",
            ["tar", "xfC", "x.tar", "/"],
            [("x.tar", "read"), ("/", "write")],
        ),
        (
            "-f takes the rest of a dash bundle: the operands are members",
            ["tar", "-xvfC", "x.tar", ".git"],
            [("C", "read"), (".", "write"), ("x.tar", "write"), (".git", "write")],
        ),
        ("-C in a bundle before -f", ["tar", "-xC", "/", "-f", "x.tar"], [("x.tar", "read"), ("/", "write")]),
        ("--directory abbreviated", ["tar", "-xf", "x.tar", "--dir=/etc"], [("x.tar", "read"), ("/etc", "write")]),
        ("--file abbreviated", ["tar", "-x", "--fil=p.tar", "-C", "src"], [("p.tar", "read"), ("src", "write")]),
        ("extracting without -C writes here", ["tar", "xzf", "a.tgz"], [("a.tgz", "read"), (".", "write")]),
        (
            "a member named when extracting is written",
            ["tar", "-xf", "p.tar", ".git/hooks/pre-commit"],
            [("p.tar", "read"), (".", "write"), (".git/hooks/pre-commit", "write")],
        ),
        (
            "creating reads members from -C",
            ["tar", "-cf", "out.tar", "-C/", "etc/shadow"],
            [("out.tar", "write"), ("//etc/shadow", "read")],
        ),
        (
            "relative -C add up",
            ["tar", "-cf", "o.tar", "-C", "a", "-C", "b", "m"],
            [("o.tar", "write"), ("a/b/m", "read")],
        ),
        (
            "-T: the list is read, what it names unknown",
            ["tar", "-cf", "out.tar", "--files-from=/etc/x"],
            [("/etc/x", "read"), ("out.tar", "write"), (UNKNOWN, "read")],
        ),
        (
            "-T short",
            ["tar", "-cf", "out.tar", "-T", "list.txt"],
            [("list.txt", "read"), ("out.tar", "write"), (UNKNOWN, "read")],
        ),
        (
            "-P when extracting puts members anywhere",
            ["tar", "-xPf", "p.tar"],
            [("p.tar", "read"), (".", "write"), (UNKNOWN, "read")],
        ),
        ("listing writes nothing", ["tar", "-tf", "x.tar"], [("x.tar", "read")]),
        (
            "--exclude takes a pattern",
            ["tar", "--exclude", ".git", "-czf", "a.tgz", "."],
            [("a.tgz", "write"), (".", "read")],
        ),
        (
            "-g writes the snapshot",
            ["tar", "-g", "snap", "-cf", "a.tar", "src"],
            [("snap", "write"), ("a.tar", "write"), ("src", "read")],
        ),
    ],
)
def test_tar(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("-d attached", ["unzip", "-d/", "x.zip"], [("x.zip", "read"), ("/", "write")]),
        ("-d attached after the archive", ["unzip", "x.zip", "-d.git"], [("x.zip", "read"), (".git", "write")]),
        (
            "-x lists exclusions, then -d",
            ["unzip", "-o", "x.zip", "-x", "foo", "-d", ".git"],
            [("x.zip", "read"), (".git", "write")],
        ),
        ("-d in a bundle", ["unzip", "-qod", "out", "x.zip"], [("x.zip", "read"), ("out", "write")]),
        (
            "members are written under -d",
            ["unzip", "x.zip", "a/b", "-d", "out"],
            [("x.zip", "read"), ("out", "write"), ("out/a/b", "write")],
        ),
        ("without -d: here", ["unzip", "x.zip"], [("x.zip", "read"), (".", "write")]),
        ("-l lists", ["unzip", "-l", "x.zip"], [("x.zip", "read")]),
        (
            "zip writes the archive, reads its inputs",
            ["zip", "-r", "out.zip", "src", "link_to_home"],
            [("out.zip", "write"), ("src", "read"), ("link_to_home", "read")],
        ),
        (
            "zip -x patterns are no paths",
            ["zip", "-r", "out.zip", ".", "-x", ".git/*", "*.pyc"],
            [("out.zip", "write"), (".", "read")],
        ),
        (
            "zip into .git",
            ["zip", ".git/hooks/pre-commit", "README.md"],
            [(".git/hooks/pre-commit", "write"), ("README.md", "read")],
        ),
        ("zip -O", ["zip", "in.zip", "-O", ".git/x.zip"], [(".git/x.zip", "write"), ("in.zip", "write")]),
        ("zip -@ reads names from stdin", ["zip", "out.zip", "-@"], [(UNKNOWN, "read"), ("out.zip", "write")]),
        (
            "zip -b temp path",
            ["zip", "-b", "/tmp", "o.zip", "f"],
            [("/tmp", "write"), ("o.zip", "write"), ("f", "read")],
        ),
    ],
)
def test_zip_and_unzip(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        (
            "sources read, the last operand written",
            ["rsync", "-a", "pre-commit", ".git/hooks/"],
            [("pre-commit", "read"), (".git/hooks/", "write")],
        ),
        (
            "--log-file",
            ["rsync", "-a", "x", "--log-file=.git/config", "y"],
            [("x", "read"), ("y", "write"), (".git/config", "write")],
        ),
        (
            "--write-batch",
            ["rsync", "-a", "--write-batch=.git/hooks/x", "src/", "d"],
            [("src/", "read"), ("d", "write"), (".git/hooks/x", "write")],
        ),
        (
            "a relative --backup-dir is also under the destination",
            ["rsync", "-ab", "--backup-dir", "old", "s", "d"],
            [("s", "read"), ("d", "write"), ("old", "write"), ("d/old", "write")],
        ),
        (
            "-T is the temp dir",
            ["rsync", "-aT", "/tmp/x", "s", "d"],
            [("s", "read"), ("d", "write"), ("/tmp/x", "write")],
        ),
        (
            "--files-from is read",
            ["rsync", "-a", "--files-from=/etc/list", "s", "d"],
            [("s", "read"), ("d", "write"), ("/etc/list", "read")],
        ),
        ("a remote source is no path", ["rsync", "-a", "host:/etc/", "backup/"], [("backup/", "write")]),
        ("a remote destination", ["rsync", "-a", "src/", "user@host:dst"], [("src/", "read")]),
        ("a single operand lists", ["rsync", "link_to_home/"], [("link_to_home/", "read")]),
        ("-e takes the shell command", ["rsync", "-e", "ssh -p 22", "a", "b"], [("a", "read"), ("b", "write")]),
    ],
)
def test_rsync(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        (
            "-o writes",
            ["patch", "-o", ".git/config", "README.md", "p.diff"],
            [(".git/config", "write"), ("README.md", "read"), ("p.diff", "read")],
        ),
        (
            "-d: everything under it, the directory written",
            ["patch", "-d", ".git", "-p1"],
            [(".git", "write"), (UNKNOWN, "read")],
        ),
        ("--directory=", ["patch", "--directory=.git", "-p1", "config"], [(".git", "write"), (".git/config", "write")]),
        (
            "--dir abbreviated",
            ["patch", "--dir", "sub", "f", "-i", "p.diff"],
            [("sub", "write"), ("sub/p.diff", "read"), ("sub/f", "write")],
        ),
        (
            "the file operand is written",
            ["patch", "src/app.py", "fix.diff"],
            [("src/app.py", "write"), ("fix.diff", "read")],
        ),
        ("-r writes rejects", ["patch", "-r", ".git/x", "f"], [(".git/x", "write"), ("f", "write")]),
        ("the files from the diff are unknown", ["patch", "-p0"], [(UNKNOWN, "read")]),
        ("--dry-run writes nothing", ["patch", "--dry-run", "-p1"], []),
    ],
)
def test_patch(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    assert _uses(argv) == expected, description


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("tar -C/ attached", "tar -xf x.tar -C/", ["Bash(tar:*)"]),
        ("tar old-style C", "tar xfC x.tar /", ["Bash(tar:*)"]),
        ("tar -xC bundle", "tar -xC / -f x.tar", ["Bash(tar:*)"]),
        ("tar --dir abbreviated", "tar -xf payload.tar --dir=/etc", ["Bash(tar:*)"]),
        ("tar -C .git/hooks", "tar -xf payload.tar -C.git/hooks", ["Bash(tar:*)"]),
        ("tar -T list", "tar -cf out.tar -T list.txt", ["Bash(tar:*)"]),
        ("tar --files-from outside", "tar -cf out.tar --files-from=/etc/x", ["Bash(tar:*)"]),
        ("tar -xP", "tar -xPf payload.tar", ["Bash(tar:*)"]),
        ("tar member into .git", "tar -xf p.tar .git/hooks/pre-commit", ["Bash(tar:*)"]),
        ("unzip -d/", "unzip -d/ x.zip", ["Bash(unzip:*)"]),
        ("unzip -d.git", "unzip x.zip -d.git", ["Bash(unzip:*)"]),
        ("unzip -d through a link", "unzip p.zip -d link_to_home", ["Bash(unzip:*)"]),
        ("zip into .git", "zip .git/hooks/pre-commit README.md", ["Bash(zip:*)"]),
        ("zip through a link out", "zip -r x.zip link_to_home", ["Bash(zip:*)"]),
        ("rsync into hooks", "rsync -a pre-commit .git/hooks/", ["Bash(rsync:*)"]),
        ("rsync --log-file", "rsync -a pre-commit --log-file=.git/config x", ["Bash(rsync:*)"]),
        ("rsync through a link", "rsync -a link_to_home/.ssh/ stolen/", ["Bash(rsync:*)", "Edit"]),
        ("patch -o", "patch -o .git/config README.md p.diff", ["Bash(patch:*)"]),
        ("patch -d .git", "patch -d .git -p1 < p.diff", ["Bash(patch:*)"]),
        ("patch files from the diff", "patch -p0 < p.diff", ["Bash(patch:*)"]),
    ],
)
def test_archivers_cannot_write_where_they_must_not(
    check: Check, description: str, command: str, allow: list[str]
) -> None:
    assert not isinstance(check(command, allow=allow), Allow), description


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("extract into a build directory", "tar -xzf deps.tgz -C build", ["Bash(tar:*)"]),
        ("archive the sources", "tar -czf dist/src.tgz --exclude=.git src", ["Bash(tar:*)"]),
        ("unzip into a directory", "unzip -o -q dist.zip -d out", ["Bash(unzip:*)"]),
        ("zip two files", "zip dist.zip README.md src/app.py -x '*.pyc'", ["Bash(zip:*)", "Edit"]),
        ("rsync a tree", "rsync -av --delete --exclude .git src/ build/", ["Bash(rsync:*)"]),
        ("patch one file", "patch src/app.py fix.diff", ["Bash(patch:*)"]),
    ],
)
def test_ordinary_archiving_stays_allowed(check: Check, description: str, command: str, allow: list[str]) -> None:
    assert isinstance(check(command, allow=allow), Allow), description
