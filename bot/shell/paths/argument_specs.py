"""The path specs of the programs :mod:`bot.shell.paths.arguments` reads: for each, the options
that take a value, the options whose value is a path and what is done to it, and what its
positionals are (read, written, removed; a pattern or script first)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.shell.paths.resolve import Access


@dataclass(frozen=True, slots=True)
class Spec:
    access: Access = "read"
    #: Options that take a value (``-n 5``, ``-n5``, ``--lines=5``, ``--lines 5``).
    value_flags: frozenset[str] = frozenset()
    #: Options whose value is a path, and what is done to it.
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
    #: Options after which every remaining word is data, not a file (``jq --args``).
    rest_not_paths: frozenset[str] = frozenset()
    #: Options that take two values (``jq --arg name value``); a path option's path is the second.
    two_value_flags: frozenset[str] = frozenset()
    #: Long options without a separate value (a flag, or an optional value only attached:
    #: ``--color[=WHEN]``) that an abbreviation must resolve to (``du --time`` is not
    #: ``--time-style``; ``cp --li`` is ``--link``).
    flag_names: frozenset[str] = frozenset()


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP_VALUES = _f(
    "-e",
    "--regexp",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--after-context",
    "--before-context",
    "--context",
    "--include",
    "--exclude",
    "--exclude-dir",
    "--label",
    "-d",
    "--directories",
    "-D",
    "--devices",
    "--binary-files",
    "--group-separator",
)
_RG_VALUES = _f(
    "-e",
    "--regexp",
    "-g",
    "--glob",
    "--iglob",
    "-t",
    "--type",
    "-T",
    "--type-not",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--after-context",
    "--before-context",
    "--context",
    "-M",
    "--max-columns",
    "-j",
    "--threads",
    "-d",
    "--max-depth",
    "--maxdepth",
    "-r",
    "--replace",
    "--type-add",
    "--type-clear",
    "--sort",
    "--sortr",
    "--color",
    "--colors",
    "--max-filesize",
    "-E",
    "--encoding",
    "--engine",
    "--context-separator",
    "--field-match-separator",
    "--field-context-separator",
    "--path-separator",
    "--dfa-size-limit",
    "--regex-size-limit",
    "--hyperlink-format",
    "--pre-glob",
    "--generate",
    "-V",
)

SPECS: dict[str, Spec] = {
    "ls": Spec(
        value_flags=_f(
            "-I",
            "--ignore",
            "-w",
            "--width",
            "-T",
            "--tabsize",
            "--hide",
            "--sort",
            "--format",
            "--time-style",
            "--block-size",
            "--indicator-style",
            "--quoting-style",
            "--time",
        )
    ),
    "tree": Spec(
        value_flags=_f("-L", "-P", "-I", "--filelimit", "-H", "--charset", "--sort", "--timefmt"),
        path_flags={"-o": "write", "--fromfile": "read"},
    ),
    "du": Spec(
        value_flags=_f("-d", "--max-depth", "--exclude", "-B", "--block-size", "-t", "--threshold", "--time-style"),
        path_flags={"-X": "read", "--exclude-from": "read", "--files0-from": "read"},
        flag_names=_f("--time"),
    ),
    "cat": Spec(),
    "less": Spec(
        value_flags=_f("-x", "-y", "-z", "-b", "-h", "-j", "-p", "-P", "-t", "-T"),
        path_flags={"-o": "write", "-O": "write", "--log-file": "write", "--LOG-FILE": "write"},
    ),
    "more": Spec(value_flags=_f("-n")),
    "file": Spec(value_flags=_f("-F", "-e", "-P"), path_flags={"-m": "read", "-f": "read", "--magic-file": "read"}),
    "head": Spec(value_flags=_f("-n", "-c", "--lines", "--bytes")),
    "tail": Spec(
        value_flags=_f("-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats")
    ),
    "wc": Spec(path_flags={"--files0-from": "read"}),
    "stat": Spec(value_flags=_f("-c", "--format", "--printf", "-f")),
    "nl": Spec(value_flags=_f("-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w")),
    "od": Spec(value_flags=_f("-A", "-j", "-N", "-t", "-w", "-S")),
    "hexdump": Spec(value_flags=_f("-e", "-n", "-s"), path_flags={"-f": "read"}),
    "xxd": Spec(value_flags=_f("-s", "-l", "-c", "-g", "-o", "-n", "-C"), second_write=True),
    "strings": Spec(value_flags=_f("-n", "-t", "-e", "--bytes", "--radix", "--encoding")),
    "md5sum": Spec(),
    "sha1sum": Spec(),
    "sha256sum": Spec(),
    "sha512sum": Spec(),
    "cksum": Spec(),
    "base64": Spec(
        value_flags=_f("-w", "--wrap"), path_flags={"-o": "write", "--output": "write", "-i": "read", "--input": "read"}
    ),
    "sort": Spec(
        value_flags=_f(
            "-k",
            "--key",
            "-t",
            "--field-separator",
            "-S",
            "--buffer-size",
            "--parallel",
            "--batch-size",
            "--compress-program",
        ),
        path_flags={
            "-o": "write",
            "--output": "write",
            "-T": "write",
            "--temporary-directory": "write",
            "--files0-from": "read",
            "--random-source": "read",
        },
        flag_names=_f("--random-sort"),
    ),
    "uniq": Spec(value_flags=_f("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"), second_write=True),
    "cut": Spec(
        value_flags=_f(
            "-d", "-f", "-b", "-c", "--delimiter", "--fields", "--bytes", "--characters", "--output-delimiter"
        )
    ),
    "paste": Spec(value_flags=_f("-d", "--delimiters")),
    "comm": Spec(value_flags=_f("--output-delimiter")),
    "diff": Spec(
        value_flags=_f(
            "-U",
            "-C",
            "--label",
            "-x",
            "--exclude",
            "-I",
            "--ignore-matching-lines",
            "-F",
            "--show-function-line",
            "--line-format",
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
            "-W",
            "--width",
            "--tabsize",
            "--palette",
        ),
        path_flags={"-X": "read", "--exclude-from": "read", "--from-file": "read", "--to-file": "read"},
        flag_names=_f("--color"),
    ),
    "cmp": Spec(value_flags=_f("-n", "-i", "--bytes", "--ignore-initial")),
    "grep": Spec(
        value_flags=_GREP_VALUES,
        path_flags={"-f": "read", "--file": "read", "--exclude-from": "read"},
        pattern_first=True,
        pattern_flags=_f("-e", "--regexp", "-f", "--file"),
        flag_names=_f("--binary", "--files-with-matches", "--files-without-match", "--color", "--colour"),
    ),
    "rg": Spec(
        value_flags=_RG_VALUES,
        path_flags={"-f": "read", "--file": "read", "--ignore-file": "read"},
        pattern_first=True,
        pattern_flags=_f("-e", "--regexp", "-f", "--file", "--files", "--type-list"),
    ),
    # ag and ack, like rg: the first positional is the pattern, the directory defaults to `.`
    "ag": Spec(
        value_flags=_f(
            "-A",
            "-B",
            "-C",
            "-G",
            "-g",
            "-m",
            "-p",
            "-W",
            "--ignore",
            "--ignore-dir",
            "--file-search-regex",
            "--max-count",
            "--path-to-ignore",
            "--depth",
            "--width",
            "--pager",
            "--after",
            "--before",
            "--context",
        ),
        path_flags={"-p": "read", "--path-to-ignore": "read"},
        pattern_first=True,
        pattern_flags=_f("-g"),
    ),
    "ack": Spec(
        value_flags=_f(
            "-A",
            "-B",
            "-C",
            "-m",
            "-t",
            "--type",
            "--match",
            "--output",
            "--ignore-dir",
            "--noignore-dir",
            "--ignore-file",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--pager",
        ),
        pattern_first=True,
        pattern_flags=_f("--match", "-f", "-g"),
    ),
    "sed": Spec(
        value_flags=_f("-e", "--expression", "-l", "--line-length"),
        path_flags={"-f": "read", "--file": "read"},
        pattern_first=True,
        pattern_flags=_f("-e", "--expression", "-f", "--file"),
    ),
    "awk": Spec(
        value_flags=_f("-v", "-F", "--assign", "--field-separator", "-e", "--source"),
        path_flags={"-f": "read", "--file": "read"},
        pattern_first=True,
        pattern_flags=_f("-f", "--file", "-e", "--source"),
    ),
    "jq": Spec(
        value_flags=_f("--indent", "-L", "--library-path"),
        two_value_flags=_f("--arg", "--argjson", "--slurpfile", "--rawfile"),
        path_flags={"-f": "read", "--from-file": "read", "--slurpfile": "read", "--rawfile": "read"},
        pattern_first=True,
        pattern_flags=_f("-f", "--from-file"),
        rest_not_paths=_f("--args", "--jsonargs"),
    ),
    "touch": Spec("write", value_flags=_f("-d", "--date", "-t"), path_flags={"-r": "read", "--reference": "read"}),
    "mkdir": Spec("write", value_flags=_f("-m", "--mode"), flag_names=_f("--context")),
    "rmdir": Spec("delete"),
    "rm": Spec("delete"),
    "unlink": Spec("delete"),
    "shred": Spec("delete", value_flags=_f("-n", "-s")),
    "mv": Spec(
        "write",
        value_flags=_f("-S", "--suffix"),
        path_flags={"-t": "write", "--target-directory": "write"},
        last_write_others_delete=True,
    ),
    "cp": Spec(
        "write",
        value_flags=_f("-S", "--suffix"),
        path_flags={"-t": "write", "--target-directory": "write"},
        last_write=True,
        flag_names=_f("--link", "--symbolic-link", "--no-target-directory"),
    ),
    "install": Spec(
        "write",
        value_flags=_f("-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"),
        path_flags={"-t": "write", "--target-directory": "write"},
        last_write=True,
    ),
    "ln": Spec(
        "write",
        value_flags=_f("-S", "--suffix"),
        path_flags={"-t": "write", "--target-directory": "write"},
        last_write=True,
        flag_names=_f("--symbolic", "--no-target-directory", "--relative"),
    ),
    "chmod": Spec("write", first_is_not_path=True),
    "chown": Spec("write", first_is_not_path=True),
    "chgrp": Spec("write", first_is_not_path=True),
    "tee": Spec("write"),
    "truncate": Spec("write", value_flags=_f("-s", "--size"), path_flags={"-r": "read", "--reference": "read"}),
    "readlink": Spec(),
    "realpath": Spec(path_flags={"--relative-to": "read", "--relative-base": "read"}),
    "dirname": Spec(),
    "basename": Spec(value_flags=_f("-s", "--suffix")),
}
for _alias, _base in (
    ("egrep", "grep"),
    ("fgrep", "grep"),
    ("gawk", "awk"),
    ("mawk", "awk"),
    ("nawk", "awk"),
    ("gsed", "sed"),
    ("gojq", "jq"),
    ("zcat", "cat"),
    ("bat", "cat"),
    ("batcat", "cat"),
):
    SPECS[_alias] = SPECS[_base]
