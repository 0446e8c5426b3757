"""``curl`` and ``wget``: the local files they read, send or write.

Besides the obvious ``-o FILE``: ``curl file:///etc/passwd`` reads a local file, ``curl -H @FILE``,
``--write-out @FILE``, ``--variable name@FILE`` and ``-F name=<FILE`` read one, ``-w '%output{FILE}'``
writes one; ``--unix-socket`` talks to a local daemon (docker's socket is root). ``wget -x``, ``-r``,
``-m`` and ``-p`` write where the *server's* paths say (``wget -nH -x https://evil/.git/config``
overwrites ``.git/config``): explicit. Both read options the GNU way (bundles ``-sSLo``, ``-qO-``,
``-nH``; wget's abbreviated long options ``--output-doc``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.paths.resolve import Access
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use, program_name
from bot.shell.programs.getopt import options

_CURL_PATHS: dict[str, Access] = {
    "-o": "write",
    "--output": "write",
    "--output-dir": "write",
    "-c": "write",
    "--cookie-jar": "write",
    "-D": "write",
    "--dump-header": "write",
    "--trace": "write",
    "--trace-ascii": "write",
    "--libcurl": "write",
    "--stderr": "write",
    "--etag-save": "write",
    "--hsts": "write",
    "--alt-svc": "write",
    "-T": "read",
    "--upload-file": "read",
    "--cacert": "read",
    "--cert": "read",
    "--key": "read",
    "--netrc-file": "read",
    "--etag-compare": "read",
    "--capath": "read",
    "--crlfile": "read",
    "--proxy-cacert": "read",
    "--proxy-cert": "read",
    "--proxy-key": "read",
}
#: Options whose value is read from a file when it starts with ``@`` (``-d @file``, ``-H @file``).
_CURL_AT_FILE = frozenset(
    {
        "-d",
        "--data",
        "--data-binary",
        "--data-ascii",
        "--data-urlencode",
        "--json",
        "-F",
        "--form",
        "-H",
        "--header",
        "--proxy-header",
        "-w",
        "--write-out",
        "--url-query",
        "--variable",
        "--form-string",
    }
)
_CURL_EXPLICIT = {
    "-K": "reads options from a file",
    "--config": "reads options from a file",
    "--engine": "loads a crypto engine",
    "--unix-socket": "talks to a local daemon's socket",
    "--abstract-unix-socket": "talks to a local daemon's socket",
    # the request goes through, or to, a host the URL does not name
    "-x": "sends the request through a proxy",
    "--proxy": "sends the request through a proxy",
    "--preproxy": "sends the request through a proxy",
    "--connect-to": "connects to another host than the URL names",
    "--resolve": "connects to another address than the URL's host",
    "--doh-url": "resolves names through another server",
}
_CURL_OTHER_VALUES = frozenset(
    {
        "--url",
        "--user-agent",
        "--referer",
        "--request",
        "--user",
        "--proxy-user",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--retry-delay",
        "--retry-max-time",
        "--range",
        "--data-raw",
        "--quote",
        "--telnet-option",
        "--interface",
        "--limit-rate",
        "--max-filesize",
        "--oauth2-bearer",
        "--cookie",
        "--continue-at",
        "--ftp-port",
        "--time-cond",
        "--speed-limit",
        "--speed-time",
        "--expect100-timeout",
        "--aws-sigv4",
        "--proto",
        "--proto-redir",
        "--ciphers",
    }
)
_CURL_VALUE_NAMES = (
    frozenset(n for n in (*_CURL_PATHS, *_CURL_AT_FILE, *_CURL_EXPLICIT) if n.startswith("--")) | _CURL_OTHER_VALUES
)
CURL_VALUE_LETTERS = "oTdFKcDHuxAeXwEbrCmYyzZQtUP"
#: Flags that are prefixes of options with a value (``--head`` is not ``--header``).
_CURL_FLAGS = frozenset({"--remote-name", "--remote-name-all", "--head", "--netrc"})
_FILE_URL = re.compile(r"^file://(?:localhost)?(/[^{}\[\]?#]*)$", re.IGNORECASE)
#: curl's URL globbing, which ``-T`` applies to the file name too.
_URL_GLOB = re.compile(r"[{}\[\]]")
_OUTPUT_VARIABLE = re.compile(r"%output\{(?:>>)?([^}]*)\}")


def curl_facts(argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    writes_cwd = False
    for option in options(values, CURL_VALUE_LETTERS, _CURL_VALUE_NAMES, known_names=_CURL_FLAGS):
        name, value, at = option.name, option.value, option.value_index
        if name in _CURL_EXPLICIT:
            # the value is what a rule must spell out (`curl -x proxy.corp:3128`, not `curl -x`)
            word = at if at is not None and name not in ("-K", "--config") else option.at
            explicit.append((word, f"curl {name} {_CURL_EXPLICIT[name]}"))
        elif name in ("-T", "--upload-file") and value is not None and at is not None and _URL_GLOB.search(value):
            # curl globs the upload name itself: `-T '{.env,README.md}'` sends both files
            if "[" in value or "]" in value or value.count("{") != 1:
                explicit.append((at, "curl -T with a [range] or nested {set} uploads files only known at run time"))
            else:
                head, rest = value.split("{", 1)
                choices, _, tail = rest.partition("}")
                paths.extend(PathUse(at, f"{head}{choice}{tail}", "read", argv[at]) for choice in choices.split(","))
        elif name in _CURL_PATHS:
            use = path_use(argv, at, value, _CURL_PATHS[name])
            if use is not None:
                paths.append(use)
        elif name in ("-O", "--remote-name", "--remote-name-all", "-J"):
            writes_cwd = True
        elif name in ("-b", "--cookie") and value is not None and "=" not in value:
            use = path_use(argv, at, value, "read")  # a cookie file
            if use is not None:
                paths.append(use)
        elif name in ("", "--url"):
            url = option.word if not name else (value or "")
            _file_url(argv, option.at if not name else at, url, explicit, paths)
        if name in _CURL_AT_FILE and value is not None and at is not None:
            _curl_value_files(argv, name, value, at, explicit, paths)
    if writes_cwd:
        paths.append(PathUse(0, ".", "write", argv[0]))
    return facts(explicit, paths)


def _file_url(argv: Sequence[Word], at: int | None, url: str, explicit: Explicit, paths: list[PathUse]) -> None:
    if at is None or "file:" not in url.lower():
        return
    match = _FILE_URL.match(url)
    if match is None:
        explicit.append((at, "curl reads a local file through a file: URL the analysis cannot resolve"))
    else:
        paths.append(PathUse(at, match.group(1), "read", argv[at]))


def _curl_value_files(
    argv: Sequence[Word], name: str, value: str, at: int, explicit: Explicit, paths: list[PathUse]
) -> None:
    """``@file`` (and ``-F name=<file``, ``--variable name@file``, ``-w %output{file}``)."""
    files: list[tuple[str, Access]] = []
    if name == "--variable":
        head = re.match(r"^%?[A-Za-z0-9_]*([=@])", value)
        if head is not None and head.group(1) == "@":
            files.append((value[head.end() :], "read"))
    elif name in ("-F", "--form", "--form-string"):
        field = value.split("=", 1)[1] if "=" in value else ""
        if field[:1] in ("@", "<") and name != "--form-string":
            files.append((field[1:].split(";", 1)[0], "read"))
    elif name in ("--data-urlencode", "--url-query") and "@" in value and "=" not in value.split("@", 1)[0]:
        files.append((value.split("@", 1)[1], "read"))
    elif value.startswith("@"):
        files.append((value[1:], "read"))
    if name in ("-w", "--write-out"):
        files.extend((target, "write") for target in _OUTPUT_VARIABLE.findall(value))
    for target, access in files:
        if target and target != "-":
            paths.append(PathUse(at, target, access, argv[at]))


_WGET_PATHS: dict[str, Access] = {
    "-O": "write",
    "--output-document": "write",
    "-P": "write",
    "--directory-prefix": "write",
    "-o": "write",
    "--output-file": "write",
    "-a": "write",
    "--append-output": "write",
    "--save-cookies": "write",
    "--rejected-log": "write",
    "--warc-file": "write",
    "--hsts-file": "write",
    "-i": "read",
    "--input-file": "read",
    "--post-file": "read",
    "--body-file": "read",
    "--load-cookies": "read",
    "--ca-certificate": "read",
    "--certificate": "read",
    "--private-key": "read",
    "--ca-directory": "read",
    "--crl-file": "read",
}
_WGET_EXPLICIT = {
    "-e": "runs wgetrc commands",
    "--execute": "runs wgetrc commands",
    "--config": "reads a wgetrc file",
    "--use-askpass": "runs a program for passwords",
}
#: Options that let the server's paths decide where files are written.
_WGET_SERVER_PATHS = frozenset(
    {"-x", "--force-directories", "-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites"}
)
_WGET_OTHER_VALUES = frozenset(
    {
        "--cut-dirs",
        "--level",
        "--tries",
        "--timeout",
        "--wait",
        "--user-agent",
        "--header",
        "--referer",
        "--accept",
        "--reject",
        "--domains",
        "--include-directories",
        "--exclude-directories",
        "--base",
        "--quota",
        "--user",
        "--password",
        "--post-data",
        "--method",
        "--body-data",
        "--limit-rate",
        "--restrict-file-names",
        "--default-page",
        "--warc-dedup",
        "--warc-tempdir",
        "--bind-address",
        "--dns-timeout",
        "--read-timeout",
        "--connect-timeout",
        "--waitretry",
        "--http-user",
        "--http-password",
        "--local-encoding",
        "--remote-encoding",
        "--secure-protocol",
        "--ciphers",
        "--accept-regex",
        "--reject-regex",
        "--regex-type",
        "--exclude-domains",
        "--follow-tags",
        "--ignore-tags",
        "--max-redirect",
        "--proxy-user",
        "--proxy-password",
        "--compression",
    }
)
_WGET_VALUE_NAMES = frozenset(n for n in (*_WGET_PATHS, *_WGET_EXPLICIT) if n.startswith("--")) | _WGET_OTHER_VALUES
WGET_VALUE_LETTERS = "eoaiBtOTwQPlARDIXUn"
_WGET_FLAG_NAMES = frozenset(n for n in _WGET_SERVER_PATHS if n.startswith("--")) | {
    "--no-host-directories",
    "--no-directories",
    "--no-parent",
    "--timestamping",
    "--continue",
    "--quiet",
    "--verbose",
    "--no-verbose",
    "--no-clobber",
    "--no-check-certificate",
    "--spider",
    "--server-response",
    "--content-disposition",
    "--trust-server-names",
    "--convert-links",
    "--backup-converted",
    "--adjust-extension",
    "--span-hosts",
    "--relative",
    "--progress",
    "--show-progress",
    "--no-cookies",
    "--keep-session-cookies",
    "--ignore-case",
    "--inet4-only",
    "--inet6-only",
    "--https-only",
    "--delete-after",
    "--version",
    "--help",
}


def wget_facts(argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    paths: list[PathUse] = []
    writes_cwd = True
    for option in options([w.value for w in argv], WGET_VALUE_LETTERS, _WGET_VALUE_NAMES, known_names=_WGET_FLAG_NAMES):
        name = option.name
        if name in _WGET_EXPLICIT:
            explicit.append((option.at, f"wget {name} {_WGET_EXPLICIT[name]}"))
        elif name in _WGET_SERVER_PATHS:
            explicit.append((option.at, f"wget {name} writes where the server's paths say (.git/ included)"))
        elif name in _WGET_PATHS:
            use = path_use(argv, option.value_index, option.value, _WGET_PATHS[name])
            if use is not None:
                paths.append(use)
            if name in ("-O", "--output-document", "-P", "--directory-prefix"):
                writes_cwd = False
    if writes_cwd:
        paths.append(PathUse(0, ".", "write", argv[0]))
    return facts(explicit, paths)


def fetched_urls(argv: Sequence[Word]) -> list[str]:
    """The URLs ``curl`` or ``wget`` fetches: every operand (curl takes ``evil.com`` as a URL too)
    and ``--url``'s values; empty for other programs."""
    program = program_name(argv)
    values = [w.value for w in argv]
    if program == "curl":
        found = options(values, CURL_VALUE_LETTERS, _CURL_VALUE_NAMES, known_names=_CURL_FLAGS)
    elif program == "wget":
        found = options(values, WGET_VALUE_LETTERS, _WGET_VALUE_NAMES, known_names=_WGET_FLAG_NAMES)
    else:
        return []
    return [o.word if not o.name else (o.value or "") for o in found if o.name in ("", "--url")]


def other_origin(literal: str, argv: Sequence[Word]) -> str | None:
    """Under a rule that spells out a URL (``Bash(curl https://api.example.com:*)``), a URL of the
    command that goes elsewhere: a second operand (``curl https://api.example.com evil.com``) is a
    second request, which the rule's host does not approve. ``None`` when every URL the command
    fetches has the scheme, host and port of one of the rule's URLs, or the rule spells none."""
    spelled = {_origin(word) for word in literal.split(" ") if "://" in word}
    if not spelled:
        return None
    return next((url for url in fetched_urls(argv) if _origin(url) not in spelled), None)


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) as curl reads a URL: no scheme means http."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
    except ValueError:  # a port that is no number: nothing a rule spells
        return None


def fetcher_facts(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    return curl_facts(argv) if program_name(argv) == "curl" else wget_facts(argv)
