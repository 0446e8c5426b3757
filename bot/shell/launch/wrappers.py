"""Programs that run other programs (beyond the seeds): finding the inner command.

A prefix rule for a wrapper must never approve the program it launches: ``Bash(timeout:*)`` does
not allow ``timeout 5 rm -rf x``, ``Bash(find:*)`` does not allow ``find . -exec sh -c ... \\;``,
``Bash(sudo:*)`` does not allow anything by itself. Each wrapper is recognised with its own option
syntax (so ``timeout -s KILL 5 cmd`` finds ``cmd``) and classified:

* ``transparent`` — ``env``, ``timeout``, ``nice``, ``nohup``, ``stdbuf``, ``setsid``, ``time``,
  ``command``, ``builtin``, ``exec``, ``ionice``, ``chrt``, ``taskset``, ``flock``, ``watch``, the
  package runners (``npx``, ``uv run``, ``poetry run``, ``bundle exec``...) and the shells with ``-c``
  / ``eval``: the inner command is judged as a command of its own; a rule for the wrapper approves
  it only if its literal reaches into the inner program (``Bash(uv run pytest:*)``). ``builtin``,
  ``command`` and ``jobs -x`` run builtins in this shell: one that changes the shell's variables or
  options there is opaque (:func:`~bot.shell.launch.inner.in_this_shell`).
* ``view`` — git's other names for a push (``git send-pack``, ``hub push``, ``git-push``) seen as
  ``git push`` by the deny and ask rules; only the command's own rule approves it
  (:mod:`bot.shell.launch.git`).
* ``privilege`` — ``sudo``, ``doas``, ``su -c``, ``runuser``, ``pkexec``, ``gosu``, ``su-exec``: only
  a rule that spells out the wrapper *and* the inner program approves (``Bash(sudo apt-get
  install:*)``); the inner command's deny rules, path checks and security checks still apply.
* ``exec_each`` — ``find -exec/-execdir/-ok/-okdir/-delete``, ``xargs``, ``git rebase -x``, ``git
  bisect run``, ``git submodule foreach``, ``hyperfine``, ``valgrind --log-file=``, ``fd -x``,
  ``cargo watch -x``, ``logsave``: the outer
  command needs its own rule *and* the inner command must be allowed on its own (``xargs``
  appends arguments read from stdin: the inner command gets an argument only known at run time).
* ``opaque`` — launchers whose inner command cannot be extracted reliably (``strace``, ``chroot``,
  ``parallel``, ``bash script.sh``, ``sudo -s``, ``env -S``, ``npm --unknown-option exec``, an ``sh
  -c`` script using bash-only syntax that dash reads otherwise...): only an exact rule, or one whose
  literal spells out the whole command, approves.

Options are read as each wrapper's parser reads them (:mod:`bot.shell.programs.getopt`: ``git rebase -fx
CMD``, ``--exe=CMD``, ``xargs -0a FILE``, ``nice --adj=5``); the package runners are in
:mod:`bot.shell.launch.package_runners`, the other launchers (``numactl``, ``setarch``, ``hyperfine``, ``valgrind``,
``chronic``, ``gosu``, ``jobs -x``, ``timelimit``, ``sshpass``...) in :mod:`bot.shell.launch.launchers`, those
that run a command per file or change (``fd -x``, ``cargo watch``) in :mod:`bot.shell.launch.per_item`,
git's in :mod:`bot.shell.launch.git`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shell.judge.security_checks import posix_sh_differences
from bot.shell.launch.git import git, git_named, hub
from bot.shell.launch.inner import Handler, Inner, InnerKind, in_this_shell, is_assignment, skip_options, transparent_at
from bot.shell.launch.launchers import LAUNCHERS, OPAQUE
from bot.shell.launch.package_runners import (
    SUBCOMMAND_RUNNERS,
    VERSION_MANAGERS,
    runner,
    subcommand_runner,
    version_manager,
)
from bot.shell.launch.per_item import find_exec, xargs
from bot.shell.parse.syntax import Assignment, Word
from bot.shell.programs.getopt import long_name, options

__all__ = ["OPAQUE_LAUNCHERS", "PRIVILEGE", "SHELLS", "Inner", "InnerKind", "unwrap"]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "tcsh", "csh", "rbash", "posh"})

OPAQUE_LAUNCHERS = OPAQUE | frozenset(
    {
        "strace",
        "ltrace",
        "gdb",
        "lldb",
        "perf",
        "unshare",
        "nsenter",
        "chroot",
        "firejail",
        "bwrap",
        "proot",
        "fakeroot",
        "faketime",
        "catchsegv",
        "unbuffer",
        "script",
        "expect",
        "parallel",
        "tmux",
        "screen",
        "dtach",
        "daemonize",
        "start-stop-daemon",
        "systemd-run",
        "busybox",
        "toybox",
        "xvfb-run",
        "dbus-run-session",
        "ssh-agent",
        "sg",
        "newgrp",
        "cpulimit",
        "caffeinate",
        "prlimit",
        "setpriv",
        "capsh",
        "source",
        ".",
        "sudoedit",
        "pkexec",
        "rlwrap",
        "entr",
        "nodemon",
        "inotifywait",
        "at",
        "batch",
        "crontab",
        "trap",
        # shells of other languages (rc, sash, elvish, es): their scripts are not bash
        "rc",
        "sash",
        "elvish",
        "es",
        # test and script runners that start the programs or scripts named in their operands
        "gtester",
        "runscript",
        # launchers of their operand (GTFOBins): AppArmor, OSS, OOM score, timing, Tor, colouriser
        "aa-exec",
        "aoss",
        "choom",
        "multitime",
        "torify",
        "torsocks",
        "proxychains",
        "proxychains4",
        "grc",
        "tmate",
        "msgfilter",
        "genie",
    }
)
PRIVILEGE = frozenset({"sudo", "doas", "su", "runuser", "pkexec", "gosu", "su-exec"})

_TIMEOUT_VALUE = frozenset({"-k", "--kill-after", "-s", "--signal"})
_STDBUF_VALUE = frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})
_SUDO_FLAGS = frozenset(
    {
        "--askpass",
        "--background",
        "--bell",
        "--preserve-env",
        "--edit",
        "--set-home",
        "--help",
        "--login",
        "--remove-timestamp",
        "--reset-timestamp",
        "--list",
        "--non-interactive",
        "--preserve-groups",
        "--stdin",
        "--shell",
        "--version",
        "--validate",
    }
)
_SUDO_VALUE = frozenset(
    {
        "-u",
        "-g",
        "-h",
        "-p",
        "-C",
        "-D",
        "-r",
        "-t",
        "-T",
        "-U",
        "--user",
        "--group",
        "--host",
        "--prompt",
        "--close-from",
        "--chdir",
        "--role",
        "--type",
        "--command-timeout",
        "--other-user",
    }
)
_SUDO_NO_COMMAND = frozenset(
    {
        "-l",
        "--list",
        "-v",
        "--validate",
        "-k",
        "--reset-timestamp",
        "-K",
        "--remove-timestamp",
        "-V",
        "--version",
        "-h",
        "--help",
    }
)
_SHELL_VALUE = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SHELL_SAFE_SET = frozenset({"errexit", "pipefail", "nounset", "xtrace", "verbose", "noglob", "noclobber"})


def unwrap(argv: Sequence[Word]) -> list[Inner]:
    """The inner commands an argv launches (empty for an ordinary program)."""
    if not argv:
        return []
    program = argv[0].value.rsplit("/", 1)[-1]
    handler = _HANDLERS.get(program)
    if handler is not None:
        return handler(argv)
    if program in OPAQUE_LAUNCHERS:
        return [Inner("opaque", 1, reason=f"{program} launches a command that cannot be checked")]
    if program.startswith("git-") and len(program) > len("git-"):
        return git_named(argv)
    if (
        program.startswith("python")
        and len(argv) > 2
        and argv[1].value == "-m"
        and argv[2].value in ("pip", "venv", "pytest")
    ):
        return []
    return []


_ENV_VALUE_NAMES = frozenset({"--unset", "--chdir", "--split-string", "--argv0"})
_ENV_FLAG_NAMES = frozenset(
    {
        "--ignore-environment",
        "--null",
        "--debug",
        "--list-signal-handling",
        "--help",
        "--version",
        "--block-signal",
        "--default-signal",
        "--ignore-signal",
    }
)


def _option_word(argv: Sequence[Word], at: int, value_index: int | None, value: str | None) -> Word | None:
    """The word holding an option's value (a new word for an attached one: ``-C/etc``, ``--chdir=x``)."""
    if value_index is None or value is None:
        return None
    if value_index != at:
        return argv[value_index]
    word = argv[at]
    return Word(value, word.text, word.quoted, word.dynamic)


def _env(argv: Sequence[Word]) -> list[Inner]:
    """``env [-i] [-u NAME] [-C DIR] [NAME=value]... cmd`` (GNU getopt in POSIX order: bundles,
    attached values, abbreviations such as ``--ch=/etc``)."""
    values = [w.value for w in argv]
    n = len(argv)
    chdir: Word | None = None
    i = n
    for option in options(values, "uCSaP", _ENV_VALUE_NAMES, _ENV_FLAG_NAMES, stop_at_positional=True):
        if option.name in ("-S", "--split-string", "-P"):
            return [Inner("opaque", 1, reason="env -S splits a string into a command")]
        if option.name in ("-C", "--chdir"):
            chdir = _option_word(argv, option.at, option.value_index, option.value)
        if not option.name:
            i = option.at
            break
    if i < n and values[i] == "-":  # `env -` is `env -i`
        i += 1
    assigns: list[Assignment] = []
    while i < n and is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest, dynamic=argv[i].dynamic), exported=True))
        i += 1
    return transparent_at(argv, i, tuple(assigns), chdir)


def _timeout(argv: Sequence[Word]) -> list[Inner]:
    i = skip_options(argv, 1, _TIMEOUT_VALUE)
    return transparent_at(argv, i + 1)  # skip DURATION


_NICE_NAMES = frozenset({"--adjustment", "--help", "--version"})


def _nice(argv: Sequence[Word]) -> list[Inner]:
    """GNU nice reads one option at a time: the obsolete ``-N``/``--N``/``-+N``, else getopt_long with
    ``+n:`` (``-n N``, ``-nN``, ``--adjustment=N`` and its abbreviations ``--adj=N``, ``--adj N``)."""
    values = [w.value for w in argv]
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        if value == "--":
            i += 1
            break
        if not value.startswith("-") or value == "-":
            break
        digit = 2 if value[1] in "-+" else 1
        if digit < len(value) and value[digit].isdigit():
            i += 1  # -5, --5, -+5
            continue
        if value.startswith("--"):
            written, eq, _ = value.partition("=")
            name = long_name(written, _NICE_NAMES)
            if name is None:
                return [Inner("opaque", i, reason=f"nice {value}: an option the analysis does not know")]
            if name != "--adjustment":
                return []  # --help, --version
            i += 1 if eq else 2
            continue
        if value[1] != "n":
            return [Inner("opaque", i, reason=f"nice {value}: an option the analysis does not know")]
        i += 1 if len(value) > 2 else 2
    return transparent_at(argv, i)


def _simple(name: str, with_value: frozenset[str] = frozenset()) -> Handler:
    def handler(argv: Sequence[Word]) -> list[Inner]:
        return transparent_at(argv, skip_options(argv, 1, with_value))

    return handler


def _builtin(argv: Sequence[Word]) -> list[Inner]:
    """``builtin NAME ARGS`` runs a builtin in this shell (see :func:`~bot.shell.launch.inner.in_this_shell`)."""
    return in_this_shell("builtin", transparent_at(argv, skip_options(argv, 1, frozenset())))


def _stdbuf(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value in _STDBUF_VALUE:
            i += 2
        elif value.startswith(("-i", "-o", "-e", "--input=", "--output=", "--error=")):
            i += 1
        elif value == "--":
            i += 1
            break
        else:
            break
    return transparent_at(argv, i)


def _time(argv: Sequence[Word]) -> list[Inner]:
    i = skip_options(argv, 1, frozenset({"-o", "--output", "-f", "--format"}))
    return transparent_at(argv, i)


def _command(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n and argv[i].value.startswith("-") and argv[i].value != "--":
        if "v" in argv[i].value or "V" in argv[i].value:
            return []  # `command -v x` only looks the name up
        i += 1
    if i < n and argv[i].value == "--":
        i += 1
    return in_this_shell("command", transparent_at(argv, i))


def _exec(argv: Sequence[Word]) -> list[Inner]:
    return transparent_at(argv, skip_options(argv, 1, frozenset({"-a"})))


def _ionice(argv: Sequence[Word]) -> list[Inner]:
    if any(w.value in ("-p", "--pid", "-P", "--pgid", "-u", "--uid") for w in argv[1:]):
        return []
    return transparent_at(argv, skip_options(argv, 1, frozenset({"-c", "-n", "--class", "--classdata"})))


def _chrt(argv: Sequence[Word]) -> list[Inner]:
    if any(w.value in ("-p", "--pid") for w in argv[1:]):
        return []
    i = skip_options(argv, 1, frozenset({"-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"}))
    return transparent_at(argv, i + 1)  # skip PRIORITY


def _taskset(argv: Sequence[Word]) -> list[Inner]:
    if any(
        w.value in ("-p", "--pid") or (w.value.startswith("-") and "p" in w.value[1:] and not w.value.startswith("--"))
        for w in argv[1:]
    ):
        return []
    i = skip_options(argv, 1, frozenset())
    return transparent_at(argv, i + 1)  # skip MASK


_FLOCK_FLAG_NAMES = frozenset(
    {
        "--shared",
        "--exclusive",
        "--unlock",
        "--nonblock",
        "--nb",
        "--close",
        "--no-fork",
        "--verbose",
        "--help",
        "--version",
    }
)


def _flock(argv: Sequence[Word]) -> list[Inner]:
    """``flock [options] FILE CMD...``, ``flock [options] FILE -c CMD``, ``flock -c CMD FILE``."""
    values = [w.value for w in argv]
    n = len(argv)
    i = n
    for option in options(
        values, "wEc", ("--timeout", "--conflict-exit-code", "--command"), _FLOCK_FLAG_NAMES, stop_at_positional=True
    ):
        if option.name in ("-c", "--command") and option.value is not None and option.value_index is not None:
            return [Inner("transparent", option.value_index, script=option.value)]
        if not option.name:
            i = option.at
            break
    if i + 1 < n and argv[i + 1].value in ("-c", "--command") and i + 2 < n:
        return [Inner("transparent", i + 2, script=argv[i + 2].value)]
    return transparent_at(argv, i + 1)  # skip the lock FILE


def _watch(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    exec_mode = False
    while i < n:
        value = argv[i].value
        if value in ("-x", "--exec"):
            exec_mode = True
            i += 1
        elif value in ("-n", "--interval"):
            i += 2
        elif value.startswith("-") and value != "-":
            i += 1
        else:
            break
    if i >= n:
        return []
    if exec_mode:
        return transparent_at(argv, i)
    return [Inner("transparent", i, script=" ".join(w.value for w in argv[i:]))]


def _privilege(argv: Sequence[Word]) -> list[Inner]:
    program = argv[0].value.rsplit("/", 1)[-1]
    i, n = 1, len(argv)
    chdir: Word | None = None
    if program in ("su", "runuser"):
        for k in range(1, n):
            value = argv[k].value
            if value in ("-c", "--command") and k + 1 < n:
                return [Inner("privilege", k + 1, script=argv[k + 1].value)]
            if value.startswith("--command="):
                return [Inner("privilege", k, script=value.split("=", 1)[1])]
        if program == "runuser" and "-u" in [w.value for w in argv]:
            k = [w.value for w in argv].index("-u")
            j = k + 2
            if j < n and argv[j].value == "--":
                j += 1
            if j < n:
                return [Inner("privilege", j, tuple(argv[j:]))]
        return [Inner("opaque", 1, reason=f"{program} without -c starts a shell", from_stdin=True)]
    words = [w.value for w in argv]
    if (
        program == "sudo"
        and set(words[1:]) & _SUDO_NO_COMMAND
        and not any(not w.value.startswith("-") for w in argv[1:])
    ):
        return []
    i = n
    letters, names, flags = ("aCcDgpRrTtUu", _SUDO_VALUE, _SUDO_FLAGS) if program != "doas" else ("Cu", (), ())
    for option in options(words, letters, names, flags, stop_at_positional=True):
        name = option.name
        if name in ("-s", "--shell", "-i", "--login", "-e", "--edit", "-R", "--chroot"):
            return [Inner("opaque", 1, reason=f"{program} {name} runs a shell, an editor or another root")]
        if name in ("-D", "--chdir"):
            chdir = _option_word(argv, option.at, option.value_index, option.value)
        if not name:
            i = option.at
            break
    assigns: list[Assignment] = []
    while i < n and is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest, dynamic=argv[i].dynamic), exported=True))
        i += 1
    if i >= n:
        return [Inner("opaque", 1, reason=f"{program} without a command starts a shell", from_stdin=True)]
    return [Inner("privilege", i, tuple(argv[i:]), assignments=tuple(assigns), chdir=chdir)]


#: Shells that may not be bash (``/bin/sh`` is dash on Debian): the analysis parses scripts as bash, and
#: these constructs mean something else there (dash has no ``$'...'``; ``&>`` is ``&`` then ``>``).
_POSIX_SHELLS = frozenset({"sh", "dash", "ash", "ksh", "mksh", "yash", "posh"})


def _shell(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value == "-c" or (
            value.startswith("-")
            and not value.startswith("--")
            and value.endswith("c")
            and set(value[1:]) <= set("eluxvEc")
        ):
            if i + 1 >= n:
                return [Inner("opaque", 1, reason="a shell -c without a script")]
            script = argv[i + 1].value
            program = argv[0].value.rsplit("/", 1)[-1]
            difference = posix_sh_differences(script) if program in _POSIX_SHELLS else None
            if difference is not None:
                return [Inner("opaque", 1, reason=f"{program} -c: {difference}")]
            return [Inner("transparent", i + 1, script=script)]
        if value in ("-o", "+o") and i + 1 < n:
            if argv[i + 1].value not in _SHELL_SAFE_SET:
                return [Inner("opaque", 1, reason=f"shell option {argv[i + 1].value}")]
            i += 2
            continue
        if value in _SHELL_VALUE:
            return [Inner("opaque", 1, reason=f"{value} changes what the shell runs")]
        if value in (
            "--norc",
            "--noprofile",
            "--login",
            "--posix",
            "-l",
            "-e",
            "-u",
            "-x",
            "-v",
            "-E",
            "-eu",
            "-ex",
            "-eux",
            "-euo",
            "-le",
            "-el",
        ):
            i += 1
            continue
        if value.startswith("-") and value != "-":
            return [Inner("opaque", 1, reason=f"shell option {value}")]
        break
    if i >= n or argv[i].value in ("-", "-s"):
        return [Inner("opaque", 1, reason="the shell reads its commands from stdin", from_stdin=True)]
    return [Inner("opaque", i, reason="the shell runs a script file whose content cannot be checked")]


def _eval(argv: Sequence[Word]) -> list[Inner]:
    if len(argv) < 2:
        return []
    return [Inner("transparent", 1, script=" ".join(w.value for w in argv[1:]))]


def _nix(argv: Sequence[Word]) -> list[Inner]:
    values = [w.value for w in argv]
    for flag in ("--run", "--command") if argv[0].value.endswith("nix-shell") else ("-c", "--command"):
        if flag in values:
            k = values.index(flag)
            if argv[0].value.endswith("nix-shell"):
                return [Inner("transparent", k + 1, script=values[k + 1])] if k + 1 < len(values) else []
            return transparent_at(argv, k + 1)
    return []


#: ``corepack NAME[@VERSION] ARGS`` runs the package manager NAME.
_COREPACK_TOOLS = frozenset({"npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"})


def _corepack(argv: Sequence[Word]) -> list[Inner]:
    if len(argv) < 2:
        return []
    first = argv[1]
    tool = first.value.split("@", 1)[0]
    if tool not in _COREPACK_TOOLS:
        return []
    return [Inner("transparent", 1, (first._replace(value=tool), *argv[2:]))]


def _cross_env(argv: Sequence[Word]) -> list[Inner]:
    i = 1
    assigns: list[Assignment] = []
    while i < len(argv) and is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest), exported=True))
        i += 1
    return transparent_at(argv, i, tuple(assigns))


_HANDLERS: dict[str, Handler] = {
    "env": _env,
    "timeout": _timeout,
    "gtimeout": _timeout,
    "nice": _nice,
    "nohup": _simple("nohup"),
    "stdbuf": _stdbuf,
    "setsid": _simple("setsid"),
    "time": _time,
    "command": _command,
    "builtin": _builtin,
    "exec": _exec,
    "ionice": _ionice,
    "chrt": _chrt,
    "taskset": _taskset,
    "flock": _flock,
    "watch": _watch,
    "xargs": xargs,
    "find": find_exec,
    "eval": _eval,
    "git": git,
    "hub": hub,
    "sudo": _privilege,
    "doas": _privilege,
    "su": _privilege,
    "runuser": _privilege,
    "npx": runner(1),
    "bunx": runner(1),
    "uvx": runner(1),
    "pnpx": runner(1),
    "corepack": _corepack,
    "cross-env": _cross_env,
    "dotenv": runner(1),
    "nix": _nix,
    "nix-shell": _nix,
    **{shell: _shell for shell in SHELLS},
    **dict.fromkeys(SUBCOMMAND_RUNNERS, subcommand_runner),
    **dict.fromkeys(VERSION_MANAGERS, version_manager),
    **LAUNCHERS,
}
