"""Which words of a command are paths, and what the command does to them (seeds 4.6.5
``PATH_EXTRACTORS``).

Each command has a small spec: the flags that take a value (so the value is not mistaken for a
path), the flags whose value *is* a path, whether the first positional is a pattern or script
(``grep``, ``sed``, ``awk``, ``jq``), and what happens to the positionals (read, write, delete;
``cp``/``mv``/``ln`` write the last one). Everything after ``--`` is positional. ``cd`` joins its
arguments into one path; ``find`` collects its start points before the first expression.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.shell.path_check import Access
from bot.shell.syntax import DYN, Word


class PathUse(NamedTuple):
    #: Position of the word in the argv (``index`` is taken by ``tuple.index``).
    pos: int
    value: str
    access: Access
    word: Word


@dataclass(frozen=True, slots=True)
class Spec:
    access: Access = "read"
    #: Flags that take a separate value (``-n 5``).
    value_flags: frozenset[str] = frozenset()
    #: Flags whose value is a path, and what is done to it.
    path_flags: dict[str, Access] = field(default_factory=dict)
    #: The first positional is a pattern or a script, unless one of ``pattern_flags`` supplied it.
    pattern_first: bool = False
    pattern_flags: frozenset[str] = frozenset()
    #: ``cp``/``ln``/``install``: the last positional is written, the others read.
    last_write: bool = False
    #: ``mv``: the last positional is written, the others removed from where they are.
    last_write_others_delete: bool = False
    #: ``chmod``/``chown``: the first positional is a mode or an owner.
    first_is_not_path: bool = False
    #: ``uniq in out``, ``xxd in out``: the second positional is written.
    second_write: bool = False
    #: Flags after which every remaining word is data, not a file (``jq --args``).
    rest_not_paths: frozenset[str] = frozenset()
    #: Flags that take two values (``jq --arg name value``); a path flag's path is the second.
    two_value_flags: frozenset[str] = frozenset()


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP_VALUES = _f("-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--after-context", "--before-context",
                  "--context", "--include", "--exclude", "--exclude-dir", "--label", "-d", "--directories", "-D",
                  "--devices", "--binary-files", "--color", "--colour", "--group-separator")
_RG_VALUES = _f("-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m",
                "--max-count", "-A", "-B", "-C", "--after-context", "--before-context", "--context", "-M",
                "--max-columns", "-j", "--threads", "-d", "--max-depth", "--maxdepth", "-r", "--replace",
                "--type-add", "--type-clear", "--sort", "--sortr", "--color", "--colors", "--max-filesize",
                "-E", "--encoding", "--engine", "--context-separator", "--field-match-separator",
                "--field-context-separator", "--path-separator", "--dfa-size-limit", "--regex-size-limit",
                "--hyperlink-format", "--pre-glob", "--generate", "-V")

SPECS: dict[str, Spec] = {
    "ls": Spec(value_flags=_f("-I", "--ignore", "-w", "--width", "-T", "--tabsize", "--hide", "--sort", "--format",
                              "--time-style", "--block-size", "--indicator-style", "--quoting-style", "--time")),
    "tree": Spec(value_flags=_f("-L", "-P", "-I", "--filelimit", "-H", "--charset", "--sort", "--timefmt"),
                 path_flags={"-o": "write", "--fromfile": "read"}),
    "du": Spec(value_flags=_f("-d", "--max-depth", "--exclude", "-B", "--block-size", "-t", "--threshold",
                              "--time-style"), path_flags={"-X": "read", "--exclude-from": "read",
                                                           "--files0-from": "read"}),
    "cat": Spec(), "less": Spec(value_flags=_f("-x", "-y", "-z", "-b", "-h", "-j", "-p", "-P", "-t", "-T", "-o")),
    "more": Spec(value_flags=_f("-n")), "file": Spec(value_flags=_f("-F", "-e", "-P"),
                                                     path_flags={"-m": "read", "-f": "read", "--magic-file": "read"}),
    "head": Spec(value_flags=_f("-n", "-c", "--lines", "--bytes")),
    "tail": Spec(value_flags=_f("-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid",
                                "--max-unchanged-stats")),
    "wc": Spec(path_flags={"--files0-from": "read"}),
    "stat": Spec(value_flags=_f("-c", "--format", "--printf", "-f")),
    "nl": Spec(value_flags=_f("-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w")),
    "od": Spec(value_flags=_f("-A", "-j", "-N", "-t", "-w", "-S")),
    "hexdump": Spec(value_flags=_f("-e", "-n", "-s"), path_flags={"-f": "read"}),
    "xxd": Spec(value_flags=_f("-s", "-l", "-c", "-g", "-o", "-n", "-C"), second_write=True),
    "strings": Spec(value_flags=_f("-n", "-t", "-e", "--bytes", "--radix", "--encoding")),
    "md5sum": Spec(), "sha1sum": Spec(), "sha256sum": Spec(), "sha512sum": Spec(), "cksum": Spec(),
    "base64": Spec(value_flags=_f("-w", "--wrap"), path_flags={"-o": "write", "--output": "write",
                                                               "-i": "read", "--input": "read"}),
    "sort": Spec(value_flags=_f("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel",
                                "--batch-size", "--compress-program", "--random-source"),
                 path_flags={"-o": "write", "--output": "write", "-T": "write", "--temporary-directory": "write",
                             "--files0-from": "read"}),
    "uniq": Spec(value_flags=_f("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"),
                 second_write=True),
    "cut": Spec(value_flags=_f("-d", "-f", "-b", "-c", "--delimiter", "--fields", "--bytes", "--characters",
                               "--output-delimiter")),
    "paste": Spec(value_flags=_f("-d", "--delimiters")),
    "comm": Spec(value_flags=_f("--output-delimiter")),
    "diff": Spec(value_flags=_f("-U", "-C", "--label", "-x", "--exclude", "-I", "--ignore-matching-lines",
                                "-F", "--show-function-line", "--line-format", "--old-line-format",
                                "--new-line-format", "--unchanged-line-format", "-W", "--width", "--tabsize",
                                "--color", "--palette"),
                 path_flags={"-X": "read", "--exclude-from": "read", "--from-file": "read", "--to-file": "read"}),
    "cmp": Spec(value_flags=_f("-n", "-i", "--bytes", "--ignore-initial")),
    "grep": Spec(value_flags=_GREP_VALUES, path_flags={"-f": "read", "--file": "read", "--exclude-from": "read"},
                 pattern_first=True, pattern_flags=_f("-e", "--regexp", "-f", "--file")),
    "rg": Spec(value_flags=_RG_VALUES, path_flags={"-f": "read", "--file": "read", "--ignore-file": "read"},
               pattern_first=True, pattern_flags=_f("-e", "--regexp", "-f", "--file", "--files", "--type-list")),
    "sed": Spec(value_flags=_f("-e", "--expression", "-l", "--line-length"),
                path_flags={"-f": "read", "--file": "read"}, pattern_first=True,
                pattern_flags=_f("-e", "--expression", "-f", "--file")),
    "awk": Spec(value_flags=_f("-v", "-F", "--assign", "--field-separator", "-e", "--source"),
                path_flags={"-f": "read", "--file": "read"}, pattern_first=True,
                pattern_flags=_f("-f", "--file", "-e", "--source")),
    "jq": Spec(value_flags=_f("--indent", "-L", "--library-path"),
               two_value_flags=_f("--arg", "--argjson", "--slurpfile", "--rawfile"),
               path_flags={"-f": "read", "--from-file": "read", "--slurpfile": "read", "--rawfile": "read"},
               pattern_first=True, pattern_flags=_f("-f", "--from-file"),
               rest_not_paths=_f("--args", "--jsonargs")),
    "touch": Spec("write", value_flags=_f("-d", "--date", "-t"), path_flags={"-r": "read", "--reference": "read"}),
    "mkdir": Spec("write", value_flags=_f("-m", "--mode", "--context")),
    "rmdir": Spec("delete"), "rm": Spec("delete"), "unlink": Spec("delete"),
    "shred": Spec("delete", value_flags=_f("-n", "-s")),
    "mv": Spec("write", value_flags=_f("-S", "--suffix"), path_flags={"-t": "write", "--target-directory": "write"},
               last_write_others_delete=True),
    "cp": Spec("write", value_flags=_f("-S", "--suffix"), path_flags={"-t": "write", "--target-directory": "write"},
               last_write=True),
    "install": Spec("write", value_flags=_f("-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"),
                    path_flags={"-t": "write", "--target-directory": "write"}, last_write=True),
    "ln": Spec("write", value_flags=_f("-S", "--suffix"), path_flags={"-t": "write", "--target-directory": "write"},
               last_write=True),
    "chmod": Spec("write", first_is_not_path=True), "chown": Spec("write", first_is_not_path=True),
    "chgrp": Spec("write", first_is_not_path=True),
    "tee": Spec("write"),
    "truncate": Spec("write", value_flags=_f("-s", "--size"), path_flags={"-r": "read", "--reference": "read"}),
    "readlink": Spec(), "realpath": Spec(path_flags={"--relative-to": "read", "--relative-base": "read"}),
    "dirname": Spec(), "basename": Spec(value_flags=_f("-s", "--suffix")),
}
for _alias, _base in (("egrep", "grep"), ("fgrep", "grep"), ("gawk", "awk"), ("mawk", "awk"), ("nawk", "awk"),
                      ("gsed", "sed"), ("gojq", "jq"), ("zcat", "cat"), ("bat", "cat"), ("batcat", "cat")):
    SPECS[_alias] = SPECS[_base]
# dirname/basename only compute strings; listing them keeps `dirname /etc/x` from being a false
# "outside" (they are read-only and harmless), so their positionals are not checked.
_STRING_ONLY = frozenset({"dirname", "basename"})


def has_extractor(program: str) -> bool:
    return program in SPECS or program in ("cd", "pushd", "find", "tar", "dd")


def path_uses(argv: Sequence[Word]) -> list[PathUse]:
    """The path arguments of one simple command (empty for commands without an extractor)."""
    if not argv:
        return []
    program = argv[0].value.rsplit("/", 1)[-1]
    if program in ("cd", "pushd"):
        return _cd(argv)
    if program == "find":
        return _find(argv)
    if program == "tar":
        return _tar(argv)
    if program == "dd":
        return [PathUse(i, w.value[3:], "read" if w.value.startswith("if=") else "write", w)
                for i, w in enumerate(argv) if w.value.startswith(("if=", "of="))]
    spec = SPECS.get(program)
    if spec is None or program in _STRING_ONLY:
        return []
    return _generic(argv, spec, program)


def _generic(argv: Sequence[Word], spec: Spec, program: str) -> list[PathUse]:
    uses: list[PathUse] = []
    positionals: list[tuple[int, Word]] = []
    pattern_given = False
    i, n = 1, len(argv)
    dashdash = False
    while i < n:
        word = argv[i]
        value = word.value
        if dashdash or not value.startswith("-") or value == "-":
            if program in ("awk", "gawk", "mawk", "nawk") and _is_awk_assignment(value) and positionals:
                i += 1
                continue
            positionals.append((i, word))
            i += 1
            continue
        if value == "--":
            dashdash = True
            i += 1
            continue
        if value in spec.rest_not_paths:
            break
        name, eq, attached = value.partition("=")
        if not eq and not value.startswith("--") and len(value) > 2 and value[:2] in spec.path_flags:
            name, attached, eq = value[:2], value[2:], "="  # -ofile
        if name in spec.pattern_flags:
            pattern_given = True
        if name in spec.two_value_flags:
            if name in spec.path_flags and i + 2 < n:
                uses.append(PathUse(i + 2, argv[i + 2].value, spec.path_flags[name], argv[i + 2]))
            i += 3
            continue
        if name in spec.path_flags:
            if eq:
                uses.append(PathUse(i, attached, spec.path_flags[name], word))
                i += 1
            elif i + 1 < n:
                uses.append(PathUse(i + 1, argv[i + 1].value, spec.path_flags[name], argv[i + 1]))
                i += 2
            else:
                i += 1
            continue
        if name in spec.value_flags and not eq:
            i += 2
            continue
        i += 1
    if spec.pattern_first and not pattern_given and positionals:
        positionals = positionals[1:]
    if spec.first_is_not_path and positionals and not any(w.value.startswith("--reference") for w in argv):
        positionals = positionals[1:]
    last = len(positionals) - 1
    for k, (index, word) in enumerate(positionals):
        access = spec.access
        if spec.last_write and len(positionals) > 1:
            access = "write" if k == last else "read"
        elif spec.last_write_others_delete and len(positionals) > 1:
            access = "write" if k == last else "delete"
        elif spec.second_write:
            access = "write" if k == 1 else "read"
        if word.value == "-":
            continue
        uses.append(PathUse(index, word.value, access, word))
    return uses


def _is_awk_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.isidentifier()


def _cd(argv: Sequence[Word]) -> list[PathUse]:
    args = [(i, w) for i, w in enumerate(argv[1:], start=1) if w.value not in ("-L", "-P", "-e", "-@")]
    if not args:
        return [PathUse(0, "~", "cd", argv[0])]
    index, word = args[0]
    value = " ".join(w.value for _, w in args) if len(args) > 1 else word.value
    return [PathUse(index, value, "cd", word)]


_FIND_OPTIONS = frozenset({"-H", "-L", "-P"})
_FIND_READ = frozenset({"-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"})
_FIND_WRITE = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})


def _find(argv: Sequence[Word]) -> list[PathUse]:
    uses: list[PathUse] = []
    i, n = 1, len(argv)
    while i < n and (argv[i].value in _FIND_OPTIONS or argv[i].value.startswith(("-D", "-O"))):
        i += 2 if argv[i].value == "-D" else 1
    deletes = any(w.value == "-delete" for w in argv)
    starts = 0
    while i < n and not argv[i].value.startswith(("-", "(", "!", ")", ",")):
        uses.append(PathUse(i, argv[i].value, "purge" if deletes else "read", argv[i]))
        starts += 1
        i += 1
    if starts == 0:
        uses.append(PathUse(0, ".", "purge" if deletes else "read", argv[0]))
    while i < n:
        value = argv[i].value
        if value.startswith("-newer") and len(value) > 6 and value not in _FIND_READ:
            value = "-newer"  # -newerXY reference
        if (value in _FIND_READ or value in _FIND_WRITE) and i + 1 < n:
            access: Access = "read" if value in _FIND_READ else "write"
            uses.append(PathUse(i + 1, argv[i + 1].value, access, argv[i + 1]))
            i += 2
            continue
        i += 1
    return uses


def _tar(argv: Sequence[Word]) -> list[PathUse]:
    """``tar``: the archive (``-f``) is read when extracting/listing and written when creating; ``-C``
    is where extraction writes; member names given on the command line are read when creating."""
    uses: list[PathUse] = []
    mode = ""
    creating = False
    i, n = 1, len(argv)
    members: list[tuple[int, Word]] = []
    archive: tuple[int, Word] | None = None
    chdir: tuple[int, Word] | None = None
    first = True
    while i < n:
        value = argv[i].value
        bundled = first and not value.startswith("-") and value.isalpha()
        if bundled or (value.startswith("-") and not value.startswith("--")):
            letters = value.lstrip("-")
            mode = mode or next((c for c in letters if c in "cxtru"), "")
            if "f" in letters:
                rest = letters[letters.index("f") + 1:]
                if rest and not bundled:
                    archive = (i, Word(rest, rest))
                elif i + 1 < n:
                    archive = (i + 1, argv[i + 1])
                    i += 1
            if value in ("-C",) and i + 1 < n:
                chdir = (i + 1, argv[i + 1])
                i += 1
        elif value.startswith("--"):
            name, eq, attached = value.partition("=")
            if name in ("--file", "--directory"):
                target = (i, Word(attached, attached)) if eq else ((i + 1, argv[i + 1]) if i + 1 < n else None)
                if not eq:
                    i += 1
                if name == "--file":
                    archive = target
                else:
                    chdir = target
            elif name in ("--create", "--extract", "--get", "--list", "--append", "--update"):
                mode = mode or {"--create": "c", "--extract": "x", "--get": "x", "--list": "t",
                                "--append": "r", "--update": "u"}[name]
        else:
            members.append((i, argv[i]))
        first = False
        i += 1
    creating = mode in ("c", "r", "u")
    if archive is not None and archive[1].value != "-":
        uses.append(PathUse(archive[0], archive[1].value, "write" if creating else "read", archive[1]))
    if chdir is not None:
        uses.append(PathUse(chdir[0], chdir[1].value, "write" if mode == "x" else "read", chdir[1]))
    if mode == "x" and chdir is None:
        uses.append(PathUse(0, ".", "write", argv[0]))
    if creating:
        uses.extend(PathUse(index, word.value, "read", word) for index, word in members)
    return uses


def symlink_targets(words: Sequence[Word], uses: list[PathUse]) -> list[PathUse]:
    """``ln -s TARGET LINK``: a relative target is relative to the link's directory, not to the
    working directory; resolve it there so ``ln -s ../../etc x`` is seen for what it points at."""
    symbolic = any(w.value == "--symbolic" or (w.value.startswith("-") and not w.value.startswith("--")
                                                and "s" in w.value) for w in words[1:])
    writes = [u for u in uses if u.access == "write"]
    if not symbolic or not writes:
        return uses
    dest = writes[-1].value
    reads = [u for u in uses if u.access == "read"]
    if dest.endswith("/") or len(reads) > 1 or any(w.value in ("-t", "--target-directory") for w in words):
        link_dir = dest.rstrip("/") or "/"
    else:
        link_dir = dest.rsplit("/", 1)[0] if "/" in dest else "."
    return [u._replace(value=f"{link_dir}/{u.value}") if u.access == "read" and not u.value.startswith(("/", "~"))
            else u for u in uses]


def path_like_arguments(words: Sequence[Word], known: set[int]) -> list[PathUse]:
    """For programs without a path extractor: arguments that name a place outside the working
    directory (``/abs``, ``~/x``, ``../x``, ``--opt=/abs``, ``-v /host:/container``) are checked too,
    so ``zip -r out.zip ~/.ssh`` or ``docker run -v /:/host`` cannot reach outside unseen."""
    uses: list[PathUse] = []
    if not any("/" in w.value or "~" in w.value or ".." in w.value for w in words[1:]):
        return uses
    for pos, word in enumerate(words[1:], start=1):
        if pos in known:
            continue
        value = word.value
        if value.startswith("-") and "=" in value:
            value = value.split("=", 1)[1]
        if not value or "://" in value or DYN in value:
            continue
        first = value[0]
        if first == "/" or first == "~" or value == ".." or value.startswith("../"):
            uses.append(PathUse(pos, value.split(":", 1)[0] if first == "/" else value, "read", word))
    return uses
