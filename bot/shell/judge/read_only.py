"""Read-only classification of a command (seeds 4.6.8), for ``is_read_only`` and
``is_concurrency_safe``.

The seeds' categories — search (``find``, ``grep``, ``rg``...), read (``cat``, ``head``, ``jq``...),
list (``ls``, ``tree``, ``du``) and semantically neutral (``echo``, ``printf``, ``true``, ``false``,
``:``) — extended with other commands that only read (``wc``, ``stat``, ``git status``...). A command
is read-only when every subcommand is, none writes through an option or a redirection (``/dev/null``
excepted), none launches another program, and the parse is "simple". Plan mode relies on this, so
it errs on "not read-only". Concurrency-safe additionally excludes ``cd``: it changes the shell's
directory for the calls that follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from bot.shell.judge.security_checks import text_findings
from bot.shell.launch.wrappers import unwrap
from bot.shell.parse.syntax import Parsed, SimpleCommand, Word
from bot.shell.parse.walk import parse_command
from bot.shell.programs.awk import awk_facts
from bot.shell.programs.flags import git_subcommand_index, program_facts


class Category(Enum):
    SEARCH = "search"
    READ = "read"
    LIST = "list"
    NEUTRAL = "neutral"


SEARCH_COMMANDS = frozenset(
    {"find", "grep", "egrep", "fgrep", "rg", "ag", "ack", "locate", "which", "whereis", "fd", "fdfind"}
)
READ_COMMANDS = frozenset(
    {
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "wc",
        "stat",
        "file",
        "jq",
        "awk",
        "cut",
        "sort",
        "uniq",
        "tr",
        "nl",
        "od",
        "hexdump",
        "xxd",
        "strings",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "cksum",
        "diff",
        "cmp",
        "comm",
        "paste",
        "column",
        "fmt",
        "fold",
        "rev",
        "tac",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "sed",
        "base64",
        "numfmt",
        "expr",
        "seq",
        "getconf",
        "tsort",
        "pr",
        "date",
        "uname",
        "whoami",
        "id",
        "hostname",
        "env",
        "printenv",
        "pwd",
        "type",
        "command",
        "lsof",
        "pgrep",
        "ps",
        "tput",
        "ss",
        "df",
        "free",
        "uptime",
        "nproc",
        "arch",
        "groups",
        "test",
        "[",
        "[[",
    }
)
LIST_COMMANDS = frozenset({"ls", "tree", "du", "dir", "vdir"})
NEUTRAL_COMMANDS = frozenset({"echo", "printf", "true", "false", ":"})
GIT_READ_ONLY = frozenset(
    {
        "status",
        "log",
        "diff",
        "show",
        "blame",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "cat-file",
        "describe",
        "shortlog",
        "grep",
        "rev-list",
        "merge-base",
        "name-rev",
        "for-each-ref",
        "show-ref",
        "count-objects",
        "whatchanged",
        "reflog",
        "version",
    }
)
_GIT_LIST_ONLY = {
    "branch": frozenset(
        {
            "--list",
            "-l",
            "-a",
            "--all",
            "-r",
            "--remotes",
            "-v",
            "-vv",
            "--verbose",
            "--show-current",
            "--merged",
            "--no-merged",
            "--contains",
        }
    ),
    "tag": frozenset({"-l", "--list", "-n", "--contains", "--merged", "--points-at"}),
    "remote": frozenset({"-v", "--verbose", "show", "get-url"}),
    "stash": frozenset({"list", "show"}),
    "config": frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"}),
}


def category(argv: Sequence[Word]) -> Category | None:
    """The seeds' category of one simple command, or ``None`` when it is not read-only."""
    if not argv:
        return Category.NEUTRAL
    program = argv[0].value.rsplit("/", 1)[-1]
    if program in NEUTRAL_COMMANDS:
        return Category.NEUTRAL
    if program == "git":
        return Category.READ if _git_read_only(argv) else None
    if any(i.argv is not None or i.script is not None or i.kind == "opaque" for i in unwrap(argv)):
        return None
    if program_facts(argv).explicit or (program in ("awk", "gawk") and awk_facts(argv)):
        return None
    if _writes(program, [w.value.split("=", 1)[0] for w in argv[1:]]):
        return None
    if program in SEARCH_COMMANDS:
        return Category.SEARCH
    if program in LIST_COMMANDS:
        return Category.LIST
    if program in READ_COMMANDS:
        return Category.READ
    return None


_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _writes(program: str, options: list[str]) -> bool:
    """Options that make a reading program write (``sed -i``, ``sort -o``, ``find -delete``...)."""
    if program in ("sed", "gsed"):
        return any(o.startswith("-i") or o == "--in-place" for o in options)
    if program == "sort":
        return any(o == "--output" or o.startswith("-o") for o in options)
    if program == "find":
        return any(o in _FIND_WRITES for o in options)
    if program == "tree":
        return "-o" in options
    return False


def _git_read_only(argv: Sequence[Word]) -> bool:
    if program_facts(argv).explicit:
        return False
    sub = git_subcommand_index(argv)
    if sub is None:
        return False
    command = argv[sub].value
    args = [w.value for w in argv[sub + 1 :]]
    if any(a.startswith(("--output", "--ext-diff", "-O", "--open-files-in-pager")) for a in args):
        return False
    if command in GIT_READ_ONLY:
        return True
    allowed = _GIT_LIST_ONLY.get(command)
    if allowed is None:
        return False
    if command == "stash":
        return bool(args) and args[0] in allowed
    if command == "config":
        return any(a in allowed for a in args)
    flags = [a for a in args if a.startswith("-")]
    positionals = [a for a in args if not a.startswith("-")]
    if command == "remote":
        return not args or all(a in allowed for a in args[:1])
    return (not positionals or bool(flags)) and all(f in allowed or f.startswith("--format") for f in flags)


def read_only_commands(command: str) -> tuple[SimpleCommand, ...] | None:
    """The simple commands of ``command`` when all are read-only, else ``None``."""
    if text_findings(command) is not None:
        return None
    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return None
    commands = outcome.commands
    for cmd in commands:
        if cmd.kind in ("assign", "declare", "unset"):
            return None
        for redirect in cmd.redirects:
            if redirect.writes_file and (redirect.target is None or redirect.target.value != "/dev/null"):
                return None
            if redirect.op in ("<>",):
                return None
        if any(w.dynamic for w in cmd.argv[1:]) and cmd.program not in NEUTRAL_COMMANDS:
            return None
        if cmd.kind == "command" and cmd.program not in ("cd",) and category(cmd.argv) is None:
            return None
    return commands


def is_read_only(command: str) -> bool:
    return read_only_commands(command) is not None


def is_concurrency_safe(command: str) -> bool:
    commands = read_only_commands(command)
    return commands is not None and not any(c.program in ("cd", "pushd", "popd") for c in commands)


def is_search_or_read(command: str) -> Category | None:
    """The seeds' collapsing category for a display (``Searched``/``Read``/``Listed``), neutral
    commands skipped; ``None`` when any part is not search/read/list."""
    commands = read_only_commands(command)
    if commands is None:
        return None
    kinds = [category(c.argv) for c in commands if c.kind == "command" and c.program != "cd"]
    kinds = [k for k in kinds if k is not Category.NEUTRAL]
    if not kinds:
        return None
    for wanted in (Category.SEARCH, Category.READ, Category.LIST):
        if wanted in kinds:
            return wanted
    return None
