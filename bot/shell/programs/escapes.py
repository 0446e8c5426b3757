"""Programs GTFOBins lists for running code, loading code or reaching files through an argument,
beyond the everyday tools of :mod:`bot.shell.programs.everyday` (from each program's manual):

* options that run a program or a command string, load code or configuration that can run code
  (``tcpdump -z``, ``aria2c --on-download-complete``, ``busctl --address=unixexec:``, ``hg
  --config``, ``openssl -engine``, ``pandoc --lua-filter``, ``nginx -c``/``-g``, ``neofetch
  --config``, ``kubectl --kubeconfig``…): explicit;
* arguments that are code in the program's own language (``rpm --eval '%(…)'``, a TeX document
  given inline, ``sqlite3 db '.shell …'``, ``mysql -e '\\! …'``, ``puppet apply -e``, ``m4``
  reading its macros from stdin, ``xdg-user-dir`` evaluating its argument): explicit;
* response files (``gcc @file``, ``readelf @file``, ``check_* --extra-opts=@file``) and ``file:``
  arguments (``lwp-request file:///x``; aws's are in :mod:`bot.shell.programs.clouds`): reads of
  that file, for the path checks;
* programs whose every use reaches what the workspace does not hold — ``gcore`` (another process'
  memory), ``code tunnel`` (a remote terminal), ``ldconfig`` other than ``-p`` (the system's
  library cache): explicit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.programs.clouds import CLOUD_PROGRAMS, cloud_facts
from bot.shell.programs.everyday import flag_options
from bot.shell.programs.facts import NO_FACTS, Explicit, ProgramFacts, exact_only, facts, path_use, stdin_code
from bot.shell.programs.getopt import options

_RUNS = "runs another program or a command string"
_LOADS = "loads code or configuration that can run programs"
#: An option whose value is a file the program loads: a read of it (the workspace's own file is the
#: project's, as ``kubectl --kubeconfig ./ci/kubeconfig``; one from elsewhere needs a rule).
_FILE = "file"
_CODE = "runs code given on the command line"

#: ``program → ({option: reason}, short letters among them, short letters that take a value)``.
_OPTIONS: dict[str, tuple[dict[str, str], str, str]] = {
    "tcpdump": ({"-z": _RUNS, "--relinquish-privileges": "", "-Z": ""}, "z", "zZiwWGCcsrFEVTyBjmMy"),
    "aria2c": (
        dict.fromkeys(
            (
                "--on-download-complete",
                "--on-download-error",
                "--on-download-pause",
                "--on-download-start",
                "--on-download-stop",
                "--on-bt-download-complete",
                "--conf-path",
                "--rpc-listen-all",
                "--enable-rpc",
            ),
            _RUNS,
        ),
        "",
        "",
    ),
    "check_ssl_cert": ({"--grep-bin": _RUNS, "--openssl": _RUNS, "--curl-bin": _RUNS, "--file-bin": _RUNS}, "", ""),
    "busctl": ({"--address": "connects through an address that may start a program (unixexec:)"}, "", ""),
    "hg": ({"--config": _LOADS, "--config-file": _FILE}, "", ""),
    "openssl": ({"-engine": _LOADS, "-provider": _LOADS, "-provider-path": _FILE, "-config": _FILE}, "", ""),
    "pandoc": ({"--lua-filter": _LOADS, "--filter": _RUNS, "-L": _LOADS, "-F": _RUNS}, "LF", "LFotfrwMVdcAHBD"),
    "nginx": ({"-c": _FILE, "-g": _LOADS, "-p": _FILE}, "cgp", "cgpse"),
    "apache2": ({"-f": _FILE, "-C": _LOADS, "-c": _LOADS, "-d": _FILE}, "fCcd", "fCcdDk"),
    "httpd": ({"-f": _FILE, "-C": _LOADS, "-c": _LOADS, "-d": _FILE}, "fCcd", "fCcdDk"),
    "apache2ctl": ({"-f": _FILE, "-C": _LOADS, "-c": _LOADS, "-d": _FILE}, "fCcd", "fCcdDk"),
    "apachectl": ({"-f": _FILE, "-C": _LOADS, "-c": _LOADS, "-d": _FILE}, "fCcd", "fCcdDk"),
    "neofetch": ({"--config": _FILE, "--source": "", "--ascii": ""}, "", ""),
    "fastfetch": ({"--config": _FILE, "-c": _FILE, "--load-config": _FILE}, "c", "c"),
    "easyrsa": ({"--vars": _FILE}, "", ""),
    "needrestart": ({"-c": _FILE}, "c", "clbf"),
    "tshark": ({"-X": _FILE}, "X", "XiwfYRrcaboeEFHGTzdsyCNOJ"),
    "wireshark": ({"-X": _FILE}, "X", "XiwfYRrcaboeEFHGTzdsyCNOJ"),
    "perlbug": ({"-e": _RUNS, "--editor": _RUNS}, "e", "esrcfCtdTo"),
    "mail": ({"--exec": _RUNS, "-E": _RUNS}, "E", "EsacbrfqA"),
    "mailx": ({"--exec": _RUNS, "-E": _RUNS}, "E", "EsacbrfqA"),
    "dvips": ({"-R": "with -R0 runs shell escapes in the document"}, "R", "oRpPlnxXyYzhOtTDC"),
    "lftp": ({"-c": _CODE, "-e": _CODE}, "ce", "cefpu"),
    "smbclient": ({"-c": _CODE, "--command": _CODE}, "c", "cWUOpAsiIlmnRdDETbkKSNMLg"),
    "fzf": (
        dict.fromkeys(
            ("--bind", "--listen", "--listen-unsafe", "--preview", "--with-shell", "--become", "--execute"),
            _RUNS,
        ),
        "",
        "",
    ),
    # (``-l FILE``/``--script FILE`` run the workspace's Lisp, as ``python script.py`` does)
    "emacs": (dict.fromkeys(("--eval", "--execute"), _CODE), "", ""),
    "puppet": ({"-e": _CODE, "--execute": _CODE}, "e", "e"),
    "sqlmap": (
        dict.fromkeys(("--eval", "--os-cmd", "--os-shell", "--os-pwn", "--postprocess", "--tamper"), _CODE),
        "",
        "",
    ),
    "gimp": (dict.fromkeys(("-b", "--batch", "--batch-interpreter"), _CODE), "b", "b"),
    "latexmk": (dict.fromkeys(("-e", "-r", "-pdflatex", "-latex", "-lualatex", "-xelatex", "-dvipdf"), _CODE), "", ""),
    "rake": (
        dict.fromkeys(("-e", "-p", "-E", "--execute", "--execute-print", "--execute-continue"), _CODE),
        "epE",
        "epErfCIRgj",
    ),
    "knife": ({"-E": _CODE, "--exec": _CODE}, "E", "E"),
    "clisp": ({"-x": _CODE}, "x", "xi"),
    "dc": ({"-e": _CODE, "--expression": _CODE, "-f": "", "--file": ""}, "e", "ef"),
    "nmap": ({"--script": _FILE, "--script-args-file": ""}, "", ""),
    "dosbox": ({"-c": _CODE, "-conf": _FILE, "-userconf": _FILE}, "", ""),
    "mysql": ({"--init-command": _CODE, "--pager": _RUNS, "--plugin-dir": _FILE}, "", ""),
    **dict.fromkeys(
        ("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"),
        ({"-e": _RUNS, "-c": _RUNS, "--exec": _RUNS, "--sh-exec": _RUNS, "--lua-exec": _RUNS}, "ec", "ecpswiqIOTVxXg"),
    ),
    "socket": ({"-p": _RUNS}, "p", "pB"),
    "scrot": ({"-e": _RUNS, "--exec": _RUNS}, "e", "edqtFal"),
    "dhclient": ({"-sf": _RUNS, "-cf": _FILE}, "", ""),
    "pidstat": ({"-e": _RUNS}, "e", "pGTCPI"),
    **dict.fromkeys(
        ("yt-dlp", "youtube-dl"),
        (
            {
                "--exec": _RUNS,
                "--exec-before-download": _RUNS,
                "--netrc-cmd": _RUNS,
                "--config-locations": _FILE,
                "--plugin-dirs": _FILE,
            },
            "",
            "",
        ),
    ),
    "restic": ({"--password-command": _RUNS}, "", ""),
    # pylint runs --init-hook as Python before linting
    "pylint": ({"--init-hook": _CODE}, "", ""),
    "dnsmasq": (
        {"--conf-script": _RUNS, "--dhcp-script": _RUNS, "--dhcp-luascript": _LOADS, "--conf-file": _FILE, "-C": _FILE},
        "C",
        "C",
    ),
    "enscript": ({"-I": _RUNS, "--filter": _RUNS}, "I", "IopPMsTLbcdfFHjJlmnrNtuUX"),
    "openvpn": (
        dict.fromkeys(
            (
                "--up",
                "--down",
                "--route-up",
                "--route-pre-down",
                "--ipchange",
                "--client-connect",
                "--client-disconnect",
                "--learn-address",
                "--tls-verify",
                "--auth-user-pass-verify",
                "--plugin",
                "--iproute",
            ),
            _RUNS,
        )
        | {"--config": _FILE},
        "",
        "",
    ),
    "plymouth": ({"--command": _RUNS}, "", ""),
    "zic": ({"-y": _RUNS}, "y", "dlLpyt"),
    "borg": ({"--rsh": _RUNS, "--remote-path": _RUNS}, "", ""),
    "dmsetup": ({"--exec": _RUNS}, "", ""),
    "certbot": (
        dict.fromkeys(
            (
                "--pre-hook",
                "--post-hook",
                "--deploy-hook",
                "--renew-hook",
                "--manual-auth-hook",
                "--manual-cleanup-hook",
                "--config",
            ),
            _RUNS,
        ),
        "",
        "",
    ),
}
#: Compilers' options that wrap or extend what they run (gcc's manual).
_COMPILER = {"-wrapper": _RUNS, "-fplugin": _LOADS, "-specs": _LOADS, "--specs": _LOADS}
#: Subcommands that run the command or code named after them, per program.
_RUNNING_SUBCOMMANDS = {
    "cabal": frozenset({"exec", "v2-exec", "new-exec", "v1-exec"}),
    "cdist": frozenset({"shell"}),
    "task": frozenset({"execute", "edit"}),
    "xdotool": frozenset({"exec"}),
    "csvtool": frozenset({"call"}),
    "gem": frozenset({"open"}),
}
#: Agents' command lines: each use runs an agent or a sandboxed command with its own permissions.
_AGENTS = frozenset({"codex", "claude", "gemini", "aider", "goose", "cursor-agent", "opencode", "crush"})
#: TeX engines: ``--shell-escape`` runs commands, an operand that is TeX code (``\\…``, ``&fmt``) is a
#: program that may read and write any file.
_TEX = frozenset(
    {"tex", "etex", "pdftex", "latex", "pdflatex", "lualatex", "luatex", "xelatex", "xetex", "luahbtex", "amstex"}
)
#: The rpm family's options that expand macros (``%(cmd)``, ``%{lua:…}``) or run a pipe.
_RPM = frozenset({"rpm", "rpmdb", "rpmquery", "rpmverify", "rpmbuild", "rpmspec"})
_RPM_NAMES = {
    "--eval": _CODE,
    "--pipe": _RUNS,
    "--define": _CODE,
    "--macros": _LOADS,
    "--rcfile": _LOADS,
    "-E": _CODE,
    "-D": _CODE,
}
#: Programs that take ``@FILE`` (a response file): its words become arguments — the file is read.
_RESPONSE = frozenset(
    {
        "gcc",
        "g++",
        "cc",
        "c++",
        "clang",
        "clang++",
        "as",
        "ld",
        "readelf",
        "objdump",
        "nm",
        "ar",
        "strip",
        "objcopy",
        "size",
        "strings",
        "addr2line",
        "gfortran",
        "javac",
        "java",
    }
)
_COMPILERS = frozenset({"gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran"} | {f"gcc-{n}" for n in range(7, 16)})
_NAGIOS = re.compile(r"check_\w+$")
#: Options of the Nagios plugins (``check_*``) that read another file.
_NAGIOS_READS = frozenset({"--extra-opts"})
#: sqlite3's dot-commands that run a program, read or write a file, or load code.
_SQLITE_UNSAFE = re.compile(
    r"^\s*\.(shell|system|import|output|once|read|load|save|backup|restore|open|excel|log|cd|clone|dump\s+\S*\s*>)|"
    r"\b(load_extension|readfile|writefile|edit|fts3_tokenizer)\s*\(|\battach\b|\bvacuum\s+into\b",
    re.IGNORECASE | re.MULTILINE,
)
_SQLITE_VALUE = frozenset(
    {
        "-cmd",
        "-init",
        "-separator",
        "-newline",
        "-nullvalue",
        "-vfs",
        "-mmap",
        "-pagecache",
        "-lookaside",
        "-maxsize",
        "-heap",
        "-key",
    }
)
#: mysql's client commands that run a program or reach files, and SQL that reads or writes files.
_MYSQL_UNSAFE = re.compile(
    r"\\[!.TPeo]|^\s*(system|source|tee|pager|edit)\b|;\s*(system|source|tee|pager|edit)\b|"
    r"\binfile\b|\boutfile\b|\bdumpfile\b|\bload_file\s*\(",
    re.IGNORECASE | re.MULTILINE,
)


def _loaded_files(argv: Sequence[Word], names: Sequence[str]) -> list[PathUse]:
    """The values of ``names`` (``--opt=V``, ``--opt V``, ``-cV``, ``-c V``) as reads; a ``kind:FILE``
    value (``tshark -X lua_script:x.lua``) names FILE."""
    uses: list[PathUse] = []
    values = [w.value for w in argv]
    for k, value in enumerate(values[1:], start=1):
        if value == "--":
            break
        for name in names:
            at, found = None, None
            if value == name and k + 1 < len(values):
                at, found = k + 1, values[k + 1]
            elif value.startswith(name + "="):
                at, found = k, value[len(name) + 1 :]
            elif len(name) == 2 and value.startswith(name) and len(value) > 2 and not value.startswith("--"):
                at, found = k, value[2:]
            if at is None or found is None:
                continue
            if ":" in found and not found.startswith(("/", ".")):
                found = found.partition(":")[2]
            if "/" not in found and "." not in found and name == "--script":
                continue  # script names and categories (default, safe, vuln)
            use = path_use(argv, at, found, "read")
            if use is not None:
                uses.append(use)
    return uses


def _tex(program: str, argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    for k, word in enumerate(argv[1:], start=1):
        value = word.value
        name = value.lstrip("-").partition("=")[0]
        if value.startswith("-") and name in ("shell-escape", "enable-write18", "shell-restricted"):
            explicit.append((k, f"{program} {value} runs commands the document names"))
        elif value.startswith("-") and name in ("cnf-line", "fmt", "ini", "output-directory", "aux-directory"):
            explicit.append((k, f"{program} {value} changes what the engine loads or where it writes"))
        elif not value.startswith("-") and value[:1] in ("\\", "&"):
            explicit.append((k, f"{program} runs a TeX program given on the command line (it may read any file)"))
    return facts(explicit)


def _rpm(program: str, argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    return facts(flag_options(program, values, _RPM_NAMES, "ED", "EDrq"))


def _response_files(argv: Sequence[Word]) -> list[PathUse]:
    uses = []
    for k, word in enumerate(argv[1:], start=1):
        if word.value.startswith("@") and len(word.value) > 1:
            use = path_use(argv, k, word.value[1:], "read")
            if use is not None:
                uses.append(use)
    return uses


def _nagios(program: str, argv: Sequence[Word]) -> ProgramFacts:
    uses = []
    for k, word in enumerate(argv[1:], start=1):
        name, eq, value = word.value.partition("=")
        if name in _NAGIOS_READS and eq and "@" in value:
            use = path_use(argv, k, value.rpartition("@")[2], "read")
            if use is not None:
                uses.append(use)
    return facts((), uses)


def _file_urls(argv: Sequence[Word]) -> list[PathUse]:
    """``file:`` arguments (also as an option's value, ``--filter file:///x``): reads of that path."""
    uses = []
    for k, word in enumerate(argv[1:], start=1):
        _, _, value = word.value.rpartition("=") if "=file:" in word.value else ("", "", word.value)
        if value.lower().startswith("file:"):
            path = re.sub(r"^file:(//[^/]*)?", "", value, flags=re.IGNORECASE) or "/"
            use = path_use(argv, k, path, "read")
            if use is not None:
                uses.append(use)
    return uses


def _sqlite3(program: str, argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    operands: list[int] = []
    k = 1
    while k < len(values):
        value = values[k]
        if value in ("-cmd", "-init"):
            if value == "-init" or (k + 1 < len(values) and _SQLITE_UNSAFE.search(values[k + 1])):
                return facts([(k, f"{program} {value} runs commands that run programs or reach files")])
            k += 2
            continue
        if value in _SQLITE_VALUE:
            k += 2
            continue
        if not value.startswith("-"):
            operands.append(k)
        k += 1
    for at in operands[1:]:
        if _SQLITE_UNSAFE.search(values[at]):
            return facts([(at, f"{program} runs a command that runs a program or reaches a file")])
    if len(operands) < 2 and not any(v in ("-version", "--version", "-help", "--help", "-cmd") for v in values):
        # the commands come from stdin, as an interpreter's program does: what a rule allowing
        # sqlite3 with any arguments grants
        return stdin_code(argv, f"{program} reads its commands from stdin")
    return NO_FACTS


def _mysql(program: str, argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    found = flag_options(program, values, _OPTIONS["mysql"][0])
    for option in options(values, "eDhuPSO", ("--execute", "--database", "--host", "--user")):
        if option.name in ("-e", "--execute") and option.value and _MYSQL_UNSAFE.search(option.value):
            found.append((option.at, f"{program} {option.name} runs a client command or SQL that reaches files"))
    return facts(found)


def _m4(program: str, argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    if any(v == "-" for v in values[1:]) or not any(
        o.word and not o.name for o in options(values, "DUIdloFRst", ("--define", "--include", "--debugfile"))
    ):
        if any(v in ("--version", "--help") for v in values):
            return NO_FACTS
        return stdin_code(argv, f"{program} reads its macros from stdin")
    return NO_FACTS


def _whole(reason: str, harmless: frozenset[str] = frozenset({"--version", "--help", "-h", "-V"})) -> _Handler:
    def handler(program: str, argv: Sequence[Word]) -> ProgramFacts:
        if len(argv) > 1 and all(w.value in harmless for w in argv[1:]):
            return NO_FACTS
        if len(argv) == 1:  # nothing a rule could spell out: only an exact rule approves it
            return exact_only(argv, f"{program} {reason}")
        return facts([(len(argv) - 1, f"{program} {reason}")])

    return handler


def _code(program: str, argv: Sequence[Word]) -> ProgramFacts:
    if len(argv) > 1 and argv[1].value in ("tunnel", "serve-web"):
        return facts([(1, f"{program} {argv[1].value} opens the machine to a remote session")])
    return NO_FACTS


def _xdg_user_dir(program: str, argv: Sequence[Word]) -> ProgramFacts:
    bad = [
        (k, f"{program} evaluates its argument in a shell")
        for k, w in enumerate(argv[1:], 1)
        if not re.fullmatch(r"[A-Za-z_]*", w.value)
    ]
    return facts(bad)


def _yelp(program: str, argv: Sequence[Word]) -> ProgramFacts:
    uses = []
    for k, word in enumerate(argv[1:], start=1):
        scheme, colon, rest = word.value.partition(":")
        if colon and scheme in ("man", "help", "ghelp", "info", "file") and "/" in rest:
            use = path_use(argv, k, rest.removeprefix("//"), "read")
            if use is not None:
                uses.append(use)
    return facts((), uses)


def _ansible_test(program: str, argv: Sequence[Word]) -> ProgramFacts:
    if len(argv) > 1 and argv[1].value == "shell":
        return facts([(1, f"{program} shell opens a shell reading commands from stdin")])
    return NO_FACTS


def _cpio(program: str, argv: Sequence[Word]) -> ProgramFacts:
    for word in argv[1:]:
        value = word.value
        if value in ("--create", "--pass-through") or (
            value.startswith("-") and not value.startswith("--") and ("o" in value[1:] or "p" in value[1:])
        ):
            return exact_only(argv, f"{program} {value} reads the names of the files it copies from stdin")
    return NO_FACTS


def _corepack(program: str, argv: Sequence[Word]) -> ProgramFacts:
    """``corepack use pnpm@https://…``: a package manager from a URL, pinned in ``package.json`` and
    run by every later ``pnpm``/``yarn`` (a version from the registry, ``pnpm@9``, stays)."""
    found = [
        (k, f"{program} {w.value}: a package manager from elsewhere")
        for k, w in enumerate(argv[1:], 1)
        if "@" in w.value and "://" in w.value.partition("@")[2]
    ]
    return facts(found)


def _ldconfig(program: str, argv: Sequence[Word]) -> ProgramFacts:
    if len(argv) > 1 and all(w.value in ("-p", "--print-cache", "--version", "--help", "-V") for w in argv[1:]):
        return NO_FACTS
    return facts([(max(len(argv) - 1, 0), f"{program} rewrites the system's library cache (or reads another)")])


_Handler = Callable[[str, Sequence[Word]], ProgramFacts]
_SPECIAL: dict[str, _Handler] = {
    **dict.fromkeys(_TEX, _tex),
    **dict.fromkeys(_RPM, _rpm),
    "sqlite3": _sqlite3,
    "mysql": _mysql,
    "mariadb": _mysql,
    "m4": _m4,
    "gcore": _whole("dumps a running process' memory"),
    **dict.fromkeys(
        _AGENTS, _whole("runs an agent (or a command in its sandbox)", frozenset({"--version", "--help", "-h", "-v"}))
    ),
    "code": _code,
    "xdg-user-dir": _xdg_user_dir,
    "yelp": _yelp,
    "ldconfig": _ldconfig,
    "ansible-test": _ansible_test,
    "cpio": _cpio,
    "corepack": _corepack,
    "bsdcpio": _cpio,
    **dict.fromkeys(
        ("rc", "sash", "elvish", "es"), _whole("is a shell whose commands (from stdin or a script) cannot be checked")
    ),
}


def escape_facts(program: str, argv: Sequence[Word]) -> ProgramFacts | None:
    """The facts of a program of this module, or ``None`` when it is not one."""
    special = _SPECIAL.get(program)
    if special is not None:
        return special(program, argv)
    if program in CLOUD_PROGRAMS:
        return cloud_facts(program, argv)
    spec = _OPTIONS.get(program)
    if spec is not None:
        names, letters, value_letters = spec
        values = [w.value for w in argv]
        named = {n: r for n, r in names.items() if r and r != _FILE}
        files = [n for n, r in names.items() if r == _FILE]
        found = flag_options(program, values, named, letters, value_letters)
        uses = _loaded_files(argv, files)
        # single-dash long options (openssl -engine, latexmk -e, dosbox -c): the whole word, or NAME=VALUE
        taken = {k for k, _ in found}
        for k, value in enumerate(values[1:], start=1):
            if value == "--":
                break
            name = value.partition("=")[0]
            if (k not in taken and not value.startswith("--") and name in named and len(name) > 2) or (
                k not in taken and name in named and len(name) == 2 and not letters
            ):
                found.append((k, f"{program} {name} {named[name]}"))
        return facts(found, uses)
    running = _RUNNING_SUBCOMMANDS.get(program)
    if running is not None:
        hits = [
            (k, f"{program} {w.value} runs the command or editor it names")
            for k, w in enumerate(argv[1:], 1)
            if w.value in running or (program == "task" and w.value.startswith("rc."))
        ]
        return facts(hits[:1])
    if program in _COMPILERS:
        values = [w.value for w in argv]
        found = [
            (k, f"{program} {v.partition('=')[0]} {_COMPILER[v.partition('=')[0]]}")
            for k, v in enumerate(values[1:], 1)
            if v.partition("=")[0] in _COMPILER
        ]
        return facts(found, _response_files(argv))
    if _NAGIOS.match(program):
        return _nagios(program, argv)
    if program in _RESPONSE:
        uses = _response_files(argv)
        return facts((), uses) if uses else None
    if program in ("lwp-request", "lwp-download", "lwp-mirror", "GET", "POST", "HEAD"):
        uses = _file_urls(argv)
        return facts((), uses) if uses else None
    return None


__all__ = ["escape_facts"]
