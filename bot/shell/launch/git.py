"""git as a launcher: the commands it runs, and its other names for a push.

Commands git runs (see :mod:`bot.shell.launch.wrappers` for the kinds): ``git rebase -x CMD`` (``-fx
CMD``, ``--exe=CMD``), ``git submodule foreach CMD``, ``git bisect run CMD...`` (``exec_each``).

A deny rule names a command — ``Bash(git push:*)`` — but git publishes commits under other names
too (``send-pack``, ``subtree push``…). So that the rule holds for them, each gets a *view*: an inner command of
kind ``view`` whose argv is the ``git push`` equivalent. The words keep their places, only
the command word becomes ``push`` (``git -C x send-pack o m`` → ``git -C x push o m``, ``git subtree
push -P p o m`` → ``git push push -P p o m``):

* ``send-pack``, ``http-push``; the remote helpers of the transports git pushes over
  (``remote-http``, ``remote-https``, ``remote-ftp``, ``remote-ftps``: a ``push`` command on their
  stdin publishes);
* ``subtree push``, ``lfs push``/``lfs pre-push``, ``svn dcommit``/``set-tree``/``commit-diff``/``branch``/
  ``tag`` (they write to the Subversion server), ``p4 submit``;
* ``hub`` is git with extensions: ``hub ARGS`` is ``git ARGS``;
* ``git-X`` (``/usr/lib/git-core/git-push``, ``git-lfs``) is ``git X``: the view splits the program
  word in two, so it starts one word *before* the command (``start == -1``) and its other words
  keep their places (``git-push o`` → ``git push o``; ``X`` is at the program word's index).

A view's deny and ask rules, path checks and program facts apply (``git-clone -u CMD`` is ``git
clone -u CMD``), but only a rule for the command as written approves it (``Bash(git send-pack:*)``,
``Bash(hub:*)``): a rule for the view would widen what it allows (``Bash(git:*)`` approving ``hub api
-X DELETE ...``, ``Bash(git push:*)`` approving ``git svn dcommit``).

Other remote helpers are opaque: ``remote-ext`` runs the command given as its argument,
``remote-fd`` talks over inherited descriptors, a helper installed as ``git-remote-NAME`` is any
program. A deny rule names a command, not an effect: ``gh api -X PUT .../merge`` or a push from a
test suite the model wrote are not ``git push`` (the sandbox's network rules are the guard there).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shell.launch.inner import Inner
from bot.shell.parse.syntax import Word, literal
from bot.shell.programs.getopt import options
from bot.shell.programs.git import git_subcommand_index

__all__ = ["git", "git_named", "hub"]

#: Commands that push under another name, and (for those with commands of their own) the words
#: after them that push.
_PUSHES: dict[str, frozenset[str] | None] = {
    "send-pack": None,
    "http-push": None,
    "remote-http": None,
    "remote-https": None,
    "remote-ftp": None,
    "remote-ftps": None,
    "remote-curl": None,
    "subtree": frozenset({"push"}),
    "lfs": frozenset({"push", "pre-push"}),
    "p4": frozenset({"submit"}),
    "svn": frozenset({"dcommit", "set-tree", "commit-diff", "branch", "tag"}),
}
_LAUNCHING = frozenset({"rebase", "submodule", "bisect"})
_REBASE_VALUE_NAMES = frozenset({"--exec", "--onto", "--strategy", "--strategy-option", "--whitespace"})


def git(argv: Sequence[Word]) -> list[Inner]:
    """The commands ``git ...`` runs (``rebase -x``, ``submodule foreach``, ``bisect run``), or
    the ``git push`` view of a push under another name."""
    values = [w.value for w in argv]
    if not any(v in _LAUNCHING or v in _PUSHES or v.startswith("remote-") for v in values):
        return []
    sub = git_subcommand_index(argv)
    if sub is None:
        return []
    command = values[sub]
    if command in _PUSHES:
        words = _PUSHES[command]
        if words is None or not words.isdisjoint(values[sub + 1 :]):
            return [_push_view(argv, sub)]
        return []
    if command.startswith("remote-"):
        return [
            Inner(
                "opaque",
                sub,
                reason=f"git {command} is a remote helper that runs a program or takes its commands from stdin",
            )
        ]
    return _launched(argv, values, sub, command)


def _push_view(argv: Sequence[Word], sub: int) -> Inner:
    return Inner("view", 0, (*argv[:sub], literal("push"), *argv[sub + 1 :]))


def _launched(argv: Sequence[Word], values: list[str], sub: int, command: str) -> list[Inner]:
    n = len(argv)
    inners: list[Inner] = []
    if command == "rebase":
        for option in options(values, value_letters="xsXC", value_names=_REBASE_VALUE_NAMES, start=sub + 1):
            if option.name in ("-x", "--exec") and option.value is not None and option.value_index is not None:
                inners.append(Inner("exec_each", option.value_index, script=option.value))
    elif command == "submodule":
        k = sub + 1
        while k < n and values[k].startswith("-"):
            k += 1
        if k < n and values[k] == "foreach":
            k += 1
            while k < n and values[k] in ("--recursive", "-q", "--quiet"):
                k += 1
            if k < n:
                inners.append(Inner("exec_each", k, script=" ".join(values[k:])))
    elif command == "bisect" and sub + 1 < n and values[sub + 1] == "run" and sub + 2 < n:
        inners.append(Inner("exec_each", sub + 2, tuple(argv[sub + 2 :])))
    return inners


def hub(argv: Sequence[Word]) -> list[Inner]:
    """``hub ARGS`` runs ``git ARGS`` (hub's own commands are judged as git's)."""
    if len(argv) < 2:
        return []
    return [Inner("view", 0, (literal("git"), *argv[1:]))]


def git_named(argv: Sequence[Word]) -> list[Inner]:
    """``git-X ARGS`` (any directory) is ``git X ARGS``, starting one word before the command so
    that ``X`` and the arguments keep their indices."""
    name = argv[0].value.rsplit("/", 1)[-1].removeprefix("git-")
    return [Inner("view", -1, (literal("git"), argv[0]._replace(value=name), *argv[1:]))]
