"""Programs that run other programs (beyond the seeds): finding the inner command.

A prefix rule for a wrapper must never approve the program it launches: ``Bash(timeout:*)`` does
not allow ``timeout 5 rm -rf x``, ``Bash(find:*)`` does not allow ``find . -exec sh -c ... \\;``,
``Bash(sudo:*)`` does not allow anything by itself. Each wrapper is recognised with its own option
syntax (so ``timeout -s KILL 5 cmd`` finds ``cmd``) and classified:

* ``transparent`` — ``env``, ``timeout``, ``nice``, ``nohup``, ``stdbuf``, ``setsid``, ``time``,
  ``command``, ``builtin``, ``exec``, ``ionice``, ``chrt``, ``taskset``, ``flock``, ``watch``, the
  package runners (``npx``, ``uv run``, ``poetry run``, ``bundle exec``...) and the shells with ``-c``
  / ``eval``: the inner command is judged as a command of its own; a rule for the wrapper approves
  it only if its literal reaches into the inner program (``Bash(uv run pytest:*)``).
* ``privilege`` — ``sudo``, ``doas``, ``su -c``, ``runuser``, ``pkexec``: only a rule that spells out
  the wrapper *and* the inner program approves (``Bash(sudo apt-get install:*)``); the inner
  command's deny rules, path checks and security checks still apply.
* ``exec_each`` — ``find -exec/-execdir/-ok/-okdir/-delete``, ``xargs``, ``git rebase -x``, ``git
  bisect run``, ``git submodule foreach``: the outer command needs its own rule *and* the inner
  command must be allowed on its own (``xargs`` appends arguments read from stdin: the inner
  command gets an argument only known at run time).
* ``opaque`` — launchers whose inner command cannot be extracted reliably (``strace``, ``chroot``,
  ``parallel``, ``bash script.sh``, ``sudo -s``, ``env -S``...): only an exact rule, or one whose
  literal spells out the whole command, approves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from bot.shell.program_flags import git_subcommand_index
from bot.shell.syntax import DYN, Assignment, Word, literal

InnerKind = Literal["transparent", "privilege", "exec_each", "opaque"]


class Inner(NamedTuple):
    kind: InnerKind
    #: Index (in the outer argv) where the inner command starts; for scripts, the script's index.
    start: int
    #: The inner argv (``None`` for a script or an opaque launcher).
    argv: tuple[Word, ...] | None = None
    #: A shell script to analyse recursively (``sh -c SCRIPT``, ``eval``, ``git rebase -x``).
    script: str | None = None
    #: ``env NAME=value cmd`` / ``sudo NAME=value cmd``: environment for the inner command.
    assignments: tuple[Assignment, ...] = ()
    #: ``env -C dir``, ``sudo -D dir``: the inner command's working directory.
    chdir: Word | None = None
    #: Why an opaque launcher is opaque.
    reason: str = ""
    #: The launched commands come from stdin, not the argv: no rule literal can spell them out,
    #: only an exact rule for the whole command approves it.
    from_stdin: bool = False


Handler = Callable[[Sequence[Word]], list[Inner]]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "tcsh", "csh"})

OPAQUE_LAUNCHERS = frozenset({
    "strace", "ltrace", "valgrind", "gdb", "lldb", "perf", "unshare", "nsenter", "chroot", "firejail", "bwrap",
    "proot", "fakeroot", "faketime", "catchsegv", "unbuffer", "script", "expect", "parallel", "tmux", "screen",
    "dtach", "daemonize", "start-stop-daemon", "systemd-run", "busybox", "toybox", "xvfb-run", "dbus-run-session",
    "ssh-agent", "sg", "newgrp", "cpulimit", "caffeinate", "prlimit", "setpriv", "capsh", "source", ".",
    "sudoedit", "pkexec", "rlwrap", "entr", "nodemon", "inotifywait", "at", "batch", "crontab", "trap",
})
PRIVILEGE = frozenset({"sudo", "doas", "su", "runuser", "pkexec"})

_TIMEOUT_VALUE = frozenset({"-k", "--kill-after", "-s", "--signal"})
_STDBUF_VALUE = frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})
_SUDO_VALUE = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group",
                         "--host", "--prompt", "--close-from", "--chdir", "--role", "--type",
                         "--command-timeout", "--other-user"})
_SUDO_NO_COMMAND = frozenset({"-l", "--list", "-v", "--validate", "-k", "--reset-timestamp", "-K",
                              "--remove-timestamp", "-V", "--version", "-h", "--help"})
_SHELL_VALUE = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SHELL_SAFE_SET = frozenset({"errexit", "pipefail", "nounset", "xtrace", "verbose", "noglob", "noclobber"})


def _is_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.isidentifier()


def _skip_options(argv: Sequence[Word], i: int, with_value: frozenset[str],
                  flags_ok: bool = True) -> int:
    """Skip options starting at ``i`` (``--`` ends them); return the index of the first operand."""
    n = len(argv)
    while i < n:
        value = argv[i].value
        if value == "--":
            return i + 1
        if not value.startswith("-") or value == "-":
            return i
        name = value.split("=", 1)[0]
        if name in with_value and "=" not in value:
            i += 2
        elif not flags_ok:
            return i
        else:
            i += 1
    return i


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
    if program.startswith("python") and len(argv) > 2 and argv[1].value == "-m" and \
            argv[2].value in ("pip", "venv", "pytest"):
        return []
    return []


def _transparent_at(argv: Sequence[Word], i: int, name: str, assignments: tuple[Assignment, ...] = (),
                    chdir: Word | None = None) -> list[Inner]:
    if i >= len(argv):
        return []
    return [Inner("transparent", i, tuple(argv[i:]), assignments=assignments, chdir=chdir)]


def _env(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    assigns: list[Assignment] = []
    chdir: Word | None = None
    while i < n:
        value = argv[i].value
        if value in ("-S", "--split-string") or value.startswith(("-S", "--split-string=")) or value == "-P":
            return [Inner("opaque", 1, reason="env -S splits a string into a command")]
        if value in ("-C", "--chdir") and i + 1 < n:
            chdir = argv[i + 1]
            i += 2
        elif value.startswith("--chdir="):
            chdir = Word(value.split("=", 1)[1], argv[i].text)
            i += 1
        elif value in ("-u", "--unset") and i + 1 < n:
            i += 2
        elif value == "--":
            i += 1
            break
        elif (value.startswith("-") and value != "-") or value == "-":
            i += 1
        elif _is_assignment(value):
            name, _, rest = value.partition("=")
            assigns.append(Assignment(name, Word(rest, rest, dynamic=argv[i].dynamic), exported=True))
            i += 1
        else:
            break
    while i < n and _is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest, dynamic=argv[i].dynamic), exported=True))
        i += 1
    return _transparent_at(argv, i, "env", tuple(assigns), chdir)


def _timeout(argv: Sequence[Word]) -> list[Inner]:
    i = _skip_options(argv, 1, _TIMEOUT_VALUE)
    return _transparent_at(argv, i + 1, "timeout")  # skip DURATION


def _nice(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value in ("-n", "--adjustment"):
            i += 2
        elif value.startswith("--adjustment=") or (value.startswith("-") and value[1:].lstrip("-").isdigit()):
            i += 1
        elif value == "--":
            i += 1
            break
        elif value.startswith("-n") and value[2:].lstrip("-").isdigit():
            i += 1
        else:
            break
    return _transparent_at(argv, i, "nice")


def _simple(name: str, with_value: frozenset[str] = frozenset()) -> Handler:
    def handler(argv: Sequence[Word]) -> list[Inner]:
        return _transparent_at(argv, _skip_options(argv, 1, with_value), name)
    return handler


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
    return _transparent_at(argv, i, "stdbuf")


def _time(argv: Sequence[Word]) -> list[Inner]:
    i = _skip_options(argv, 1, frozenset({"-o", "--output", "-f", "--format"}))
    return _transparent_at(argv, i, "time")


def _command(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n and argv[i].value.startswith("-") and argv[i].value != "--":
        if "v" in argv[i].value or "V" in argv[i].value:
            return []  # `command -v x` only looks the name up
        i += 1
    if i < n and argv[i].value == "--":
        i += 1
    return _transparent_at(argv, i, "command")


def _exec(argv: Sequence[Word]) -> list[Inner]:
    return _transparent_at(argv, _skip_options(argv, 1, frozenset({"-a"})), "exec")


def _ionice(argv: Sequence[Word]) -> list[Inner]:
    if any(w.value in ("-p", "--pid", "-P", "--pgid", "-u", "--uid") for w in argv[1:]):
        return []
    return _transparent_at(argv, _skip_options(argv, 1, frozenset({"-c", "-n", "--class", "--classdata"})), "ionice")


def _chrt(argv: Sequence[Word]) -> list[Inner]:
    if any(w.value in ("-p", "--pid") for w in argv[1:]):
        return []
    i = _skip_options(argv, 1, frozenset({"-T", "-P", "-D", "--sched-runtime", "--sched-period",
                                          "--sched-deadline"}))
    return _transparent_at(argv, i + 1, "chrt")  # skip PRIORITY


def _taskset(argv: Sequence[Word]) -> list[Inner]:
    if any(w.value in ("-p", "--pid") or (w.value.startswith("-") and "p" in w.value[1:] and
                                          not w.value.startswith("--")) for w in argv[1:]):
        return []
    i = _skip_options(argv, 1, frozenset())
    return _transparent_at(argv, i + 1, "taskset")  # skip MASK


def _flock(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value in ("-c", "--command") and i + 1 < n:
            return [Inner("transparent", i + 1, script=argv[i + 1].value)]
        if value in ("-w", "--timeout", "-E", "--conflict-exit-code"):
            i += 2
        elif value.startswith("-") and value != "-":
            i += 1
        else:
            break
    if i + 1 < n and argv[i + 1].value in ("-c", "--command") and i + 2 < n:
        return [Inner("transparent", i + 2, script=argv[i + 2].value)]
    return _transparent_at(argv, i + 1, "flock")  # skip the lock FILE


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
        return _transparent_at(argv, i, "watch")
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
    values = {w.value for w in argv[1:]}
    if program == "sudo" and values & _SUDO_NO_COMMAND and not any(
            not w.value.startswith("-") for w in argv[1:]):
        return []
    while i < n:
        value = argv[i].value
        name = value.split("=", 1)[0]
        if value == "--":
            i += 1
            break
        if value in ("-s", "--shell", "-i", "--login", "-e", "--edit"):
            return [Inner("opaque", 1, reason=f"{program} {value} runs a shell or an editor")]
        if name in ("-D", "--chdir"):
            chdir = Word(value.split("=", 1)[1], value) if "=" in value else (argv[i + 1] if i + 1 < n else None)
        if name in _SUDO_VALUE or (program == "doas" and name in ("-u", "-C")):
            i += 1 if "=" in value else 2
        elif value.startswith("-") and value != "-":
            if program == "doas" and "s" in value[1:]:
                return [Inner("opaque", 1, reason="doas -s runs a shell")]
            i += 1
        else:
            break
    assigns: list[Assignment] = []
    while i < n and _is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest, dynamic=argv[i].dynamic), exported=True))
        i += 1
    if i >= n:
        return [Inner("opaque", 1, reason=f"{program} without a command starts a shell", from_stdin=True)]
    return [Inner("privilege", i, tuple(argv[i:]), assignments=tuple(assigns), chdir=chdir)]


def _shell(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value == "-c" or (value.startswith("-") and not value.startswith("--") and value.endswith("c")
                             and set(value[1:]) <= set("eluxvEc")):
            if i + 1 < n:
                return [Inner("transparent", i + 1, script=argv[i + 1].value)]
            return [Inner("opaque", 1, reason="a shell -c without a script")]
        if value in ("-o", "+o") and i + 1 < n:
            if argv[i + 1].value not in _SHELL_SAFE_SET:
                return [Inner("opaque", 1, reason=f"shell option {argv[i + 1].value}")]
            i += 2
            continue
        if value in _SHELL_VALUE:
            return [Inner("opaque", 1, reason=f"{value} changes what the shell runs")]
        if value in ("--norc", "--noprofile", "--login", "--posix", "-l", "-e", "-u", "-x", "-v", "-E",
                     "-eu", "-ex", "-eux", "-euo", "-le", "-el"):
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


def _xargs(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    replace: str | None = None
    value_flags = {"-n", "-L", "-l", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-lines", "--max-procs",
                   "--max-chars", "--delimiter", "--eof", "--arg-file", "--process-slot-var"}
    while i < n:
        value = argv[i].value
        if value == "--":
            i += 1
            break
        if not value.startswith("-") or value == "-":
            break
        name = value.split("=", 1)[0]
        if value == "-I" and i + 1 < n:
            replace = argv[i + 1].value
            i += 2
        elif value.startswith("-I"):
            replace = value[2:]
            i += 1
        elif name in ("-i", "--replace"):
            replace = value.split("=", 1)[1] if "=" in value else (value[2:] or "{}")
            i += 1
        elif name in value_flags and "=" not in value:
            i += 2
        else:
            i += 1
    inner = list(argv[i:]) if i < n else [literal("echo")]
    if replace:
        inner = [Word(w.value.replace(replace, DYN), w.text, w.quoted, True) if replace in w.value else w
                 for w in inner]
    else:
        inner.append(Word(DYN, "<stdin>", dynamic=True, splits=True))
    return [Inner("exec_each", i if i < n else 0, tuple(inner))]


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(argv: Sequence[Word]) -> list[Inner]:
    inners: list[Inner] = []
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value in _FIND_EXEC:
            j = i + 1
            while j < n and not (argv[j].value == ";" or (argv[j].value == "+" and argv[j - 1].value == "{}")):
                j += 1
            if j == i + 1:
                return [Inner("opaque", i, reason=f"find {value} without a command")]
            inners.append(Inner("exec_each", i + 1, tuple(argv[i + 1:j])))
            i = j + 1
            continue
        if value == "-delete":
            inners.append(Inner("exec_each", i, (literal("rm"), literal("--"), literal("{}"))))
        i += 1
    return inners


_RUNNER_VALUE = frozenset({
    "-p", "--package", "--with", "--python", "--project", "--directory", "--env-file", "--extra", "--group",
    "--index", "--from", "-n", "--name", "--prefix", "--cwd", "--filter", "-w", "--workspace",
})


def _runner(skip: int) -> Handler:
    """``npx x``, ``uv run x``, ``poetry run x``, ``bundle exec x``: skip ``skip`` words, then options."""
    def handler(argv: Sequence[Word]) -> list[Inner]:
        if len(argv) <= skip:
            return []
        for k in range(skip, len(argv)):
            value = argv[k].value
            if value in ("-c", "--call") and k + 1 < len(argv):
                return [Inner("transparent", k + 1, script=argv[k + 1].value)]
            if value.startswith("--call="):
                return [Inner("transparent", k, script=value.split("=", 1)[1])]
            if not value.startswith("-"):
                break
        i = _skip_options(argv, skip, _RUNNER_VALUE)
        return _transparent_at(argv, i, argv[0].value)
    return handler


_SUBCOMMAND_RUNNERS: dict[str, frozenset[str]] = {
    "npm": frozenset({"exec", "x"}), "pnpm": frozenset({"dlx", "exec"}), "yarn": frozenset({"dlx", "exec"}),
    "bun": frozenset({"x"}), "uv": frozenset({"run"}), "poetry": frozenset({"run"}), "pipenv": frozenset({"run"}),
    "pdm": frozenset({"run"}), "hatch": frozenset({"run"}), "bundle": frozenset({"exec"}),
    "conda": frozenset({"run"}), "mamba": frozenset({"run"}), "pipx": frozenset({"run"}),
    "direnv": frozenset({"exec"}), "rye": frozenset({"run"}),
}


def _subcommand_runner(argv: Sequence[Word]) -> list[Inner]:
    program = argv[0].value.rsplit("/", 1)[-1]
    if len(argv) < 2 or argv[1].value not in _SUBCOMMAND_RUNNERS[program]:
        if program == "uv" and len(argv) > 2 and argv[1].value == "tool" and argv[2].value == "run":
            return _runner(3)(argv)
        return []
    if program == "direnv":  # direnv exec DIR cmd
        return _transparent_at(argv, 3, "direnv", chdir=argv[2] if len(argv) > 2 else None)
    return _runner(2)(argv)


def _nix(argv: Sequence[Word]) -> list[Inner]:
    values = [w.value for w in argv]
    for flag in ("--run", "--command") if argv[0].value.endswith("nix-shell") else ("-c", "--command"):
        if flag in values:
            k = values.index(flag)
            if argv[0].value.endswith("nix-shell"):
                return [Inner("transparent", k + 1, script=values[k + 1])] if k + 1 < len(values) else []
            return _transparent_at(argv, k + 1, "nix")
    return []


def _git(argv: Sequence[Word]) -> list[Inner]:
    """``git rebase -x CMD``, ``git submodule foreach CMD``, ``git bisect run CMD...``."""
    if not any(w.value in ("rebase", "submodule", "bisect") for w in argv):
        return []
    sub = git_subcommand_index(argv)
    if sub is None:
        return []
    command = argv[sub].value
    n = len(argv)
    inners: list[Inner] = []
    if command == "rebase":
        for k in range(sub + 1, n):
            value = argv[k].value
            if value in ("-x", "--exec") and k + 1 < n:
                inners.append(Inner("exec_each", k + 1, script=argv[k + 1].value))
            elif value.startswith("--exec="):
                inners.append(Inner("exec_each", k, script=value.split("=", 1)[1]))
            elif value.startswith("-x") and len(value) > 2:
                inners.append(Inner("exec_each", k, script=value[2:]))
    elif command == "submodule":
        k = sub + 1
        while k < n and argv[k].value.startswith("-"):
            k += 1
        if k < n and argv[k].value == "foreach":
            k += 1
            while k < n and argv[k].value in ("--recursive", "-q", "--quiet"):
                k += 1
            if k < n:
                inners.append(Inner("exec_each", k, script=" ".join(w.value for w in argv[k:])))
    elif command == "bisect" and sub + 1 < n and argv[sub + 1].value == "run" and sub + 2 < n:
        inners.append(Inner("exec_each", sub + 2, tuple(argv[sub + 2:])))
    return inners


def _cross_env(argv: Sequence[Word]) -> list[Inner]:
    i = 1
    assigns: list[Assignment] = []
    while i < len(argv) and _is_assignment(argv[i].value):
        name, _, rest = argv[i].value.partition("=")
        assigns.append(Assignment(name, Word(rest, rest), exported=True))
        i += 1
    return _transparent_at(argv, i, "cross-env", tuple(assigns))


_HANDLERS: dict[str, Handler] = {
    "env": _env, "timeout": _timeout, "gtimeout": _timeout, "nice": _nice, "nohup": _simple("nohup"),
    "stdbuf": _stdbuf, "setsid": _simple("setsid"), "time": _time, "command": _command,
    "builtin": _simple("builtin"), "exec": _exec, "ionice": _ionice, "chrt": _chrt, "taskset": _taskset,
    "flock": _flock, "watch": _watch, "xargs": _xargs, "find": _find, "eval": _eval, "git": _git,
    "sudo": _privilege, "doas": _privilege, "su": _privilege, "runuser": _privilege,
    "npx": _runner(1), "bunx": _runner(1), "uvx": _runner(1), "cross-env": _cross_env, "dotenv": _runner(1),
    "nix": _nix, "nix-shell": _nix,
    **{shell: _shell for shell in SHELLS},
    **{runner: _subcommand_runner for runner in _SUBCOMMAND_RUNNERS},
}
