"""What a wrapper launches (:class:`Inner`) and the helpers wrapper handlers share; see
:mod:`bot.shell.wrappers` for the kinds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from bot.shell.syntax import Assignment, Word

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


def is_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.isidentifier()


def skip_options(argv: Sequence[Word], i: int, with_value: frozenset[str], flags_ok: bool = True) -> int:
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


def transparent_at(argv: Sequence[Word], i: int, assignments: tuple[Assignment, ...] = (),
                   chdir: Word | None = None) -> list[Inner]:
    if i >= len(argv):
        return []
    return [Inner("transparent", i, tuple(argv[i:]), assignments=assignments, chdir=chdir)]
