"""What a wrapper launches (:class:`Inner`) and the helpers wrapper handlers share; see
:mod:`bot.shell.launch.wrappers` for the kinds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from bot.shell.parse.syntax import Assignment, Word

#: ``view`` — the same command under the name a deny rule uses (``git send-pack`` seen as ``git
#: push``, :mod:`bot.shell.launch.git`): its deny and ask rules, checks and program facts apply,
#: but no allow rule for the view approves the command (the judge's allow rules stop at a layer
#: that is not ``transparent``); the command's own rule does.
InnerKind = Literal["transparent", "privilege", "exec_each", "opaque", "view"]


class Inner(NamedTuple):
    kind: InnerKind
    #: Index (in the outer argv) where the inner command starts; for scripts, the script's index.
    #: A view that splits the program word in two (``git-push`` → ``git push``) starts at -1.
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


def transparent_at(
    argv: Sequence[Word], i: int, assignments: tuple[Assignment, ...] = (), chdir: Word | None = None
) -> list[Inner]:
    if i >= len(argv):
        return []
    return [Inner("transparent", i, tuple(argv[i:]), assignments=assignments, chdir=chdir)]


#: Builtins that change the shell itself — its variables, options or what a name means. Run
#: through ``builtin``, ``command`` or ``jobs -x`` they still change it, but the analysis follows
#: such changes only for the plain statement (``export X=1``), so the launch is opaque there.
#: (``cd`` through a wrapper is asked by the judge; ``eval``'s script is judged in the same shell.)
STATEFUL_BUILTINS = frozenset(
    {
        "export",
        "declare",
        "typeset",
        "local",
        "readonly",
        "unset",
        "read",
        "mapfile",
        "readarray",
        "set",
        "shopt",
        "alias",
        "unalias",
        "hash",
        "enable",
        "trap",
        "let",
        "bind",
        "complete",
        "compopt",
        "source",
        ".",
    }
)


def in_this_shell(program: str, inners: list[Inner]) -> list[Inner]:
    """``inners`` of a launcher that runs builtins in the current shell (``builtin``, ``command``,
    ``jobs -x``), or an opaque launch when the inner command changes the shell's state
    (:data:`STATEFUL_BUILTINS`; ``printf`` with ``-v``)."""
    inner = inners[0] if inners else None
    if inner is None or not inner.argv:
        return inners
    name = inner.argv[0].value
    if name in STATEFUL_BUILTINS or (name == "printf" and any(w.value.startswith("-v") for w in inner.argv[1:])):
        return [
            Inner(
                "opaque",
                inner.start,
                reason=f"{program} {name} changes the shell's variables or options "
                "in a way the analysis does not follow",
            )
        ]
    return inners
