"""Commands that read directories file by file (``grep -r``, ``rg``, ``tar c``…), and whether
anything below such a directory is covered by a ``Read(...)`` deny rule
(:mod:`bot.permissions.path_denials`): ``grep -r SECRET .`` reads ``.env`` without naming it."""

from __future__ import annotations

from collections.abc import Sequence

from bot.permissions.path_denials import DeniedPath
from bot.shell.paths.tree_walk import TooManyEntries, entries_below

#: Entries walked under a directory a command reads recursively, looking for denied files.
MAX_DENIAL_WALK = 20_000


def reads_recursively(values: Sequence[str]) -> bool:
    """Whether the command reads the directories it names (or its working directory) file by file:
    ``grep -r``, ``rg``/``ag``/``ack``, ``tar c``, ``zip -r``, ``cp -r``, ``rsync -r``/``-a``,
    ``git diff --no-index``, and publishing (``npm publish``, ``docker build``)."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    flags = [v for v in values[1:] if v.startswith("-") and not v.startswith("--")]
    longs = {v.partition("=")[0] for v in values[1:] if v.startswith("--")}
    letters = set("".join(f[1:] for f in flags))
    if program in ("rg", "ag", "ack", "ack-grep", "pt", "ugrep"):
        return True
    if program in ("grep", "egrep", "fgrep", "ggrep"):
        return (
            bool(letters & {"r", "R"})
            or bool(longs & {"--recursive", "--dereference-recursive"})
            or any(v in ("--directories=recurse", "recurse") for v in values[1:])
        )
    if program in ("tar", "gtar", "bsdtar"):
        first = values[1] if len(values) > 1 else ""
        return "c" in letters or "--create" in longs or (not first.startswith("-") and "c" in first)
    if program == "zip":
        return bool(letters & {"r", "R"}) or "--recurse-paths" in longs
    if program == "mv":  # a moved directory takes everything below it to the new name
        return True
    if program in ("cp", "scp"):
        return bool(letters & {"r", "R", "a"}) or bool(longs & {"--recursive", "--archive"})
    if program == "rsync":
        return bool(letters & {"r", "a"}) or bool(longs & {"--recursive", "--archive"})
    if program == "git":
        return "--no-index" in values or _greps_untracked(values)
    if program == "aws":  # `aws s3 sync . s3://bucket`, `aws s3 cp --recursive dir s3://…` upload a tree
        return "s3" in values and ("sync" in values or "--recursive" in values)
    return _publishes(program, [v for v in values[1:] if not v.startswith("-")])


def _greps_untracked(values: Sequence[str]) -> bool:
    """``git grep --untracked`` / ``--no-index``: the files of the working directory that git does
    not track (``.env`` among them), not only the repository's."""
    return "grep" in values[1:] and any(v in ("--untracked", "--no-index") for v in values)


#: Subcommands that send a directory's files elsewhere: a registry (``npm publish`` packs every
#: file no ignore file leaves out — ``.env`` included), a build daemon (``docker build`` sends its
#: context).
_PUBLISHERS = {
    "npm": ("publish", "pack"),
    "pnpm": ("publish", "pack"),
    "yarn": ("publish", "pack", "npm"),
    "bun": ("publish", "pm"),
    "cargo": ("publish", "package"),
    "docker": ("build", "buildx", "image"),
    "podman": ("build",),
    "nerdctl": ("build",),
    "buildah": ("bud", "build"),
    "gcloud": ("builds",),
    "vsce": ("publish", "package"),
}


def packs_working_directory(values: Sequence[str]) -> bool:
    """``npm publish``, ``cargo package``…: the package is the working directory unless a
    directory argument names another."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    if program == "git":
        return _greps_untracked(values)  # (its first word is the pattern: the directory is `.`)
    return program in _CWD_PUBLISHERS and _publishes(program, [v for v in values[1:] if not v.startswith("-")])


_CWD_PUBLISHERS = frozenset({"npm", "pnpm", "yarn", "bun", "cargo", "vsce"})


def _publishes(program: str, positional: Sequence[str]) -> bool:
    subs = _PUBLISHERS.get(program)
    if not subs or not positional or positional[0] not in subs:
        return False
    if positional[0] in ("npm", "pm", "buildx", "image", "builds"):  # yarn npm publish, bun pm pack…
        return len(positional) > 1 and positional[1] in ("publish", "pack", "build", "submit")
    return True


def skips_hidden(values: Sequence[str]) -> bool:
    """ripgrep and its kin leave hidden files out unless told otherwise (``--hidden``, ``-.``,
    ``-u``/``-uu``, ``--no-ignore``…): a denied ``.env`` is not read by a plain ``rg x``."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    if program not in ("rg", "ag", "pt"):
        return False
    return not any(
        v in ("--hidden", "-.", "--no-ignore", "--all-types", "-a", "--unrestricted")
        or (v.startswith("-u") and set(v[1:]) <= {"u"})
        or (v.startswith("-") and not v.startswith("--") and ("." in v[1:] or "u" in v[1:]))
        for v in values[1:]
    )


def denied_below(directory: str, denied: DeniedPath, *, hidden: bool = True) -> str | None:
    """The rule of a file below ``directory`` that a Read deny rule covers (``"too many"`` when
    the bounded walk is cut short), else ``None``. Links are not followed (the link checks
    refuse those that lead out); ``.git`` is not walked (no deny rule is about git's objects,
    and it is the largest directory of a checkout); ``hidden=False`` leaves dot files out, as
    ripgrep does."""
    try:
        for entry in entries_below([directory], MAX_DENIAL_WALK, hidden=hidden):
            if entry.name == ".git":
                continue
            rule = denied(entry.path, entry.path, "read")
            if rule is not None:
                return rule
    except TooManyEntries:
        return "too many"
    return None
