"""``awk`` programs a wildcard rule may approve.

awk is a programming language with three ways out: ``system(cmd)``, pipes (``print | "cmd"``,
``"cmd" | getline``, ``|&`` coprocesses) and output redirection (``print > "file"``); gawk adds
``@load``/``@include`` and reading files with ``getline < file``. A program using any of them is
approved only by a rule that spells it out. String and regex literals (and comments) are blanked
first, in one left-to-right scan as awk's lexer reads them — blanking strings first would let a
quote inside a regex (``/"/ { system("id") }``) swallow the code after it — so ``awk '/a|b/ {print
"x > y"}'`` is not a false alarm, and ``$1 > 5`` in a pattern is a comparison, not a redirection
(only ``>`` inside a ``print``/``printf`` statement redirects). gawk's ``@`` (``@load``, ``@include``,
indirect calls ``@f("id")`` that can reach ``system``) is refused wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word

_SYSTEM = re.compile(r"\bsystem\s*\(")
_AT = re.compile(r"@\s*[A-Za-z_]")
_GETLINE_FILE = re.compile(r"\bgetline\b[^;{}\n|]*<")
_PRINT_STATEMENT = re.compile(r"\b(?:print|printf)\b([^;{}\n]*)")
_REGEX_BEFORE = frozenset("(,~!{};&|\n=?:")
#: Keywords after which ``/`` starts a regex (after a variable it divides).
_REGEX_KEYWORDS = frozenset({"print", "printf", "return", "case", "do", "else"})
_SAFE_OPTIONS = frozenset(
    {
        "--posix",
        "--traditional",
        "-P",
        "--re-interval",
        "-r",
        "--characters-as-bytes",
        "-b",
        "--sandbox",
        "-S",
        "-N",
        "--use-lc-numeric",
        "-O",
        "--optimize",
        "--lint",
        "-c",
        "--csv",
        "-k",
    }
)


def unsafe_awk_reason(program: str) -> str | None:
    """Why an awk program reaches outside awk, or ``None``."""
    text = _blank_literals(program)
    if _SYSTEM.search(text):
        return "the awk program calls system()"
    if "|" in text.replace("||", ""):
        return "the awk program pipes to or from a command"
    if _AT.search(text):
        return "the awk program loads code or calls a function by name (gawk @load/@include/@f())"
    if _GETLINE_FILE.search(text):
        return "the awk program reads a file with getline <"
    for match in _PRINT_STATEMENT.finditer(text):
        if _top_level_gt(match.group(1)):
            return "the awk program redirects print output to a file"
    return None


def awk_facts(argv: Sequence[Word]) -> list[tuple[int, str]]:
    """``(word index, reason)`` for the parts of an awk command no wildcard rule may approve."""
    unsafe: list[tuple[int, str]] = []
    i, n = 1, len(argv)
    program_index: int | None = None
    while i < n:
        value = argv[i].value
        if value == "--":
            i += 1
            break
        if not value.startswith("-") or value == "-":
            break
        name = value.split("=", 1)[0]
        if value[:2] in ("-F", "-v"):
            i += 1 if len(value) > 2 else 2  # -F: or -F ':'
            continue
        if name in ("--field-separator", "--assign"):
            i += 1 if "=" in value else 2
            continue
        if name in ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"):
            unsafe.append((i, f"awk {name} loads program code that cannot be checked"))
            return unsafe
        if name in ("-e", "--source") and i + 1 < n:
            reason = unsafe_awk_reason(argv[i + 1].value)
            if reason:
                unsafe.append((i + 1, reason))
            program_index = -1
            i += 2
            continue
        if name not in _SAFE_OPTIONS:
            unsafe.append((i, f"awk option {name} (it may write files or load code)"))
        i += 1
    if program_index is None and i < n:
        reason = unsafe_awk_reason(argv[i].value)
        if reason:
            unsafe.append((i, reason))
    return unsafe


def _blank_literals(program: str) -> str:
    """``program`` with string and regex literals emptied and comments removed, read left to right."""
    out: list[str] = []
    i, n = 0, len(program)
    previous = "\n"  # the last significant character
    word = ""  # the identifier just read, when ``previous`` ends one
    while i < n:
        ch = program[i]
        if ch == '"':
            i = _literal_end(program, i + 1, '"')
            out.append('""')
            previous, word = '"', ""
            continue
        if ch == "/" and (previous in _REGEX_BEFORE or word in _REGEX_KEYWORDS):
            i = _literal_end(program, i + 1, "/")
            out.append("//")
            previous, word = "/", ""
            continue
        if ch == "#":
            end = program.find("\n", i)
            i = n if end < 0 else end
            continue
        out.append(ch)
        if ch.isalnum() or ch == "_":
            word = word + ch if previous.isalnum() or previous == "_" else ch
            previous = ch
        elif not ch.isspace() or ch == "\n":
            previous, word = ch, ""
        i += 1
    return "".join(out)


def _literal_end(program: str, i: int, close: str) -> int:
    """The index after the literal that started before ``i`` and ends with ``close`` (backslash
    escapes; a regex's bracket expression may contain ``/``; a newline ends either)."""
    n = len(program)
    bracket = False
    while i < n:
        ch = program[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n":
            return i
        if close == "/" and ch == "[" and not bracket:
            bracket = True
            if program[i + 1 : i + 2] == "^":
                i += 1
            if program[i + 1 : i + 2] == "]":
                i += 1  # `[]...]`: the first ] is a member
        elif ch == "]" and bracket:
            bracket = False
        elif ch == close and not bracket:
            return i + 1
        i += 1
    return n


def _top_level_gt(statement: str) -> bool:
    depth = 0
    for ch in statement:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == ">" and depth <= 0:
            return True
    return False
