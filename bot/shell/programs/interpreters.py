"""Interpreters: options that run code given on the command line or read from stdin.

``python -c CODE``, ``node -e CODE``, ``ruby -e``, ``perl -e``... run code the analysis cannot check:
such a word is explicit (a rule must spell it out). Without a script, an interpreter reads its
program from stdin: only an exact rule approves that. Options are read as the interpreter reads
them: ``python -Ic CODE`` is ``-I -c CODE``, ``python -W ignore -c CODE`` skips ``-W``'s value,
``node -pe CODE`` is ``--print --eval``.

``python -m MODULE`` runs a module like a script, except the standard modules that run code given
as arguments (``timeit``, ``pdb -c``, ``runpy``) or read it from stdin (``code``), and those that
write where an argument says (``cProfile -o``, ``trace --file``, ``zipfile -e``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.paths.resolve import Access
from bot.shell.programs.everyday import pytest_facts
from bot.shell.programs.facts import NO_FACTS, Explicit, ProgramFacts, exact_only, facts, path_use, stdin_code
from bot.shell.programs.getopt import options
from bot.shell.programs.packages import pip_facts


class _Spec(NamedTuple):
    #: Short letters that introduce inline code (in a bundle too: ``ruby -ne CODE``).
    code_letters: str = "e"
    #: Long options (and whole words: ``deno eval``) that introduce inline code.
    code_words: frozenset[str] = frozenset()
    #: Short letters whose value is the rest of the word or the next word.
    value_letters: str = ""
    #: Short letters whose value is only the rest of the word (``ruby -W2``).
    rest_letters: str = ""
    #: Long options with a separate value.
    value_long: frozenset[str] = frozenset()
    #: Words that only print (the interpreter does not read stdin then).
    prints: frozenset[str] = frozenset({"--version", "--help"})
    #: Short letters that start an interactive interpreter reading code from stdin.
    interactive: str = ""


_F = frozenset
SPECS: dict[str, _Spec] = {
    "python": _Spec(
        "c",
        value_letters="cmWX",
        value_long=_F({"--check-hash-based-pycs"}),
        prints=_F({"--version", "--help", "-V", "-h", "--help-all", "--help-env", "--help-xoptions"}),
        interactive="i",
    ),
    "ruby": _Spec(
        "e",
        value_letters="eIrCE",
        rest_letters="WFKTxi0",
        prints=_F({"--version", "--help", "-h"}),
        value_long=_F(
            {
                "--disable",
                "--enable",
                "--encoding",
                "--external-encoding",
                "--internal-encoding",
                "--dump",
                "--backtrace-limit",
                "--crash-report",
            }
        ),
    ),
    "perl": _Spec("eE", value_letters="eEIMm", rest_letters="iFlx0CdD", prints=_F({"--version", "--help", "-v", "-V"})),
    "php": _Spec(
        "rRBE",
        value_letters="rRBEcdFztS",
        prints=_F({"--version", "--help", "-v", "-h", "-m", "-i", "-S"}),
        interactive="a",
    ),
    "lua": _Spec("e", value_letters="el", prints=_F({"-v"}), interactive="i"),
    "Rscript": _Spec("e", prints=_F({"--version", "--help"})),
    "osascript": _Spec("e", value_letters="el"),
    "julia": _Spec("eE", code_words=_F({"--eval", "--print"}), value_letters="eELpJC", interactive="i"),
    "elixir": _Spec("e", code_words=_F({"--eval"}), value_letters="er"),
    "bun": _Spec("ep", code_words=_F({"--eval", "--print"})),
    "deno": _Spec("", code_words=_F({"eval", "repl"})),
    # The languages GTFOBins lists with an inline-code option (each one's manual).
    "R": _Spec("e", value_letters="e", prints=_F({"--version", "--help", "-h"})),
    "guile": _Spec("c", value_letters="cLlxeCs", prints=_F({"--version", "--help", "-v", "-h"})),
    "ghc": _Spec("e", value_letters="eo", prints=_F({"--version", "--help", "--numeric-version", "--info"})),
    "slsh": _Spec("e", prints=_F({"--version", "--help", "-v"})),
    "gnuplot": _Spec("e", value_letters="ec", prints=_F({"--version", "--help", "-V", "-h"})),
    "octave": _Spec("", code_words=_F({"--eval"}), prints=_F({"--version", "--help", "-v", "-h"})),
    "jrunscript": _Spec("e", value_letters="elfJ", prints=_F({"-help", "-?", "-q"})),
    "drush": _Spec("", code_words=_F({"eval", "ev", "php-eval", "php-script", "scr"})),
}
SPECS["octave-cli"] = SPECS["octave"]
SPECS["bee"] = SPECS["drush"]
SPECS["pypy"] = SPECS["python"]
SPECS["luajit"] = SPECS["lua"]
#: Programs whose name only starts like an interpreter's (``python3.11``, ``pypy3``).
INTERPRETERS = frozenset(SPECS) | {"node", "nodejs", "pwsh", "powershell"}


def interpreter_key(program: str) -> str | None:
    if program.startswith("python"):
        return "python"
    if program.startswith("pypy"):
        return "pypy"
    return program if program in INTERPRETERS else None


def interpreter_facts(program: str, key: str, argv: Sequence[Word], install_scripts: bool = True) -> ProgramFacts:
    if key in ("node", "nodejs"):
        return _node(program, argv)
    if key in ("pwsh", "powershell"):
        return _powershell(program, argv)
    spec = SPECS[key]
    values = [w.value for w in argv]
    explicit: Explicit = []
    prints = False
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        if value == "-":
            return stdin_code(argv, f"{program} - runs code read from stdin")
        device = _device_script(argv, i, program)
        if device is not None:
            return device
        if value == "--":
            i += 1
            break
        if value in spec.code_words:
            return ProgramFacts(((i, f"{program} {value} runs inline code that cannot be checked"),))
        if not value.startswith("-"):
            break
        if value in spec.prints:
            prints = True
        if value.startswith("--"):
            i += 2 if value in spec.value_long else 1
            continue
        letters, next_is_value = _short(value, spec.value_letters, spec.rest_letters)
        code = next((c for c in letters if c in spec.code_letters), None)
        if code is not None or (key == "perl" and ("e" in value or "E" in value)):
            return ProgramFacts(((i, f"{program} {value} runs inline code that cannot be checked"),))
        if "m" in letters and key in ("python", "pypy"):
            module_index = i if not next_is_value else i + 1
            module = value[value.index("m") + 1 :] if not next_is_value else (values[i + 1] if i + 1 < n else "")
            return _python_module(program, argv, module, module_index, explicit, install_scripts)
        if any(c in spec.interactive for c in letters):
            explicit.append((i, f"{program} {value} starts an interactive interpreter that runs code from stdin"))
        i += 2 if next_is_value else 1
    if i < n or key == "deno" or prints:
        return facts(explicit)
    return stdin_code(argv, f"{program} without a script reads code from stdin")


#: A script named by a file descriptor: stdin (``python3 /dev/stdin``), or another pipe
#: (``python3 <(curl …)`` becomes ``python3 /dev/fd/63``).
_STDIN_DEVICES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_FD_DEVICE = re.compile(r"/(?:dev/fd|proc/(?:self|thread-self|[0-9]+)/fd)/[0-9]+\Z")


def _device_script(argv: Sequence[Word], index: int, program: str) -> ProgramFacts | None:
    """Code read from stdin through its device name is code from stdin; code from any other
    descriptor comes from a command the analysis cannot read (only an exact rule)."""
    value = argv[index].value
    if value in _STDIN_DEVICES:
        return stdin_code(argv, f"{program} {value} runs code read from stdin")
    if _FD_DEVICE.match(value):
        return ProgramFacts(((index, f"{program} {value} runs code another command writes into a pipe"),))
    return None


def _short(word: str, value_letters: str, rest_letters: str) -> tuple[str, bool]:
    """The letters of a short bundle up to the one that takes a value, and whether that value is
    the next word."""
    for j in range(1, len(word)):
        letter = word[j]
        if letter in rest_letters:
            return word[1 : j + 1], False
        if letter in value_letters:
            return word[1 : j + 1], j == len(word) - 1
    return word[1:], False


#: Standard modules that run code given as arguments or read from stdin.
_MODULE_RUNS_CODE = {
    "timeit": "runs code given as arguments",
    "pdb": "runs debugger commands (from -c or stdin)",
    "webbrowser": "launches a browser program",
    "idlelib": "runs code given with -c or typed in",
    "cProfile": "",
    "profile": "",
    "trace": "",
}
_MODULE_STDIN = frozenset({"code", "asyncio", "sqlite3"})
_MODULE_CODE_ARGUMENTS = frozenset({"timeit", "pdb", "idlelib"})
#: ``module → {option: access}``: options whose value is a file or directory the module writes or reads.
_MODULE_PATHS: dict[str, dict[str, Access]] = {
    "cProfile": {"-o": "write", "--outfile": "write"},
    "profile": {"-o": "write", "--outfile": "write"},
    "trace": {"-f": "write", "--file": "write", "-C": "write", "--coverdir": "write"},
    "http.server": {"-d": "read", "--directory": "read"},
    "unittest": {"-s": "read", "--start-directory": "read", "-t": "read", "--top-level-directory": "read"},
    "zipfile": {"-e": "write", "--extract": "write", "-c": "write", "--create": "write"},
    "tarfile": {"-e": "write", "--extract": "write", "-c": "write", "--create": "write"},
}


def _python_module(
    program: str, argv: Sequence[Word], module: str, at: int, explicit: Explicit, install_scripts: bool
) -> ProgramFacts:
    values = [w.value for w in argv]
    if module == "pip":
        return pip_facts(argv, at + 1, install_scripts)
    if module == "pytest":
        found = pytest_facts(argv, at + 1)
        return facts([*explicit, *found.explicit], found.paths)
    if module == "runpy":  # `python -m runpy MODULE ARGS` runs MODULE as -m would
        following = at + 1
        if following >= len(values):
            return facts(explicit)
        return _python_module(program, argv, values[following], following, explicit, install_scripts)
    reason = _MODULE_RUNS_CODE.get(module)
    if reason:
        # the code is in the words after the module (`timeit -s SETUP STMT`, `pdb -c CMD`): a rule
        # spells them out, as `python -c CODE` needs; `Bash(python -m timeit:*)` runs only what it names
        word = len(values) - 1 if module in _MODULE_CODE_ARGUMENTS else at
        return facts([*explicit, (word, f"{program} -m {module} {reason}")])
    if module in _MODULE_STDIN:
        return stdin_code(argv, f"{program} -m {module} runs code read from stdin")
    table = _MODULE_PATHS.get(module)
    if table is None:
        return facts(explicit)
    paths: list[PathUse] = []
    for option in options(
        values,
        value_letters=[n[1] for n in table if len(n) == 2],
        value_names=[n for n in table if n.startswith("--")],
        start=at + 1,
    ):
        access = table.get(option.name)
        if access is None:
            continue
        if module in ("zipfile", "tarfile") and option.name in ("-e", "--extract"):
            # -e ARCHIVE DIR: the directory is the word after the archive
            target = option.value_index + 1 if option.value_index is not None else None
            use = path_use(
                argv, target, values[target] if target is not None and target < len(values) else None, "write"
            )
        else:
            use = path_use(argv, option.value_index, option.value, access)
        if use is not None:
            paths.append(use)
    return facts(explicit, paths)


_NODE_CODE = frozenset({"--eval", "--print"})
_NODE_LOADERS = frozenset({"--require", "--import", "--loader", "--experimental-loader"})
#: Loaders that accept ``data:`` URLs (``require()`` rejects them).
_NODE_URL_LOADERS = frozenset({"--import", "--loader", "--experimental-loader"})
_NODE_READS = frozenset({"--env-file", "--env-file-if-exists"})
_NODE_VALUE = (
    _NODE_LOADERS
    | _NODE_READS
    | frozenset(
        {
            "--conditions",
            "--input-type",
            "--title",
            "--cpu-prof-dir",
            "--cpu-prof-name",
            "--heap-prof-dir",
            "--heap-prof-name",
            "--diagnostic-dir",
            "--redirect-warnings",
            "--report-dir",
            "--report-directory",
            "--report-filename",
            "--report-signal",
            "--snapshot-blob",
            "--test-reporter",
            "--test-reporter-destination",
            "--test-name-pattern",
            "--test-skip-pattern",
            "--watch-path",
            "--openssl-config",
            "--disable-warning",
            "--dns-result-order",
            "--icu-data-dir",
            "--unhandled-rejections",
            "--run",
            "--localstorage-file",
        }
    )
)


#: Options after which node does not read a program from stdin.
_NODE_NO_STDIN = frozenset({"--version", "-v", "--help", "-h", "--check", "-c", "--test", "--run", "--v8-options"})


def _node(program: str, argv: Sequence[Word]) -> ProgramFacts:
    """``node``: ``-e``/``-p`` (and ``-pe``) run inline code; ``--import``/``--require``/``--loader``
    load a module, which may be a ``data:`` URL (code) or a path; ``-i`` reads code from stdin."""
    values = [w.value for w in argv]
    explicit: Explicit = []
    paths: list[PathUse] = []
    i, n = 1, len(values)
    after_unknown = False
    script = False
    while i < n:
        value = values[i]
        if value == "-":
            return stdin_code(argv, f"{program} - runs code read from stdin")
        device = _device_script(argv, i, program)
        if device is not None:
            return device
        if value == "--":
            i += 1
            break
        if not value.startswith("-"):
            if not after_unknown:
                break
            # the value of an option the analysis does not know, or the script: look on
            after_unknown = False
            script = True
            i += 1
            continue
        after_unknown = False
        written, eq, attached = value.partition("=")
        if value.startswith("--"):
            name = written
            has_value = name in _NODE_VALUE and not eq
            target, target_index = (
                (attached, i) if eq else ((values[i + 1], i + 1) if has_value and i + 1 < n else (None, None))
            )
            after_unknown = not eq and name not in _NODE_VALUE
        else:
            name = {"-r": "--require", "-C": "--conditions"}.get(written, written)
            has_value = name in ("--require", "--conditions")
            target, target_index = (values[i + 1], i + 1) if has_value and i + 1 < n else (None, None)
            if "e" in value[1:] or "p" in value[1:]:
                name = "--eval"
            elif value == "-i":
                name = "--interactive"
        if name in _NODE_CODE:
            return ProgramFacts(((i, f"{program} {value} runs inline code that cannot be checked"),))
        if name in ("--interactive", "-i"):
            explicit.append((i, f"{program} {value} runs code read from stdin"))
        elif name in _NODE_LOADERS and target is not None:
            _node_module(argv, target, target_index, i, name, explicit, paths)
        elif name in _NODE_READS:
            use = path_use(argv, target_index, target, "read")
            if use is not None:
                paths.append(use)
        i += 2 if has_value else 1
    if i >= n and not script and not any(v.partition("=")[0] in _NODE_NO_STDIN for v in values):
        return stdin_code(argv, f"{program} without a script reads code from stdin")
    return facts(explicit, paths)


def _node_module(
    argv: Sequence[Word],
    target: str,
    target_index: int | None,
    at: int,
    name: str,
    explicit: Explicit,
    paths: list[PathUse],
) -> None:
    lowered = target.lower()
    if name in _NODE_URL_LOADERS and (lowered.startswith(("data:", "http:", "https:")) or "," in target):
        explicit.append((at, f"node {name} {target[:20]}... loads code given on the command line"))
    elif target.startswith((".", "/", "~", "file:")):
        use = path_use(argv, target_index, target.removeprefix("file://"), "read")
        if use is not None:
            paths.append(use)


_POWERSHELL_CODE = ("-command", "-encodedcommand", "-commandwithargs", "-ec", "-cwa")


def _powershell(program: str, argv: Sequence[Word]) -> ProgramFacts:
    """PowerShell's parameters are case-insensitive and may be abbreviated: ``-c``, ``-Com``,
    ``-enc`` all run a command string. The values of its other parameters are not known here, so
    every word up to ``-File`` is looked at."""
    positional = False
    for k, word in enumerate(argv[1:], start=1):
        lowered = word.value.lower()
        if not lowered.startswith("-") or lowered == "-":
            positional = positional or lowered != "-"
            continue
        if len(lowered) >= 2 and any(name.startswith(lowered) for name in _POWERSHELL_CODE):
            return ProgramFacts(((k, f"{program} {word.value} runs a command string that cannot be checked"),))
        if "-file".startswith(lowered):
            return NO_FACTS
    if positional:
        return NO_FACTS
    return exact_only(argv, f"{program} without a script reads commands from stdin")
