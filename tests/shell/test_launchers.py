"""Launchers read with their own parsers (red team round 2, family 10): where the command starts,
and when it cannot be known (the launch is then opaque)."""

from __future__ import annotations

import pytest

from bot.shell.launchers import Table, launch
from bot.shell.syntax import literal
from bot.shell.wrappers import unwrap


def inner(argv: list[str]) -> tuple[str, list[str], list[str]]:
    """``(kind, inner argv, scripts)`` of the first inner command."""
    found = unwrap([literal(a) for a in argv])
    assert found, argv
    return found[0].kind, [w.value for w in found[0].argv or ()], [i.script for i in found if i.script is not None]


@pytest.mark.parametrize(("description", "argv", "kind", "command"), [
    ("numactl -C takes a value", ["numactl", "-C", "0", "make"], "transparent", ["make"]),
    ("numactl attached values in a bundle", ["numactl", "-lC0", "make", "-j"], "transparent", ["make", "-j"]),
    ("numactl abbreviated long option", ["numactl", "--phys", "0", "make"], "transparent", ["make"]),
    ("numactl -- ends the options", ["numactl", "-l", "--", "-weird"], "transparent", ["-weird"]),
    ("setarch skips ARCH", ["setarch", "x86_64", "-R", "make"], "transparent", ["make"]),
    ("linux32 has no ARCH", ["linux32", "-R", "make"], "transparent", ["make"]),
    ("eatmydata --", ["eatmydata", "--", "make"], "transparent", ["make"]),
    ("lckdo skips the lock file", ["lckdo", "-W", "5", ".lock", "make"], "transparent", ["make"]),
    ("with-lock-ex skips the lock file", ["with-lock-ex", "-q", "l", "make"], "transparent", ["make"]),
    ("schedtool -e in a bundle", ["schedtool", "-n", "5", "-Be", "make", "x"], "transparent", ["make", "x"]),
    ("uclampset -p takes a value", ["uclampset", "-p", "1", "-m", "0", "make"], "transparent", ["make"]),
    ("torsocks -u takes a value", ["torsocks", "-u", "bob", "git", "fetch"], "transparent", ["git", "fetch"]),
    ("torsocks sh is judged as the shell", ["torsocks", "sh"], "transparent", ["sh"]),
    ("trickle with -- may take options after", ["trickle", "-d", "1", "--", "curl", "-s"], "transparent",
     ["curl", "-s"]),
    ("valgrind single-word options", ["valgrind", "--leak-check=full", "-q", "./t", "-x"], "transparent",
     ["./t", "-x"]),
    ("valgrind --", ["valgrind", "-v", "--", "./t"], "transparent", ["./t"]),
    ("valgrind a tool of its own", ["valgrind", "--tool=callgrind", "./t"], "transparent", ["./t"]),
    ("valgrind writing a file needs its rule too", ["valgrind", "--xml=yes", "--xml-file=x", "./t"], "exec_each",
     ["./t"]),
    ("gosu switches users", ["gosu", "app", "make"], "privilege", ["make"]),
    ("su-exec switches users", ["su-exec", "app:app", "make"], "privilege", ["make"]),
])
def test_a_launcher_runs_the_command_after_its_options(description: str, argv: list[str], kind: str,
                                                        command: list[str]) -> None:
    assert inner(argv)[:2] == (kind, command), description


@pytest.mark.parametrize(("description", "argv"), [
    ("numactl: an option the table does not know", ["numactl", "-Q", "make"]),
    ("numactl --shm", ["numactl", "--shm", "k", "make"]),
    ("setarch: an option where ARCH goes", ["setarch", "-R", "make"]),
    ("setarch without a program starts a shell", ["setarch", "x86_64"]),
    ("trickle permutes: an option after the command", ["trickle", "-d", "1", "curl", "-s"]),
    ("tini permutes: an option after the command", ["tini", "make", "-v"]),
    ("torsocks: an unknown option", ["torsocks", "-x", "make"]),
    ("torsocks --shell", ["torsocks", "--shell"]),
    ("gosu: an option", ["gosu", "--preserve", "root", "make"]),
    ("valgrind --tool path", ["valgrind", "--tool=../../tmp/x", "make"]),
    ("valgrind --db-command", ["valgrind", "--db-command=sh -c id", "make"]),
    ("valgrind --vgdb-prefix", ["valgrind", "--vgdb-prefix=.git/x", "make"]),
    ("valgrind --log-socket", ["valgrind", "--log-socket=10.0.0.1:1500", "make"]),
    ("hyperfine -P placeholders", ["hyperfine", "-P", "n", "1", "3", "make -j {n}"]),
    ("hyperfine --parameter-list", ["hyperfine", "--parameter-list", "x", "a,b", "{x}"]),
    ("hyperfine another shell", ["hyperfine", "--shell=python", "make"]),
    ("hyperfine an unknown option", ["hyperfine", "--frobnicate", "make"]),
    ("hyperfine: bash-only syntax for sh", ["hyperfine", "echo $'a'"]),
    ("pee: bash-only syntax for sh", ["pee", "echo $'a'"]),
    ("mpirun", ["mpirun", "-np", "2", "make"]),
    ("hwloc-bind", ["hwloc-bind", "core:0", "--", "make"]),
    ("proxychains4 preloads from the current directory", ["proxychains4", "-q", "make"]),
])
def test_a_launch_is_opaque_where_the_command_is_not_known(description: str, argv: list[str]) -> None:
    assert inner(argv)[0] == "opaque", description


@pytest.mark.parametrize(("description", "argv", "scripts"), [
    ("operands and option values", ["hyperfine", "--prepare", "make clean", "-w", "3", "make test", "-s", "make"],
     ["make clean", "make test", "make"]),
    ("clap: -p=CMD is -p CMD", ["hyperfine", "-p=git status", "make"], ["git status", "make"]),
    ("attached long values", ["hyperfine", "--cleanup=rm -rf x", "--conclude", "y", "z"], ["rm -rf x", "y", "z"]),
    ("operands after --", ["hyperfine", "-N", "--", "-x"], ["-x"]),
    ("a value that is not a command", ["hyperfine", "--export-json", "out.json", "-n", "name", "make"], ["make"]),
    ("--shell=bash reads bash syntax", ["hyperfine", "--shell=bash", "echo $'a'"], ["echo $'a'"]),
    ("pee: every argument", ["pee", "--ignore-sigpipe", "grep x", "wc -l"], ["grep x", "wc -l"]),
    ("mispipe: both", ["mispipe", "make", "grep x"], ["make", "grep x"]),
])
def test_command_strings_are_scripts(description: str, argv: list[str], scripts: list[str]) -> None:
    assert inner(argv)[2] == scripts, description


def test_hyperfine_scripts_need_the_hyperfine_rule_too() -> None:
    found = unwrap([literal(a) for a in ("hyperfine", "--export-json", "x.json", "make")])
    assert [(i.kind, i.start, i.script) for i in found] == [("exec_each", 3, "make")]


@pytest.mark.parametrize(("description", "argv"), [
    ("schedtool without -e only reads PIDs", ["schedtool", "-B", "1234"]),
    ("a launcher without a command", ["numactl", "--hardware"]),
    ("torsocks on", ["torsocks", "on"]),
    ("gosu --version", ["gosu", "--version"]),
    ("valgrind --version", ["valgrind", "--version"]),
])
def test_nothing_is_launched(description: str, argv: list[str]) -> None:
    assert unwrap([literal(a) for a in argv]) == [], description


def test_a_table_with_operands_and_an_exec_option() -> None:
    table = Table(value_letters="t", flag_letters="e", operands=1, exec_option="-e")
    found = launch([literal(a) for a in ("x", "-t", "1", "-e", "lock", "make")], table)
    assert [(i.kind, i.start) for i in found] == [("transparent", 5)]
    assert launch([literal(a) for a in ("x", "lock", "make")], table) == []
