"""git's options that run programs, read configuration or name files.

git reads its *global* options (``git -C dir -c k=v log``) with exact comparisons: no bundles, no
attached values, no abbreviations, and an unknown one is an error. The analysis knows them all, so
an option it does not know (a newer git's ``--attr-source``, a typo) makes the subcommand unknown:
:func:`git_subcommand_position` returns ``None`` and the option must be spelled out by a rule —
otherwise ``git --shallow-file log push`` would be matched as ``git log``.

The subcommands read their options with parse-options: short bundles (``git rebase -fx CMD``,
``git grep -iOcmd``), attached values and abbreviated long options (``--upload-pa=``) — read here
with :mod:`bot.shell.programs.getopt`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use
from bot.shell.programs.getopt import Option, long_name, options, short_letters
from bot.shell.programs.git_globals import GIT_GLOBAL_FLAGS, GIT_GLOBAL_VALUE

#: Global options whose value is only ever attached (``--list-cmds=main``, ``--exec-path=dir``).
_GIT_GLOBAL_ATTACHED = frozenset({"--list-cmds", "--exec-path"})
#: Words git reads as the ``help``/``version`` command.
_GIT_AS_COMMAND = frozenset({"-h", "--help", "-v", "--version"})
#: ``git -c`` / ``git config`` keys that cannot make git run a program.
GIT_SAFE_KEYS = re.compile(
    r"^(?:user\.(?:name|email|signingkey)|color\.[a-z.]+|advice\.[a-z]+|core\.(?:quotepath|autocrlf|safecrlf|abbrev"
    r"|eol|filemode|ignorecase|longpaths|symlinks|precomposeunicode)|init\.defaultbranch|(?:commit|tag)\.gpgsign"
    r"|push\.(?:default|autosetupremote|followtags)|pull\.(?:rebase|ff)|fetch\.(?:prune|prunetags|parallel)"
    r"|merge\.(?:ff|conflictstyle)|rebase\.(?:autosquash|autostash|updaterefs)|diff\.(?:noprefix|renames"
    r"|algorithm|colormoved)|column\.ui|protocol\.version|gc\.auto|maintenance\.auto|status\.showuntrackedfiles"
    r"|safe\.directory|http\.(?:sslverify|postbuffer|version)|log\.(?:date|decorate|showsignature)|branch\.sort"
    r"|submodule\.recurse|feature\.manyfiles|index\.version|checkout\.workers|credential\.usehttppath)$"
)
#: Subcommand options that make git run a program (any subcommand: over-approximate).
_GIT_EXEC_OPTIONS = frozenset(
    {
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--ext-diff",
        "--template",
        "--open-files-in-pager",
        "--sendmail-cmd",
        "--smtp-server",
        "--extcmd",
        "--config-env",
        "--exec-path",
        # send-email runs these to find recipients and headers; instaweb starts its server and browser
        "--to-cmd",
        "--cc-cmd",
        "--header-cmd",
        "--httpd",
        "--browser",
    }
)
#: Subcommand options whose value is a file git writes or reads.
_GIT_WRITE_OPTIONS = frozenset({"--output", "--output-directory", "--separate-git-dir"})
_GIT_READ_OPTIONS = {"--file": frozenset({"commit", "tag", "notes", "merge"}), "--contents": frozenset({"blame"})}
_GIT_CONFIG_OPTIONS = frozenset({"--config"})
#: ``git apply --unsafe-paths``: the patch decides which paths outside the work tree are written.
_GIT_UNSAFE_PATHS = "--unsafe-paths"
_GIT_LONG_NAMES = (
    _GIT_EXEC_OPTIONS | _GIT_WRITE_OPTIONS | frozenset(_GIT_READ_OPTIONS) | _GIT_CONFIG_OPTIONS | {_GIT_UNSAFE_PATHS}
)
_GIT_EXACT_ONLY = frozenset({"--ext-diff"})
#: Options of their own that abbreviate one above (``send-email --to``, ``rev-list --header``).
_GIT_OWN_PREFIXES = frozenset({"--to", "--cc", "--header"})
#: Long options among those that take a separate value (``--output x``).
_GIT_LONG_VALUE = _GIT_LONG_NAMES - {"--ext-diff", "--open-files-in-pager", "--exec-path"}
#: Short letters that take a value, per subcommand: enough to decode a bundle (``-iOcmd``, ``-fx CMD``).
_GIT_SHORT_VALUES = {
    "grep": "efmABCO",
    "clone": "bocuj",
    "commit": "mFcCtS",
    "tag": "mFu",
    "notes": "mFcC",
    "merge": "mFsXS",
    "rebase": "xsXCS",
    "archive": "o",
    "format-patch": "ov",
    "fetch": "jo",
    "pull": "jo",
    "ls-remote": "u",
    "instaweb": "dmpb",
    "log": "LSGn",
    "checkout": "bBU",
    "restore": "s",
}
#: ``git instaweb -d HTTPD`` and ``-b BROWSER`` start the program they name.
_GIT_INSTAWEB_PROGRAMS = frozenset("db")
_CAT_FILE_BATCH = frozenset({"--batch", "--batch-command"})
#: Subcommands whose pathspecs are files they overwrite from the index or a commit.
_GIT_PATH_WRITERS = frozenset({"checkout", "restore"})
_GIT_UPLOAD_PACK_SHORT = frozenset({"clone", "fetch", "pull", "ls-remote", "archive"})
_GIT_EXPLICIT_SUBCOMMANDS = frozenset(
    {"filter-branch", "difftool", "mergetool", "send-email", "instaweb", "daemon", "credential-helper", "web--browse"}
)


def git_subcommand_index(argv: Sequence[Word]) -> int | None:
    """Index of git's subcommand, skipping global options (``git -C x -c k=v log`` → 5); ``None``
    when there is none or a global option is not known (see the module docstring)."""
    return git_subcommand_position([w.value for w in argv])


def git_subcommand_position(values: Sequence[str]) -> int | None:
    """:func:`git_subcommand_index` on plain strings."""
    return _git_globals(values)[1]


def _git_globals(values: Sequence[str]) -> tuple[list[Option], int | None, int | None]:
    """git's global options, the subcommand's index and the index of an unknown option."""
    found: list[Option] = []
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        if not value.startswith("-") or value in _GIT_AS_COMMAND:
            return found, i, None
        name, eq, attached = value.partition("=")
        if name in GIT_GLOBAL_VALUE and (not eq or name not in ("-C", "-c")):
            if eq:
                found.append(Option(name, attached, i, i))
                i += 1
            else:
                has_value = i + 1 < n
                found.append(Option(name, values[i + 1] if has_value else None, i, i + 1 if has_value else None))
                i += 2
        elif value in GIT_GLOBAL_FLAGS:
            found.append(Option(value, None, i, None))
            i += 1
        elif eq and name in _GIT_GLOBAL_ATTACHED:
            found.append(Option(name, attached, i, i))
            i += 1
        else:
            return found, None, i
    return found, None, None


def git_facts(argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    paths: list[PathUse] = []
    dirs: list[PathUse] = []
    values = [w.value for w in argv]
    globals_, sub, unknown = _git_globals(values)
    for option in globals_:
        name, value, at = option.name, option.value, option.value_index
        if name == "-c":
            key = (value or "").split("=", 1)[0].lower()
            if not GIT_SAFE_KEYS.match(key):
                explicit.append((at if at is not None else option.at, f"git -c {key} can make git run a program"))
        elif name == "--config-env" or (name == "--exec-path" and value is not None):
            explicit.append((option.at, f"git {name} changes which programs git runs"))
        elif name in ("-C", "--git-dir", "--work-tree"):
            use = path_use(argv, at, value, "read")
            if use is not None:
                dirs.append(use)
                paths.append(use)
        elif name == "--shallow-file":
            use = path_use(argv, at, value, "read")
            if use is not None:
                paths.append(use)
    if unknown is not None:
        explicit.append(
            (
                unknown,
                f"the git option {values[unknown]} is not one the analysis knows, so the subcommand cannot be found",
            )
        )
    if sub is None:
        return facts(explicit, paths, dirs)
    command = values[sub]
    before = len(explicit)
    positionals = _subcommand_options(argv, sub, command, explicit, paths)
    if command in _GIT_EXPLICIT_SUBCOMMANDS and len(explicit) == before:
        # (an option after it that runs a program is the word a rule must spell out, and the one
        # the denial names: a rule spelling that out spells out the subcommand too)
        explicit.append((sub, f"git {command} runs configurable external programs"))
    if command == "config":
        explicit.extend(_git_config(values, sub))
    elif command == "remote" and len(positionals) >= 3 and values[positionals[0]] in ("add", "set-url"):
        # as `git config remote.NAME.url URL` is: a later allowed `git push`/`git fetch` reaches it
        url = positionals[-1]
        explicit.append((url, f"git remote {values[positionals[0]]} points later pushes and fetches at {values[url]}"))
    elif command in ("clone", "init") and positionals:
        where = positionals[-1] if command == "init" or len(positionals) > 1 else None
        if where is not None:
            paths.append(PathUse(where, values[where], "write", argv[where]))
    elif len(positionals) >= 2 and (command, values[positionals[0]]) in (("worktree", "add"), ("bundle", "create")):
        paths.append(PathUse(positionals[1], values[positionals[1]], "write", argv[positionals[1]]))
    elif command in ("apply", "am") or (command == "diff" and "--no-index" in values[sub + 1 :]):
        paths.extend(PathUse(k, values[k], "read", argv[k]) for k in positionals)
    elif command in _GIT_PATH_WRITERS:
        paths.extend(_overwritten(argv, values, sub, command, positionals))
    elif command == "cat-file":
        # `--batch`/`--batch-command` print the objects stdin names (`HEAD:.env`), which the Read
        # deny rules cannot see; `--batch-check` prints only their type and size
        at = next((k for k in range(sub + 1, len(values)) if values[k].partition("=")[0] in _CAT_FILE_BATCH), None)
        if at is not None:
            explicit.append((at, "git cat-file --batch prints the objects named on stdin"))
    return facts(explicit, paths, dirs)


def _subcommand_options(
    argv: Sequence[Word], sub: int, command: str, explicit: Explicit, paths: list[PathUse]
) -> list[int]:
    """Check the subcommand's options; return the indices of its positionals (values of the short
    options that take one skipped, so ``worktree add -b x DIR`` finds ``DIR``)."""
    values = [w.value for w in argv]
    n = len(values)
    letters = _GIT_SHORT_VALUES.get(command, "")
    positionals: list[int] = []
    skip_next = False
    for k in range(sub + 1, n):
        value = values[k]
        if skip_next:
            skip_next = False
            continue
        if not value.startswith("-") or value == "-":
            positionals.append(k)
            continue
        if value.startswith("--"):
            written, eq, attached = value.partition("=")
            # (diff options such as --ext-diff are not read abbreviated: `--ext-dif` is an error)
            name = written if written in _GIT_EXACT_ONLY else long_name(written, _GIT_LONG_NAMES - _GIT_EXACT_ONLY)
            if name is None or written in _GIT_OWN_PREFIXES:
                continue
            target, target_index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
            skip_next = not eq and name in _GIT_LONG_VALUE
            _long_option(argv, command, name, k, target, target_index, explicit, paths)
            continue
        decoded = short_letters(value, letters) if letters else [(c, None) for c in value[1:]]
        for letter, attached_value in decoded:
            if letter in letters and attached_value is None and letter != "O":
                skip_next = True
            target, target_index = (
                (attached_value, k)
                if attached_value is not None
                else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
            )
            _short_option(argv, command, letter, k, target, target_index, explicit, paths)
        if command == "worktree" and value in ("-b", "-B"):
            skip_next = True
    return positionals


def _overwritten(
    argv: Sequence[Word], values: Sequence[str], sub: int, command: str, positionals: list[int]
) -> list[PathUse]:
    """``git checkout [COMMIT] -- PATH``, ``git restore PATH``: the paths are rewritten from the
    index or a commit, as an Edit of them would be (Edit deny rules hold)."""
    if "--" in values[sub + 1 :]:
        dash = values.index("--", sub + 1)
        where = [k for k in positionals if k > dash]
    elif command == "restore":
        where = positionals
    else:
        where = positionals[1:]  # `git checkout main` is a branch; the words after a commit are paths
    return [PathUse(k, values[k], "write", argv[k]) for k in where if values[k] not in ("", ".", "-")]


def _line_range_file(value: str) -> list[str]:
    """The file of ``git log -L<start>,<end>:<file>`` or ``-L:<funcname>:<file>`` (a funcname may
    hold a colon: both readings)."""
    files = {value.rpartition(":")[2]}
    if value.startswith(":"):
        files.add(value[1:].partition(":")[2])
    elif ":" in value:
        files.add(value.partition(":")[2])
    return sorted(f for f in files if f)


def _long_option(
    argv: Sequence[Word],
    command: str,
    name: str,
    k: int,
    target: str | None,
    target_index: int | None,
    explicit: Explicit,
    paths: list[PathUse],
) -> None:
    if name in _GIT_EXEC_OPTIONS:
        if not (command == "rebase" and name == "--exec"):  # judged as a command (bot.shell.launch.wrappers)
            # a rule must spell out the program too, not only the option (`--upload-pack X`)
            word = target_index if target_index is not None and name in _GIT_LONG_VALUE else k
            explicit.append((word, f"git {command} {name} runs a program"))
    elif name == _GIT_UNSAFE_PATHS and command == "apply":
        explicit.append((k, "git apply --unsafe-paths writes where the patch says, outside the workspace too"))
    elif name in _GIT_CONFIG_OPTIONS and command == "clone":
        if not GIT_SAFE_KEYS.match((target or "").split("=", 1)[0].lower()):
            explicit.append((k, f"git clone {name} sets configuration that can run programs"))
    elif name in _GIT_WRITE_OPTIONS:
        use = path_use(argv, target_index, target, "write")
        if use is not None:
            paths.append(use._replace(pos=k))
    elif name in _GIT_READ_OPTIONS and command in _GIT_READ_OPTIONS[name]:
        use = path_use(argv, target_index, target, "read")
        if use is not None:
            paths.append(use._replace(pos=k))


def _short_option(
    argv: Sequence[Word],
    command: str,
    letter: str,
    k: int,
    target: str | None,
    target_index: int | None,
    explicit: Explicit,
    paths: list[PathUse],
) -> None:
    if letter in _GIT_INSTAWEB_PROGRAMS and command == "instaweb":
        explicit.append((target_index or k, f"git instaweb -{letter} starts the program it names"))
    elif letter == "L" and command == "log" and target is not None and target_index is not None:
        paths.extend(PathUse(k, f, "read", argv[target_index]) for f in _line_range_file(target))
    elif letter == "O" and command == "grep":
        explicit.append((k, "git grep -O runs a program on the matching files"))
    elif letter == "u" and command in _GIT_UPLOAD_PACK_SHORT:
        explicit.append((target_index or k, f"git {command} -u runs a program"))
    elif letter == "c" and command == "clone":
        if not GIT_SAFE_KEYS.match((target or "").split("=", 1)[0].lower()):
            explicit.append((target_index or k, "git clone -c sets configuration that can run programs"))
    elif letter == "o" and command in ("archive", "format-patch"):
        use = path_use(argv, target_index, target, "write")
        if use is not None:
            paths.append(use._replace(pos=k))
    elif letter == "F" and command in ("commit", "tag", "notes", "merge"):
        use = path_use(argv, target_index, target, "read")
        if use is not None:
            paths.append(use._replace(pos=k))


_CONFIG_VALUE_NAMES = frozenset({"--file", "--blob", "--type", "--default", "--comment", "--value", "--url"})
_CONFIG_QUERIES = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"}
)
_CONFIG_WRITES = frozenset({"--add", "--replace-all"})
_CONFIG_KNOWN = (
    _CONFIG_QUERIES
    | _CONFIG_WRITES
    | frozenset(
        {
            "--edit",
            "--global",
            "--system",
            "--local",
            "--worktree",
            "--unset",
            "--unset-all",
            "--rename-section",
            "--remove-section",
            "--null",
            "--name-only",
            "--show-origin",
            "--show-scope",
            "--includes",
            "--no-includes",
            "--fixed-value",
            "--bool",
            "--int",
            "--bool-or-int",
            "--path",
            "--expiry-date",
            "--no-type",
            "--all",
            "--regexp",
            "--append",
        }
    )
)
#: The subcommands of ``git config`` (git 2.46); before them, the first positional is the key.
_CONFIG_SUBCOMMANDS = frozenset({"get", "list", "set", "unset", "rename-section", "remove-section", "edit"})


def _git_config(values: Sequence[str], sub: int) -> Explicit:
    """``git config``: writing a key that can run a program is explicit. A query (``--get``,
    ``--list``, ``get``/``list`` as the first positional) is not — unless a write option or a
    value comes with it: ``git config core.fsmonitor CMD get`` sets the key."""
    found = list(
        options(values, value_letters="f", value_names=_CONFIG_VALUE_NAMES, known_names=_CONFIG_KNOWN, start=sub + 1)
    )
    names = {o.name for o in found if o.name}
    positionals = [o for o in found if not o.name]
    action = positionals[0].word if positionals and positionals[0].word in _CONFIG_SUBCOMMANDS else None
    edit = next((o.at for o in found if o.name in ("--edit", "-e")), positionals[0].at if action == "edit" else None)
    if edit is not None:
        return [(edit, "git config --edit opens an editor")]
    keys = positionals[1:] if action is not None else positionals
    writes = bool(names & _CONFIG_WRITES) or action == "set"
    queries = bool(names & _CONFIG_QUERIES) or action in ("get", "list")
    if queries and not writes and len(keys) <= 1:
        return []
    if not keys or (len(keys) < 2 and not writes):
        return []  # `git config key` reads the value; `--unset key` removes it
    key = keys[0]
    if GIT_SAFE_KEYS.match(key.word.lower()):
        return []
    return [(key.at, f"git config {key.word.lower()} can make git run a program")]
