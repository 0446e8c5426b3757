"""The 23 named security checks of the seeds (4.6.1 ``BASH_SECURITY_CHECK_IDS``), with stable ids.

A check that fires makes the command "ask" (headless: deny) whatever the rules say; the decision
reports the check's numeric id, never a changing string, as the seeds do for telemetry.

Two kinds of checks live here:

* **text checks** (:func:`text_findings`) look at the command string and its quote-stripped views
  (:mod:`bot.shell.parse.quoting`): control characters, Unicode spaces, command substitution in its 12
  forms, IFS, ``/proc/*/environ``, brace expansion, mid-word ``#``, escaped operators... They are
  defence in depth next to the tree-sitter parse: they catch what a parser differential could hide.
* **word checks** (:func:`argv_findings`), given the parsed words of one simple command: obfuscated
  flags, jq's ``system()`` and file arguments, metacharacters in ``find`` patterns, zsh commands.

The parser reports the structural ones itself (6 dangerous variables, 9/10 redirections, 12 git
commit substitution, 14 malformed tokens) through :class:`~bot.shell.parse.syntax.TooComplex`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.quoting import QuoteViews, quote_views
from bot.shell.parse.syntax import WORD_OBFUSCATED_FLAG, WORD_VALUE, Finding, Word
from bot.shell.parse.walk import parse_tree

BASH_SECURITY_CHECK_IDS: dict[str, int] = {
    "INCOMPLETE_COMMANDS": 1,
    "JQ_SYSTEM_FUNCTION": 2,
    "JQ_FILE_ARGUMENTS": 3,
    "OBFUSCATED_FLAGS": 4,
    "SHELL_METACHARACTERS": 5,
    "DANGEROUS_VARIABLES": 6,
    "NEWLINES": 7,
    "DANGEROUS_PATTERNS_COMMAND_SUBSTITUTION": 8,
    "DANGEROUS_PATTERNS_INPUT_REDIRECTION": 9,
    "DANGEROUS_PATTERNS_OUTPUT_REDIRECTION": 10,
    "IFS_INJECTION": 11,
    "GIT_COMMIT_SUBSTITUTION": 12,
    "PROC_ENVIRON_ACCESS": 13,
    "MALFORMED_TOKEN_INJECTION": 14,
    "BACKSLASH_ESCAPED_WHITESPACE": 15,
    "BRACE_EXPANSION": 16,
    "CONTROL_CHARACTERS": 17,
    "UNICODE_WHITESPACE": 18,
    "MID_WORD_HASH": 19,
    "ZSH_DANGEROUS_COMMANDS": 20,
    "BACKSLASH_ESCAPED_OPERATORS": 21,
    "COMMENT_QUOTE_DESYNC": 22,
    "QUOTED_NEWLINE": 23,
}
CHECK_NAMES: dict[int, str] = {v: k for k, v in BASH_SECURITY_CHECK_IDS.items()}

#: The seeds' ``COMMAND_SUBSTITUTION_PATTERNS``: 12 forms. Which view each runs on matters: ``$(``
#: is live inside double quotes, ``<(`` is not.
COMMAND_SUBSTITUTION_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"<\("), "process substitution <()", "full"),
    (re.compile(r">\("), "process substitution >()", "full"),
    (re.compile(r"=\("), "Zsh process substitution =()", "full"),
    (re.compile(r"(?:^|[\s;&|])=[a-zA-Z_]"), "Zsh equals expansion (=cmd)", "full"),
    (re.compile(r"\$\("), "$() command substitution", "wdq"),
    # Check 8 departs from the seeds on one form: a plain ``${NAME}`` is not flagged. It is
    # ``$NAME`` with braces, which the seeds let through, and the word resolver treats both alike
    # (a value known only at run time: the argument checks, check 6 and the path checks still see
    # it). The seeds flag every ``${`` because their legacy regex splitter cannot tell ``${x}`` from
    # ``${x:-$(cmd)}``; our parser can, and every other form (defaults, ``${!x}``, substitutions)
    # is still check 8.
    (re.compile(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})"), "${} parameter substitution", "wdq"),
    (re.compile(r"\$\["), "$[] legacy arithmetic expansion", "wdq"),
    (re.compile(r"~\["), "Zsh-style parameter expansion", "full"),
    (re.compile(r"\(e:"), "Zsh-style glob qualifiers", "full"),
    (re.compile(r"\(\+"), "Zsh glob qualifier with command execution", "full"),
    (re.compile(r"\}\s*always\s*\{"), "Zsh always block (try/always construct)", "full"),
    (re.compile(r"<#"), "PowerShell comment syntax", "full"),
)
_BACKTICK = re.compile(r"`")

#: The seeds' ``ZSH_DANGEROUS_COMMANDS`` (18): module loading, eval-like ``emulate``, raw
#: file-descriptor builtins, and the ``zsh/files`` builtins that bypass checks on binaries.
ZSH_DANGEROUS_COMMANDS = frozenset(
    {
        "zmodload",
        "emulate",
        "sysopen",
        "sysread",
        "syswrite",
        "sysseek",
        "zpty",
        "ztcp",
        "zsocket",
        "zf_rm",
        "zf_mv",
        "zf_ln",
        "zf_chmod",
        "zf_chown",
        "zf_chgrp",
        "zf_mkdir",
        "zf_rmdir",
        "zf_sync",
    }
)

# Fast path: a command with none of these cannot trip any text check but the first.
_SUSPICIOUS_CHARS = frozenset("$`\\{}#~<([\x7f\r" + "".join(chr(c) for c in range(32) if c not in (9, 10)))
_ZSH_EQUALS = re.compile(r"(?:^|[\s;&|])=")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Unicode spaces and invisible characters that look like a space or nothing (and bidi controls,
#: the "trojan source" trick): bash does not split on them, a reader does.
_UNICODE_SPACE = re.compile("[\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff]")
_PROC_ENVIRON = re.compile(r"/proc/[^\s/]+(?:/task/[^\s/]+)?/(?:[^\s/]*environ|mem(?![\w-])|[^\s/]*[*?\[])")
_IFS = re.compile(r"\bIFS\b")
_BRACE = re.compile(r"(?<!\$)\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")
_MID_WORD_HASH = re.compile(r"(?<=[^\s$\{\\;&|(])#")
_INCOMPLETE_START = re.compile(r"^(?:-|&&|\|\||\||;|&(?!>))")
_INCOMPLETE_END = re.compile(r"(?:&&|\|\||(?<!\|)\||\\)$")


def text_findings(command: str) -> Finding | None:
    """The first text-level check that fires on ``command``, or ``None``."""
    stripped = command.strip()
    if not stripped:
        return Finding(1, "the command is empty")
    if command[0] == "\t":
        return Finding(1, "the command starts with a tab (a fragment of another command)")
    if (stripped[0] in "-&|;" or stripped[-1] in "&|\\") and (
        _INCOMPLETE_START.match(stripped) or _INCOMPLETE_END.search(stripped)
    ):
        return Finding(1, "the command starts or ends with an operator (an incomplete fragment)")
    if (
        command.isascii()
        and _SUSPICIOUS_CHARS.isdisjoint(command)
        and "IFS" not in command
        and "/proc/" not in command
        and "/dev/" not in command
        and ("=" not in command or _ZSH_EQUALS.search(command) is None)
    ):
        return None
    # Check 7 departs from the seeds: an unquoted newline is not flagged. The seeds ask on one
    # because their regex splitter does not treat it as a command separator, so a second line could
    # escape the rules; our parser splits on it exactly as bash does and every line is judged as a
    # subcommand of its own (a deny rule on line two still denies). What bash and other parsers do
    # disagree on is a carriage return, and that is check 7 here.
    if "\r" in command:
        return Finding(7, "a carriage return: bash reads it as part of a word, other parsers as a line break")
    if _CONTROL.search(command):
        return Finding(17, "the command contains control characters")
    if not command.isascii() and _UNICODE_SPACE.search(command):
        return Finding(18, "the command contains Unicode whitespace or invisible characters")
    if _PROC_ENVIRON.search(command):
        return Finding(13, "the command reads a process environment or memory file (/proc/*/environ)")
    if "/dev/tcp/" in command or "/dev/udp/" in command:
        return Finding(10, "bash opens a network connection through /dev/tcp or /dev/udp")
    views = quote_views(command)
    if views.unterminated:
        return Finding(14, "a quote or heredoc is never closed")
    for comment in views.comments:
        if any(q in comment for q in "'\"`"):
            return Finding(22, "a comment contains quote characters (a quote-tracking desync)")
    return _substitution_finding(views) or _syntax_finding(command, views)


def _substitution_finding(views: QuoteViews) -> Finding | None:
    if _BACKTICK.search(views.with_double_quotes):
        return Finding(8, "`...` command substitution")
    for pattern, message, view in COMMAND_SUBSTITUTION_PATTERNS:
        text = views.with_double_quotes if view == "wdq" else views.fully_unquoted
        if pattern.search(text):
            return Finding(8, message)
    return None


#: What may stand before a mid-word ``#`` that both bash and the parse read as a literal character.
_LITERAL_HASH_AFTER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,~-'\"")
#: Where a comment may start in bash: the start, after a blank or an operator that ends a word.
_COMMENT_AFTER = frozenset(b" \t\n;&|(")


def _hash_is_literal_to_both(command: str, views: QuoteViews) -> bool:
    """Check 19 departs from the seeds where the parse agrees with bash. The seeds ask on every
    mid-word ``#`` because a parser that reads it as the start of a comment sees fewer commands than
    bash runs (``x#;id``). Our decision is made on the tree-sitter parse: when that parse has no
    error and none of its comments starts inside a word, the ``#`` is a literal character to both
    (``-Dtest=AppTest#testMain``, ``https://host/docs#install``), and nothing is hidden. Only a
    ``#`` after a word character or a closing quote is looked at this way; after ``)``, ``}``,
    ``>`` or ``<`` the seeds' answer stands."""
    keep = views.keep_quote_chars
    if any(keep[m.start() - 1] not in _LITERAL_HASH_AFTER for m in _MID_WORD_HASH.finditer(keep)):
        return False
    data = command.encode("utf-8", "surrogateescape")
    root = parse_tree(command).root_node
    if root.has_error:
        return False
    pending = [root]
    while pending:
        node = pending.pop()
        if node.type == "comment":
            if node.start_byte > 0 and data[node.start_byte - 1] not in _COMMENT_AFTER:
                return False
        elif node.child_count:
            pending.extend(node.children)
    return True


def _syntax_finding(command: str, views: QuoteViews) -> Finding | None:
    if _IFS.search(views.with_double_quotes):
        return Finding(11, "the command references IFS (word-splitting injection)")
    if _BRACE.search(views.fully_unquoted):
        return Finding(16, "brace expansion turns one word into several")
    if _MID_WORD_HASH.search(views.keep_quote_chars) and not _hash_is_literal_to_both(command, views):
        return Finding(
            19,
            "a '#' in the middle of a word (parsers disagree on whether it starts a comment); "
            "quote the part with the '#' if it is meant literally (-Dtest='Suite#method')",
        )
    escaped = set(views.escapes)
    for pos, char in views.escapes:
        if char in "|&<>":
            return Finding(21, f"a backslash-escaped operator '\\{char}'")
        if char == ";" and not _standalone(command, pos, 2):
            return Finding(21, "a backslash-escaped ';' inside a word")
        if (
            char == "\n"
            and pos > 0
            and pos + 2 < len(command)
            and not command[pos + 2].isspace()
            and (not command[pos - 1].isspace() or (pos - 2, command[pos - 1]) in escaped)
        ):
            return Finding(15, "a line continuation joins two halves of a word (r\\<newline>m is rm)")
        if char in " \t" and pos + 2 < len(command) and command[pos + 2] == "-":
            return Finding(15, "a backslash-escaped space hides a flag inside a word")
    return None


def _standalone(command: str, pos: int, length: int) -> bool:
    before = command[pos - 1] if pos > 0 else " "
    after = command[pos + length] if pos + length < len(command) else " "
    return before.isspace() and (after.isspace() or after in ");")


_FIND_PATTERN_PREDICATES = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename", "-iwholename", "-lname", "-ilname"}
)
_JQ_FILE_FLAGS = frozenset({"-f", "--from-file", "--rawfile", "--slurpfile", "-L", "--library-path", "--run-tests"})
_JQ_SYSTEM = re.compile(r"\bsystem\s*\(|\binput_filename\b|\$__prog")


def argv_findings(argv: Sequence[Word]) -> Finding | None:
    """Word-level checks for one simple command (after wrappers are unwrapped)."""
    if not argv:
        return None
    program = argv[0].value.rsplit("/", 1)[-1]
    if program in ZSH_DANGEROUS_COMMANDS:
        return Finding(20, f"{program} is a zsh builtin that bypasses command checks")
    if argv[0].escaped_space:
        return Finding(15, "the command name contains an escaped space")
    values = list(map(WORD_VALUE, argv))
    if "/proc/" in "\n".join(values):
        for value in values:
            if "/proc/" in value and _PROC_ENVIRON.search(value):
                return Finding(13, "the command reads a process environment or memory file (/proc/*/environ)")
    jq = program == "jq" or program == "gojq"
    find = program == "find"
    if not jq and not find and not any(map(WORD_OBFUSCATED_FLAG, argv[1:])):
        return None  # (what the loop below looks for in any other program's words)
    after_dashdash = False
    for index, word in enumerate(argv[1:], start=1):
        value = word.value
        if value == "--" and not word.quoted:
            after_dashdash = True
            continue
        if word.obfuscated_flag and not after_dashdash:
            return Finding(4, f"the flag {value!r} is written with quotes or escapes ({word.text!r})")
        if jq:
            if value in _JQ_FILE_FLAGS or any(value.startswith(f + "=") for f in _JQ_FILE_FLAGS if f.startswith("--")):
                return Finding(3, f"jq reads files through {value}")
            if _JQ_SYSTEM.search(value):
                return Finding(2, "jq program calls system() or reads its own input files")
        if find and argv[index - 1].value in _FIND_PATTERN_PREDICATES and any(c in value for c in ";|&`"):
            return Finding(5, f"shell metacharacters in the find pattern {value!r}")
    return None


#: bash syntax that a POSIX shell reads differently, so that a script judged as bash would run other
#: commands: ``$'\\\\' ; rm -rf src # '`` (dash has no ``$'...'``: the quote opens at ``'\\\\'`` and
#: ``rm`` runs), ``x &>/dev/null sh -c id`` (dash: ``x &`` then ``>/dev/null sh -c id``),
#: ``[[ x || rm -rf src ]]`` (dash runs ``rm -rf src ]]``), ``a |& b``, ``<<<`` (a heredoc
#: delimited by ``<``) and ``$"..."``.
_POSIX_DIFFERENCES = (
    ("$'", "$'...' (dash reads $ and a single-quoted string)"),
    ('$"', '$"..." (dash reads $ and a double-quoted string)'),
    ("&>", "&> (dash runs the command in the background and redirects the next one)"),
    ("|&", "|& (not a POSIX operator)"),
    ("<<<", "<<< (dash reads a heredoc delimited by '<')"),
    ("[[", "[[ (dash runs it as a command, so its && and || separate commands)"),
    ("]]", "]] (dash runs it as a word, so the && and || before it separate commands)"),
)


def posix_sh_differences(script: str) -> str | None:
    """Why a script for ``sh``/``dash``/``ash`` cannot be judged with the bash parser, or ``None``.

    The analysis parses every script as bash. For a POSIX shell that is only sound when the script
    holds none of the bash-only syntax a POSIX shell splits differently; with one, the caller treats
    the shell as an opaque launcher (only an exact rule approves it). The test is textual and
    conservative: the sequence anywhere, even quoted, refuses."""
    for needle, why in _POSIX_DIFFERENCES:
        if needle in script:
            return f"the script uses bash-only syntax that sh reads differently: {why}"
    return None
