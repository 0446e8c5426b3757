"""The class of a documented option, by rules over its name, its value's placeholder and its
description; ``overrides.json`` holds what a maintainer reviewed and the rules get wrong.

The classes, from the most to the least dangerous (the first rule that fits wins):

* ``runs`` — the value is a command or code the program runs (``--to-command``, ``-exec``,
  ``--eval``, a hook, a shell escape of the program's own language);
* ``program`` — the value names a program to start: an editor, a pager, a filter, a shell, a
  compressor, a remote shell (``-I PROG``, ``--rsh``, ``--editor``);
* ``loads`` — the value is code or configuration the program loads (``--config``, ``--plugin``,
  ``--require``, ``--rcfile``, ``--kubeconfig``): configuration can itself name programs;
* ``connects`` — the value is somewhere to connect to: a host, a URL, a socket, a proxy, a server,
  a registry or package index, a context;
* ``reads`` / ``writes`` — the value is a file the program reads or writes;
* ``inert`` — nothing of the above (and every flag without a value, unless overridden).

Only options that take a value get a dangerous class from the rules: a flag cannot point anywhere.
A flag that is dangerous by itself (``git --paginate`` is not, ``docker run --privileged`` would be)
gets its class from the overrides.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

OVERRIDES = Path(__file__).parent / "overrides.json"

_W = r"(?:^|[^a-z])"
_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    # (class, where, pattern): where is "name", "value" (the placeholder) or "text" (description)
    (
        "runs",
        "name",
        re.compile(
            rf"{_W}(exec|execute|command|cmd|eval|hook|run-command|to-command|"
            r"shell-command|script-shell|checkpoint-action|use-compress-program)(?:$|[^a-z])"
        ),
    ),
    (
        "runs",
        "value",
        re.compile(
            r"(?i)^<?(command|cmd|commandline|shell[-_ ]?command|"
            r"program[-_ ]?text|statement|progfile|shell[-_ ]?script)s?>?(\.\.\.)?$"
        ),
    ),
    (
        "program",
        "name",
        re.compile(
            rf"{_W}(editor|pager|filter|shell|rsh|ssh|program|prog|wrapper|helper|"
            r"askpass|compress-program|diff-?tool|merge-?tool|browser|interpreter|"
            r"compiler|linker|launcher|sendmail|viewer|executable)s?(?:$|[^a-z])"
        ),
    ),
    (
        "program",
        "value",
        re.compile(
            r"(?i)^<?(prog(ram)?|editor|pager|filter|shell|executable|binary|exe|tool|"
            r"interpreter|compiler|wrapper|helper|path[-_]to[-_]program)s?>?$"
        ),
    ),
    (
        "loads",
        "name",
        re.compile(
            rf"{_W}(config|conf|configuration|rcfile|rc|init-file|initfile|plugins?|"
            r"modules?|load|preload|require|import|library|lib|extensions?|profile|"
            r"template|kubeconfig|settings|settings-file|userconfig|globalconfig|"
            r"include-config|loader|addons?|spec|recipe|env-file|dotenv)(?:$|[^a-z])"
        ),
    ),
    (
        "loads",
        "value",
        re.compile(
            r"(?i)^<?(config(file|uration)?|conf|plugin|module|library|lib|"
            r"extension|rcfile|profile|template|kubeconfig|settings)s?>?$"
        ),
    ),
    (
        "connects",
        "name",
        re.compile(
            rf"{_W}(host|hostname|url|uri|server|proxy|registry|socket|sock|endpoint|"
            r"remote|daemon|kubeconfig|mirror|connect|upstream|listen|"
            r"nameserver|relay|tunnel|jump|gateway|broker|cluster|preproxy|socks4|socks4a|socks5|"
            r"proxy1.0)"
            r"(?:$|[^a-z])"
        ),
    ),
    (
        "connects",
        "value",
        re.compile(
            r"(?i)^<?(host(name)?(:port)?|urls?|uris?|server|proxy|socket|"
            r"endpoint|registry|\[?user@\]?host.*|host\[:port\]|ip(:port)?|remote|"
            r"ip-address:port.*|ipaddr:port|protocol://|destination)s?>?$"
        ),
    ),
    (
        "writes",
        "name",
        re.compile(
            rf"{_W}(output|out|outfile|output-file|output-document|log-file|logfile|"
            r"log|save|dump|write|dest|destination|target-directory|report|"
            r"junitxml|junit-xml|cov-report|backup-dir|temp-dir|tmpdir|cache-dir)"
            r"(?:$|[^a-z])"
        ),
    ),
    (
        "reads",
        "value",
        re.compile(
            r"(?i)^<?(file|filename|path|pathname|files|dir|directory|archive|input|"
            r"infile|[a-z]*[-_]?file|[a-z]*[-_]?path)s?>?(\.\.\.)?$"
        ),
    ),
)
#: Description sentences that override a harmless-looking name (``-I PROG``'s "use PROG as the
#: compression program").
_TEXT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "runs",
        re.compile(
            r"\b(execute[sd]?|run[s]?|invoke[sd]?|spawn[s]?|pass(?:es|ed)? to (?:the |a )?shell)\b"
            r"[^.]{0,40}\b(command|shell|script|hook)\b|\bshell command\b|\bcommand (?:line )?to "
            r"(?:run|execute|invoke)\b"
        ),
    ),
    (
        "program",
        re.compile(
            r"\b(use|run|invoke)s? [a-z]+ as (the |an? )?(external |alternative )?(editor|pager|"
            r"filter|(compression|decompression|remote shell|diff|merge) program)\b|\bprogram to "
            r"(use|run|invoke) (for|as|to)\b"
        ),
    ),
    (
        "loads",
        re.compile(
            r"\b(load)s? (the |an? )?(additional |alternate |alternative |custom )?"
            r"(config(uration)?( file)?|plugins?|modules?|rc file|init(ialization)? file|"
            r"startup file|library|extension)\b|\bplugin\b"
        ),
    ),
    (
        "connects",
        re.compile(
            r"\b((daemon|server|proxy|registry|package index) (socket|host|url|address) to "
            r"(use|connect to)|(host|url|uri|address|socket) to connect to)\b"
        ),
    ),
    (
        "writes",
        re.compile(
            r"\b(write|writes|save|saves|place|output) (the )?(output|result|results|log|"
            r"report|it|them)? ?(to|into|in) (file|the file|[A-Z]+)\b|\boutput file\b"
        ),
    ),
)


#: Placeholders of values that are data, whatever the option's name says (``--connect-timeout
#: SECONDS``, ``--diff-filter (A|C|D…)``, ``--gpg-sign KEYID``).
_DATA = re.compile(
    r"(?i)^(num(ber)?|n|lines?|seconds?|secs?|ms|milliseconds|fractional seconds|timeout|level|"
    r"date|time|pattern|patterns|keyid|object|commit|rev|type|types|version|size|count|format|"
    r"when|method|width|regex|regexp|mode|id|encoding|char|chars|depth|limit|bytes|duration|"
    r"port|interface|md5|sha256|hashes|list|ciphersuite list|cipher|ciphers|phrase|password|"
    r"user|username|name=expr|or|and|may|specifies|options|parameters|ctx|\(.*|[0-9].*)$"
)


@cache
def overrides() -> dict[str, dict[str, str]]:
    """``{program: {option: class}}`` reviewed by hand (each entry's reason in its ``why`` key)."""
    if not OVERRIDES.exists():
        return {}
    raw = json.loads(OVERRIDES.read_text(encoding="utf-8"))
    return {
        program: {name: entry["class"] for name, entry in options.items()}
        for program, options in raw.items()
        if not program.startswith("_")
    }


def classify(program: str, name: str, value: str, description: str) -> tuple[str, str]:
    """``(class, why)`` for one documented spelling of an option."""
    reviewed = overrides().get(program, {}).get(name)
    if reviewed is not None:
        return reviewed, "overrides.json"
    if not value:
        return "inert", "a flag (takes no value)"
    bare = name.lstrip("-").lower()
    if bare.startswith(("no-", "help", "without-", "disable-", "dont-", "ignore-", "skip-")):
        return "inert", "a negation or a help option"
    last = re.split(r"[-_]", bare)[-1]
    placeholder = value.strip("<>[]{}. ").lower()
    text = description.lower()
    if _DATA.match(placeholder):
        return "inert", f"the value is data ({value})"
    for kind, where, pattern in _RULES:
        subject = last if where == "name" else placeholder if where == "value" else text
        if len(bare) <= 1 and where == "name":
            continue  # a one-letter name says nothing
        if pattern.search(subject) or (where == "name" and _whole(pattern, bare)):
            refined = _refine(kind, text)
            return refined, f"{where} {subject!r} ({kind})" + (f", refined to {refined}" if refined != kind else "")
    for kind, pattern in _TEXT_RULES:
        match = pattern.search(text)
        if match:
            return kind, f"description {match.group(0)!r}"
    return "inert", "no rule matched"


def _whole(pattern: re.Pattern[str], name: str) -> bool:
    """The rule names the whole option (``--output-file``, ``--to-command``), not only a part of it."""
    return pattern.fullmatch(name) is not None


def _refine(kind: str, text: str) -> str:
    """A description that says more than the name: ``--output-filter CMD`` runs, ``--exec-path``
    is a directory of programs (``program``)."""
    if kind in ("reads", "writes", "loads", "connects", "program"):
        for stronger, pattern in _TEXT_RULES:
            if stronger == kind:
                break
            if stronger in ("runs", "program") and pattern.search(text):
                return stronger
    return kind
