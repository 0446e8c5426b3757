"""Path arguments of the programs that copy trees or apply changes: ``tar``, ``zip``, ``unzip``,
``rsync``, ``patch`` (seeds 4.6.5 ``PATH_EXTRACTORS``).

Their options are read as their parsers read them (:mod:`bot.shell.programs.getopt`: bundles ``-xfC``,
attached values ``-C/``, abbreviations ``--dir=``; tar's old-style first word ``xfC x.tar /``,
whose value letters take the next words in order). What is written:

* ``tar``: the archive when creating (``c``, ``r``, ``u``, ``A``, ``--delete``); the ``-C``
  directory (relative ``-C``\\ s add up) and the members named when extracting; ``-g``,
  ``--index-file``, ``--volno-file``, ``--one-top-level``. The names a ``-T`` list holds, and where
  ``-x -P`` puts absolute members, are only known at run time: an unknown place;
* ``zip``: the archive, ``-O``, ``-b``, ``--logfile-path``; ``unzip``: the ``-d`` directory
  and the members named (nothing for ``-l``, ``-t``, ``-p``, ``-Z``...);
* ``rsync``: the last operand, ``--log-file``, ``--write-batch``, ``--backup-dir``, ``--temp-dir``,
  ``--partial-dir``, ``--link-dest`` (relative ones also from the destination);
* ``patch``: the file operand, ``-o``, ``-r``, ``-B``, all under ``-d``; without a file operand the
  files come from the diff: an unknown place (unless ``--dry-run``).

Remote operands (``host:path``, ``rsync://``) are not paths here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from bot.shell.parse.syntax import DYN, Word
from bot.shell.paths.resolve import Access, unknown_place
from bot.shell.paths.use import PathUse, plain
from bot.shell.programs.getopt import Option, long_name, options

Extractor = Callable[[Sequence[Word]], list[PathUse]]


def _joined(base: str | None, value: str) -> str:
    """``value`` from the directory ``base`` (``None``: the working directory)."""
    if base is None or value.startswith(("/", "~")) or DYN in base:
        return value
    return f"{base.rstrip('/') or '/'}/{value}"


def _use(
    argv: Sequence[Word], index: int | None, value: str | None, access: Access, base: str | None = None
) -> list[PathUse]:
    if index is None or value is None or value in ("", "-"):
        return []
    return [PathUse(index, _joined(base, value), access, argv[index])]


def _unknown(argv: Sequence[Word], index: int, reason: str) -> PathUse:
    """A place only known at run time, reported at ``index``: a rule approves the command only if it
    spells it out up to that word (the last word, when no option of its own is to blame)."""
    return PathUse(index, unknown_place(reason), "read", plain(argv[index]))


# ----- tar -----------------------------------------------------------------------------------------

_TAR_VALUE_LETTERS = frozenset("bCfFgHIKLNTVX")
_TAR_VALUE_NAMES = frozenset(
    {
        "--file",
        "--directory",
        "--files-from",
        "--exclude-from",
        "--exclude",
        "--transform",
        "--xform",
        "--to-command",
        "--use-compress-program",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--index-file",
        "--listed-incremental",
        "--owner",
        "--group",
        "--mode",
        "--mtime",
        "--newer",
        "--after-date",
        "--newer-mtime",
        "--label",
        "--format",
        "--blocking-factor",
        "--record-size",
        "--tape-length",
        "--volno-file",
        "--suffix",
        "--strip-components",
        "--warning",
        "--sort",
        "--exclude-tag",
        "--exclude-tag-all",
        "--exclude-tag-under",
        "--add-file",
        "--owner-map",
        "--group-map",
        "--pax-option",
        "--quoting-style",
        "--quote-chars",
        "--no-quote-chars",
        "--xattrs-include",
        "--xattrs-exclude",
        "--hole-detection",
        "--level",
        "--exclude-ignore",
        "--exclude-ignore-recursive",
        "--starting-file",
    }
)
#: Long options without a separate value (some take an attached one): an abbreviation of one is
#: not an abbreviation of a value option.
_TAR_FLAG_NAMES = frozenset(
    {
        "--create",
        "--extract",
        "--get",
        "--list",
        "--append",
        "--update",
        "--catenate",
        "--concatenate",
        "--delete",
        "--diff",
        "--compare",
        "--one-top-level",
        "--checkpoint",
        "--backup",
        "--occurrence",
        "--atime-preserve",
        "--dereference",
        "--absolute-names",
        "--verbose",
        "--gzip",
        "--gunzip",
        "--bzip2",
        "--xz",
        "--zstd",
        "--lzip",
        "--lzma",
        "--lzop",
        "--auto-compress",
        "--keep-old-files",
        "--overwrite",
        "--to-stdout",
        "--verify",
        "--exclude-vcs",
        "--exclude-vcs-ignores",
        "--exclude-caches",
        "--null",
        "--no-null",
        "--recursion",
        "--no-recursion",
        "--totals",
        "--force-local",
        "--seek",
        "--sparse",
        "--same-owner",
        "--no-same-owner",
        "--numeric-owner",
        "--preserve-permissions",
        "--same-permissions",
        "--no-same-permissions",
        "--dry-run",
        "--test-label",
    }
)
_TAR_MODES = {
    "--create": "c",
    "--extract": "x",
    "--get": "x",
    "--list": "t",
    "--append": "r",
    "--update": "u",
    "--catenate": "A",
    "--concatenate": "A",
    "--delete": "D",
    "--diff": "d",
    "--compare": "d",
}
#: Modes that write the archive.
_TAR_WRITING = frozenset("cruAD")
_TAR_WRITES = {
    "-g": "write",
    "--listed-incremental": "write",
    "--index-file": "write",
    "--volno-file": "write",
    "--one-top-level": "write",
    "-X": "read",
    "--exclude-from": "read",
    "--add-file": "read",
}


def _tar_options(values: Sequence[str]) -> Iterable[Option]:
    """Every option of a tar command line, the old-style first word (``xfC x.tar /``) included."""
    start = 1
    if len(values) > 1 and values[1] and not values[1].startswith("-"):
        following = 2
        for letter in values[1]:
            if letter in _TAR_VALUE_LETTERS:
                has = following < len(values)
                yield Option("-" + letter, values[following] if has else None, 1, following if has else None)
                following += 1
            else:
                yield Option("-" + letter, None, 1, None)
        start = following
    yield from options(values, _TAR_VALUE_LETTERS, _TAR_VALUE_NAMES, _TAR_FLAG_NAMES, start=start)


def _tar(argv: Sequence[Word]) -> list[PathUse]:
    values = [w.value for w in argv]
    mode = ""
    archives: list[tuple[int, str]] = []
    directory: str | None = None
    #: ``(index, value, directory it is relative to)``
    members: list[tuple[int, str, str | None]] = []
    chdirs: list[tuple[int, str]] = []
    lists: list[int] = []
    absolute: int | None = None
    uses: list[PathUse] = []
    for opt in _tar_options(values):
        name = opt.name
        if not name:
            members.append((opt.at, opt.word, directory))
            continue
        if name in _TAR_MODES or (len(name) == 2 and name[1] in "cxtruAd"):
            mode = mode or _TAR_MODES.get(name, name[1])
        elif name in ("-P", "--absolute-names"):
            absolute = opt.at
        if opt.value is None or opt.value_index is None:
            continue
        if name in ("-f", "--file"):
            archives.append((opt.value_index, opt.value))
        elif name in ("-C", "--directory"):
            directory = opt.value if directory is None else _joined(directory, opt.value)
            chdirs.append((opt.value_index, directory))
        elif name in ("-T", "--files-from"):
            lists.append(opt.value_index)
            uses.extend(_use(argv, opt.value_index, opt.value, "read", directory))
        elif name in _TAR_WRITES:
            access: Access = "write" if _TAR_WRITES[name] == "write" else "read"
            uses.extend(_use(argv, opt.value_index, opt.value, access))
    extracting = mode == "x"
    creating = mode in _TAR_WRITING
    final = chdirs[-1][1] if chdirs else None
    for index, value in archives:
        uses.extend(_use(argv, index, value, "write" if creating else "read"))
    if extracting:
        uses.extend(PathUse(index, value, "write", argv[index]) for index, value in chdirs)
        if not chdirs:
            uses.append(PathUse(0, ".", "write", argv[0]))
    if creating or extracting:
        access = "read" if creating else "write"
        for index, value, base in members:
            if value == "-":
                continue
            uses.append(PathUse(index, _joined(base, value), access, argv[index]))
            if extracting and base != final:  # where -C applies to extraction: check both
                uses.append(PathUse(index, _joined(final, value), access, argv[index]))
        uses.extend(
            _unknown(
                argv,
                index,
                f"tar {'archives' if creating else 'extracts'} the files the list "
                f"{values[index]} names, only known at run time",
            )
            for index in lists
        )
    if extracting and absolute is not None:
        uses.append(
            _unknown(
                argv,
                absolute,
                "tar -P extracts members to the absolute paths the archive holds, only known at run time",
            )
        )
    return uses


# ----- zip / unzip ---------------------------------------------------------------------------------

#: zip options followed by a value (zip's own parser: whole words only).
_ZIP_VALUE_WORDS = frozenset({"-b", "-n", "-t", "-tt", "-O", "-P", "-Z", "-s", "-sp", "-TT", "-ds", "-lf", "-Y"})
_ZIP_LONG_VALUES = frozenset(
    {
        "--temp-path",
        "--suffixes",
        "--from-date",
        "--before-date",
        "--output-file",
        "--password",
        "--compression-method",
        "--split-size",
        "--unzip-command",
        "--dot-size",
        "--logfile-path",
    }
)
_ZIP_LONG_FLAGS = frozenset({"--exclude", "--include", "--names-stdin", "--recurse-paths", "--delete"})
_ZIP_WRITES = frozenset({"-b", "--temp-path", "-O", "--output-file", "-lf", "--logfile-path"})


def _zip(argv: Sequence[Word]) -> list[PathUse]:
    values = [w.value for w in argv]
    uses: list[PathUse] = []
    positionals: list[int] = []
    i, n = 1, len(values)
    listing = False  # after -x/-i: patterns up to the next option
    over = False
    while i < n:
        value = values[i]
        if over or not value.startswith("-") or value == "-":
            if not listing:
                positionals.append(i)
            i += 1
            continue
        listing = False
        if value == "--":
            over = True
            i += 1
            continue
        name, eq, attached = value.partition("=") if value.startswith("--") else (value, "", "")
        if name.startswith("--"):
            name = long_name(name, _ZIP_LONG_VALUES | _ZIP_LONG_FLAGS) or name
        if name in ("-x", "-i", "--exclude", "--include"):
            listing = True
        elif name in ("-@", "--names-stdin"):
            uses.append(_unknown(argv, i, "zip archives the files named on its standard input, only known at run time"))
        elif name in _ZIP_VALUE_WORDS or name in _ZIP_LONG_VALUES:
            index = i if eq else i + 1
            if name in _ZIP_WRITES and index < n:
                uses.extend(_use(argv, index, attached if eq else values[index], "write"))
            i = index
        elif name[:2] in ("-O", "-b") and len(name) > 2:
            uses.extend(_use(argv, i, name[2:], "write"))  # -Oout.zip
        i += 1
    for k, index in enumerate(positionals):
        uses.extend(_use(argv, index, values[index], "write" if k == 0 else "read"))
    return uses


#: Modes in which unzip writes nothing (list, test, pipe to stdout, comment, zipinfo).
_UNZIP_NO_WRITE = frozenset("lvtzZpc")


def _unzip(argv: Sequence[Word]) -> list[PathUse]:
    values = [w.value for w in argv]
    uses: list[PathUse] = []
    positionals: list[int] = []
    exdir: tuple[int, str] | None = None
    writes = True
    listing = False
    for opt in options(values, "dP"):
        if not opt.name:
            if not listing:
                positionals.append(opt.at)
            continue
        listing = opt.name == "-x"
        letter = opt.name[1:]
        if letter in _UNZIP_NO_WRITE:
            writes = False
        if letter == "d" and opt.value is not None and opt.value_index is not None:
            exdir = (opt.value_index, opt.value)
    if positionals:
        uses.extend(_use(argv, positionals[0], values[positionals[0]], "read"))
    if not writes:
        return uses
    if exdir is not None:
        uses.extend(_use(argv, exdir[0], exdir[1], "write"))
    else:
        uses.append(PathUse(0, ".", "write", argv[0]))
    base = exdir[1] if exdir is not None else None
    uses.extend(PathUse(index, _joined(base, values[index]), "write", argv[index]) for index in positionals[1:])
    return uses


# ----- rsync ---------------------------------------------------------------------------------------

_RSYNC_VALUE_LETTERS = frozenset("eBTfM@")
_RSYNC_PATHS: dict[str, Access] = {
    "--log-file": "write",
    "--write-batch": "write",
    "--only-write-batch": "write",
    "--backup-dir": "write",
    "--temp-dir": "write",
    "-T": "write",
    "--partial-dir": "write",
    "--link-dest": "write",
    "--files-from": "read",
    "--exclude-from": "read",
    "--include-from": "read",
    "--read-batch": "read",
    "--password-file": "read",
    "--early-input": "read",
    "--compare-dest": "read",
    "--copy-dest": "read",
}
#: Relative values of these are relative to the destination directory.
_RSYNC_FROM_DEST = frozenset(
    {"--backup-dir", "--temp-dir", "-T", "--partial-dir", "--link-dest", "--compare-dest", "--copy-dest"}
)
_RSYNC_VALUE_NAMES = frozenset(
    {
        "--rsh",
        "--rsync-path",
        "--block-size",
        "--suffix",
        "--chmod",
        "--chown",
        "--usermap",
        "--groupmap",
        "--max-delete",
        "--max-size",
        "--min-size",
        "--max-alloc",
        "--compress-choice",
        "--zc",
        "--compress-level",
        "--zl",
        "--skip-compress",
        "--checksum-choice",
        "--cc",
        "--filter",
        "--exclude",
        "--include",
        "--address",
        "--port",
        "--sockopts",
        "--out-format",
        "--log-file-format",
        "--bwlimit",
        "--stop-after",
        "--stop-at",
        "--protocol",
        "--iconv",
        "--checksum-seed",
        "--timeout",
        "--contimeout",
        "--modify-window",
        "--info",
        "--debug",
        "--outbuf",
        "--remote-option",
        "--copy-as",
        "--config",
        "--dparam",
    }
) | {n for n in _RSYNC_PATHS if n.startswith("--")}


def _remote(value: str) -> bool:
    """``host:path``, ``user@host:path``, ``host::module``, ``rsync://host/...``."""
    head = value.split("/", 1)[0]
    return "://" in value or (":" in head and not value.startswith(("/", ".", "~")))


def _rsync(argv: Sequence[Word]) -> list[PathUse]:
    values = [w.value for w in argv]
    operands: list[int] = []
    options_with_paths: list[tuple[Option, Access]] = []
    for opt in options(values, _RSYNC_VALUE_LETTERS, _RSYNC_VALUE_NAMES):
        if not opt.name:
            operands.append(opt.at)
        elif opt.name in _RSYNC_PATHS:
            options_with_paths.append((opt, _RSYNC_PATHS[opt.name]))
    local = [i for i in operands if not _remote(values[i])]
    dest = operands[-1] if len(operands) > 1 else None
    uses = [PathUse(i, values[i], "write" if i == dest else "read", argv[i]) for i in local]
    dest_dir = values[dest] if dest is not None and dest in local else None
    for opt, access in options_with_paths:
        uses.extend(_use(argv, opt.value_index, opt.value, access))
        if opt.name in _RSYNC_FROM_DEST and dest_dir is not None and opt.value and opt.value[0] not in "/~":
            uses.extend(_use(argv, opt.value_index, opt.value, access, dest_dir))
    return uses


# ----- patch ---------------------------------------------------------------------------------------

_PATCH_VALUE_LETTERS = frozenset("BdDFiopVrYzg")
_PATCH_PATHS: dict[str, Access] = {
    "-o": "write",
    "--output": "write",
    "-r": "write",
    "--reject-file": "write",
    "-B": "write",
    "--prefix": "write",
    "-Y": "write",
    "--basename-prefix": "write",
    "-i": "read",
    "--input": "read",
}
_PATCH_VALUE_NAMES = frozenset(
    {
        "--directory",
        "--ifdef",
        "--fuzz",
        "--strip",
        "--version-control",
        "--suffix",
        "--get",
        "--quoting-style",
        "--reject-format",
        "--read-only",
    }
) | {n for n in _PATCH_PATHS if n.startswith("--")}
_PATCH_FLAG_NAMES = frozenset(
    {
        "--dry-run",
        "--merge",
        "--backup",
        "--reverse",
        "--forward",
        "--batch",
        "--force",
        "--silent",
        "--quiet",
        "--verbose",
        "--unified",
        "--context",
        "--normal",
        "--ed",
    }
)


def _patch(argv: Sequence[Word]) -> list[PathUse]:
    values = [w.value for w in argv]
    directory: str | None = None
    d_index = 0
    operands: list[int] = []
    found: list[tuple[Option, Access]] = []
    dry_run = output = False
    for opt in options(values, _PATCH_VALUE_LETTERS, _PATCH_VALUE_NAMES, _PATCH_FLAG_NAMES):
        if not opt.name:
            operands.append(opt.at)
        elif opt.name == "--dry-run":
            dry_run = True
        elif opt.name in ("-d", "--directory") and opt.value is not None and opt.value_index is not None:
            directory = opt.value if directory is None else _joined(directory, opt.value)
            d_index = opt.value_index
        elif opt.name in _PATCH_PATHS:
            found.append((opt, _PATCH_PATHS[opt.name]))
            output = output or opt.name in ("-o", "--output")
    writes: Access = "read" if dry_run else "write"
    uses: list[PathUse] = []
    if directory is not None:
        uses.append(PathUse(d_index, directory, writes, plain(argv[d_index])))
    for opt, access in found:
        uses.extend(_use(argv, opt.value_index, opt.value, "read" if access == "read" else writes, directory))
    if operands:
        uses.extend(_use(argv, operands[0], values[operands[0]], "read" if output else writes, directory))
        for index in operands[1:2]:
            uses.extend(_use(argv, index, values[index], "read", directory))
    elif not dry_run and not output:
        uses.append(_unknown(argv, len(argv) - 1, "patch changes the files the diff names, only known at run time"))
    return uses


ARCHIVE_EXTRACTORS: dict[str, Extractor] = {
    "tar": _tar,
    "gtar": _tar,
    "bsdtar": _tar,
    "zip": _zip,
    "unzip": _unzip,
    "rsync": _rsync,
    "patch": _patch,
}
