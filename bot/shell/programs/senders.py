"""Network clients whose arguments carry a file's content out, or start a program: HTTPie and xh
request items, socat addresses.

What they send is judged as a read of the file (the path checks and the Read deny rules, as
``curl -d @file`` is in :mod:`bot.shell.programs.fetchers`) plus the send the rule already allows;
what they start is an explicit word, approved only by a rule that spells it out:

* ``http POST host @body.json``, ``field=@file``, ``field:=@file.json``, ``field@file`` (an
  upload), ``param==@file``: the file is read (``\\@`` is a literal ``@``);
* ``socat FILE:.env TCP:host:80``: ``FILE``/``OPEN``/``GOPEN``/``CREATE`` and a bare path are
  files (written unless ``-u``/``-U`` make that side read-only), ``UNIX-*`` sockets are paths;
  ``EXEC:``/``SYSTEM:`` run a command; ``-L``/``-W``/``-lf`` write their file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.resolve import Access
from bot.shell.paths.use import PathUse
from bot.shell.programs.facts import Explicit, ProgramFacts, facts

#: HTTPie's separators, longest first, as its request-item parser tries them.
_HTTPIE_ITEM = re.compile(r"^((?:\\.|[^\\:=@])*?)(:=@|==@|=@|:=|==|=|@|:)(.*)$", re.S)
_HTTPIE_VALUE_OPTIONS = frozenset(
    {
        "-a",
        "--auth",
        "-A",
        "--auth-type",
        "--session",
        "--session-read-only",
        "-o",
        "--output",
        "--cert",
        "--cert-key",
        "--cert-key-pass",
        "--proxy",
        "--verify",
        "--ssl",
        "--ciphers",
        "-p",
        "--print",
        "-P",
        "--history-print",
        "--pretty",
        "-s",
        "--style",
        "--format-options",
        "--timeout",
        "--max-redirects",
        "--boundary",
        "--default-scheme",
        "--response-charset",
        "--response-mime",
        "--chunked",
    }
)
_HTTPIE_PATHS: dict[str, Access] = {
    "-o": "write",
    "--output": "write",
    "--session": "write",
    "--session-read-only": "read",
    "--cert": "read",
    "--cert-key": "read",
}
_METHODS = re.compile(r"^[A-Z]+$")


def httpie_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``http``/``https``/``xh``/``xhs``: request items that read a file, and the files options name."""
    values = [w.value for w in argv]
    paths: list[PathUse] = []
    positional: list[int] = []
    k = 1
    while k < len(values):
        value = values[k]
        name, eq, attached = value.partition("=")
        if value == "--":
            positional.extend(range(k + 1, len(values)))
            break
        if value.startswith("-") and value != "-":
            if name in _HTTPIE_PATHS:
                at, target = (k, attached) if eq else (k + 1, values[k + 1] if k + 1 < len(values) else "")
                if target and target != "-":
                    paths.append(PathUse(at, target, _HTTPIE_PATHS[name], argv[at]))
            k += 2 if (name in _HTTPIE_VALUE_OPTIONS and not eq) else 1
            continue
        positional.append(k)
        k += 1
    if positional and _METHODS.match(values[positional[0]]):
        positional = positional[1:]
    for at in positional[1:]:  # the first is the URL
        value = values[at]
        if value.startswith("@"):
            paths.append(PathUse(at, value[1:], "read", argv[at]))
            continue
        match = _HTTPIE_ITEM.match(value)
        if match is not None and match.group(2).endswith("@") and match.group(3):
            paths.append(PathUse(at, match.group(3).split(";", 1)[0], "read", argv[at]))
    return facts([], paths)


#: socat address types that name a file, and the access each side has by default.
_SOCAT_FILES = frozenset({"file", "open", "gopen", "create", "creat", "pipe", "named"})
_SOCAT_SOCKETS = frozenset(
    {"unix", "unix-connect", "unix-client", "unix-sendto", "unix-recv", "unix-recvfrom", "local", "abstract-connect"}
)
_SOCAT_LISTEN = frozenset({"unix-listen", "unix-l", "unix-recv"})
_SOCAT_RUNS = frozenset({"exec", "system"})
#: Address options whose value is a file (``link=`` makes a symlink, ``cert=`` is read).
_SOCAT_OPTION_FILES: dict[str, Access] = {
    "link": "write",
    "cert": "read",
    "key": "read",
    "cafile": "read",
    "history": "write",
    "history-file": "write",
}
_SOCAT_OPTION_RUNS = frozenset({"shell", "path"})


def socat_facts(argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    explicit: Explicit = []
    paths: list[PathUse] = []
    addresses: list[int] = []
    unidirectional = ""
    k = 1
    while k < len(values):
        value = values[k]
        if value in ("-u", "-U"):
            unidirectional = value
        if value in ("-L", "-W", "-lf") and k + 1 < len(values):
            paths.append(PathUse(k + 1, values[k + 1], "write", argv[k + 1]))
            k += 2
            continue
        if value in ("-T", "-b", "-t", "-lp", "-ls", "-s", "-r", "-R") and k + 1 < len(values):
            k += 2 if value in ("-T", "-b", "-t", "-lp", "-r", "-R") else 1
            continue
        if value.startswith("-") and value != "-" and len(addresses) == 0:
            k += 1
            continue
        addresses.append(k)
        k += 1
    for side, at in enumerate(addresses[:2]):
        read_only = (unidirectional == "-u" and side == 0) or (unidirectional == "-U" and side == 1)
        for address in values[at].split("!!"):
            _socat_address(argv, at, address, "read" if read_only else "write", explicit, paths)
    return facts(explicit, paths)


def _socat_address(
    argv: Sequence[Word], at: int, address: str, access: Access, explicit: Explicit, paths: list[PathUse]
) -> None:
    head, colon, rest = address.partition(":")
    kind = head.lower() if colon else ""
    if not colon and "," in address:
        head, _, rest = address.partition(",")
        kind = "" if "/" in head else head.lower()
    params, _, options = rest.partition(",") if colon else ("", "", rest)
    if kind in _SOCAT_RUNS:
        explicit.append((at, f"socat {head.upper()}: runs the command of its address"))
        return
    if not colon and ("/" in head or head.startswith(".")):
        paths.append(PathUse(at, head, access, argv[at]))  # a bare path is GOPEN
    elif kind in _SOCAT_FILES and params:
        paths.append(PathUse(at, params, access, argv[at]))
    elif kind in _SOCAT_SOCKETS | _SOCAT_LISTEN and params:
        paths.append(PathUse(at, params, "write" if kind in _SOCAT_LISTEN else "read", argv[at]))
    for option in options.split(",") if options else ():
        name, eq, value = option.partition("=")
        if not eq:
            continue
        if name.lower() in _SOCAT_OPTION_FILES:
            paths.append(PathUse(at, value, _SOCAT_OPTION_FILES[name.lower()], argv[at]))
        elif name.lower() in _SOCAT_OPTION_RUNS:
            explicit.append((at, f"socat {name}= names the program its address runs"))
