"""What a program's options tell the analysis: the result type of :mod:`bot.shell.programs.flags`
and the small helpers its per-program modules share.

* ``explicit`` — ``(argv index, reason)``: only a rule that spells the command out up to that word
  approves it (the option makes the program run code or reach a place the analysis cannot see);
* ``paths`` — path arguments of options, for the path checks;
* ``in_place`` — ``sed -i``: the file arguments are written;
* ``git_dirs`` — where git would look for a repository (``-C``, ``--git-dir``, ``--work-tree``);
* ``exact_only`` — what makes the command dangerous is not a word a rule could spell out (code read
  from stdin, install scripts): only an exact rule approves it;
* ``elsewhere`` — argv indexes of words that name places in another filesystem, not this one (the
  command ``docker run`` runs in its container, its ``--workdir``): not host paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bot.shell.parse.syntax import Word
from bot.shell.paths.resolve import Access
from bot.shell.paths.use import PathUse

Explicit = list[tuple[int, str]]


class ProgramFacts(NamedTuple):
    explicit: tuple[tuple[int, str], ...] = ()
    paths: tuple[PathUse, ...] = ()
    in_place: bool = False
    git_dirs: tuple[PathUse, ...] = ()
    exact_only: bool = False
    #: What makes it exact-only is code an interpreter reads from stdin (``python3 - <<EOF``): a
    #: rule that allows the interpreter with any arguments already grants that much.
    stdin_code: bool = False
    elsewhere: tuple[int, ...] = ()


NO_FACTS = ProgramFacts()


def facts(
    explicit: Sequence[tuple[int, str]], paths: Sequence[PathUse] = (), dirs: Sequence[PathUse] = ()
) -> ProgramFacts:
    """The facts found, or the shared :data:`NO_FACTS` when there are none (most commands)."""
    if not explicit and not paths and not dirs:
        return NO_FACTS
    return ProgramFacts(tuple(explicit), tuple(paths), False, tuple(dirs))


def exact_only(argv: Sequence[Word], reason: str) -> ProgramFacts:
    return ProgramFacts(((len(argv) - 1, reason),), exact_only=True)


def stdin_code(argv: Sequence[Word], reason: str) -> ProgramFacts:
    """An interpreter that reads its program from stdin (see :attr:`ProgramFacts.stdin_code`): the
    word to spell out is the interpreter's name, which a rule allowing any arguments does."""
    return ProgramFacts(((0, reason),), exact_only=True, stdin_code=True)


def program_name(argv: Sequence[Word]) -> str:
    return argv[0].value.rsplit("/", 1)[-1]


def path_use(argv: Sequence[Word], index: int | None, value: str | None, access: Access) -> PathUse | None:
    """A path given as an option's value (``index``: the word holding it), unless it is missing or
    ``-`` (stdin/stdout)."""
    if index is None or value is None or value in ("", "-") or index >= len(argv):
        return None
    return PathUse(index, value, access, argv[index])
