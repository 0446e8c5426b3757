"""Options that make a recursive program follow symbolic links.

The path checks resolve the links a command *names*; they cannot see the links a program finds
while it walks a directory. Following them is not the default of these programs, but with the
option ``grep -R secret .`` reads ``~/.ssh`` through a ``link_to_home`` in the checkout and ``cp -rL .
backup`` copies ``/etc`` into it. Such an option is explicit: only a rule that spells it out
approves it. (``zip`` follows links by default: ``zip -r`` is explicit unless ``-y`` stores them.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bot.shell.programs.facts import Explicit
from bot.shell.programs.getopt import is_option, options

REASON = "follows symbolic links, which can lead out of the workspace"


class _Spec(NamedTuple):
    #: Options (``-L``, ``--follow``) that follow links.
    follow: frozenset[str]
    #: Options that make the program recurse; empty when it always does.
    recurse: frozenset[str] = frozenset()
    value_letters: str = ""
    value_names: frozenset[str] = frozenset()
    #: Real long flags that are prefixes of the names above (``--binary`` is not ``--binary-files``).
    known: frozenset[str] = frozenset()


_F = frozenset
_GREP_VALUES = _F(
    {
        "--regexp",
        "--file",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--include",
        "--exclude",
        "--exclude-dir",
        "--exclude-from",
        "--label",
        "--directories",
        "--devices",
        "--binary-files",
        "--group-separator",
    }
)
_RG_VALUES = _F(
    {
        "--regexp",
        "--file",
        "--glob",
        "--iglob",
        "--type",
        "--type-not",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--max-columns",
        "--threads",
        "--max-depth",
        "--replace",
        "--type-add",
        "--type-clear",
        "--sort",
        "--sortr",
        "--colors",
        "--max-filesize",
        "--encoding",
        "--engine",
        "--context-separator",
        "--path-separator",
        "--pre",
        "--pre-glob",
        "--ignore-file",
    }
)
_TAR_VALUES = _F(
    {
        "--file",
        "--directory",
        "--files-from",
        "--exclude-from",
        "--blocking-factor",
        "--listed-incremental",
        "--use-compress-program",
        "--starting-file",
        "--tape-length",
        "--newer",
        "--label",
        "--info-script",
        "--new-volume-script",
        "--format",
        "--transform",
        "--xform",
        "--exclude",
        "--owner",
        "--group",
        "--mode",
        "--mtime",
        "--to-command",
        "--checkpoint-action",
        "--rsh-command",
        "--rmt-command",
        "--index-file",
        "--volno-file",
        "--suffix",
        "--strip-components",
        "--record-size",
        "--newer-mtime",
        "--after-date",
        "--sort",
        "--warning",
        "--quoting-style",
    }
)
TAR_VALUE_LETTERS = "fCTXbgIKLNVFH"
TAR_KNOWN = _F({"--checkpoint"})
_RSYNC_VALUES = _F(
    {
        "--rsh",
        "--rsync-path",
        "--exclude",
        "--include",
        "--exclude-from",
        "--include-from",
        "--files-from",
        "--filter",
        "--log-file",
        "--log-file-format",
        "--out-format",
        "--partial-dir",
        "--temp-dir",
        "--compare-dest",
        "--copy-dest",
        "--link-dest",
        "--backup-dir",
        "--suffix",
        "--chmod",
        "--chown",
        "--usermap",
        "--groupmap",
        "--timeout",
        "--contimeout",
        "--port",
        "--password-file",
        "--write-batch",
        "--only-write-batch",
        "--read-batch",
        "--max-size",
        "--min-size",
        "--max-delete",
        "--bwlimit",
        "--block-size",
        "--modify-window",
        "--protocol",
        "--iconv",
        "--checksum-choice",
        "--compress-choice",
        "--compress-level",
        "--skip-compress",
        "--sockopts",
        "--address",
        "--remote-option",
        "--info",
        "--debug",
        "--config",
        "--outbuf",
        "--stop-after",
        "--stop-at",
    }
)
RSYNC_VALUE_LETTERS = "eBfMT@"
_OWNER_SPEC = _Spec(_F({"-L"}), _F({"-R", "--recursive"}), "", _F({"--reference", "--from"}))

SPECS: dict[str, _Spec] = {
    "grep": _Spec(
        _F({"-R", "--dereference-recursive"}),
        value_letters="efmABCdD",
        value_names=_GREP_VALUES,
        known=_F({"--binary"}),
    ),
    "rg": _Spec(_F({"-L", "--follow"}), value_letters="efgtTmABCMjdrE", value_names=_RG_VALUES),
    "du": _Spec(
        _F({"-L", "--dereference"}),
        value_letters="BdtX",
        value_names=_F(
            {
                "--block-size",
                "--max-depth",
                "--threshold",
                "--exclude",
                "--exclude-from",
                "--files0-from",
                "--time-style",
            }
        ),
        known=_F({"--time"}),
    ),
    "ls": _Spec(
        _F({"-L", "--dereference"}),
        _F({"-R", "--recursive"}),
        "ITw",
        _F(
            {
                "--ignore",
                "--hide",
                "--tabsize",
                "--width",
                "--format",
                "--sort",
                "--time",
                "--time-style",
                "--block-size",
                "--indicator-style",
                "--quoting-style",
            }
        ),
    ),
    "cp": _Spec(
        _F({"-L", "--dereference"}),
        _F({"-r", "-R", "--recursive", "-a", "--archive"}),
        "St",
        _F({"--suffix", "--target-directory", "--sparse", "--no-preserve"}),
    ),
    "tar": _Spec(
        _F({"-h", "--dereference"}), value_letters=TAR_VALUE_LETTERS, value_names=_TAR_VALUES, known=TAR_KNOWN
    ),
    "rsync": _Spec(
        _F({"-L", "--copy-links", "-k", "--copy-dirlinks", "--copy-unsafe-links", "-K", "--keep-dirlinks"}),
        value_letters=RSYNC_VALUE_LETTERS,
        value_names=_RSYNC_VALUES,
        known=_F({"--backup", "--partial", "--compress", "--checksum"}),
    ),
    "chown": _OWNER_SPEC,
    "chgrp": _OWNER_SPEC,
    "chmod": _OWNER_SPEC,
}
for _alias, _base in (("egrep", "grep"), ("fgrep", "grep"), ("gtar", "tar"), ("bsdtar", "tar")):
    SPECS[_alias] = SPECS[_base]
#: Every program this module looks at.
PROGRAMS = frozenset(SPECS) | {"find", "tree", "zip"}


def follow_facts(program: str, values: Sequence[str]) -> Explicit:
    """``(index, reason)`` for the option that makes ``program`` follow symbolic links."""
    if program == "find":
        return _find(values)
    if program == "tree":
        return _tree(values)
    if program == "zip":
        return _zip(values)
    spec = SPECS.get(program)
    if spec is None:
        return []
    start = 1
    names: list[tuple[str, int]] = []
    if program in ("tar", "gtar", "bsdtar") and len(values) > 1 and not values[1].startswith("-"):
        # old-style bundle `tar czhf out.tgz .`: every letter is an option, values follow in order
        bundle = values[1]
        names = [("-" + letter, 1) for letter in bundle]
        start = 2 + sum(1 for letter in bundle if letter in spec.value_letters)
    known = [n for n in spec.follow | spec.recurse | spec.known if n.startswith("--")]
    names += [(o.name, o.at) for o in options(values, spec.value_letters, spec.value_names, known, start=start)]
    follows = [at for name, at in names if name in spec.follow]
    if not follows or (spec.recurse and not any(name in spec.recurse for name, _ in names)):
        return []
    return [(follows[0], f"{program} {values[follows[0]]} {REASON}")]


def _find(values: Sequence[str]) -> Explicit:
    i, n = 1, len(values)
    while i < n and (values[i] in ("-H", "-L", "-P") or values[i].startswith(("-D", "-O"))):
        if values[i] in ("-H", "-L"):
            return [(i, f"find {values[i]} {REASON}")]
        i += 2 if values[i] == "-D" else 1
    for k in range(i, n):
        if values[k] == "-follow":
            return [(k, f"find -follow {REASON}")]
    return []


_TREE_VALUE_LETTERS = "LPIHTo"
_TREE_VALUE_NAMES = _F({"--filelimit", "--timefmt", "--charset", "--sort", "--hintro", "--houtro"})


def _tree(values: Sequence[str]) -> Explicit:
    """tree reads a bundle letter by letter; each letter that takes a value takes the next word."""
    skip = 0
    for k in range(1, len(values)):
        value = values[k]
        if skip:
            skip -= 1
            continue
        if value == "--":
            break
        if value.startswith("--"):
            skip = 1 if value in _TREE_VALUE_NAMES else 0
            continue
        if value.startswith("-"):
            if "l" in value[1:]:
                return [(k, f"tree {value} {REASON}")]
            skip = sum(1 for letter in value[1:] if letter in _TREE_VALUE_LETTERS)
    return []


def _zip(values: Sequence[str]) -> Explicit:
    recurse: int | None = None
    stores_links = False
    for k, value in enumerate(values[1:], start=1):
        if value.startswith("--"):
            stores_links = stores_links or is_option(value, ("--symlinks",))
            if recurse is None and is_option(value, ("--recurse-paths", "--recurse-patterns")):
                recurse = k
        elif value.startswith("-") and value != "-":
            stores_links = stores_links or "y" in value
            if recurse is None and ("r" in value or "R" in value):
                recurse = k
    if recurse is None or stores_links:
        return []
    return [(recurse, f"zip {values[recurse]} {REASON} (add -y to store them as links)")]
