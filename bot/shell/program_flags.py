"""Options that turn an ordinary program into a command runner or a file writer (beyond the seeds).

For each known program, :func:`program_facts` reports

* ``explicit`` — words no wildcard rule may approve, because they make the program run code the
  analysis cannot see: ``git -c core.pager=...``, ``git --upload-pack``, ``rg --pre``, ``tar
  --to-command``, ``rsync -e``, ``ssh -o ProxyCommand``, ``make --eval`` and ``SHELL=``, ``npm
  --script-shell``, ``apt-get -o APT::Update::Pre-Invoke``, ``python -c``, ``awk`` with ``system()``,
  ``sed`` outside the whitelist... A rule whose literal spells such a word out still approves it.
* ``paths`` — path arguments of options (``git -C``, ``curl -o``, ``make -f``) for the path checks;
* ``in_place`` — ``sed -i``: the file arguments are written;
* ``git_dirs`` — ``git -C``/``--git-dir``/``--work-tree``: git would read another repository's
  configuration (a bare repository's ``core.fsmonitor`` runs code), see :mod:`bot.shell.judge`.

Codex's execpolicy approaches this with per-program allow-lists of flags and argument types; here
the same knowledge decides what a *wildcard* may approve, and everything else still goes to the
maintainer's rules, so unknown-but-harmless flags do not break ordinary commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from bot.shell.awk_rules import awk_facts
from bot.shell.path_args import PathUse
from bot.shell.path_check import Access
from bot.shell.sed_rules import sed_facts
from bot.shell.syntax import Word


class ProgramFacts(NamedTuple):
    explicit: tuple[tuple[int, str], ...] = ()
    paths: tuple[PathUse, ...] = ()
    in_place: bool = False
    git_dirs: tuple[PathUse, ...] = ()
    #: What makes the command dangerous is not a word a rule could spell out (the builtin's very
    #: purpose, code read from stdin, install scripts): only an exact rule approves it.
    exact_only: bool = False


def _exact_only(argv: Sequence[Word], reason: str) -> ProgramFacts:
    return ProgramFacts(((len(argv) - 1, reason),), exact_only=True)


NO_FACTS = ProgramFacts()


def _facts(explicit: list[tuple[int, str]], paths: Sequence[PathUse] = (),
           dirs: Sequence[PathUse] = ()) -> ProgramFacts:
    """The facts found, or the shared :data:`NO_FACTS` when there are none (most commands)."""
    if not explicit and not paths and not dirs:
        return NO_FACTS
    return ProgramFacts(tuple(explicit), tuple(paths), False, tuple(dirs))

GIT_GLOBAL_VALUE = frozenset({"-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
GIT_GLOBAL_FLAGS = frozenset({"-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects",
                              "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                              "--no-optional-locks", "--no-advice", "--no-lazy-fetch", "--html-path", "--man-path",
                              "--info-path"})
#: ``git -c`` / ``git config`` keys that cannot make git run a program.
_GIT_SAFE_KEYS = re.compile(
    r"^(?:user\.(?:name|email|signingkey)|color\.[a-z.]+|advice\.[a-z]+|core\.(?:quotepath|autocrlf|safecrlf|abbrev"
    r"|eol|filemode|ignorecase|longpaths|symlinks|precomposeunicode)|init\.defaultbranch|(?:commit|tag)\.gpgsign"
    r"|push\.(?:default|autosetupremote|followtags)|pull\.(?:rebase|ff)|fetch\.(?:prune|prunetags|parallel)"
    r"|merge\.(?:ff|conflictstyle)|rebase\.(?:autosquash|autostash|updaterefs)|diff\.(?:noprefix|renames"
    r"|algorithm|colormoved)|column\.ui|protocol\.version|gc\.auto|maintenance\.auto|status\.showuntrackedfiles"
    r"|safe\.directory|http\.(?:sslverify|postbuffer|version)|log\.(?:date|decorate|showsignature)|branch\.sort"
    r"|submodule\.recurse|feature\.manyfiles|index\.version|checkout\.workers|credential\.usehttppath)$"
)
_GIT_EXEC_OPTIONS = frozenset({"--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--template",
                               "--open-files-in-pager", "-O", "--sendmail-cmd", "--smtp-server", "--extcmd",
                               "--config-env", "--exec-path"})
_GIT_OUTPUT_COMMANDS = frozenset({"log", "diff", "show", "format-patch", "archive", "range-diff", "whatchanged"})
_GIT_EXPLICIT_SUBCOMMANDS = frozenset({"filter-branch", "difftool", "mergetool", "send-email", "instaweb",
                                       "daemon", "credential-helper", "web--browse"})


def git_subcommand_index(argv: Sequence[Word]) -> int | None:
    """Index of git's subcommand, skipping global options (``git -C x -c k=v log`` → 5)."""
    return git_subcommand_position([w.value for w in argv])


def git_subcommand_position(values: Sequence[str]) -> int | None:
    """:func:`git_subcommand_index` on plain strings."""
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        name = value.split("=", 1)[0]
        if name in GIT_GLOBAL_VALUE:
            i += 1 if "=" in value and name != "-c" else 2
        elif value.startswith("-"):  # flags, --exec-path, --list-cmds=, -ckey=value
            i += 1
        else:
            return i
    return None


def _git(argv: Sequence[Word]) -> ProgramFacts:
    explicit: list[tuple[int, str]] = []
    paths: list[PathUse] = []
    dirs: list[PathUse] = []
    n = len(argv)
    sub = git_subcommand_index(argv)
    end = sub if sub is not None else n
    i = 1
    while i < end:
        value = argv[i].value
        name = value.split("=", 1)[0]
        if name == "-c" or (value.startswith("-c") and len(value) > 2):
            setting = value[2:] if len(value) > 2 else (argv[i + 1].value if i + 1 < n else "")
            index = i if len(value) > 2 else i + 1
            key = setting.split("=", 1)[0].lower()
            if not _GIT_SAFE_KEYS.match(key):
                explicit.append((index, f"git -c {key} can make git run a program"))
            i += 1 if len(value) > 2 else 2
            continue
        if name in ("--config-env",) or (name == "--exec-path" and "=" in value):
            explicit.append((i, f"git {name} changes which programs git runs"))
        if name in ("-C", "--git-dir", "--work-tree"):
            target_index = i if "=" in value else i + 1
            if target_index < n:
                target = value.split("=", 1)[1] if "=" in value else argv[target_index].value
                use = PathUse(target_index, target, "read", argv[target_index])
                dirs.append(use)
                paths.append(use)
            i += 1 if "=" in value else 2
            continue
        i += 1
    if sub is None:
        return _facts(explicit, paths, dirs)
    command = argv[sub].value
    if command in _GIT_EXPLICIT_SUBCOMMANDS:
        explicit.append((sub, f"git {command} runs configurable external programs"))
    positionals: list[int] = []
    for k in range(sub + 1, n):
        value = argv[k].value
        name = value.split("=", 1)[0]
        if not value.startswith("-"):
            positionals.append(k)
            continue
        short = value[:2] if not value.startswith("--") else ""
        if name in _GIT_EXEC_OPTIONS or (short == "-O" and command == "grep") or \
                (short == "-u" and command in ("clone", "fetch", "pull", "ls-remote", "archive")):
            explicit.append((k, f"git {command} {name} runs a program"))
        elif name in ("-c", "--config") and command == "clone":
            setting = value.split("=", 1)[1] if "=" in value else (argv[k + 1].value if k + 1 < n else "")
            if not _GIT_SAFE_KEYS.match(setting.split("=", 1)[0].lower()):
                explicit.append((k, f"git clone {name} sets configuration that can run programs"))
        elif name in ("--output", "-o") and command in _GIT_OUTPUT_COMMANDS:
            target = value.split("=", 1)[1] if "=" in value else (argv[k + 1].value if k + 1 < n else "")
            if target:
                paths.append(PathUse(k, target, "write", argv[k]))
        elif name in ("-F", "--file") and command in ("commit", "tag", "notes", "merge"):
            target = value.split("=", 1)[1] if "=" in value else (argv[k + 1].value if k + 1 < n else "")
            if target and target != "-":
                paths.append(PathUse(k, target, "read", argv[k]))
        elif name == "--separate-git-dir":
            target = value.split("=", 1)[1] if "=" in value else (argv[k + 1].value if k + 1 < n else "")
            if target:
                paths.append(PathUse(k, target, "write", argv[k]))
    if command == "config":
        explicit.extend(_git_config(argv, sub, positionals))
    elif command in ("clone", "init") and positionals:
        where = positionals[-1] if command == "init" or len(positionals) > 1 else None
        if where is not None:
            paths.append(PathUse(where, argv[where].value, "write", argv[where]))
    elif command == "worktree" and len(positionals) >= 2 and argv[positionals[0]].value == "add":
        paths.append(PathUse(positionals[1], argv[positionals[1]].value, "write", argv[positionals[1]]))
    elif command in ("apply", "am") or (command == "diff" and
                                         any(argv[k].value == "--no-index" for k in range(sub + 1, n))):
        paths.extend(PathUse(k, argv[k].value, "read", argv[k]) for k in positionals)
    return _facts(explicit, paths, dirs)


_GIT_CONFIG_QUERY = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                               "--get-color", "--get-colorbool", "get", "list"})


def _git_config(argv: Sequence[Word], sub: int, positionals: list[int]) -> list[tuple[int, str]]:
    values = [w.value for w in argv[sub + 1:]]
    if any(v in _GIT_CONFIG_QUERY for v in values):
        return []
    if any(v in ("-e", "--edit", "edit") for v in values):
        return [(sub, "git config --edit opens an editor")]
    keys = [k for k in positionals if argv[k].value not in ("set", "unset", "rename-section", "remove-section")]
    if not keys:
        return []
    key = argv[keys[0]].value.lower()
    if len(keys) < 2 and not any(v in ("--add", "--replace-all", "set") for v in values):
        return []  # `git config key` reads the value
    if _GIT_SAFE_KEYS.match(key):
        return []
    return [(keys[0], f"git config {key} can make git run a program")]


_MAKE_SHELL_VARS = frozenset({"SHELL", ".SHELLFLAGS", "MAKESHELL", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "MAKE",
                              "MAKECMDGOALS"})
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_.,:/@%+=~-]*$")


def _make(argv: Sequence[Word]) -> ProgramFacts:
    explicit: list[tuple[int, str]] = []
    paths: list[PathUse] = []
    n = len(argv)
    i = 1
    while i < n:
        value = argv[i].value
        name = value.split("=", 1)[0]
        if name in ("--eval", "-E"):
            explicit.append((i, "make --eval runs make code given on the command line"))
        elif name in ("-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"):
            target_index = i if "=" in value else i + 1
            if target_index < n:
                target = value.split("=", 1)[1] if "=" in value else argv[target_index].value
                paths.append(PathUse(target_index, target, "read", argv[target_index]))
            i += 1 if "=" in value else 2
            continue
        elif not value.startswith("-") and "=" in value:
            var, _, assigned = value.partition("=")
            if var.rstrip(":+?") in _MAKE_SHELL_VARS or not _PLAIN_VALUE.match(assigned):
                explicit.append((i, f"make variable {var} reaches the shell that runs recipes"))
        i += 1
    return _facts(explicit, paths)


_INSTALL_SUBCOMMANDS = frozenset({"install", "i", "ci", "add", "rebuild", "update", "up", "upgrade",
                                  "install-test", "it", "install-ci-test", "isntall"})
_NPM_CONFIG_EXEC_KEYS = frozenset({"script-shell", "shell", "editor", "browser", "git", "viewer", "node-options",
                                   "init-module", "onload-script"})


def _npm(argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    explicit: list[tuple[int, str]] = []
    paths: list[PathUse] = []
    program = argv[0].value.rsplit("/", 1)[-1]
    values = [w.value for w in argv]
    sub = next((k for k in range(1, len(values)) if not values[k].startswith("-")), None)
    for k, value in enumerate(values):
        name = value.split("=", 1)[0]
        if name in ("--script-shell", "--node-options", "--onload-script"):
            explicit.append((k, f"{program} {name} changes the shell that runs scripts"))
        elif name in ("--prefix", "-C", "--dir", "--cwd") and k > 0:
            target = value.split("=", 1)[1] if "=" in value else (values[k + 1] if k + 1 < len(values) else "")
            if target:
                paths.append(PathUse(k, target, "read", argv[k]))
    if sub is not None and values[sub] == "config" and len(values) > sub + 2 and values[sub + 1] == "set":
        key = values[sub + 2].split("=", 1)[0].lower()
        if key in _NPM_CONFIG_EXEC_KEYS:
            explicit.append((sub + 2, f"{program} config {key} changes which program runs"))
    installs = (sub is not None and values[sub] in _INSTALL_SUBCOMMANDS) or (program == "yarn" and sub is None)
    if installs and not install_scripts and "--ignore-scripts" not in values:
        explicit.append((len(values) - 1, f"{program} install runs package install scripts (the policy does not "
                                          "allow them; add --ignore-scripts)"))
        return ProgramFacts(tuple(explicit), tuple(paths), exact_only=True)
    return _facts(explicit, paths)


def _pip(argv: Sequence[Word], install_scripts: bool, sub_at: int) -> ProgramFacts:
    values = [w.value for w in argv]
    if install_scripts or len(values) <= sub_at or values[sub_at] not in ("install", "download", "wheel"):
        return NO_FACTS
    if ":all:" in values or "--only-binary=:all:" in values:
        return NO_FACTS
    return _exact_only(argv, "pip install may build packages from source, running their setup code "
                             "(the policy does not allow it; add --only-binary :all:)")


_SSH_EXEC_KEYS = frozenset({"proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand",
                            "remotecommand", "match", "pkcs11provider", "securitykeyprovider", "include",
                            "proxyusefdpass", "identityagent"})


def _ssh(argv: Sequence[Word]) -> ProgramFacts:
    program = argv[0].value.rsplit("/", 1)[-1]
    explicit: list[tuple[int, str]] = []
    n = len(argv)
    for k in range(1, n):
        value = argv[k].value
        if value == "-o" and k + 1 < n:
            key = re.split(r"[=\s]", argv[k + 1].value.strip(), maxsplit=1)[0].lower()
            if key in _SSH_EXEC_KEYS:
                explicit.append((k + 1, f"{program} -o {key} runs a local command"))
        elif value.startswith("-o") and len(value) > 2:
            key = re.split(r"[=\s]", value[2:].strip(), maxsplit=1)[0].lower()
            if key in _SSH_EXEC_KEYS:
                explicit.append((k, f"{program} -o {key} runs a local command"))
        elif value == "-F" or (value == "-S" and program in ("scp", "sftp")) or (value == "-D" and program == "sftp"):
            explicit.append((k, f"{program} {value} makes it run another program or configuration"))
    return _facts(explicit)


def _flags(program: str, argv: Sequence[Word], names: frozenset[str], short_letters: str = "") -> ProgramFacts:
    """Generic: every option in ``names`` (``--x``, ``--x=v``) or short letter in a bundle is explicit."""
    explicit: list[tuple[int, str]] = []
    for k, word in enumerate(argv[1:], start=1):
        value = word.value
        name = value.split("=", 1)[0]
        if name in names or (short_letters and value.startswith("-") and not value.startswith("--") and
                             any(c in short_letters for c in value[1:])):
            explicit.append((k, f"{program} {name} runs another program"))
    return _facts(explicit)


_TAR_EXEC = frozenset({"--to-command", "--checkpoint-action", "--use-compress-program", "--info-script",
                       "--new-volume-script", "--rsh-command", "--rmt-command", "-I", "-F", "--absolute-names",
                       "-P", "--index-file"})
_RG_EXEC = frozenset({"--pre", "--hostname-bin", "--search-zip", "-z"})
_RSYNC_EXEC = frozenset({"-e", "--rsh", "--rsync-path", "--config"})
_APT_EXEC = re.compile(r"invoke|pre-install-pkgs|post-install|::exec|dpkg::tools|dpkg::pre|dpkg::post", re.I)
_INTERPRETER_CODE = {
    "python": frozenset({"-c"}), "pypy": frozenset({"-c"}), "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "nodejs": frozenset({"-e", "--eval", "-p", "--print"}), "ruby": frozenset({"-e"}), "perl": frozenset({"-e", "-E"}),
    "php": frozenset({"-r"}), "lua": frozenset({"-e"}), "luajit": frozenset({"-e"}), "Rscript": frozenset({"-e"}),
    "osascript": frozenset({"-e"}), "pwsh": frozenset({"-c", "-Command", "-EncodedCommand", "-e"}),
    "powershell": frozenset({"-c", "-Command", "-EncodedCommand", "-e"}), "julia": frozenset({"-e", "--eval"}),
    "elixir": frozenset({"-e", "--eval"}), "bun": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset({"eval"}),
}
#: Shell builtins that change what later words mean or run code given as a string.
REJECTED_BUILTINS = frozenset({"trap", "alias", "enable", "hash", "shopt", "bind", "complete", "compgen", "fc",
                               "let", "coproc"})
_NAME_TAKING = frozenset({"read", "mapfile", "readarray", "printf", "getopts", "unset", "wait", "test", "[",
                          "declare", "typeset", "local", "export", "readonly"})
_SAFE_SET_OPTIONS = frozenset({"errexit", "pipefail", "nounset", "xtrace", "verbose", "noclobber", "noglob",
                               "noexec", "errtrace", "functrace"})
_SET_FLAG = re.compile(r"^[-+][euxvfCBbhmnpPtTEH]+$")


def _interpreter_key(program: str) -> str | None:
    if program.startswith(("python", "pypy")):
        return "python" if program.startswith("python") else "pypy"
    return program if program in _INTERPRETER_CODE else None


def _interpreter(program: str, key: str, argv: Sequence[Word]) -> ProgramFacts:
    code_flags = _INTERPRETER_CODE[key]
    for k, word in enumerate(argv[1:], start=1):
        value = word.value
        if value in code_flags or (key == "python" and value.startswith("-c") and len(value) > 2):
            return ProgramFacts(((k, f"{program} {value} runs inline code that cannot be checked"),))
        if key == "perl" and value.startswith("-") and not value.startswith("--") and ("e" in value or "E" in value):
            return ProgramFacts(((k, f"{program} {value} runs inline code that cannot be checked"),))
        if value == "-":
            return _exact_only(argv, f"{program} - runs code read from stdin")
        if key == "python" and value == "-m":
            return NO_FACTS
        if not value.startswith("-"):
            return NO_FACTS
    if key in ("deno",):
        return NO_FACTS
    return _exact_only(argv, f"{program} without a script reads code from stdin")


def _builtin(program: str, argv: Sequence[Word]) -> ProgramFacts:
    if program in REJECTED_BUILTINS:
        return _exact_only(argv, f"the builtin {program} changes how later commands run")
    if program == "set":
        values = [w.value for w in argv[1:]]
        k = 0
        while k < len(values):
            value = values[k]
            if value == "--":
                break
            if value[:1] in "-+" and value.endswith("o") and _SET_FLAG.match(value[:-1] or "-e"):
                # -o NAME, or a bundle ending in o (set -euo pipefail)
                if k + 1 >= len(values) or values[k + 1] not in _SAFE_SET_OPTIONS:
                    return ProgramFacts(((k + 1, "set -o with an option that changes parsing"),))
                k += 2
                continue
            if not _SET_FLAG.match(value):
                return ProgramFacts(((k + 1, f"set {value} changes how later commands are parsed"),))
            k += 1
        return NO_FACTS
    if program in ("declare", "typeset", "local", "readonly", "export") and any(
            w.value[:1] in "-+" and "i" in w.value[1:] for w in argv[1:]):
        return _exact_only(argv, f"{program} -i evaluates later assignments as arithmetic, which runs "
                                 "command substitutions")
    if program in _NAME_TAKING and any("[" in w.value for w in argv[1:]):
        # `printf -v 'a[$(cmd)]'`, `read 'a[$(cmd)]'`: array subscripts are evaluated as arithmetic,
        # which runs command substitutions.
        return _exact_only(argv, f"{program} with an array subscript evaluates it as code")
    return NO_FACTS


def program_facts(argv: Sequence[Word], *, install_scripts: bool = True) -> ProgramFacts:
    """What the analysis must know about one program's options (see the module docstring)."""
    if not argv:
        return NO_FACTS
    program = argv[0].value.rsplit("/", 1)[-1]
    handler = _HANDLERS.get(program)
    if handler is not None:
        return handler(program, argv, install_scripts)
    if program not in _WITH_FACTS and not program.startswith(("python", "pypy")):
        return NO_FACTS
    if program.startswith("python"):
        if len(argv) > 3 and argv[1].value == "-m" and argv[2].value == "pip":
            return _pip(argv, install_scripts, 3)
        return _interpreter(program, "python", argv)
    if program.startswith("pypy"):
        return _interpreter(program, "pypy", argv)
    if program in _INTERPRETER_CODE:
        return _interpreter(program, program, argv)
    return _builtin(program, argv)


#: The other programs :func:`program_facts` may report something for (interpreters and builtins).
_WITH_FACTS = frozenset(_INTERPRETER_CODE) | REJECTED_BUILTINS | _NAME_TAKING | {"set"}


def _sed(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    sed = sed_facts(argv)
    return ProgramFacts(sed.unsafe, (), sed.in_place)


def _package_manager(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    facts = _npm(argv, install_scripts)
    if program == "bun" and len(argv) > 1 and argv[1].value in ("-e", "--eval", "-p", "--print"):
        return _interpreter(program, "bun", argv)
    return facts


def _uv(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    if len(argv) > 2 and argv[1].value == "pip":
        return _pip(argv, install_scripts, 2)
    return _builtin(program, argv)


def _flags_of(names: frozenset[str], short_letters: str = "") -> _Handler:
    def handler(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
        return _flags(program, argv, names, short_letters)
    return handler


_Handler = Callable[[str, Sequence[Word], bool], ProgramFacts]
#: The programs with options of their own, by name (the others are interpreters or builtins).
_HANDLERS: dict[str, _Handler] = {
    "git": lambda program, argv, scripts: _git(argv),
    **dict.fromkeys(("sed", "gsed"), _sed),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"),
                    lambda program, argv, scripts: ProgramFacts(tuple(awk_facts(argv)))),
    **dict.fromkeys(("make", "gmake"), lambda program, argv, scripts: _make(argv)),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), _package_manager),
    **dict.fromkeys(("pip", "pip3"), lambda program, argv, scripts: _pip(argv, scripts, 1)),
    "uv": _uv,
    **dict.fromkeys(("ssh", "scp", "sftp"), lambda program, argv, scripts: _ssh(argv)),
    **dict.fromkeys(("tar", "gtar", "bsdtar"), _flags_of(_TAR_EXEC)),
    "rg": _flags_of(_RG_EXEC, "z"),
    "rsync": _flags_of(_RSYNC_EXEC, "e"),
    "sort": _flags_of(frozenset({"--compress-program"})),
    **dict.fromkeys(("apt", "apt-get", "aptitude", "apt-cache"), lambda program, argv, scripts: _apt(argv)),
    "dpkg": _flags_of(frozenset({"--pre-invoke", "--post-invoke", "--status-logger"})),
    "cargo": _flags_of(frozenset({"--config", "-Z"})),
    "go": _flags_of(frozenset({"-toolexec", "--toolexec", "-exec", "--exec"})),
    **dict.fromkeys(("curl", "wget"), lambda program, argv, scripts: _fetcher(program, argv)),
}


def _apt(argv: Sequence[Word]) -> ProgramFacts:
    explicit: list[tuple[int, str]] = []
    for k, word in enumerate(argv[1:], start=1):
        value = word.value
        option = argv[k + 1].value if value in ("-o", "--option") and k + 1 < len(argv) else \
            (value[2:] if value.startswith("-o") else "")
        if option and _APT_EXEC.search(option):
            explicit.append((k, "an apt option that runs a command (Pre-/Post-Invoke)"))
        if value in ("-c", "--config-file"):
            explicit.append((k, "an apt configuration file that can run commands"))
    return _facts(explicit)


_CURL_PATHS: dict[str, Access] = {
    "-o": "write", "--output": "write", "--output-dir": "write", "-c": "write", "--cookie-jar": "write",
    "-D": "write", "--dump-header": "write", "--trace": "write", "--trace-ascii": "write", "--libcurl": "write",
    "-T": "read", "--upload-file": "read", "--cacert": "read", "--cert": "read", "--key": "read",
    "--netrc-file": "read",
}
_CURL_DATA = frozenset({"-d", "--data", "--data-binary", "--data-urlencode", "--json", "-F", "--form"})
_WGET_PATHS: dict[str, Access] = {
    "-O": "write", "--output-document": "write", "-P": "write", "--directory-prefix": "write", "-o": "write",
    "--output-file": "write", "-a": "write", "--append-output": "write", "-i": "read", "--input-file": "read",
    "--post-file": "read", "--body-file": "read",
}


_CURL_VALUE_LETTERS = frozenset("oTdFKcDHuxAeXwEbrCmYyzZ")
_WGET_VALUE_LETTERS = frozenset("OPoaieUTtlQDAR")


def _unbundle(value: str, value_letters: frozenset[str]) -> str:
    """The option of a short bundle that takes a value: ``-sSLo`` → ``-o`` (value in the next word),
    ``-qO-`` → ``-O=-`` (value attached). Bundles without one are returned unchanged."""
    for i, letter in enumerate(value[1:], start=1):
        if letter in value_letters:
            rest = value[i + 1:]
            return f"-{letter}={rest}" if rest else f"-{letter}"
    return value


def _fetcher(program: str, argv: Sequence[Word]) -> ProgramFacts:
    """``curl``/``wget``: files they write or upload (reading a file and sending it is a read)."""
    explicit: list[tuple[int, str]] = []
    paths: list[PathUse] = []
    table = _CURL_PATHS if program == "curl" else _WGET_PATHS
    writes_cwd = program == "wget"
    n = len(argv)
    value_letters = _CURL_VALUE_LETTERS if program == "curl" else _WGET_VALUE_LETTERS
    for k in range(1, n):
        value = argv[k].value
        if len(value) > 2 and value[0] == "-" and value[1] != "-":
            value = _unbundle(value, value_letters)  # -qO- → -O=-, -sSLo out → -o
        name, eq, attached = value.partition("=")
        if name in ("-K", "--config", "-e", "--execute", "--use-askpass", "--engine"):
            explicit.append((k, f"{program} {name} reads commands or options from elsewhere"))
            continue
        target = attached if eq else (argv[k + 1].value if k + 1 < n else "")
        if name in table and target and target != "-":
            paths.append(PathUse(k, target, table[name], argv[k]))
            if program == "wget" and name in ("-O", "--output-document", "-P", "--directory-prefix"):
                writes_cwd = False
        elif program == "curl" and name in _CURL_DATA and "@" in target:
            file = target.split("@", 1)[1].split(";", 1)[0]
            if file and file != "-":
                paths.append(PathUse(k, file, "read", argv[k]))
        elif program == "curl" and name in ("-O", "--remote-name", "--remote-name-all", "-J"):
            writes_cwd = True
    if writes_cwd:
        paths.append(PathUse(0, ".", "write", argv[0]))
    return _facts(explicit, paths)
