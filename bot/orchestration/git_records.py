"""What the workspace's git commands give back, as values, and the parsers of their output.

Pure: :class:`bot.orchestration.git.GitWorkspace` runs the commands; these read what they print
(``git diff --name-status -z``, ``--numstat -z``, a patch, ``git push --porcelain``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BranchSetup:
    branch: str
    #: ``created`` (new, from the base), ``reused-remote`` (the remote's branch) or ``reused-local``.
    how: str
    sha: str


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    message: str
    checkpoint: bool


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    #: ``added``, ``modified``, ``deleted``, ``renamed``, ``copied`` or ``type-changed``.
    status: str
    additions: int
    deletions: int
    binary: bool
    patch: str
    old_path: str | None = None


@dataclass(frozen=True, slots=True)
class DiffStats:
    files: tuple[FileChange, ...]

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)


@dataclass(frozen=True, slots=True)
class PushResult:
    branch: str
    sha: str
    #: ``created`` (a new remote branch), ``updated`` or ``up-to-date``.
    how: str


GIT_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type-changed"}


def push_status(porcelain: str, branch: str) -> tuple[str | None, str]:
    """The flag and summary of ``branch``'s line in ``git push --porcelain`` output:
    ``<flag>\\t<from>:<to>\\t<summary>`` (``*`` new, `` `` fast-forward, ``=`` up to date, ``!`` rejected)."""
    target = f"refs/heads/{branch}"
    for line in porcelain.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1].endswith(":" + target) and parts[0]:
            return parts[0][0], parts[2].strip()
    return None, ""


def parse_name_status(text: str) -> list[tuple[str, str, str | None]]:
    fields = text.split("\0")
    entries: list[tuple[str, str, str | None]] = []
    index = 0
    while index < len(fields) and fields[index]:
        code = fields[index][0]
        if code in "RC":
            entries.append((code, fields[index + 2], fields[index + 1]))
            index += 3
        else:
            entries.append((code, fields[index + 1], None))
            index += 2
    return entries


def parse_numstat(text: str) -> list[tuple[int, int, bool]]:
    fields = text.split("\0")
    counts: list[tuple[int, int, bool]] = []
    index = 0
    while index < len(fields) and fields[index]:
        added, deleted, path = fields[index].split("\t", 2)
        binary = added == "-"
        counts.append((0 if binary else int(added), 0 if binary else int(deleted), binary))
        index += 3 if path == "" else 1  # a rename: "+\t-\t" then old and new paths
    return counts


def split_patch(text: str) -> list[str]:
    """One chunk per ``diff --git`` header (patch lines never start with it: they start with a
    space, ``+``, ``-``, ``@`` or ``\\``)."""
    chunks: list[list[str]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
    return ["".join(c) for c in chunks]


__all__ = [
    "GIT_STATUS",
    "BranchSetup",
    "CommitInfo",
    "DiffStats",
    "FileChange",
    "PushResult",
    "parse_name_status",
    "parse_numstat",
    "push_status",
    "split_patch",
]
