"""Command substitutions whose output is known before the command runs: ``make -j$(nproc)``,
``docker run -v "$(pwd)":/src``, ``docker build -t app:$(git rev-parse --short HEAD) .``.

The seeds ask on every ``$(...)`` (check 8), because the output of a hidden command becomes words
of the visible one and nothing about those words can be checked. That holds for an arbitrary inner
command. It does not hold for a handful of commands whose output has a fixed shape, which CI
scripts use constantly:

* **digits**: ``nproc``, ``getconf _NPROCESSORS_ONLN``, ``id -u``, ``date +%s``…;
* **hex**: ``git rev-parse [--short[=N]] HEAD``, after a literal part of the same word (it prints
  nothing before the first commit);
* **the directory**: ``pwd`` and ``$PWD``: the directory the analysis already tracks;
* **the repository's top**: ``git rev-parse --show-toplevel`` as a whole word (``cd "$(git
  rev-parse --show-toplevel)"``), when the command starts inside the workspace with no other
  repository between its directory and the workspace's own, nothing before the substitution moves,
  and no ``GIT_*`` variable is set in the command: then it is the workspace's root (or nothing,
  where git refuses to run: an empty word, never a path from ``/``);
* **a process substitution** ``<(cmd)``/``>(cmd)``: whatever ``cmd`` is, the word it becomes is a
  pipe's name, ``/dev/fd/63``; ``cmd`` itself is judged as a command in full (it needs its rules).

Such a substitution is replaced by its value (the directory) or by a stand-in of its shape (``1``,
``0a1b2c3d``), and the resulting command is judged by the whole analysis, as if it had been typed
that way; each inner command is judged too, so it still needs a rule or must be read-only, and a
deny rule on it still applies. Digits and hex digits contain no space, glob character, quote or
leading dash, so bash's word splitting and globbing of an unquoted substitution leave them one word,
the word cannot become an option, and no path rule tells one digit string from another.

Anything else keeps the seeds' answer: an inner command that is not one of these exact forms (any
other option, a redirection, a nested expansion), a directory that is not certain (a ``cd`` or
``pushd`` anywhere in the command, an assignment to ``PWD``, a ``cd`` that may not have run), and a
directory holding a character that splitting or globbing would act on where the substitution is not
quoted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from bot.shell.parse.walk import parse_tree

#: The stand-ins: any output of the same shape is judged the same.
DIGITS = "1"
HEX = "0a1b2c3d"
#: The directory itself.
CWD = "cwd"
#: The repository's top directory.
TOPLEVEL = "toplevel"
#: What bash puts in place of ``<(...)`` and ``>(...)``: the name of a pipe to or from the command.
PIPE = "/dev/fd/63"

#: ``date`` format specifiers that print only digits.
_DATE_DIGITS = re.compile(r"\+(?:%[sYmdHMSjyCuwVGgUW]|[0-9_])+\Z")
_SHORT = re.compile(r"--short(?:=[0-9]{1,2})?\Z")
#: What an inner command may look like at all: plain words, no quote, expansion, operator.
_PLAIN = re.compile(r"[A-Za-z0-9 _%+=.,:/-]+\Z")
#: A directory that needs no quoting: splitting and globbing leave it one word.
_SAFE_PATH = re.compile(r"[A-Za-z0-9_./+@:,-]+\Z")
#: What may come right before a hash in the same word.
_HEX_PREFIX = frozenset(bytes([c]) for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:=@-")
#: Quotes and backslashes bash removes from a word (`"cd"`, `c''d`, `\\cd` are `cd`).
_QUOTES = re.compile(r"[\"'\\]")
#: Commands that change the directory or ``PWD``: a substitution's directory is then not certain.
#: A ``cd``/``pushd`` right before the substitution: the one it is the argument of.
_OWN_CD = re.compile(r"(?:cd|pushd)\s+\Z")
_MOVES = re.compile(r"(?:^|[\s;&|(`])(?:cd|pushd|popd)(?:$|[\s;&|)`])|\bPWD=|\bOLDPWD=")


def _shape(words: tuple[str, ...]) -> str | None:
    """The shape of what ``words`` print, or ``None`` when it is not one of the known forms."""
    match words:
        case ("nproc",) | ("nproc", "--all"):
            return DIGITS
        case ("getconf", "_NPROCESSORS_ONLN" | "NPROCESSORS_ONLN" | "_NPROCESSORS_CONF" | "PAGESIZE" | "PAGE_SIZE"):
            return DIGITS
        case ("id", "-u" | "-g" | "-ru" | "-rg"):
            return DIGITS
        case ("date", fmt) if _DATE_DIGITS.match(fmt):
            return DIGITS
        case ("pwd",) | ("pwd", "-L"):
            return CWD
        case ("git", "rev-parse", "--show-toplevel"):
            return TOPLEVEL
        # on an unborn branch it prints nothing: see the prefix rule in `rewrite`
        case ("git", "rev-parse", *rest) if rest and rest[-1] == "HEAD":
            flags = rest[:-1]
            if all(_SHORT.match(f) for f in flags) and len(flags) <= 1:
                return HEX
    return None


class Rewritten(NamedTuple):
    """``command`` with its known substitutions replaced, and the inner commands they run: the fixed
    forms of the table (``fixed``), which print a value and need no rule of their own, and the
    commands of process substitutions (``judged``), which are judged like any command."""

    command: str
    fixed: tuple[str, ...]
    judged: tuple[str, ...] = ()


class _Site(NamedTuple):
    start: int
    end: int
    inner: str | None  # None: ``$PWD``/``${PWD}``, which runs nothing
    quoted: bool
    pipe: bool = False  # a process substitution


def rewrite(command: str, cwd: str | None, *, certain: bool = True, toplevel: str | None = None) -> Rewritten | None:
    """The command with every command substitution replaced by its known value, or ``None`` when
    one of them is not of a known shape. ``cwd`` is the logical directory the command starts in;
    ``certain`` is false when the shell may be somewhere else (an earlier ``cd`` that may not run);
    ``toplevel`` is the repository's top as seen from ``cwd`` (``None``: not known)."""
    if "$" not in command and "`" not in command and "(" not in command:
        return None
    sites = list(_sites(command))
    if not sites:
        return None
    data = command.encode("utf-8", "surrogateescape")
    out: list[bytes] = []
    inner: list[str] = []
    judged: list[str] = []
    last = 0
    for site in sites:
        shape = CWD
        if site.pipe and site.inner is not None:
            shape = PIPE
            judged.append(site.inner)
        elif site.inner is not None:
            text = site.inner.strip()
            found = _shape(tuple(text.split())) if _PLAIN.match(text) else None
            if found is None:
                return None
            shape = found
            inner.append(text)
        if shape == HEX and (site.start == 0 or data[site.start - 1 : site.start] not in _HEX_PREFIX):
            # the output may be empty (no commit yet): only a literal part of the same word before
            # it (`app:$(git rev-parse --short HEAD)`) keeps `"$(…)"/*` from becoming `/*`
            return None
        if shape == CWD:
            if cwd is None or not certain or _MOVES.search(_QUOTES.sub("", command)):
                return None
            if not site.quoted and not _SAFE_PATH.match(cwd):
                return None
            value = cwd
        elif shape == TOPLEVEL:
            # Where it runs decides what it prints: only from where the command starts.
            # (the `cd` it is the argument of has not run yet: `cd "$(git rev-parse --show-toplevel)"`)
            before = _OWN_CD.sub("", _QUOTES.sub("", data[: site.start].decode("utf-8", "surrogateescape")))
            # nothing may run before it: an `eval $'\x63d' x` moves where no pattern can see
            if toplevel is None or not certain or before.strip() or "GIT_" in command:
                return None
            if not _whole_word(data, site.start, site.end):
                # git prints nothing where it refuses (a directory of another owner, a bare
                # repository): `"$(…)/src"` would be `/src`, while a whole word is then empty
                return None
            if not site.quoted and not _SAFE_PATH.match(toplevel):
                return None
            value = toplevel
        else:
            value = shape
        out.append(data[last : site.start])
        out.append(value.encode("utf-8", "surrogateescape"))
        last = site.end
    out.append(data[last:])
    return Rewritten(b"".join(out).decode("utf-8", "surrogateescape"), tuple(inner), tuple(judged))


_WORD_EDGE = frozenset(b" \t\n;&|()")


def _whole_word(data: bytes, start: int, end: int) -> bool:
    """Is ``data[start:end]`` a word by itself (``cd "$(…)"``, ``cd $(…) &&``), quotes aside?"""
    if start > 0 and data[start - 1 : start] == b'"':
        start -= 1
    if data[end : end + 1] == b'"':
        end += 1
    return (start == 0 or data[start - 1] in _WORD_EDGE) and (end == len(data) or data[end] in _WORD_EDGE)


def _sites(command: str) -> Iterator[_Site]:
    """Every command substitution, and every ``$PWD``, in order, outside single quotes and comments
    (where nothing runs). Heredoc bodies are left as they are: the rewritten command is judged again
    from the start, so a substitution left anywhere still makes it ask."""
    tree = parse_tree(command)
    root = tree.root_node
    if root.has_error:
        return
    data = command.encode("utf-8", "surrogateescape")
    yield from _walk(root, data, quoted=False)


def _walk(node: Any, data: bytes, quoted: bool) -> Iterator[_Site]:
    kind = node.type
    if kind == "command_substitution":
        text = data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")
        body = text[2:-1] if text.startswith("$(") else text[1:-1]
        yield _Site(node.start_byte, node.end_byte, body, quoted)
        return
    if kind == "process_substitution":
        text = data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")
        yield _Site(node.start_byte, node.end_byte, text[2:-1], quoted, pipe=True)
        return
    if kind in ("simple_expansion", "expansion"):
        if data[node.start_byte : node.end_byte] in (b"$PWD", b"${PWD}"):
            yield _Site(node.start_byte, node.end_byte, None, quoted)
        return
    if kind in ("raw_string", "heredoc_body", "comment", "ansi_c_string"):
        return
    inside = quoted or kind == "string"
    for child in node.children:
        yield from _walk(child, data, inside)
