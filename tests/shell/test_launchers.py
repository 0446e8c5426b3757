"""Launchers read with their own parsers (red team round 2, family 10): where the command starts,
and when it cannot be known (the launch is then opaque)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.launch.launchers import Table, launch
from bot.shell.launch.wrappers import unwrap
from bot.shell.parse.syntax import DYN, literal
from tests.shell.conftest import Check


def inner(argv: list[str]) -> tuple[str, list[str], list[str]]:
    """``(kind, inner argv, scripts)`` of the first inner command."""
    found = unwrap([literal(a) for a in argv])
    assert found, argv
    return found[0].kind, [w.value for w in found[0].argv or ()], [i.script for i in found if i.script is not None]


@pytest.mark.parametrize(
    ("description", "argv", "kind", "command"),
    [
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
        (
            "trickle with -- may take options after",
            ["trickle", "-d", "1", "--", "curl", "-s"],
            "transparent",
            ["curl", "-s"],
        ),
        (
            "valgrind single-word options",
            ["valgrind", "--leak-check=full", "-q", "./t", "-x"],
            "transparent",
            ["./t", "-x"],
        ),
        ("valgrind --", ["valgrind", "-v", "--", "./t"], "transparent", ["./t"]),
        ("valgrind a tool of its own", ["valgrind", "--tool=callgrind", "./t"], "transparent", ["./t"]),
        (
            "valgrind writing a file needs its rule too",
            ["valgrind", "--xml=yes", "--xml-file=x", "./t"],
            "exec_each",
            ["./t"],
        ),
        ("gosu switches users", ["gosu", "app", "make"], "privilege", ["make"]),
        ("su-exec switches users", ["su-exec", "app:app", "make"], "privilege", ["make"]),
        # red team round 3
        ("jobs -x runs the rest (a bash builtin)", ["jobs", "-x", "make", "-j"], "transparent", ["make", "-j"]),
        ("jobs -x in a bundle", ["jobs", "-rx", "make"], "transparent", ["make"]),
        ("jobs -x after --", ["jobs", "-x", "--", "make"], "transparent", ["make"]),
        (
            "logsave writes its log: its rule is needed too",
            ["logsave", "-a", "build.log", "make"],
            "exec_each",
            ["make"],
        ),
        (
            "logsave with -- before the command",
            ["logsave", "-s", "--", "log", "make", "-j"],
            "exec_each",
            ["make", "-j"],
        ),
        ("timelimit -t and -T take values", ["timelimit", "-t", "5", "-T", "9", "make"], "transparent", ["make"]),
        ("timelimit attached value in a bundle", ["timelimit", "-qt5", "make"], "transparent", ["make"]),
        ("sshpass -p takes a value", ["sshpass", "-p", "pw", "ssh", "host"], "transparent", ["ssh", "host"]),
        ("sshpass -f attached", ["sshpass", "-fpass.txt", "-v", "scp", "a", "b"], "transparent", ["scp", "a", "b"]),
        (
            "fd -x up to ;, the result appended",
            ["fd", "-e", "py", "-x", "wc", "-l", ";", "src"],
            "exec_each",
            ["wc", "-l", DYN],
        ),
        ("fd -X with a placeholder", ["fd", ".", "-X", "rm", "{}"], "exec_each", ["rm", DYN]),
        ("fd --exec=", ["fd", "--exec=wc", "-l", "{/}"], "exec_each", ["wc", "-l", DYN]),
        ("fd -x attached in a bundle", ["fd", "-Hxwc", "-l"], "exec_each", ["wc", "-l", DYN]),
        ("fdfind is fd", ["fdfind", "--exec-batch", "ls", "-l"], "exec_each", ["ls", "-l", DYN]),
        ("cargo watch -- a command", ["cargo", "watch", "-q", "--", "make", "test"], "exec_each", ["make", "test"]),
        ("cargo-watch -- a command", ["cargo-watch", "watch", "--", "make"], "exec_each", ["make"]),
        (
            "command printf without -v changes nothing",
            ["command", "printf", "%s", "x"],
            "transparent",
            ["printf", "%s", "x"],
        ),
        (
            "bear -- writes its database: its rule is needed too",
            ["bear", "--output", "x.json", "--", "make"],
            "exec_each",
            ["make"],
        ),
    ],
)
def test_a_launcher_runs_the_command_after_its_options(
    description: str, argv: list[str], kind: str, command: list[str]
) -> None:
    assert inner(argv)[:2] == (kind, command), description


@pytest.mark.parametrize(
    ("description", "argv"),
    [
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
        # red team round 3
        ("jobs -x with an option bash does not know", ["jobs", "-xq", "make"]),
        ("logsave permutes: an option after the command", ["logsave", "log", "make", "-j"]),
        ("timelimit: an unknown option", ["timelimit", "-z", "make"]),
        ("sshpass -e with an attached name", ["sshpass", "-eSSHPASS", "ssh", "host"]),
        ("cargo watch --use-shell", ["cargo", "watch", "--use-shell=python", "-s", "x"]),
        ("rush builds commands from stdin", ["rush", "make {}"]),
        ("xe builds commands from stdin", ["xe", "make"]),
        ("apply substitutes arguments", ["apply", "make %1", "a"]),
        ("xjobs reads commands from stdin", ["xjobs", "-j", "2"]),
        ("ts (task spooler) queues a command", ["ts", "make", "test"]),
        ("runcon", ["runcon", "-t", "x", "make"]),
        ("flatpak-spawn --host", ["flatpak-spawn", "--host", "make"]),
        ("distrobox-enter", ["distrobox-enter", "--", "make"]),
        ("systemd-nspawn", ["systemd-nspawn", "-D", "/", "make"]),
        ("scan-build runs the build", ["scan-build", "make"]),
        ("bear without -- (old syntax)", ["bear", "make"]),
        ("concurrently runs shell commands", ["concurrently", "make a", "make b"]),
        ("a terminal emulator -e", ["xterm", "-e", "make"]),
        ("posh -c (another POSIX shell)", ["posh", "-c", "echo $'a'"]),
        ("builtin export sets the environment of what follows", ["builtin", "export", "GIT_EXTERNAL_DIFF=./x"]),
        ("command declare -x", ["command", "declare", "-x", "PAGER=x"]),
        ("jobs -x read", ["jobs", "-x", "read", "GIT_PAGER"]),
    ],
)
def test_a_launch_is_opaque_where_the_command_is_not_known(description: str, argv: list[str]) -> None:
    assert inner(argv)[0] == "opaque", description


@pytest.mark.parametrize(
    ("description", "argv", "scripts"),
    [
        (
            "operands and option values",
            ["hyperfine", "--prepare", "make clean", "-w", "3", "make test", "-s", "make"],
            ["make clean", "make test", "make"],
        ),
        ("clap: -p=CMD is -p CMD", ["hyperfine", "-p=git status", "make"], ["git status", "make"]),
        ("attached long values", ["hyperfine", "--cleanup=rm -rf x", "--conclude", "y", "z"], ["rm -rf x", "y", "z"]),
        ("operands after --", ["hyperfine", "-N", "--", "-x"], ["-x"]),
        ("a value that is not a command", ["hyperfine", "--export-json", "out.json", "-n", "name", "make"], ["make"]),
        ("--shell=bash reads bash syntax", ["hyperfine", "--shell=bash", "echo $'a'"], ["echo $'a'"]),
        ("pee: every argument", ["pee", "--ignore-sigpipe", "grep x", "wc -l"], ["grep x", "wc -l"]),
        ("mispipe: both", ["mispipe", "make", "grep x"], ["make", "grep x"]),
        (
            "cargo watch -x is a cargo command",
            ["cargo", "watch", "-x", "test", "--exec=build --release"],
            ["cargo test", "cargo build --release"],
        ),
        ("cargo watch -s is a shell command", ["cargo", "watch", "-c", "-s", "make test"], ["make test"]),
        ("cargo watch -x attached in a bundle", ["cargo", "+nightly", "watch", "-qxtest"], ["cargo test"]),
        ("cargo watch --shell=", ["cargo", "-q", "watch", "--shell=make"], ["make"]),
        ("rbash -c", ["rbash", "-c", "make"], ["make"]),
    ],
)
def test_command_strings_are_scripts(description: str, argv: list[str], scripts: list[str]) -> None:
    assert inner(argv)[2] == scripts, description


def test_hyperfine_scripts_need_the_hyperfine_rule_too() -> None:
    found = unwrap([literal(a) for a in ("hyperfine", "--export-json", "x.json", "make")])
    assert [(i.kind, i.start, i.script) for i in found] == [("exec_each", 3, "make")]


@pytest.mark.parametrize(
    ("description", "argv"),
    [
        ("schedtool without -e only reads PIDs", ["schedtool", "-B", "1234"]),
        ("a launcher without a command", ["numactl", "--hardware"]),
        ("torsocks on", ["torsocks", "on"]),
        ("gosu --version", ["gosu", "--version"]),
        ("valgrind --version", ["valgrind", "--version"]),
        ("jobs without -x lists jobs", ["jobs", "-l"]),
        ("fd -tx is --type x", ["fd", "-tx", "name"]),
        ("fd -ex is --extension x", ["fd", "-ex", "name", "src"]),
        ("fd --exclude takes a value", ["fd", "--exclude", "-x", "name"]),
        ("ts (moreutils) with a format", ["ts", "-s", "%H:%M:%.S"]),
        ("ts without arguments", ["ts"]),
        ("cargo test named watch", ["cargo", "test", "watch", "--", "--nocapture"]),
        ("cargo watch alone runs cargo check", ["cargo", "watch"]),
        ("bear -- with only options", ["bear", "--output", "x.json"]),
    ],
)
def test_nothing_is_launched(description: str, argv: list[str]) -> None:
    assert unwrap([literal(a) for a in argv]) == [], description


def test_a_table_with_operands_and_an_exec_option() -> None:
    table = Table(value_letters="t", flag_letters="e", operands=1, exec_option="-e")
    found = launch([literal(a) for a in ("x", "-t", "1", "-e", "lock", "make")], table)
    assert [(i.kind, i.start) for i in found] == [("transparent", 5)]
    assert launch([literal(a) for a in ("x", "lock", "make")], table) == []


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("jobs -x (red team round 3)", "jobs -x git push"),
        ("jobs -x after --", "jobs -x -- git push origin main"),
        ("logsave", "logsave /dev/null git push"),
        ("logsave -a", "logsave -a log git push"),
        ("nice --adj= abbreviation", "nice --adj=1 git push"),
        ("nice --adj VALUE", "nice --adj 1 git push"),
        ("nice -5 obsolete form", "nice -5 git push"),
        ("nice -n attached then the obsolete form", "nice -n1 -5 git push"),
        ("timelimit", "timelimit -t 5 git push"),
        ("sshpass", "sshpass -p x git push"),
        ("fd -x", "fd -x git push"),
        ("fd -X", "fd . -X git push"),
        ("fdfind --exec", "fdfind --exec git push"),
        ("fd --exec-batch=", "fd --exec-batch=git push"),
        ("cargo watch -s", 'cargo watch -s "git push"'),
        ("cargo watch --shell", "cargo watch --shell 'git push'"),
        ("cargo watch -x (a cargo command running a shell)", "cargo watch -x 'test; git push'"),
        ("cargo watch --", "cargo watch -- git push"),
        ("apply", 'apply "git %1" push'),
        ("rush", 'rush "git {}" <<< push'),
        ("xe", "xe git push <<< x"),
        ("xjobs", "echo git push | xjobs"),
        ("ts (task spooler)", "ts git push"),
        ("runcon", "runcon -t x git push"),
        ("flatpak-spawn", "flatpak-spawn --host git push"),
        ("posh -c", "posh -c 'git push'"),
        ("rbash -c", "rbash -c 'git push'"),
        ("pnpx", "pnpx git push"),
        ("corepack", "corepack npx git push"),
        ("doppler run", "doppler run -- git push"),
        ("op run", "op run -- git push"),
        ("aws-vault exec", "aws-vault exec prod -- git push"),
        ("nvm exec", "nvm exec 20 git push"),
    ],
)
def test_deny_rules_see_the_command_behind_a_launcher(check: Check, description: str, command: str) -> None:
    """Under a broad allow, a deny rule holds behind every launcher: the launched command is
    matched, or the launch is opaque and needs a rule spelling it out."""
    result = check(command, allow=["Bash(*)"], deny=["Bash(git push:*)"])
    assert not isinstance(result, Allow), (description, result)


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("jobs -x with an allowed command", "jobs -x make test", ["Bash(make test:*)"]),
        ("logsave with rules for both", "logsave build.log make test", ["Bash(logsave:*)", "Bash(make test:*)"]),
        ("nice --adj with an allowed command", "nice --adj=5 make test", ["Bash(make test:*)"]),
        ("timelimit with an allowed command", "timelimit -t 60 make test", ["Bash(make test:*)"]),
        ("fd -x with rules for both", "fd -e py -x echo", ["Bash(fd:*)", "Bash(echo:*)"]),
        ("fd listing files", "fd -e py src", ["Bash(fd:*)"]),
        ("fd -tx (executables)", "fd -tx . src", ["Bash(fd:*)"]),
        ("cargo watch with rules for both", "cargo watch -x test", ["Bash(cargo watch:*)", "Bash(cargo test:*)"]),
        ("ts timestamps a pipeline", "make test | ts '%H:%M:%S'", ["Bash(make test:*)", "Bash(ts:*)"]),
        ("command printf", "command printf '%s' x", ["Bash(printf:*)"]),
    ],
)
def test_a_launcher_with_allowed_commands_is_allowed(
    check: Check, description: str, command: str, allow: list[str]
) -> None:
    assert isinstance(check(command, allow=allow), Allow), description
