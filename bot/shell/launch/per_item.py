"""Launchers that run a command for each file they find or each change they see.

Like ``find -exec`` these are ``exec_each`` (see :mod:`bot.shell.launch.wrappers`): the launcher needs a
rule of its own and the command must be allowed on its own.

* ``fd``/``fdfind`` (clap): ``-x``/``--exec CMD...`` and ``-X``/``--exec-batch CMD...`` take every
  word up to ``;``. The command gets a search result: a placeholder (``{}``, ``{/}``, ``{//}``,
  ``{.}``, ``{/.}``) becomes a value only known at run time, or one is appended when there is none.
  Short options bundle and take attached values (``-Hxwc`` is ``-H -x wc``; ``-tx`` is ``--type x``).
* ``xargs`` runs its command once per batch of words read from stdin; ``find -exec CMD {} ;`` once
  per file found (``-execdir``/``-ok``/``-okdir`` alike, ``{} +`` per batch).
* ``cargo watch`` (``cargo-watch``): ``-x``/``--exec CMD`` runs ``cargo CMD`` and ``-s``/``--shell CMD``
  runs CMD, both with ``sh -c`` (judged as scripts); words after ``--`` are a command;
  ``--use-shell`` picks another shell (opaque). Without any of them it runs ``cargo check``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shell.judge.security_checks import posix_sh_differences
from bot.shell.launch.inner import Inner
from bot.shell.parse.syntax import DYN, Word, literal
from bot.shell.programs.getopt import long_name, options, short_letters

__all__ = ["XARGS_VALUE_NAMES", "cargo", "cargo_watch", "fd", "find_exec", "xargs", "xargs_options"]

#: fd's short options that take a value (the rest of the word, or the next word).
_FD_VALUE_LETTERS = "dtecjSoExX"
#: fd's long options that take a value (clap does not read abbreviations).
_FD_VALUE_NAMES = frozenset(
    {
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "--type",
        "--extension",
        "--exclude",
        "--ignore-file",
        "--color",
        "--threads",
        "--size",
        "--changed-within",
        "--changed-before",
        "--owner",
        "--base-directory",
        "--path-separator",
        "--search-path",
        "--max-results",
        "--max-buffer-time",
        "--batch-size",
        "--format",
        "--and",
        "--changed-after",
        "--newer",
        "--older",
    }
)
_FD_EXEC_NAMES = frozenset({"--exec", "--exec-batch"})
_FD_PLACEHOLDERS = ("{//}", "{/.}", "{/}", "{.}", "{}")


def fd(argv: Sequence[Word]) -> list[Inner]:
    """``fd [options] [pattern] [path...] -x CMD... [;]``: each command of ``-x``/``-X``."""
    values = [w.value for w in argv]
    n = len(values)
    inners: list[Inner] = []
    k = 1
    while k < n:
        value = values[k]
        if value == "--":
            break
        start: int | None = None
        first: Word | None = None
        if value.startswith("--"):
            written, eq, attached = value.partition("=")
            if written in _FD_EXEC_NAMES:
                start = k + 1
                first = argv[k]._replace(value=attached) if eq else None
            elif written in _FD_VALUE_NAMES and not eq:
                k += 1
        elif value.startswith("-") and len(value) > 1:
            for letter, attached_value in short_letters(value, _FD_VALUE_LETTERS):
                if letter in "xX":
                    start = k + 1
                    first = argv[k]._replace(value=attached_value) if attached_value is not None else None
                elif letter in _FD_VALUE_LETTERS and attached_value is None:
                    k += 1  # the value is the next word
        if start is None:
            k += 1
            continue
        end = start
        while end < n and values[end] != ";":
            end += 1
        command = ([first] if first is not None else []) + list(argv[start:end])
        if not command:
            return [Inner("opaque", k, reason=f"fd {value} without a command")]
        inners.append(Inner("exec_each", start if first is None else k, _with_result(command)))
        k = end + 1
    return inners


def _with_result(command: list[Word]) -> tuple[Word, ...]:
    """fd's placeholders become a run-time value; without one the result is appended."""
    placed = [
        w._replace(value=_place(w.value), dynamic=True) if any(p in w.value for p in _FD_PLACEHOLDERS) else w
        for w in command
    ]
    if not any(w.dynamic and DYN in w.value for w in placed):
        placed.append(Word(DYN, "<result>", dynamic=True))
    return tuple(placed)


def _place(value: str) -> str:
    for placeholder in _FD_PLACEHOLDERS:
        value = value.replace(placeholder, DYN)
    return value


#: cargo's options before the subcommand that take a value.
_CARGO_GLOBAL_VALUES = frozenset({"-C", "--config", "-Z", "--color", "--explain", "--manifest-path"})
#: cargo-watch's options (clap) that take a value; ``-x``/``-s`` are the commands.
_WATCH_VALUE_LETTERS = "xswiBLEdC"
_WATCH_VALUE_NAMES = frozenset(
    {
        "--exec",
        "--shell",
        "--watch",
        "--ignore",
        "--delay",
        "--features",
        "--env",
        "--env-file",
        "--workdir",
        "--use-shell",
    }
)
_WATCH_FLAG_NAMES = frozenset(
    {
        "--watch-when-idle",
        "--ignore-nothing",
        "--poll",
        "--postpone",
        "--clear",
        "--quiet",
        "--notify",
        "--why",
        "--skip-local-deps",
        "--no-restart",
        "--no-vcs-ignores",
        "--no-dot-ignores",
        "--no-process-group",
        "--no-gitignore",
        "--no-ignore",
        "--help",
        "--version",
        "--debug",
    }
)


def cargo(argv: Sequence[Word]) -> list[Inner]:
    """``cargo [+toolchain] [options] watch ...``: the commands cargo-watch runs."""
    values = [w.value for w in argv]
    k, n = 1, len(values)
    while k < n:
        value = values[k]
        if value.startswith("+") and k == 1:
            k += 1
        elif value in _CARGO_GLOBAL_VALUES:
            k += 2
        elif value.startswith("-"):
            k += 1
        else:
            break
    if k < n and values[k] == "watch":
        return _watch(argv, k + 1)
    return []


def cargo_watch(argv: Sequence[Word]) -> list[Inner]:
    """``cargo-watch [watch] ...`` (cargo runs it with ``watch`` as its first argument)."""
    return _watch(argv, 2 if len(argv) > 1 and argv[1].value == "watch" else 1)


def _watch(argv: Sequence[Word], start: int) -> list[Inner]:
    values = [w.value for w in argv]
    scripts: list[tuple[int, str]] = []
    trailing: Inner | None = None
    for option in options(values, _WATCH_VALUE_LETTERS, _WATCH_VALUE_NAMES, _WATCH_FLAG_NAMES, start=start):
        name = option.name
        if not name:
            # the words after `--` are a command (a stray operand before it is an error for cargo-watch)
            if "--" in values[start : option.at]:
                trailing = Inner("exec_each", option.at, tuple(argv[option.at :]))
                break
            continue
        if option.value is None or option.value_index is None:
            continue
        if name == "--use-shell":
            return [
                Inner(
                    "opaque",
                    option.at,
                    reason=f"cargo watch --use-shell={option.value} runs the commands with another shell",
                )
            ]
        if name in ("-x", "--exec"):
            scripts.append((option.value_index, f"cargo {option.value}"))
        elif name in ("-s", "--shell"):
            scripts.append((option.value_index, option.value))
    inners: list[Inner] = []
    for at, script in scripts:
        difference = posix_sh_differences(script)
        if difference is not None:
            return [Inner("opaque", at, reason=f"cargo watch runs the command with sh: {difference}")]
        inners.append(Inner("exec_each", at, script=script))
    return [*inners, trailing] if trailing is not None else inners


#: xargs (GNU getopt, POSIX order): letters with a value, letters with an optional attached value.
_XARGS_VALUE_LETTERS = "aEILnPsd"


_XARGS_OPTIONAL_LETTERS = "eil"


XARGS_VALUE_NAMES = frozenset(
    {"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
)


_XARGS_NAMES = XARGS_VALUE_NAMES | {
    "--null",
    "--eof",
    "--replace",
    "--max-lines",
    "--interactive",
    "--verbose",
    "--exit",
    "--no-run-if-empty",
    "--show-limits",
    "--open-tty",
    "--help",
    "--version",
}


def xargs_options(values: Sequence[str]) -> tuple[list[tuple[str, str | None, int]], int]:
    """xargs's options as ``(name, value, index of the value's word)`` and the index of the
    command; ``--replace``/``-i``/``-I`` report the replacement string."""
    found: list[tuple[str, str | None, int]] = []
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        if value == "--":
            return found, i + 1
        if not value.startswith("-") or value == "-":
            break
        if value.startswith("--"):
            written, eq, attached = value.partition("=")
            name = long_name(written, _XARGS_NAMES) or written
            if eq:
                found.append((name, attached, i))
            elif name in XARGS_VALUE_NAMES:
                found.append((name, values[i + 1] if i + 1 < n else None, i + 1))
                i += 1
            else:
                found.append((name, None, i))
            i += 1
            continue
        consumed = False
        for j in range(1, len(value)):
            letter, rest = value[j], value[j + 1 :]
            if letter in _XARGS_VALUE_LETTERS:
                if rest:
                    found.append(("-" + letter, rest, i))
                else:
                    found.append(("-" + letter, values[i + 1] if i + 1 < n else None, i + 1))
                    consumed = True
                break
            if letter in _XARGS_OPTIONAL_LETTERS:
                found.append(("-" + letter, rest or None, i))
                break
            found.append(("-" + letter, None, i))
        i += 2 if consumed else 1
    return found, i


def xargs(argv: Sequence[Word]) -> list[Inner]:
    found, i = xargs_options([w.value for w in argv])
    n = len(argv)
    replace: str | None = None
    for name, value, _ in found:
        if name == "-I" and value:
            replace = value
        elif name in ("-i", "--replace"):
            replace = value or "{}"
    inner = list(argv[i:]) if i < n else [literal("echo")]
    if replace:
        inner = [
            Word(w.value.replace(replace, DYN), w.text, w.quoted, True) if replace in w.value else w for w in inner
        ]
    else:
        inner.append(Word(DYN, "<stdin>", dynamic=True, splits=True))
    return [Inner("exec_each", i if i < n else 0, tuple(inner))]


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def find_exec(argv: Sequence[Word]) -> list[Inner]:
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
            inners.append(Inner("exec_each", i + 1, tuple(argv[i + 1 : j])))
            i = j + 1
            continue
        if value == "-delete":
            inners.append(Inner("exec_each", i, (literal("rm"), literal("--"), literal("{}"))))
        i += 1
    return inners
