"""``git ls-files | xargs wc -l``: a read-only program fed by ``xargs`` from a listing of the
workspace, judged by what the listing prints at decision time.

The words ``xargs`` appends are only known at run time, so in general they could be anything: an
option (a file named ``--files0-from=/etc/x``), a path out (a name with a blank splits into
``/etc/shadow``), a file a Read deny rule covers, a symbolic link out. :func:`plain_listing` lists
what the listing program would print — the names in git's index for ``git ls-files``, the tree
under the start points for ``find`` and ``rg --files`` — and says whether every one is a plain
word (no blank, quote or backslash, no part starting with ``-``), a regular file inside the
workspace (no symbolic link, in the index or on disk), and not covered by a Read deny rule. Then
the appended words are exactly those files and the reader reads nothing the rules forbid.

Bounded: a tree of more than :data:`MAX_ENTRIES` entries is not listed (the command is judged as
before, only known at run time).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence

from bot.shell.parse.syntax import SimpleCommand

MAX_ENTRIES = 20_000
#: Programs that only read the files they are given (no option of theirs writes or runs, or the
#: option is a visible word the rules judge as usual).
READERS = frozenset(
    {
        "wc",
        "cat",
        "head",
        "tail",
        "grep",
        "egrep",
        "fgrep",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "b2sum",
        "cksum",
        "file",
        "stat",
        "du",
        "ls",
        "nl",
        "cut",
        "rg",
    }
)
#: xargs options that change neither what it appends nor how it splits.
_XARGS_SAFE = frozenset(
    {"-r", "--no-run-if-empty", "-0", "--null", "-t", "--verbose", "-x", "--exit", "-n", "--max-args", "-P"}
)
_XARGS_VALUED = frozenset({"-n", "--max-args", "-P", "--max-procs"})
_PLAIN_PART = re.compile(r"^[A-Za-z0-9_.,+@%=~:][A-Za-z0-9_.,+@%=~:-]*$")
#: ``git ls-files`` options that only select among the index's entries or change the separator.
_LS_FILES_SAFE = frozenset({"-z", "--cached", "-c", "--full-name", "--"})
#: find's expressions that list without running or writing (the find analysis judges the rest).
_FIND_WORDS = re.compile(r"^(?:-(?:name|iname|path|ipath|type|maxdepth|mindepth|print0?|not|o|a|and|or)|!|\(|\))$")

DeniedPath = Callable[[str, str, str], str | None]


def reader_fed_by_listing(commands: Sequence[SimpleCommand]) -> tuple[SimpleCommand, int] | None:
    """``(listing, index of the reader)`` when ``commands`` is ``LISTING | xargs [safe options]
    READER …`` with nothing redirected; ``None`` otherwise."""
    if len(commands) < 2:
        return None
    listing, feeder = commands[0], commands[1]
    if not feeder.argv or feeder.argv[0].value != "xargs":  # `./xargs` is the workspace's program
        return None  # (the common answer, first)
    if any(not r.is_fd_dup and r.op not in ("<",) for c in (listing, feeder) for r in c.redirects):
        return None
    values = [w.value for w in feeder.argv]
    if not values or values[0] != "xargs" or any(w.dynamic for w in feeder.argv):
        return None
    k = 1
    while k < len(values) and values[k].startswith("-"):
        name = values[k].partition("=")[0]
        if name not in _XARGS_SAFE and not (name[:2] in _XARGS_VALUED and name[2:].isdigit()):
            return None
        k += 2 if name in _XARGS_VALUED and "=" not in values[k] else 1
    if k >= len(values) or values[k] not in READERS:
        return None
    return listing, k


def plain_listing(listing: SimpleCommand, cwd: str, roots: Sequence[str], denied: DeniedPath | None) -> bool:
    """Whether every name the listing would print now is a plain, regular, readable workspace file."""
    values = [w.value for w in listing.argv]
    if any(w.dynamic or w.glob for w in listing.argv) or not values:
        return False
    if not any(cwd == r or cwd.startswith(r.rstrip("/") + "/") for r in roots):
        return False
    program = values[0].rsplit("/", 1)[-1]
    names: Iterator[str] | None = None
    files_only = False
    if program == "git" and values[1:2] == ["ls-files"] and all(v in _LS_FILES_SAFE for v in values[2:]):
        root = _repository_root(cwd, roots)
        if root is None:
            return False
        names = _index_names(root, cwd)
        files_only = True
    elif program == "find":
        first = next((k for k, v in enumerate(values[1:], 1) if v.startswith("-") or v in ("(", "!")), len(values))
        starts, expression = values[1:first], values[first:]
        if any(not (_FIND_WORDS.match(v) or (not v.startswith("-") and _ARG.match(v))) for v in expression):
            return False
        names = _walk([os.path.join(cwd, s) for s in starts or ["."]], skip_git=False)
    elif program == "rg" and values[1:] == ["--files"]:
        names = _walk([cwd], skip_git=True)
    if names is None:
        return False
    for count, path in enumerate(names, 1):
        if count > MAX_ENTRIES or not _plain_file(path, cwd, roots, denied, files_only):
            return False
    return True


_ARG = re.compile(r"^[A-Za-z0-9_.*?\[\]-]+$")


def _repository_root(cwd: str, roots: Sequence[str]) -> str | None:
    """The workspace root ``cwd`` is in (git in a subdirectory is judged by the git checks)."""
    for root in roots:
        if cwd == root or cwd.startswith(root.rstrip("/") + "/"):
            return root
    return None


def _plain_file(path: str, cwd: str, roots: Sequence[str], denied: DeniedPath | None, files_only: bool = False) -> bool:
    relative = os.path.relpath(path, cwd)
    if relative.startswith("../") or not all(_PLAIN_PART.match(p) for p in relative.split("/") if p != "."):
        return False
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return True  # listed but gone: the reader reports it missing
    except OSError:
        return False
    if stat.S_ISDIR(mode) and files_only:
        return False  # git's index holds files: a directory there replaced a tracked file on disk
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return False  # a symbolic link (maybe out), a socket, a device
    # every directory on the way is checked by the walk or below: no link among them
    parent = os.path.dirname(path)
    while parent != cwd and any(parent.startswith(r.rstrip("/") + "/") for r in roots):
        if os.path.islink(parent):
            return False
        parent = os.path.dirname(parent)
    return denied is None or denied(path, path, "read") is None


def _walk(starts: Sequence[str], skip_git: bool) -> Iterator[str]:
    for start in starts:
        if os.path.islink(start):
            yield start  # refused by _plain_file
            continue
        for directory, subdirs, files in os.walk(start, followlinks=False):
            if skip_git:
                subdirs[:] = [d for d in subdirs if not d.startswith(".")]
                files = [f for f in files if not f.startswith(".")]
            for name in (*subdirs, *files):
                yield os.path.join(directory, name)


def _index_names(root: str, cwd: str) -> Iterator[str]:
    try:
        yield from _index_entries(root, cwd)
    except (ValueError, IndexError):
        yield "/"  # a truncated or malformed index: refused


def _index_entries(root: str, cwd: str) -> Iterator[str]:
    """The paths of ``.git/index`` below ``cwd`` (what ``git ls-files`` prints there); a symbolic
    link entry or an index this reader does not know yields a path :func:`_plain_file` refuses."""
    try:
        with open(os.path.join(root, ".git", "index"), "rb") as handle:
            data = handle.read(64 << 20)
    except FileNotFoundError:
        return  # no index: git ls-files prints nothing
    except OSError:
        yield "/"
        return
    if len(data) < 12 or data[:4] != b"DIRC" or int.from_bytes(data[4:8], "big") not in (2, 3, 4):
        yield "/"
        return
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    offset, previous = 12, b""
    prefix = os.path.relpath(cwd, root)
    for _ in range(count):
        if offset + 62 > len(data):
            yield "/"
            return
        mode = int.from_bytes(data[offset + 24 : offset + 28], "big")
        flags = int.from_bytes(data[offset + 60 : offset + 62], "big")
        header = 62 + (2 if version >= 3 and flags & 0x4000 else 0)
        start = offset + header
        if version == 4:
            strip, k = 0, start
            while True:  # git's offset varint
                byte = data[k]
                strip = (strip << 7) | (byte & 0x7F)
                k += 1
                if not byte & 0x80:
                    break
                strip += 1
            end = data.index(b"\0", k)
            name = previous[: len(previous) - strip] + data[k:end]
            offset = end + 1
        else:
            end = data.index(b"\0", start)
            name = data[start:end]
            # entries of versions 2 and 3 are padded with 1 to 8 NULs to a multiple of 8 bytes
            offset += (header + (end - start) + 8) // 8 * 8
        previous = name
        path = name.decode("utf-8", "replace")
        if prefix != "." and not path.startswith(prefix + "/"):
            continue
        # a symbolic link or a submodule entry: refused by _plain_file
        yield "/" if stat.S_ISLNK(mode) or stat.S_IFMT(mode) == 0o160000 else os.path.join(root, path)
