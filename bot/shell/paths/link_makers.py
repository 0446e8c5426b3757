"""Commands that can leave a symbolic link behind for the later commands of the same compound.

A path check looks at the disk as it is when the command is decided. ``ln -s /etc x && cat
x/passwd`` is checked before ``x`` exists, so a later path through something an earlier command
creates cannot be trusted. Two kinds of creation:

* **named paths** — what ``ln``, ``cp`` (``-r`` copies links as links), ``mv``, ``rsync``,
  ``install``, ``patch`` write: a later path *through or at* one of them is refused;
* **whole trees** — an archive extracted (``tar -x``, ``unzip``, ``7z x``, ``pax -r``, ``jar x``,
  ``dpkg-deb -x``…) or git writing the work tree from repository content (``checkout``, ``pull``,
  ``apply``, ``stash pop``…: a committed symbolic link): a later path *below* the directory is
  refused (the directory itself is not replaced).

The remedy the denial suggests is always the same: run the commands as separate calls, so the
second is checked against what the first left on disk.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.shell.programs.getopt import long_name
from bot.shell.programs.git import git_subcommand_position

#: Programs that write the paths they are given, possibly as symbolic links.
LINK_MAKERS = frozenset({"ln", "link", "cp", "mv", "rsync", "install", "cpio", "bsdcpio", "patch"})
#: Archive programs: where they write is decided by the archive's members.
EXTRACTORS = frozenset(
    {
        "tar",
        "gtar",
        "bsdtar",
        "unzip",
        "bsdunzip",
        "7z",
        "7za",
        "7zz",
        "7zr",
        "unrar",
        "unar",
        "pax",
        "jar",
        "dpkg-deb",
        "dpkg",
        "cpio",
        "bsdcpio",
        "unsquashfs",
        "cabextract",
    }
)
#: git subcommands that write the work tree from repository content.
_GIT_TREE_WRITERS = frozenset(
    {
        "checkout",
        "switch",
        "restore",
        "pull",
        "merge",
        "rebase",
        "cherry-pick",
        "revert",
        "am",
        "apply",
        "clone",
        "worktree",
        "read-tree",
        "checkout-index",
        "submodule",
        "bisect",
        "stash",
        "reset",
        "sparse-checkout",
        "subtree",
    }
)
#: Package installs that lay out a tree of the project's choosing (``file:`` dependencies are links).
_PACKAGE_INSTALLS = {
    "npm": frozenset({"ci", "install", "i", "add", "in", "ins", "isntall"}),
    "pnpm": frozenset({"install", "i", "add"}),
    "yarn": frozenset({"install", "add", ""}),
    "bun": frozenset({"install", "i", "add"}),
}


def is_extraction(values: Sequence[str]) -> bool:
    """An archive extracted by ``values``: an archive program, ``python -m tarfile -e`` /
    ``-m zipfile -e``, or ``cmake -E tar x``."""
    program = values[0].rsplit("/", 1)[-1] if values else ""
    if program in EXTRACTORS:
        return extracts(values)
    if program.startswith("python") and "-m" in values:
        at = values.index("-m")
        module = values[at + 1] if at + 1 < len(values) else ""
        return module in ("tarfile", "zipfile") and any(v in ("-e", "--extract") for v in values[at + 2 :])
    if program == "cmake" and len(values) > 3 and values[1] == "-E" and values[2] == "tar":
        return "x" in values[3]
    return False


def extracts(values: Sequence[str]) -> bool:
    """Whether an archive command (``values[0]`` in :data:`EXTRACTORS`) extracts files."""
    program = values[0].rsplit("/", 1)[-1]
    rest = values[1:]
    if program in ("unzip", "bsdunzip"):
        return not any(v in ("-l", "-v", "-t", "-Z", "-p", "-z") for v in rest)
    if program in ("7z", "7za", "7zz", "7zr", "unrar"):
        return bool(rest) and rest[0] in ("x", "e")
    if program in ("unar", "unsquashfs", "cabextract"):
        return not any(v in ("-l", "-ls", "-lls", "-i", "--list") for v in rest)
    if program == "pax":
        return any(v.startswith("-") and "r" in v for v in rest)
    if program == "jar":
        return bool(rest) and "x" in rest[0].lstrip("-")
    if program in ("dpkg-deb", "dpkg"):
        return any(v in ("-x", "-X", "-R", "--extract", "--vextract", "--raw-extract") for v in rest)
    if program in ("cpio", "bsdcpio"):
        return any(v.startswith("-") and not v.startswith("--") and ("i" in v or "p" in v) for v in rest) or any(
            long_name(v.partition("=")[0], ("--extract", "--pass-through")) for v in rest
        )
    first = rest[0] if rest else ""
    return any(
        long_name(v.partition("=")[0], ("--extract", "--get")) is not None
        or (v.startswith("-") and not v.startswith("--") and "x" in v)
        for v in rest
    ) or (bool(first) and not first.startswith("-") and "x" in first)


def rewrites_tree(values: Sequence[str]) -> bool:
    """git commands that write the work tree from repository content (a committed link)."""
    if not values or values[0].rsplit("/", 1)[-1] != "git":
        return False
    at = git_subcommand_position(values)
    if at is None:  # global options the analysis cannot read: assume it may
        return True
    sub = values[at] if at < len(values) else ""
    if sub not in _GIT_TREE_WRITERS:
        return False
    args = values[at + 1 :]
    if sub == "apply":
        return not any(v in ("--check", "--stat", "--numstat", "--summary") for v in args)
    if sub == "stash":
        return bool(args) and args[0] in ("pop", "apply", "branch")
    if sub == "reset":
        return any(v in ("--hard", "--merge", "--keep") for v in args)
    # A new branch at the current commit (`checkout -b name`) leaves the work tree as it is.
    return not (sub in ("checkout", "switch") and len(args) == 2 and args[0] in ("-b", "-B", "-c", "-C"))


#: The programs :func:`created` looks further at (besides ``python*``).
_TREE_PROGRAMS = EXTRACTORS | {"cmake", "git"} | frozenset(_PACKAGE_INSTALLS)
_ANY_PROGRAM = _TREE_PROGRAMS | LINK_MAKERS


def created(argv: Sequence[str], writes: list[str], cwds: Sequence[str | None]) -> tuple[list[str], list[str]]:
    """``(named paths, whole trees)`` a command leaves behind (see the module's docstring)."""
    joined = " ".join(argv)
    if "/" not in joined:
        if "python" not in joined and _ANY_PROGRAM.isdisjoint(argv):
            return [], []  # no word names a program below (each word is its own base name)
        bases = list(argv)
    else:
        bases = [v.rsplit("/", 1)[-1] for v in argv]
        if "python" not in joined and _ANY_PROGRAM.isdisjoint(bases):
            return [], []  # no word's base name is a program below
    paths = list(writes) if writes and not LINK_MAKERS.isdisjoint(bases) else []
    trees: list[str] = []
    # (behind wrappers: `timeout 60 git pull`, `sudo tar -xf a.tar`); one pass, as this runs for
    # every command judged
    archive = git = package = None
    for k, base in enumerate(bases):
        if base in _TREE_PROGRAMS or base.startswith("python"):
            if archive is None and (base in EXTRACTORS or base == "cmake" or base.startswith("python")):
                archive = k
            if git is None and base == "git":
                git = k
            if package is None and base in _PACKAGE_INSTALLS:
                package = k
    installs = (
        package is not None
        and next((v for v in argv[package + 1 :] if not v.startswith("-")), "") in _PACKAGE_INSTALLS[bases[package]]
    )
    if (
        (archive is not None and is_extraction(argv[archive:]))
        or (git is not None and rewrites_tree(argv[git:]))
        or installs
    ):
        trees = [cwd for cwd in cwds if cwd is not None]
        trees.extend(writes)  # -C DIR, -d DIR
    return paths, trees
