"""Developer tools that run the command they are handed: ``hyperfine`` (each benchmarked command is a
shell script, run by the shell it names) and ``valgrind`` (the program under a tool, which a path can
replace with any program).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shell.judge.security_checks import posix_sh_differences
from bot.shell.launch.inner import Inner, InnerKind
from bot.shell.parse.syntax import Word
from bot.shell.programs.getopt import options

#: hyperfine (clap): options that take a value, and those whose value is a command.
_HYPERFINE_SCRIPT_NAMES = frozenset({"--prepare", "--setup", "--cleanup", "--conclude", "--reference"})


_HYPERFINE_SCRIPTS = _HYPERFINE_SCRIPT_NAMES | {"-p", "-s", "-c"}


_HYPERFINE_VALUE_NAMES = _HYPERFINE_SCRIPT_NAMES | {
    "--warmup",
    "--min-runs",
    "--max-runs",
    "--runs",
    "--parameter-step-size",
    "--style",
    "--sort",
    "--time-unit",
    "--export-asciidoc",
    "--export-csv",
    "--export-json",
    "--export-markdown",
    "--export-orgmode",
    "--output",
    "--input",
    "--command-name",
    "--min-benchmarking-time",
    "--reference-name",
    "--shell",
    "--parameter-scan",
    "--parameter-list",
}


_HYPERFINE_FLAG_NAMES = frozenset(
    {"--ignore-failure", "--show-elapsed", "--show-output", "--debug-mode", "--help", "--version"}
)


_HYPERFINE_VALUE_LETTERS = "wmMrspcDunSPL"


_HYPERFINE_FLAG_LETTERS = "NiEhV"


#: ``--shell`` values whose scripts the analysis reads (bash syntax; a POSIX sh checked for it).
_HYPERFINE_SHELLS = {"bash": False, "sh": True, "dash": True, "ash": True, "default": True, "none": False}


def hyperfine(argv: Sequence[Word]) -> list[Inner]:
    """``hyperfine [options] CMD...``: every operand, and the value of ``--prepare``/``--setup``/
    ``--cleanup``/``--conclude``/``--reference``, is a script for ``sh -c`` (``-S``: another shell;
    ``-N``: split into words and run directly, which the bash reading covers)."""
    values = [w.value for w in argv]
    scripts: list[tuple[int, str]] = []
    posix = True
    for option in options(values, _HYPERFINE_VALUE_LETTERS, _HYPERFINE_VALUE_NAMES, _HYPERFINE_FLAG_NAMES):
        name = option.name
        if not name:
            scripts.append((option.at, option.word))
            continue
        known = (
            name[1] in _HYPERFINE_VALUE_LETTERS + _HYPERFINE_FLAG_LETTERS
            if len(name) == 2
            else name in _HYPERFINE_VALUE_NAMES or name in _HYPERFINE_FLAG_NAMES
        )
        if not known:
            return [
                Inner(
                    "opaque", option.at, reason=f"hyperfine {values[option.at]}: an option the analysis does not know"
                )
            ]
        if name in ("-P", "--parameter-scan", "-L", "--parameter-list"):
            return [
                Inner(
                    "opaque",
                    option.at,
                    reason=f"hyperfine {name} fills {{VAR}} placeholders into the commands at run time",
                )
            ]
        value = _clap_value(values[option.at], option.value)
        if name in ("-S", "--shell"):
            if value not in _HYPERFINE_SHELLS:
                return [Inner("opaque", option.at, reason=f"hyperfine runs the commands with the shell {value!r}")]
            posix = _HYPERFINE_SHELLS[value]
        elif name == "-N":
            posix = False
        elif name in _HYPERFINE_SCRIPTS and option.value_index is not None:
            scripts.append((option.value_index, value))
    found: list[Inner] = []
    for at, script in scripts:
        difference = posix_sh_differences(script) if posix else None
        if difference is not None:
            return [Inner("opaque", at, reason=f"hyperfine runs the command with sh: {difference}")]
        # hyperfine writes files of its own (--export-*, --output): its rule is needed too
        found.append(Inner("exec_each", at, script=script))
    return found


def _clap_value(word: str, value: str | None) -> str:
    """clap reads ``-p=CMD`` as ``-p CMD``: an attached short value loses a leading ``=``."""
    if value is None:
        return ""
    if not word.startswith("--") and word.startswith("-") and value.startswith("=") and word.endswith(value):
        return value[1:]
    return value


#: valgrind's own tools (``--tool=NAME`` loads ``$VALGRIND_LIB/NAME-<platform>``: a path there runs
#: any program).
_VALGRIND_TOOLS = frozenset(
    {
        "memcheck",
        "cachegrind",
        "callgrind",
        "helgrind",
        "drd",
        "massif",
        "dhat",
        "lackey",
        "none",
        "exp-bbv",
        "exp-dhat",
        "exp-sgcheck",
        "bbv",
    }
)


#: valgrind options (matched exactly, as valgrind does) that run another program, reach the network or
#: open a door for a debugger.
_VALGRIND_EXPLICIT = {
    "--db-command": "runs a debugger command",
    "--db-attach": "starts a debugger",
    "--vgdb-prefix": "creates the debugger's FIFOs under a prefix",
    "--run-libc-freeres": "runs libc code at exit",
    "--run-cxx-freeres": "runs C++ runtime code at exit",
    "--log-socket": "sends the log over the network",
    "--xml-socket": "sends the XML output over the network",
    "--debuginfo-server": "fetches debug info over the network",
    "--dsymutil": "runs dsymutil on the program",
    "--wait-for-gdb": "waits for a debugger",
}


def valgrind(argv: Sequence[Word]) -> list[Inner]:
    """``valgrind [--opt=value | -q | -v | -d]... program args``: the first operand (or the word
    after ``--``) is the program, judged on its own. With an option naming a file valgrind writes
    (``--log-file=``, ``--xml-file=``, ``--callgrind-out-file=``...) a rule for valgrind is
    needed as well (like ``find -exec``); the path itself is checked with the arguments."""
    n = len(argv)
    kind: InnerKind = "transparent"
    for i in range(1, n):
        value = argv[i].value
        if value == "--" or not value.startswith("-") or value == "-":
            start = i + 1 if value == "--" else i
            return [Inner(kind, start, tuple(argv[start:]))] if start < n else []
        name, _, rest = value.partition("=")
        if name in _VALGRIND_EXPLICIT:
            return [Inner("opaque", i, reason=f"valgrind {name} {_VALGRIND_EXPLICIT[name]}")]
        if name == "--tool" and rest not in _VALGRIND_TOOLS:
            return [
                Inner(
                    "opaque",
                    i,
                    reason=f"valgrind --tool={rest} is not one of valgrind's tools (a path there runs another program)",
                )
            ]
        if "file" in name:  # --log-file, --xml-file, --callgrind-out-file, --xtree-leak-file...
            kind = "exec_each"
    return []


__all__ = ["hyperfine", "valgrind"]
