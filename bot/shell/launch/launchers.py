"""Launchers that run a command after their own options (dispatched from
:mod:`bot.shell.launch.wrappers`; the kinds are described there).

Without an entry here a rule for the launcher approves what it launches (``Bash(numactl:*)``
allowing ``numactl -C 0 sh -c id``). Each launcher is read with its own parser's rules:

* getopt tables (:class:`Table`): letters and long names with and without a value, read by
  :func:`bot.shell.programs.getopt.options` in POSIX order (the ``+`` of ``getopt_long``: the command
  starts at the first operand). An option the table does not know could take the next word as its
  value, so the command would not be known: the launch is *opaque*. A launcher whose getopt
  permutes (``trickle``, ``tini``) would also take an option written after the command as its own:
  unless ``--`` comes first, an option-like word after the command makes it opaque too.
* command strings: ``pee`` (each argument) and ``mispipe`` (two) run shell scripts, judged like
  ``sh -c``; ``hyperfine`` (each operand and ``--prepare``/``--setup``/``--cleanup``/
  ``--conclude``/``--reference`` values) too, but since it writes files of its own
  (``--export-json``) it also needs a rule (``exec_each``, like ``git rebase -x``); ``{VAR}``
  placeholders of ``hyperfine -P/-L`` change the scripts at run time (opaque).
* ``valgrind``: single-word options, the first operand is the program; options that run another
  program (``--db-command``, a ``--tool`` path), talk to the network (``--log-socket``) or
  leave files for a debugger to connect to (``--vgdb-prefix``) make it opaque. With a file it
  writes (``--log-file=``, ``--xml-file=``) valgrind needs a rule of its own as well
  (``exec_each``); the path is checked with the other arguments.
* ``gosu``/``su-exec`` switch users: *privilege* (like ``sudo``).
* bash's ``jobs -x CMD`` (a builtin running CMD in this shell), ``timelimit``,
  ``sshpass`` (getopt tables); ``logsave LOG CMD`` and ``bear -- CMD`` write a file of their own
  (``exec_each``); ``ts`` is moreutils' timestamper, or the task spooler when it is given a command
  (opaque). ``fd -x`` and ``cargo watch`` are in :mod:`bot.shell.launch.per_item`.
* compiler wrappers (``ccache gcc``, ``sccache``, ``distcc``, ``icecc``) run whatever "compiler"
  they are given; their own options run nothing, except ``ccache -o``/``--set-config`` (a
  ``prefix_command`` setting runs a program at every later compile) and ``KEY=VALUE`` settings
  before the compiler (opaque).
* opaque (:data:`OPAQUE`): launchers that run the command elsewhere or later (``mpirun``,
  ``srun``, ``sem``, ``tsp``), whose command cannot be told from their other operands
  (``hwloc-bind``, ``cset``, ``likwid-pin``), or that load code from the current directory
  (``proxychains`` preloads ``./libproxychains4.so``, CVE-2015-3887; ``dbus-launch`` starts a bus
  that activates services); those that build commands from stdin or their arguments (``rush``,
  ``xe``, ``apply``, ``xjobs``, ``concurrently``), run them in a container, another host context or
  a terminal (``systemd-nspawn``, ``flatpak-spawn``, ``distrobox-enter``, ``runcon``, ``xterm``), on
  file changes (``reflex``, ``watchmedo``), or are shells of another syntax (``nu``, ``xonsh``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from bot.shell.judge.security_checks import posix_sh_differences
from bot.shell.launch.dev_tools import hyperfine, valgrind
from bot.shell.launch.inner import Handler, Inner, InnerKind, in_this_shell, transparent_at
from bot.shell.launch.per_item import cargo, cargo_watch, fd
from bot.shell.parse.syntax import Word
from bot.shell.programs.getopt import options

__all__ = ["LAUNCHERS", "OPAQUE", "Table", "launch"]

_F = frozenset

OPAQUE = _F(
    {
        "mpirun",
        "mpiexec",
        "orterun",
        "prterun",
        "mpirun.openmpi",
        "mpiexec.openmpi",
        "mpirun.mpich",
        "mpiexec.mpich",
        "mpiexec.hydra",
        "srun",
        "salloc",
        "sbatch",
        "sem",
        "tsp",
        "cset",
        "likwid-pin",
        "likwid-perfctr",
        "hwloc-bind",
        "dbus-launch",
        "proxychains",
        "proxychains4",
        "envdir",
        "chpst",
        "softlimit",
        "setlock",
        "s6-envdir",
        "setuidgid",
        "envuidgid",
        "s6-setuidgid",
        "s6-applyuidgid",
        "run0",
        "watchexec",
        "fakechroot",
        "datefudge",
        "abduco",
        # commands built from stdin or arguments, run in another context or later
        "rush",
        "xe",
        "apply",
        "xjobs",
        "pexec",
        "concurrently",
        "start-server-and-test",
        "runcon",
        "flatpak-spawn",
        "host-spawn",
        "distrobox-enter",
        "distrobox",
        "toolbox",
        "systemd-nspawn",
        "machinectl",
        "schroot",
        "dchroot",
        "lxc-attach",
        "lxc-execute",
        "singularity",
        "apptainer",
        "nsjail",
        "minijail0",
        "sandbox-exec",
        "daemon",
        "scan-build",
        "intercept-build",
        "heaptrack",
        "uftrace",
        "envchain",
        "summon",
        "env-cmd",
        "doalarm",
        "reflex",
        "watchman-make",
        "when-changed",
        "chokidar",
        "onchange",
        "watchmedo",
        "xterm",
        "uxterm",
        "gnome-terminal",
        "konsole",
        "xfce4-terminal",
        "x-terminal-emulator",
        "nu",
        "xonsh",
        "elvish",
        "osh",
        "ysh",
    }
)


class Table(NamedTuple):
    """A launcher's options (getopt in POSIX order unless ``permutes``)."""

    value_letters: str = ""
    flag_letters: str = ""
    value_names: frozenset[str] = _F()
    flag_names: frozenset[str] = _F()
    #: Options that make the launch opaque (``-S``, ``--shm``), with why.
    opaque: Mapping[str, str] = MappingProxyType({})
    #: Operands between the options and the command (``lckdo LOCKFILE cmd``).
    operands: int = 0
    kind: InnerKind = "transparent"
    #: Without a command the program starts a shell that reads stdin (``setarch``).
    shell_without_command: bool = False
    #: The operands are a command only with this option (``schedtool -e``).
    exec_option: str | None = None
    #: GNU getopt without ``+``: options after the command are the launcher's too.
    permutes: bool = False


def _name(argv: Sequence[Word]) -> str:
    return argv[0].value.rsplit("/", 1)[-1]


def launch(argv: Sequence[Word], table: Table, start: int = 1) -> list[Inner]:
    """The command a launcher described by ``table`` runs (options from ``argv[start]``)."""
    program = _name(argv)
    values = [w.value for w in argv]
    n = len(values)
    command = n
    runs = table.exec_option is None
    for option in options(
        values, table.value_letters, table.value_names, table.flag_names, start=start, stop_at_positional=True
    ):
        name = option.name
        if not name:
            command = option.at
            break
        if name in table.opaque:
            return [Inner("opaque", option.at, reason=f"{program} {name} {table.opaque[name]}")]
        known = (
            name[1] in table.value_letters + table.flag_letters
            if len(name) == 2 and name[1] != "-"
            else name in table.value_names or name in table.flag_names
        )
        if not known:
            return [
                Inner(
                    "opaque",
                    option.at,
                    reason=f"{program} {values[option.at]}: an option the analysis "
                    "does not know (it could take the next word)",
                )
            ]
        runs = runs or name == table.exec_option
    if command >= n:
        if table.shell_without_command:
            return [Inner("opaque", 1, reason=f"{program} without a command starts a shell", from_stdin=True)]
        return []
    if (
        table.permutes
        and "--" not in values[start:command]
        and any(v.startswith("-") and v != "-" for v in values[command + 1 :])
    ):
        return [
            Inner(
                "opaque",
                command,
                reason=f"{program} reads options written after the command too (write -- before the command)",
            )
        ]
    command += table.operands
    if not runs or command >= n:
        return []
    return [Inner(table.kind, command, tuple(argv[command:]))]


def _table(table: Table) -> Handler:
    def handler(argv: Sequence[Word]) -> list[Inner]:
        return launch(argv, table)

    return handler


_SETARCH = Table(
    flag_letters="hVv3BFILRSTXZ",
    flag_names=_F(
        {
            "--help",
            "--version",
            "--verbose",
            "--3gb",
            "--4gb",
            "--32bit",
            "--fdpic-funcptrs",
            "--short-inode",
            "--addr-compat-layout",
            "--addr-no-randomize",
            "--whole-seconds",
            "--sticky-timeouts",
            "--read-implies-exec",
            "--mmap-page-zero",
            "--uname-2.6",
            "--list",
        }
    ),
    shell_without_command=True,
)


def _setarch(argv: Sequence[Word]) -> list[Inner]:
    """``setarch ARCH [options] [program...]`` (``linux32``/``linux64``: no ARCH); without a
    program it starts ``/bin/sh``."""
    if _name(argv) != "setarch":
        return launch(argv, _SETARCH)
    if len(argv) < 2 or argv[1].value in ("-h", "--help", "-V", "--version", "--list"):
        return []
    if argv[1].value.startswith("-"):
        return [Inner("opaque", 1, reason="setarch reads its first word as the architecture")]
    return launch(argv, _SETARCH, start=2)


def _leading_dashdash(argv: Sequence[Word]) -> list[Inner]:
    """``eatmydata [--] cmd``: no options, one optional ``--``."""
    return transparent_at(argv, 2 if len(argv) > 1 and argv[1].value == "--" else 1)


def _no_options(argv: Sequence[Word]) -> list[Inner]:
    """``zrun cmd``: every word after the program is the command."""
    return transparent_at(argv, 1)


def _switch_user(argv: Sequence[Word]) -> list[Inner]:
    """``gosu USER cmd``, ``su-exec USER cmd``: the command runs as another user."""
    program = _name(argv)
    if len(argv) > 1 and argv[1].value.startswith("-"):
        if len(argv) == 2 and argv[1].value in ("-h", "--help", "-v", "--version"):
            return []
        return [Inner("opaque", 1, reason=f"{program} {argv[1].value}: an option the analysis does not know")]
    if len(argv) < 3:
        return []
    return [Inner("privilege", 2, tuple(argv[2:]))]


#: torsocks is a shell script comparing whole words: these take the next word.
_TORSOCKS_VALUES = _F({"-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"})
_TORSOCKS_FLAGS = _F({"-i", "--isolate", "-d", "--debug", "-q", "--quiet"})
#: (``sh`` is also an alias of ``show``, but is judged as the shell in case a version runs it).
_TORSOCKS_NO_COMMAND = _F({"on", "off", "show", "-h", "--help", "--version"})


def _torsocks(argv: Sequence[Word]) -> list[Inner]:
    i, n = 1, len(argv)
    while i < n:
        value = argv[i].value
        if value in _TORSOCKS_NO_COMMAND:
            return []
        if value == "--shell":
            return [Inner("opaque", i, reason="torsocks --shell starts a shell", from_stdin=True)]
        if value in _TORSOCKS_VALUES:
            i += 2
        elif value in _TORSOCKS_FLAGS:
            i += 1
        elif value.startswith("-"):
            return [Inner("opaque", i, reason=f"torsocks {value}: an option the analysis does not know")]
        else:
            break
    return transparent_at(argv, i)


def _scripts(program: str, argv: Sequence[Word], indices: Sequence[int], posix: bool) -> list[Inner]:
    """Each ``argv[k]`` is a script a shell runs (``sh -c`` when ``posix``)."""
    inners: list[Inner] = []
    for k in indices:
        script = argv[k].value
        difference = posix_sh_differences(script) if posix else None
        if difference is not None:
            return [Inner("opaque", k, reason=f"{program} runs its argument with sh: {difference}")]
        inners.append(Inner("transparent", k, script=script))
    return inners


_PEE_FLAGS = _F({"--ignore-sigpipe", "--no-ignore-sigpipe", "--ignore-write-errors", "--no-ignore-write-errors"})


def _pee(argv: Sequence[Word]) -> list[Inner]:
    """``pee CMD...``: every other argument is a command ``popen`` runs with ``/bin/sh``."""
    return _scripts("pee", argv, [k for k in range(1, len(argv)) if argv[k].value not in _PEE_FLAGS], True)


def _mispipe(argv: Sequence[Word]) -> list[Inner]:
    """``mispipe CMD1 CMD2``: both run with ``system()`` (``/bin/sh -c``). Another count of
    arguments fails before running anything; they are judged as commands all the same."""
    return _scripts("mispipe", argv, range(1, len(argv)), True)


_NUMACTL = Table(
    value_letters="ipcNCmoLMIwPSf",
    flag_letters="aslbHtdDuTV",
    value_names=_F(
        {
            "--interleave",
            "--weighted-interleave",
            "--preferred",
            "--preferred-many",
            "--cpubind",
            "--cpunodebind",
            "--physcpubind",
            "--membind",
            "--offset",
            "--length",
            "--shmmode",
            "--shmid",
            "--shm",
            "--file",
        }
    ),
    flag_names=_F(
        {
            "--all",
            "--show",
            "--localalloc",
            "--balancing",
            "--hardware",
            "--strict",
            "--dump",
            "--dump-nodes",
            "--huge",
            "--touch",
            "--verify",
        }
    ),
    opaque={
        "-S": "sets a policy on shared memory",
        "--shm": "sets a policy on shared memory",
        "-f": "sets a policy on a file",
        "--file": "sets a policy on a file",
    },
)

_CCACHE_VALUE_LETTERS = "dkFMoX"
_CCACHE_VALUE_NAMES = _F(
    {
        "--dir",
        "--get-config",
        "--max-files",
        "--max-size",
        "--set-config",
        "--recompress",
        "--config-path",
        "--evict-namespace",
        "--evict-older-than",
        "--recompress-threads",
        "--checksum-file",
        "--extract-result",
        "--hash-file",
        "--inspect",
        "--trim-dir",
        "--trim-max-size",
        "--trim-method",
        "--format",
    }
)
#: distcc/icecc/sccache options that only report or manage the service.
_COMPILER_WRAPPER_INFO = _F(
    {
        "--help",
        "-h",
        "--version",
        "-V",
        "--show-hosts",
        "--show-principal",
        "-j",
        "--show-stats",
        "-s",
        "--zero-stats",
        "-z",
        "--start-server",
        "--stop-server",
        "--dist-status",
        "--stats-format",
        "--build-native",
    }
)


def _compiler_wrapper(argv: Sequence[Word]) -> list[Inner]:
    """``ccache gcc -c x.c``: the "compiler" is a command of its own (any program runs)."""
    program = _name(argv)
    if len(argv) < 2:
        return []
    first = argv[1].value
    if program == "ccache" and "=" in first and not first.startswith("-"):
        return [Inner("opaque", 1, reason="ccache KEY=VALUE settings can make it run another program")]
    if not first.startswith("-"):
        return transparent_at(argv, 1)
    if program == "ccache":
        values = [w.value for w in argv]
        if any(o.name in ("-o", "--set-config") for o in options(values, _CCACHE_VALUE_LETTERS, _CCACHE_VALUE_NAMES)):
            return [Inner("opaque", 1, reason="ccache --set-config changes what later compiles run (prefix_command)")]
        return []
    if first in _COMPILER_WRAPPER_INFO:
        return []
    return [Inner("opaque", 1, reason=f"{program} {first}: without a compiler name it runs cc with these arguments")]


_JOBS = Table(flag_letters="lpnxrs", flag_names=_F({"--help"}), exec_option="-x")


def _jobs(argv: Sequence[Word]) -> list[Inner]:
    """bash's ``jobs -x CMD ARGS`` runs CMD in this shell (job specs in ARGS replaced by process
    groups)."""
    return in_this_shell("jobs -x", launch(argv, _JOBS))


def _ts(argv: Sequence[Word]) -> list[Inner]:
    """``ts`` is moreutils' timestamper (``ts [-r] [-i|-s] [-m] [FORMAT]``) or, where moreutils is
    not installed, the task spooler (``ts [options] CMD...``; Debian calls it ``tsp``): operands
    other than one ``strftime`` format are a command queued to run later (opaque)."""
    operands = [k for k in range(1, len(argv)) if not argv[k].value.startswith("-")]
    if not operands or (len(operands) == 1 and "%" in argv[operands[0]].value):
        return []
    return [Inner("opaque", operands[0], reason="ts (the task spooler) queues a command to run later")]


def _bear(argv: Sequence[Word]) -> list[Inner]:
    """``bear [options] -- CMD...`` runs the build and writes ``compile_commands.json`` (its rule is
    needed too); bear 2 took the command without ``--`` (opaque)."""
    values = [w.value for w in argv]
    if "--" in values:
        start = values.index("--") + 1
        return [Inner("exec_each", start, tuple(argv[start:]))] if start < len(argv) else []
    k = 1
    while k < len(values):
        if values[k] in ("-o", "--output", "--config", "-c", "--cdb", "--library", "-l", "--include", "--exclude"):
            k += 2
        elif values[k].startswith("-"):
            k += 1
        else:
            return [Inner("opaque", k, reason="bear without -- reads its options and the command its own way")]
    return []


#: ``run-one`` (Ubuntu): runs the command unless another copy runs.
_RUN_ONE = (
    "run-one",
    "run-this-one",
    "keep-one-running",
    "run-one-constantly",
    "run-one-until-success",
    "run-one-until-failure",
)

#: The launchers of this module, by program name (see :mod:`bot.shell.launch.wrappers`).
LAUNCHERS: dict[str, Handler] = {
    "hyperfine": hyperfine,
    "valgrind": valgrind,
    "pee": _pee,
    "mispipe": _mispipe,
    "torsocks": _torsocks,
    "gosu": _switch_user,
    "su-exec": _switch_user,
    "eatmydata": _leading_dashdash,
    "zrun": _no_options,
    **dict.fromkeys(_RUN_ONE, _no_options),
    **dict.fromkeys(("ccache", "sccache", "distcc", "icecc"), _compiler_wrapper),
    **dict.fromkeys(("setarch", "linux32", "linux64"), _setarch),
    "numactl": _table(_NUMACTL),
    "nocache": _table(Table(value_letters="nD", flag_letters="f", opaque={"-D": "writes a debug log to a file"})),
    "trickle": _table(Table(value_letters="wnudtlL", flag_letters="hvVs", permutes=True)),
    "tini": _table(Table(value_letters="pe", flag_letters="hvwgls", flag_names=_F({"--version"}), permutes=True)),
    "dumb-init": _table(
        Table(
            value_letters="r",
            flag_letters="hvVc",
            value_names=_F({"--rewrite"}),
            flag_names=_F({"--help", "--single-child", "--verbose", "--version"}),
        )
    ),
    "cgexec": _table(Table(value_letters="g", flag_letters="sh", flag_names=_F({"--sticky", "--help"}))),
    "systemd-inhibit": _table(
        Table(
            flag_letters="h",
            value_names=_F({"--what", "--who", "--why", "--mode"}),
            flag_names=_F({"--help", "--version", "--list", "--no-pager", "--no-legend"}),
        )
    ),
    "chronic": _table(Table(flag_letters="ev")),
    "ifne": _table(Table(flag_letters="n")),
    "lckdo": _table(Table(value_letters="WE", flag_letters="wnesxtq", operands=1)),
    "with-lock-ex": _table(Table(value_letters="t", flag_letters="wfql", operands=1)),
    "uclampset": _table(
        Table(
            value_letters="pmM",
            flag_letters="asRhvV",
            value_names=_F({"--pid"}),
            flag_names=_F({"--all-tasks", "--system", "--reset-on-fork", "--help", "--verbose", "--version"}),
        )
    ),
    "schedtool": _table(Table(value_letters="Mapn", flag_letters="NFRBI01234evhV", exec_option="-e")),
    # programs that take the command among their own arguments, each with its own parser
    "jobs": _jobs,
    "ts": _ts,
    "bear": _bear,
    "fd": fd,
    "fdfind": fd,
    "cargo": cargo,
    "cargo-watch": cargo_watch,
    # logsave writes its log (its rule is needed too); getopt without `+` permutes
    "logsave": _table(Table(flag_letters="asv", operands=1, permutes=True, kind="exec_each")),
    "timelimit": _table(Table(value_letters="SsTt", flag_letters="lqp")),
    # sshpass 1.10 reads `-e[NAME]`: an attached name is read as unknown letters (opaque)
    "sshpass": _table(Table(value_letters="fdpP", flag_letters="heVv")),
}
