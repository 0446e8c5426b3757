"""``sed`` scripts a wildcard rule may approve (seeds 4.6.4): a whitelist, not a blacklist.

``sed`` is a backdoor around the file tools — ``w``/``W`` write files, ``e`` and the ``s///e`` flag
run shell commands, ``r``/``R`` read files. Only these are accepted, each with an optional line
address (``5``, ``1,10``, ``$``, ``/re/``):

* printing: ``p`` (``sed -n '1,10p'``), ``=``, quitting ``q``/``Nq``, deleting lines from the output ``d``;
* substitution ``s/a/b/flags`` with flags only from ``g p i I m M`` and digits;
* literal text: append ``a``, insert ``i``, change ``c`` (the rest of the line, continued by a
  trailing backslash);
* transliteration ``y/abc/xyz/``.

Blocked, as in the seeds: ``!`` negation, ``{}`` blocks, labels and branches, non-ASCII text
(homoglyphs), a backslash or alphanumeric as the ``s`` delimiter. A script outside the whitelist is
not forbidden — only a rule that spells it out approves it. In-place editing (``-i``) is a write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.shell.parse.syntax import Word

_S_FLAGS = frozenset("gpiImM0123456789")
_VALUE_FLAGS = frozenset({"-l", "--line-length"})
_SAFE_FLAGS = frozenset(
    {
        "-n",
        "--quiet",
        "--silent",
        "-E",
        "-r",
        "--regexp-extended",
        "-s",
        "--separate",
        "-u",
        "--unbuffered",
        "-z",
        "--null-data",
        "--posix",
        "--debug",
        "--sandbox",
        "--follow-symlinks",
        "-b",
        "--binary",
    }
)


@dataclass(frozen=True, slots=True)
class SedFacts:
    #: ``(word index, reason)`` of scripts or options outside the whitelist.
    unsafe: tuple[tuple[int, str], ...]
    in_place: bool


def sed_facts(argv: Sequence[Word]) -> SedFacts:
    unsafe: list[tuple[int, str]] = []
    scripts: list[tuple[int, str]] = []
    in_place = False
    explicit_script = False
    i, n = 1, len(argv)
    first_positional: int | None = None
    dashdash = False
    while i < n:
        value = argv[i].value
        if dashdash or not value.startswith("-") or value == "-":
            if first_positional is None:
                first_positional = i
            i += 1
            continue
        if value == "--":
            dashdash = True
        elif value in ("-e", "--expression") and i + 1 < n:
            scripts.append((i + 1, argv[i + 1].value))
            explicit_script = True
            i += 1
        elif value.startswith("--expression="):
            scripts.append((i, value.split("=", 1)[1]))
            explicit_script = True
        elif value in ("-f", "--file") or value.startswith("--file="):
            unsafe.append((i, "sed -f runs a script file that cannot be checked"))
            explicit_script = True
            i += 0 if "=" in value else 1
        elif value.startswith("-i") or value.startswith("--in-place"):
            in_place = True
        elif value in _VALUE_FLAGS:
            i += 1
        elif (
            value.startswith("-") and not value.startswith("--") and len(value) > 2 and set(value[1:]) <= set("nErsuz")
        ):
            pass  # bundled harmless short flags (-nE)
        elif value.startswith("-e") and len(value) > 2:
            scripts.append((i, value[2:]))
            explicit_script = True
        elif value not in _SAFE_FLAGS and not value.startswith("--line-length="):
            unsafe.append((i, f"sed option {value}"))
        i += 1
    if not explicit_script and first_positional is not None:
        scripts.append((first_positional, argv[first_positional].value))
    for index, script in scripts:
        reason = unsafe_sed_reason(script)
        if reason is not None:
            unsafe.append((index, reason))
    return SedFacts(tuple(unsafe), in_place)


def unsafe_sed_reason(script: str) -> str | None:
    """Why ``script`` is outside the whitelist, or ``None`` when it is inside."""
    if not script.isascii():
        return "the sed script contains non-ASCII characters"
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        i = _address(script, i)
        if i < 0:
            return "a sed address that is not a line number, $ or /regex/"
        while i < n and script[i] in " \t":
            i += 1
        if i >= n:
            return "a sed address without a command"
        command = script[i]
        if command in "pd=":
            i += 1
        elif command == "q":
            i += 1
            while i < n and script[i].isdigit():
                i += 1
        elif command in "aic":
            i = _text(script, i + 1)
        elif command in "sy":
            i = _substitution(script, i)
            if i < 0:
                return f"a sed {command} command with a dangerous delimiter or flag (w, e, W, E)"
        else:
            return f"the sed command {command!r} is not in the read-only whitelist (w/e/r and blocks are refused)"
        while i < n and script[i] in " \t":
            i += 1
        if i < n and script[i] not in ";\n":
            return "unexpected text after a sed command"
    return None


def _text(script: str, i: int) -> int:
    """The end of an ``a``/``i``/``c`` text: the rest of the line, and the next lines while a line
    ends with an unescaped backslash (GNU sed). Literal text: it writes, reads and runs nothing."""
    n = len(script)
    while True:
        end = script.find("\n", i)
        if end == -1:
            return n
        line = script[i:end]
        if (len(line) - len(line.rstrip("\\"))) % 2 == 0:
            return end
        i = end + 1


def _address(script: str, i: int) -> int:
    i = _one_address(script, i)
    if i < 0:
        return i
    if i < len(script) and script[i] == ",":
        i += 1
        if i < len(script) and script[i] in "+~":
            i += 1
        j = _one_address(script, i)
        if j == i:
            return -1
        i = j
    return i


def _one_address(script: str, i: int) -> int:
    n = len(script)
    if i < n and script[i].isdigit():
        while i < n and (script[i].isdigit() or script[i] == "~"):
            i += 1
        return i
    if i < n and script[i] == "$":
        return i + 1
    if i < n and script[i] == "/":
        j = _delimited(script, i + 1, "/")
        if j < 0:
            return -1
        while j < n and script[j] in "IM":
            j += 1
        return j
    return i


def _delimited(script: str, i: int, delimiter: str) -> int:
    """Index after the closing ``delimiter`` starting the scan at ``i``, honouring escapes."""
    n = len(script)
    while i < n:
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            return i + 1
        if script[i] == "\n":
            return -1
        i += 1
    return -1


def _substitution(script: str, i: int) -> int:
    command = script[i]
    if i + 1 >= len(script):
        return -1
    delimiter = script[i + 1]
    if delimiter in "\\\n " or delimiter.isalnum():
        return -1
    j = _delimited(script, i + 2, delimiter)
    if j < 0:
        return -1
    j = _delimited(script, j, delimiter)
    if j < 0:
        return -1
    if command == "y":
        return j
    n = len(script)
    while j < n and script[j] not in ";\n \t}":
        if script[j] not in _S_FLAGS:
            return -1
        j += 1
    return j
