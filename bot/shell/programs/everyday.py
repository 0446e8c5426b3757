"""Everyday tools with an option that runs another program, loads code or reaches the host.

``tar --to-command``/``-I``/``--transform``, ``rsync -e``, ``sort --compress-program``, ``rg --pre``/``-z``,
``ssh -o ProxyCommand``/``-F``/``-I``, ``zip -TT``, ``vim -c``/``+cmd``/``-S``, ``man -H``/``-P``, ``split --filter``,
``docker run -v /:/host``/``--privileged``, ``apt -o APT::Update::Pre-Invoke``, ``dpkg --pre-invoke``,
``xargs -a FILE``. Options are read the getopt way (bundles ``-xIsh``, attached values ``-qF./cfg``,
abbreviated long options ``--to-comm``); the symlink-following options of these programs are in
:mod:`bot.shell.programs.follow_links`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from bot.shell.launch.per_item import xargs_options
from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use, program_name
from bot.shell.programs.follow_links import RSYNC_VALUE_LETTERS, TAR_KNOWN, TAR_VALUE_LETTERS, follow_facts
from bot.shell.programs.getopt import long_name, options, short_letters


def flag_options(
    program: str,
    values: Sequence[str],
    names: dict[str, str],
    letters: str = "",
    value_letters: str = "",
    abbreviations: bool = True,
    known: Collection[str] = (),
) -> Explicit:
    """Every option of ``names`` (``--x``, ``--x=v``, an abbreviation) or short letter of
    ``letters`` in a bundle (decoded with ``value_letters``) is explicit, with ``names``' reason
    (a letter's reason is ``names["-" + letter]``)."""
    found: Explicit = []
    for k in range(1, len(values)):
        value = values[k]
        if value == "--":
            break
        if value.startswith("--"):
            written = value.partition("=")[0]
            if written in known:
                continue
            name = long_name(written, names) if abbreviations else (written if written in names else None)
            if name is not None:
                found.append((k, f"{program} {name} {names[name]}"))
        elif value.startswith("-") and len(value) > 1 and letters:
            hit = next((c for c, _ in short_letters(value, value_letters) if c in letters), None)
            if hit is not None:
                found.append((k, f"{program} -{hit} {names.get('-' + hit, 'runs another program')}"))
    return found


_RUNS = "runs another program"
_TAR = {
    "--to-command": _RUNS,
    "--checkpoint-action": _RUNS,
    "--use-compress-program": _RUNS,
    "--info-script": _RUNS,
    "--new-volume-script": _RUNS,
    "--rsh-command": _RUNS,
    "--rmt-command": _RUNS,
    "-I": _RUNS,
    "-F": _RUNS,
    "--absolute-names": "writes members to absolute paths",
    "-P": "writes members to absolute paths",
    "--index-file": "writes a file the analysis does not check",
    "--transform": "renames members, so the archive decides where they are written",
    "--xform": "renames members, so the archive decides where they are written",
}


_TAR_MODES = {
    "--create": "c",
    "--append": "r",
    "--update": "u",
    "--list": "t",
    "--extract": "x",
    "--get": "x",
    "--concatenate": "A",
    "--catenate": "A",
    "--diff": "d",
    "--compare": "d",
    "--delete": "D",
}


def tar_facts(argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    explicit = flag_options("tar", values, _TAR, "IFP", TAR_VALUE_LETTERS, known=TAR_KNOWN)
    if _tar_mode(values) in ("c", "r", "u", "t", "A", "d", "D"):
        # --transform renames members only in the archive being written (or the listing)
        explicit = [(k, reason) for k, reason in explicit if "renames members" not in reason]
    if len(values) > 1 and not values[1].startswith("-"):
        # old-style bundle `tar xIf sh x.tar`: every letter is an option
        hit = next((c for c in values[1] if c in "IFP"), None)
        if hit is not None:
            explicit.append((1, f"tar {hit} {_TAR['-' + hit]}"))
    explicit.extend(_tar_remote_archive(values))
    return facts(explicit + follow_facts("tar", values))


def _tar_remote_archive(values: Sequence[str]) -> Explicit:
    """``tar -cf host:x.tar src``: GNU tar reaches an archive named ``HOST:FILE`` over rsh/ssh
    (``--force-local`` reads it as a file): the tree goes to, or comes from, that host."""
    if "--force-local" in values:
        return []
    archives: list[tuple[int, str]] = []
    if len(values) > 2 and not values[1].startswith("-") and "f" in values[1]:
        archives.append((2, values[2]))  # old-style bundle `tar cf ARCHIVE …`
    for option in options(values, TAR_VALUE_LETTERS, ("--file",), TAR_KNOWN):
        if option.name in ("-f", "--file") and option.value is not None and option.value_index is not None:
            archives.append((option.value_index, option.value))
    return [
        (k, f"tar {name}: an archive on another host, reached over a remote shell")
        for k, name in archives
        if ":" in name.split("/", 1)[0]
    ]


def _tar_mode(values: Sequence[str]) -> str:
    """tar's operation letter (``c``, ``x``, ``t``...), or ``""`` when none is given."""
    letters = "crutxAdD"
    if len(values) > 1 and not values[1].startswith("-"):
        return next((c for c in values[1] if c in letters), "")
    for option in options(values, TAR_VALUE_LETTERS, known_names=[*_TAR_MODES, *TAR_KNOWN]):
        if option.name in _TAR_MODES:
            return _TAR_MODES[option.name]
        if len(option.name) == 2 and option.name[1] in letters:
            return option.name[1]
    return ""


_RSYNC = {"-e": _RUNS, "--rsh": _RUNS, "--rsync-path": _RUNS, "--config": "reads a daemon configuration"}


def rsync_facts(argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    # (rsync's popt does not read abbreviated long options)
    explicit = flag_options("rsync", values, _RSYNC, "e", RSYNC_VALUE_LETTERS, abbreviations=False)
    return facts(explicit + follow_facts("rsync", values))


_RG = {
    "--pre": _RUNS,
    "--hostname-bin": _RUNS,
    "--search-zip": "runs decompression programs",
    "-z": "runs decompression programs",
}


def rg_facts(argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    return facts(flag_options("rg", values, _RG, "z", "efgtTmABCMjdrE") + follow_facts("rg", values))


Handler = Callable[[str, Sequence[Word], bool], ProgramFacts]


def named_flags(names: dict[str, str], letters: str = "", value_letters: str = "") -> Handler:
    def handler(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
        values = [w.value for w in argv]
        return facts(flag_options(program, values, names, letters, value_letters) + follow_facts(program, values))

    return handler


_SSH_EXEC_KEYS = frozenset(
    {
        "proxycommand",
        "localcommand",
        "permitlocalcommand",
        "knownhostscommand",
        "remotecommand",
        "match",
        "pkcs11provider",
        "securitykeyprovider",
        "include",
        "proxyusefdpass",
        "identityagent",
        "xauthlocation",
    }
)
_SSH_WRITE_KEYS = frozenset({"userknownhostsfile", "globalknownhostsfile", "controlpath"})
_SSH_VALUE_LETTERS = {"ssh": "BbcDEeFIiJLlmOoPpQRSWw", "scp": "cDFiJloPSX", "sftp": "BbcDFiJloPRsSX"}
#: ``program → {letter: reason}``: short options that run a program or read one's configuration.
_SSH_EXEC_LETTERS = {
    "ssh": {"F": "reads another configuration", "I": "loads a PKCS#11 library"},
    "scp": {"F": "reads another configuration", "S": _RUNS},
    "sftp": {
        "F": "reads another configuration",
        "S": _RUNS,
        "D": _RUNS,
        "s": _RUNS,
        "b": "runs batch commands (! runs a shell command)",
    },
}


def ssh_facts(argv: Sequence[Word]) -> ProgramFacts:
    program = program_name(argv)
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    exec_letters = _SSH_EXEC_LETTERS.get(program, _SSH_EXEC_LETTERS["ssh"])
    for option in options(values, _SSH_VALUE_LETTERS.get(program, _SSH_VALUE_LETTERS["ssh"])):
        letter = option.name[1:]
        if letter in exec_letters:
            explicit.append((option.at, f"{program} -{letter} {exec_letters[letter]}"))
        elif letter == "o" and option.value is not None and option.value_index is not None:
            key, _, setting = _ssh_setting(option.value)
            if key in _SSH_EXEC_KEYS:
                explicit.append((option.value_index, f"{program} -o {key} runs a local command"))
            elif key in _SSH_WRITE_KEYS:
                for target in setting.split():
                    if target.lower() != "none":
                        paths.append(PathUse(option.value_index, target, "write", argv[option.value_index]))
        elif letter == "E" and program == "ssh":
            use = path_use(argv, option.value_index, option.value, "write")
            if use is not None:
                paths.append(use)
    operands = [o for o in options(values, _SSH_VALUE_LETTERS["ssh"]) if not o.name] if program == "ssh" else []
    if len(operands) > 1 and _LOCAL_HOST.match(operands[0].word.rpartition("@")[2]):
        # the remote command of a connection to this machine runs here, outside the sandbox
        explicit.append((operands[1].at, f"{program} to {operands[0].word} runs the command on this machine"))
    return facts(explicit, paths)


_LOCAL_HOST = re.compile(r"^(localhost|127(\.\d+){3}|::1|\[::1\]|0\.0\.0\.0|ip6-localhost)$", re.IGNORECASE)


def _ssh_setting(text: str) -> tuple[str, str, str]:
    """``Key=value`` or ``Key value`` → ``(key in lower case, separator, value)``."""
    match = re.match(r"^\s*([A-Za-z0-9]+)\s*(=|\s)\s*(.*)$", text, re.S)
    if match is None:
        return text.strip().lower(), "", ""
    return match.group(1).lower(), match.group(2), match.group(3)


_ZIP = {"--unzip-command": _RUNS}


def zip_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``zip -TT CMD``/``--unzip-command=CMD`` runs CMD to test the archive."""
    values = [w.value for w in argv]
    explicit = flag_options("zip", values, _ZIP)
    explicit += [
        (k, f"zip -TT {_RUNS}")
        for k, v in enumerate(values[1:], start=1)
        if v.startswith("-") and not v.startswith("--") and "TT" in v
    ]
    return facts(explicit + follow_facts("zip", values))


_EDITOR_LETTERS = {
    "c": "runs an editor command",
    "S": "sources a script",
    "u": "reads another vimrc",
    "U": "reads another gvimrc",
    "s": "reads commands from a script file",
    "e": "runs ex commands read from stdin",
    "E": "runs ex commands read from stdin",
    "w": "writes typed characters to a file",
    "W": "writes typed characters to a file",
}
_EDITOR_LONG = ("--cmd", "--remote", "--listen", "--startuptime", "--servername")


def editor_facts(argv: Sequence[Word]) -> ProgramFacts:
    """vim and friends: ``-c CMD``, ``+CMD``, ``--cmd CMD``, ``-S FILE``, ``-u VIMRC``, ex mode
    (``-e``/``-es`` reads commands from stdin); nvim ``-l SCRIPT`` runs Lua."""
    program = program_name(argv)
    letters = dict(_EDITOR_LETTERS)
    if program.startswith("nvim"):
        letters["l"] = "runs a Lua script"
    explicit: Explicit = []
    for k, value in enumerate((w.value for w in argv[1:]), start=1):
        if value == "--":
            break
        if value.startswith("+") and value != "+" and not value[1:].isdigit():
            explicit.append((k, f"{program} {value} runs an editor command"))
        elif value.startswith("--"):
            if value.startswith(_EDITOR_LONG):
                explicit.append((k, f"{program} {value.partition('=')[0]} runs editor commands"))
        elif value.startswith("-") and len(value) > 1:
            hit = next((c for c in value[1:] if c in letters), None)
            if hit is not None:
                explicit.append((k, f"{program} {value} {letters[hit]}"))
    return facts(explicit)


#: ``-P``/``--pager`` too: man-db starts no pager when stdout is not a terminal, but whether there is
#: one (a pty wrapper, another man) is not something the analysis sees; the value is a command.
_MAN_EXPLICIT = {
    "-H": "runs a browser program",
    "--html": "runs a browser program",
    "-P": "runs the pager command it names",
    "--pager": "runs the pager command it names",
    "-C": "reads a configuration that names programs",
    "--config-file": "reads a configuration that names programs",
}
_MAN_VALUE_NAMES = frozenset(
    {
        "--config-file",
        "--pager",
        "--manpath",
        "--sections",
        "--systems",
        "--extension",
        "--locale",
        "--encoding",
        "--prompt",
        "--preprocessor",
        "--recode",
    }
)
_MAN_FLAG_NAMES = frozenset(
    {
        "--html",
        "--local-file",
        "--troff-device",
        "--gxditview",
        "--all",
        "--where",
        "--location",
        "--catman",
        "--ascii",
        "--ditroff",
        "--whatis",
        "--apropos",
    }
)


def man_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``man -H[BROWSER]``, ``-C FILE``; with ``-l`` the arguments are files to read."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    local = False
    positionals: list[int] = []
    for option in options([w.value for w in argv], "CeELmMpPrRsS", _MAN_VALUE_NAMES, _MAN_FLAG_NAMES):
        if option.name in _MAN_EXPLICIT:
            # A rule must spell out the pager itself, not just the option.
            at = (
                option.value_index if option.name in ("-P", "--pager") and option.value_index is not None else option.at
            )
            explicit.append((at, f"man {option.name} {_MAN_EXPLICIT[option.name]}"))
        elif option.name in ("-l", "--local-file"):
            local = True
        elif not option.name:
            positionals.append(option.at)
    if local:
        paths.extend(PathUse(k, argv[k].value, "read", argv[k]) for k in positionals)
    return facts(explicit, paths)


_SPLIT_VALUE_NAMES = frozenset(
    {
        "--suffix-length",
        "--additional-suffix",
        "--bytes",
        "--line-bytes",
        "--lines",
        "--number",
        "--separator",
        "--filter",
    }
)
_SPLIT_FLAG_NAMES = frozenset(
    {"--numeric-suffixes", "--hex-suffixes", "--elide-empty-files", "--unbuffered", "--verbose", "--help", "--version"}
)


def split_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``split --filter=COMMAND`` (``--filter COMMAND``, ``--fil=``) runs COMMAND through the shell
    for every piece."""
    explicit: Explicit = [
        (
            option.at if option.value_index is None else option.value_index,
            "split --filter runs the command it names for every piece",
        )
        for option in options([w.value for w in argv], "abClnt", _SPLIT_VALUE_NAMES, _SPLIT_FLAG_NAMES)
        if option.name == "--filter"
    ]
    return facts(explicit)


_PAGER_SAFE_PLUS = re.compile(r"^\+(?:\d*|[GgF]|/[^!|]*)$")


def pager_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``less +CMD``/``more +CMD`` run a pager command at start (``+!id`` runs a shell command)."""
    program = program_name(argv)
    explicit: Explicit = []
    for k, value in enumerate((w.value for w in argv[1:]), start=1):
        if value == "--":
            break
        if value.startswith("+") and not _PAGER_SAFE_PLUS.match(value):
            explicit.append((k, f"{program} {value} runs a pager command"))
    return facts(explicit)


def xargs_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``xargs -a FILE`` reads its arguments from FILE."""
    found, _ = xargs_options([w.value for w in argv])
    paths = [
        PathUse(at, value, "read", argv[at])
        for name, value, at in found
        if name in ("-a", "--arg-file") and value and value != "-" and at < len(argv)
    ]
    return facts([], paths)


_APT_EXEC = re.compile(r"invoke|pre-install-pkgs|post-install|::exec|dpkg::tools|dpkg::pre|dpkg::post", re.I)


def apt_facts(argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    for option in options([w.value for w in argv], "oct", ("--option", "--config-file", "--target-release")):
        if option.name in ("-o", "--option") and option.value and _APT_EXEC.search(option.value):
            explicit.append((option.at, "an apt option that runs a command (Pre-/Post-Invoke)"))
        elif option.name in ("-c", "--config-file"):
            explicit.append((option.at, "an apt configuration file that can run commands"))
    return facts(explicit)


def _any_of(names: Collection[str]) -> dict[str, str]:
    return dict.fromkeys(names, _RUNS)


DPKG = _any_of(("--pre-invoke", "--post-invoke", "--status-logger"))
SORT = _any_of(("--compress-program",))


#: pytest's options that start like ``--cov-report`` (so that an abbreviation resolves to it and
#: ``--cov`` stays itself).
_PYTEST_NAMES = frozenset(
    {
        "--cov-report",
        "--cov",
        "--cov-config",
        "--cov-append",
        "--cov-branch",
        "--cov-context",
        "--cov-fail-under",
        "--cov-reset",
        "--no-cov",
        "--no-cov-on-fail",
    }
)


def pytest_facts(argv: Sequence[Word], start: int = 1) -> ProgramFacts:
    """pytest-cov's ``--cov-report TYPE:PATH`` writes PATH (``term``/``term-missing`` take a
    modifier there: ``term-missing:skip-covered``). pytest's other file options (``--junitxml=``,
    ``--basetemp=``) are checked with every argument (:mod:`bot.shell.paths.fallback`), which
    cannot tell the path in ``xml:.git/config``. ``start``: the first option (after ``-m pytest``)."""
    values = [w.value for w in argv]
    paths: list[PathUse] = []
    n = len(values)
    k = start
    while k < n:
        value = values[k]
        if value == "--":
            break
        written, eq, attached = value.partition("=")
        if not written.startswith("--") or long_name(written, _PYTEST_NAMES) != "--cov-report":
            k += 1
            continue
        target, index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
        report, colon, place = (target or "").partition(":")
        if colon and not report.startswith("term"):
            use = path_use(argv, index, place, "write")
            if use is not None:
                paths.append(use)
        k += 1 if eq else 2
    return facts([], paths)


#: Modules that only report on the hosts (every other module changes something or runs a command;
#: ``command`` is the default).
_ANSIBLE_SAFE_MODULES = frozenset(
    {"ping", "setup", "gather_facts", "ansible.builtin.ping", "ansible.builtin.setup", "ansible.builtin.gather_facts"}
)
#: ansible (argparse: bundles, attached values, abbreviations): options that take a value.
_ANSIBLE_VALUE_LETTERS = "aBefilMmPtTuc"
_ANSIBLE_VALUE_NAMES = frozenset(
    {
        "--args",
        "--background",
        "--extra-vars",
        "--forks",
        "--inventory",
        "--inventory-file",
        "--limit",
        "--module-path",
        "--module-name",
        "--poll",
        "--tree",
        "--timeout",
        "--user",
        "--connection",
        "--become-method",
        "--become-user",
        "--private-key",
        "--key-file",
        "--ssh-common-args",
        "--sftp-extra-args",
        "--scp-extra-args",
        "--ssh-extra-args",
        "--vault-id",
        "--vault-password-file",
        "--vault-pass-file",
        "--playbook-dir",
        "--task-timeout",
        "--become-password-file",
        "--connection-password-file",
    }
)
_ANSIBLE_FLAG_NAMES = frozenset(
    {
        "--one-line",
        "--list-hosts",
        "--check",
        "--diff",
        "--version",
        "--help",
        "--verbose",
        "--become",
        "--ask-pass",
        "--ask-become-pass",
        "--ask-vault-password",
        "--syntax-check",
    }
)
#: Options that change only what is reported or where: everything else (``-a``, ``-e``, ``-b``,
#: ``--ssh-common-args``, ``--vault-password-file``...) can run a command.
_ANSIBLE_SAFE = frozenset(
    {
        "-m",
        "--module-name",
        "-l",
        "--limit",
        "-f",
        "--forks",
        "-o",
        "--one-line",
        "--list-hosts",
        "-C",
        "--check",
        "-D",
        "--diff",
        "--version",
        "-h",
        "--help",
        "-v",
        "--verbose",
        "-u",
        "--user",
        "-T",
        "--timeout",
        "-i",
        "--inventory",
        "--inventory-file",
    }
)


def ansible_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``ansible HOSTS -m MODULE -a ARGS`` runs modules: ``shell``/``command`` (the default)/``raw``/
    ``script`` run commands, most others change files. Only a module that reports (``ping``,
    ``setup``) with options that change what is reported is left to a wildcard rule; an inventory
    file may be a script ansible runs (an inline list ``-i host,`` is not). ``ansible-playbook``,
    ``ansible-pull`` and ``ansible-console`` run whatever their tasks say."""
    program = program_name(argv)
    if program != "ansible":
        return facts([(0, f"{program} runs the commands its playbook or console gives")])
    explicit: Explicit = []
    for option in options([w.value for w in argv], _ANSIBLE_VALUE_LETTERS, _ANSIBLE_VALUE_NAMES, _ANSIBLE_FLAG_NAMES):
        name, value = option.name, option.value
        if not name:
            continue
        if name not in _ANSIBLE_SAFE:
            explicit.append((option.at, f"ansible {name} can make ansible run a command"))
        elif name in ("-m", "--module-name") and (value or "") not in _ANSIBLE_SAFE_MODULES:
            explicit.append(
                (option.value_index or option.at, f"the ansible module {value} runs a command or changes files")
            )
        elif name in ("-i", "--inventory", "--inventory-file") and "," not in (value or ""):
            explicit.append((option.at, "an ansible inventory file may be a script ansible runs"))
    return facts(explicit)
