"""Destructive-command warnings (seeds 4.6.5 ``destructiveCommandWarning``).

Information only: a warning never changes the decision. It is attached to the permission result
(and so to the run log and the denial message) so a reader sees "this call may rewrite history".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.launch.wrappers import unwrap
from bot.shell.parse.syntax import Parsed, Word
from bot.shell.parse.walk import parse_command
from bot.shell.programs.flags import git_subcommand_index

_DROP = re.compile(r"\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|VIEW|INDEX)|TRUNCATE(?:\s+TABLE)?)\b", re.I)
_DELETE_ALL = re.compile(r"\bDELETE\s+FROM\s+[\w.\"`\[\]]+\s*(?:;|'|\"|$)", re.I | re.M)
_SQL_HINT = re.compile(r"(?i)drop|truncate|delete")
#: Nothing below can fire without one of these words: most commands skip the analysis entirely.
_TRIGGER = re.compile(
    r"--hard|--force|--no-verify|--amend|\b(?:push|clean|rm|kubectl|terraform|tofu)\b"
    r"|\bcommit\b[^;&|\n]*\s-[A-Za-z]*n|(?i:drop|truncate|delete)"
)


def destructive_warnings(command: str) -> tuple[str, ...]:
    """The warnings for ``command`` (each once, in the seeds' wording)."""
    if not _may_warn(command) or _TRIGGER.search(command) is None:
        return ()
    warnings: list[str] = []
    outcome = parse_command(command)
    if isinstance(outcome, Parsed):
        for cmd in outcome.commands:
            for argv in _layers(cmd.argv):
                warnings.extend(_argv_warnings(argv))
    else:
        for piece in re.split(r"\|\||&&|[;|&\n]", command):
            warnings.extend(_argv_warnings([Word(w, w) for w in piece.split()]))
    if _SQL_HINT.search(command):
        if _DROP.search(command):
            warnings.append("DROP/TRUNCATE may drop or truncate database objects")
        if _DELETE_ALL.search(command):
            warnings.append("DELETE FROM without WHERE may delete all rows")
    return tuple(dict.fromkeys(warnings))


def _may_warn(c: str) -> bool:
    """A cheap superset of :data:`_TRIGGER` (substring tests are far faster than the regex)."""
    return (
        "--hard" in c
        or "--force" in c
        or "--no-verify" in c
        or "--amend" in c
        or "push" in c
        or "clean" in c
        or "rm" in c
        or "kubectl" in c
        or "terraform" in c
        or "tofu" in c
        or "commit" in c
        or "drop" in (low := c.lower())
        or "truncate" in low
        or "delete" in low
    )


def _layers(argv: Sequence[Word]) -> list[Sequence[Word]]:
    layers = [argv]
    current = argv
    for _ in range(6):
        inners = [i for i in unwrap(current) if i.argv is not None]
        if not inners:
            break
        for inner in inners[1:]:
            layers.append(inner.argv or ())
        current = inners[0].argv or ()
        layers.append(current)
    return layers


def _argv_warnings(argv: Sequence[Word]) -> list[str]:
    if not argv:
        return []
    program = argv[0].value.rsplit("/", 1)[-1]
    values = [w.value for w in argv[1:]]
    found: list[str] = []
    if program == "git":
        sub = git_subcommand_index(argv)
        command = argv[sub].value if sub is not None else ""
        args = [w.value for w in argv[sub + 1 :]] if sub is not None else []
        if command == "reset" and "--hard" in args:
            found.append("git reset --hard may discard uncommitted changes")
        if command == "push" and any(
            a in ("--force", "-f")
            or a.startswith("--force-with-lease")
            or (a.startswith("-") and not a.startswith("--") and "f" in a)
            or (a.startswith("+") and len(a) > 1)
            for a in args
        ):
            found.append("git push --force may overwrite remote history")
        if "--no-verify" in args or (
            command == "commit" and any(a.startswith("-") and not a.startswith("--") and "n" in a for a in args)
        ):
            found.append("--no-verify may skip safety hooks")
        if command == "commit" and "--amend" in args:
            found.append("git commit --amend may rewrite the last commit")
        if command == "clean" and any(
            a == "--force" or (a.startswith("-") and not a.startswith("--") and "f" in a) for a in args
        ):
            found.append("git clean -f may permanently delete untracked files")
    elif program == "rm":
        short = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
        recursive = "r" in short or "R" in short or "--recursive" in values
        force = "f" in short or "--force" in values
        if recursive and force:
            found.append("rm -rf may recursively force-remove files")
    elif program == "kubectl" and "delete" in values:
        found.append("kubectl delete may delete Kubernetes resources")
    elif program in ("terraform", "tofu") and ("destroy" in values or ("apply" in values and "-destroy" in values)):
        found.append("terraform destroy may destroy Terraform infrastructure")
    return found
