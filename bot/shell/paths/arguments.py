"""Which words of a command are paths, and what the command does to them (seeds 4.6.5
``PATH_EXTRACTORS``).

Each command has a small spec: the options that take a value (so the value is not mistaken for a
path), the options whose value *is* a path, whether the first positional is a pattern or script
(``grep``, ``sed``, ``awk``, ``jq``), and what happens to the positionals (read, write, delete;
``cp``/``mv``/``ln`` write the last one). Options are read as the program's ``getopt_long`` reads
them (:mod:`bot.shell.programs.getopt`): bundles (``-uo FILE``), attached values (``-t.git/hooks``),
abbreviated long options (``--targ=/etc``); everything after ``--`` is positional.

Links: the target of ``ln`` (symbolic or hard) and the sources of ``cp -l``/``cp -s`` are *written*
— whatever is later written through the link lands there — so a link to ``.git`` is a protected
write. ``cd`` takes one operand (options, ``--``, a directory-stack rotation or a second operand make
it unknown); ``find`` collects its start points before the first expression. Archivers and copiers
(``tar``, ``zip``, ``unzip``, ``rsync``, ``patch``) are in :mod:`bot.shell.programs.archives`; the
arguments of programs without an extractor in :mod:`bot.shell.paths.fallback`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import DYN, Word
from bot.shell.paths.argument_specs import SPECS, Spec
from bot.shell.paths.fallback import path_like_arguments
from bot.shell.paths.resolve import Access
from bot.shell.paths.use import PathUse
from bot.shell.programs.archives import ARCHIVE_EXTRACTORS
from bot.shell.programs.checkers import CHECKERS, checker_reads
from bot.shell.programs.getopt import Option, options

__all__ = ["SPECS", "PathUse", "Spec", "has_extractor", "path_like_arguments", "path_uses", "symlink_targets"]


# dirname/basename only compute strings; listing them keeps `dirname /etc/x` from being a false
# "outside" (they are read-only and harmless), so their positionals are not checked.
_STRING_ONLY = frozenset({"dirname", "basename"})


class _Table:
    """A spec's options split the way :func:`bot.shell.programs.getopt.options` wants them."""

    __slots__ = ("known", "letters", "names")

    def __init__(self, spec: Spec) -> None:
        flags = spec.value_flags | spec.path_flags.keys() | spec.two_value_flags
        self.letters = frozenset(f[1] for f in flags if len(f) == 2 and f[0] == "-" and f[1] != "-")
        self.names = frozenset(f for f in flags if f.startswith("--"))
        self.known = spec.flag_names | spec.rest_not_paths


_TABLES = {id(spec): _Table(spec) for spec in SPECS.values()}
#: Programs whose arguments ``path_uses`` reads apart from :data:`SPECS`.
_OWN = frozenset({"cd", "pushd", "find", "dd"})


def has_extractor(program: str) -> bool:
    return program in SPECS or program in _OWN or program in ARCHIVE_EXTRACTORS or program in CHECKERS


def path_uses(argv: Sequence[Word]) -> list[PathUse]:
    """The path arguments of one simple command (empty for commands without an extractor)."""
    if not argv:
        return []
    program = argv[0].value.rsplit("/", 1)[-1]
    if program in ("cd", "pushd"):
        return _cd(argv, program)
    if program == "find":
        return _find(argv)
    if program == "dd":
        return [
            PathUse(i, w.value[3:], "read" if w.value.startswith("if=") else "write", w)
            for i, w in enumerate(argv)
            if w.value.startswith(("if=", "of="))
        ]
    archive = ARCHIVE_EXTRACTORS.get(program)
    if archive is not None:
        return archive(argv)
    if program in CHECKERS:
        reads = checker_reads(argv)
        return reads if reads is not None else path_like_arguments(argv, set())
    spec = SPECS.get(program)
    if spec is None or program in _STRING_ONLY:
        return []
    return _generic(argv, spec, program)


def _generic(argv: Sequence[Word], spec: Spec, program: str) -> list[PathUse]:
    table = _TABLES[id(spec)]
    values = [w.value for w in argv]
    uses: list[PathUse] = []
    positionals: list[int] = []
    seen: set[str] = set()
    skip = -1
    pattern_given = False
    awk = program in ("awk", "gawk", "mawk", "nawk")
    for opt in options(values, table.letters, table.names, table.known):
        if not opt.name:
            if opt.at == skip or (awk and positionals and _is_awk_assignment(opt.word)):
                continue
            positionals.append(opt.at)
            continue
        name = opt.name
        seen.add(name)
        if name in spec.rest_not_paths:
            break
        if name in spec.pattern_flags:
            pattern_given = True
        if name in spec.two_value_flags:
            if opt.value_index is not None and opt.value_index != opt.at:
                skip = opt.value_index + 1
                if name in spec.path_flags and skip < len(argv):
                    uses.append(PathUse(skip, values[skip], spec.path_flags[name], argv[skip]))
            continue
        access = spec.path_flags.get(name)
        if access is not None:
            use = _option_path(argv, opt, access)
            if use is not None:
                uses.append(use)
        else:
            guessed = _guessed_value(values, opt)
            if guessed is not None:
                # An abbreviation taken for an option with a value may really be a flag the table
                # does not list: its "value" is then an operand, so it is checked as one too.
                positionals.append(guessed)
    if spec.pattern_first and not pattern_given and positionals:
        positionals = positionals[1:]
    if spec.first_is_not_path and positionals and not _mode_in_options(program, values):
        positionals = positionals[1:]
    if program == "ln" or (program == "cp" and seen & {"-l", "-s", "--link", "--symbolic-link"}):
        return uses + _links(argv, program, positionals, uses, seen)
    # cp/mv/install/ln -t DIR: every operand is a source
    targeted = bool(seen & _TARGET_OPTIONS) and (spec.last_write or spec.last_write_others_delete)
    last = len(positionals) - 1
    for k, index in enumerate(positionals):
        access = spec.access
        if targeted:
            access = "delete" if spec.last_write_others_delete else "read"
        elif spec.last_write and last > 0:
            access = "write" if k == last else "read"
        elif spec.last_write_others_delete and last > 0:
            access = "write" if k == last else "delete"
        elif spec.second_write:
            access = "write" if k == 1 else "read"
        if values[index] == "-":
            continue
        uses.append(PathUse(index, values[index], access, argv[index]))
        if access == "write" and (spec.last_write or spec.last_write_others_delete) and _backs_up(values):
            # `mv -b README.md .env`: the file replaced is kept as `.env~`, a name no Read deny rule covers
            uses.append(PathUse(index, values[index], "read", argv[index]))
        if access == "delete" and spec.last_write_others_delete:
            # What mv moves is readable under its new name: a Read deny rule on it holds (`mv .env src/`).
            uses.append(PathUse(index, values[index], "read", argv[index]))
    return uses


def _backs_up(values: Sequence[str]) -> bool:
    """``-b``, ``--backup[=CONTROL]``, ``-S``/``--suffix`` (which implies a backup) of mv/cp/ln/install."""
    for value in values[1:]:
        if value == "--":
            return False
        if value.startswith("--"):
            if value.partition("=")[0] in ("--backup", "--suffix"):
                return True
        elif value.startswith("-") and ("b" in value[1:] or "S" in value[1:]):
            return True
    return False


def _option_path(argv: Sequence[Word], opt: Option, access: Access) -> PathUse | None:
    if opt.value is None or opt.value_index is None or opt.value in ("", "-"):
        return None
    return PathUse(opt.value_index, opt.value, access, argv[opt.value_index])


def _guessed_value(values: Sequence[str], opt: Option) -> int | None:
    """Where the value of ``opt`` is, when ``opt`` is an abbreviated long option whose value is
    the next word."""
    if opt.value_index is None or opt.value_index == opt.at:
        return None
    written = values[opt.at]
    return opt.value_index if written.startswith("--") and written != opt.name else None


_TARGET_OPTIONS = frozenset({"-t", "--target-directory"})


def _mode_in_options(program: str, values: Sequence[str]) -> bool:
    """``chmod -w file``: the mode is written like an option; ``--reference`` replaces it."""
    if any(v.startswith("--ref") for v in values[1:]):
        return True
    return program == "chmod" and any(_CHMOD_OPTION_MODE.fullmatch(v) for v in values[1:])


_CHMOD_OPTION_MODE = re.compile(r"-[rwxXst]+(,[ugoa]*[-+=][rwxXst]*)*")


def _is_awk_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.isidentifier()


def _links(
    argv: Sequence[Word], program: str, positionals: list[int], uses: list[PathUse], seen: set[str]
) -> list[PathUse]:
    """``ln`` and ``cp -l``/``cp -s``: every operand is written — the link name, and what it points
    at (a later write through ``b`` in ``ln -s .git b`` writes ``.git``). A relative symbolic-link
    target is relative to the link's directory, so it is checked from there: ``DEST`` with ``-t``,
    several targets or a trailing slash, else ``DEST``'s parent (when ``DEST`` is an existing
    directory the link is one level deeper, and the target reaches less far: no place this misses)."""
    values = [w.value for w in argv]
    symbolic = program == "ln" and bool(seen & {"-s", "--symbolic"}) and not seen & {"-r", "--relative"}
    targeted = bool(seen & _TARGET_OPTIONS)
    found: list[PathUse] = []
    if targeted:
        targets = positionals
        dest = next((u.value for u in reversed(uses) if u.access == "write"), ".")
    elif len(positionals) > 1:
        targets = positionals[:-1]
        dest = values[positionals[-1]]
        found.append(PathUse(positionals[-1], dest, "write", argv[positionals[-1]]))
        if _backs_up(values):  # the link replaces DEST, which is kept as `DEST~`
            found.append(PathUse(positionals[-1], dest, "read", argv[positionals[-1]]))
    else:
        targets, dest = positionals, "./"
    if targeted or len(targets) > 1 or dest.endswith("/"):
        link_dir = dest.rstrip("/") or "/"
    else:
        link_dir = (dest.rsplit("/", 1)[0] or "/") if "/" in dest else "."
    for index in targets:
        value = values[index]
        if symbolic and link_dir != "." and not value.startswith(("/", "~")) and DYN not in value:
            value = f"{link_dir}/{value}"
        found.append(PathUse(index, value, "write", argv[index]))
        if not symbolic:
            # A hard link is the file under a second name, which no Read deny rule on the first
            # covers (`ln .env src/x`); a symbolic link is resolved when it is read.
            found.append(PathUse(index, values[index], "read", argv[index]))
    return found


def symlink_targets(words: Sequence[Word], uses: list[PathUse]) -> list[PathUse]:
    """Kept for callers: :func:`path_uses` already checks ``ln -s`` targets from the link's
    directory (see :func:`_links`)."""
    del words
    return uses


def _cd(argv: Sequence[Word], program: str) -> list[PathUse]:
    """``cd [-L|-P [-e]] [-@] [--] [dir]``, ``pushd [-n] [+N|-N|dir]``: the one directory. Anything
    the analysis cannot follow — ``pushd`` rotating the stack (``+N``, ``-N``, ``-n``, no operand),
    an unknown option (the ``cd`` fails), a second operand (``too many arguments``), ``-`` (the
    previous directory) — is a path only known at run time."""
    operands: list[int] = []
    unknown: int | None = None
    options_over = False
    for index in range(1, len(argv)):
        value = argv[index].value
        if options_over or not value.startswith("-") or value == "-":
            if program == "pushd" and _STACK_ROTATION.fullmatch(value):
                unknown = index
            operands.append(index)
            continue
        if value == "--":
            options_over = True
            continue
        if program == "cd" and value[1:] and all(c in "LPe@" for c in value[1:]):
            continue
        unknown = index  # pushd -n, -N; an option cd does not have
    if unknown is None and len(operands) > 1:
        unknown = operands[1]
    if unknown is None and operands and argv[operands[0]].value == "-":
        unknown = operands[0]
    if unknown is None and not operands and program == "pushd":
        unknown = 0  # swaps the two top directories
    if unknown is not None:
        return [PathUse(unknown, DYN, "cd", argv[unknown])]
    if not operands:
        return [PathUse(0, "~", "cd", argv[0])]
    index = operands[0]
    return [PathUse(index, argv[index].value, "cd", argv[index])]


_STACK_ROTATION = re.compile(r"[+-][0-9]+")


_FIND_OPTIONS = frozenset({"-H", "-L", "-P"})
_FIND_READ = frozenset({"-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"})
_FIND_WRITE = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})


def _find(argv: Sequence[Word]) -> list[PathUse]:
    uses: list[PathUse] = []
    i, n = 1, len(argv)
    while i < n and (argv[i].value in _FIND_OPTIONS or argv[i].value.startswith(("-D", "-O"))):
        i += 2 if argv[i].value == "-D" else 1
    deletes = any(w.value == "-delete" for w in argv)
    starts = 0
    while i < n and not argv[i].value.startswith(("-", "(", "!", ")", ",")):
        uses.append(PathUse(i, argv[i].value, "purge" if deletes else "read", argv[i]))
        starts += 1
        i += 1
    if starts == 0:
        uses.append(PathUse(0, ".", "purge" if deletes else "read", argv[0]))
    while i < n:
        value = argv[i].value
        if value.startswith("-newer") and len(value) > 6 and value not in _FIND_READ:
            value = "-newer"  # -newerXY reference
        if (value in _FIND_READ or value in _FIND_WRITE) and i + 1 < n:
            access: Access = "read" if value in _FIND_READ else "write"
            uses.append(PathUse(i + 1, argv[i + 1].value, access, argv[i + 1]))
            i += 2
            continue
        i += 1
    return uses
