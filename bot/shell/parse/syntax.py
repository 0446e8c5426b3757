"""The parsed shape of a shell command: words with their quoting resolved, simple commands, and the
three parse outcomes of the seeds (4.6.2 step 1): simple, too complex, parser unavailable.

A :class:`Word` keeps both what bash will pass to the program (``value``) and how it was written
(``text``), because the security checks judge the writing (a quoted dash hiding a flag) and the
rules judge the value. A part whose value only exists at run time (``$VAR``) is replaced in
``value`` by :data:`DYN`, a private-use character no rule literal can match: such a part can only
ever be matched by a rule's ``*``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import NamedTuple

#: Stands for a part of a word whose value is only known at run time (a ``$VAR`` expansion, a
#: file name a glob or ``find -exec {}`` produces). U+E000 is private use: never in a rule literal.
DYN = "\ue000"


class Word(NamedTuple):
    """One shell word (an argument, a command name, a redirect target). A named tuple: the parser
    makes thousands of these, and a frozen dataclass costs several times more to build."""

    #: What the program receives (quotes removed, escapes applied, ``DYN`` for run-time parts).
    value: str
    #: The word as written in the command.
    text: str
    #: Some part was quoted or backslash-escaped.
    quoted: bool = False
    #: Some part is a parameter expansion (``$X``, ``"${X}"``).
    dynamic: bool = False
    #: An unquoted expansion: bash splits it into words and globs it.
    splits: bool = False
    #: Unquoted ``*``, ``?`` or ``[``: bash replaces the word with matching file names.
    glob: bool = False
    #: The flag-like start of the word (``-x``, ``--long``) was produced by quoting or escaping.
    obfuscated_flag: bool = False
    #: Backslash-escaped whitespace inside the word (``a\\ b``).
    escaped_space: bool = False

    @property
    def is_static(self) -> bool:
        return not self.dynamic and not self.glob


#: Fields of a :class:`Word`, read in C over a whole argv (``map(WORD_VALUE, argv)``): a Python loop
#: over the words of every command is a sizeable part of a decision.
WORD_VALUE = itemgetter(Word._fields.index("value"))
WORD_DYNAMIC = itemgetter(Word._fields.index("dynamic"))
WORD_GLOB = itemgetter(Word._fields.index("glob"))
WORD_OBFUSCATED_FLAG = itemgetter(Word._fields.index("obfuscated_flag"))


def literal(value: str) -> Word:
    """A word that was written plainly (tests, synthesized argv such as ``find -delete``'s rm)."""
    return Word(value, value)


#: Redirect operators that write (or duplicate) file descriptors.
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})


class Redirect(NamedTuple):
    op: str
    #: The file descriptor written before the operator (``2>``), when there is one.
    fd: int | None
    #: The target word (``None`` for heredocs, whose body is data on stdin).
    target: Word | None
    #: A heredoc or herestring whose content has run-time parts.
    dynamic_input: bool = False

    @property
    def is_fd_dup(self) -> bool:
        """``2>&1``, ``>&2``, ``<&0``, ``>&-``: no file is opened."""
        if self.op not in (">&", "<&") or self.target is None:
            return False
        value = self.target.value
        return value == "-" or value.rstrip("-").isdigit()

    @property
    def writes_file(self) -> bool:
        return self.op in WRITE_OPS and not self.is_fd_dup


class Assignment(NamedTuple):
    name: str
    value: Word
    #: ``export NAME=...`` / ``declare -x``: changes the environment of what follows.
    exported: bool = False


class SimpleCommand(NamedTuple):
    """One command of a compound: ``NAME=v prog args > file``."""

    argv: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    #: The command as written (for messages, suggestions and deny matching on the raw form).
    text: str = ""
    #: ``export``/``declare``/``local``/standalone assignments: they change shell state only.
    kind: str = "command"

    @property
    def program(self) -> str:
        return self.argv[0].value if self.argv else ""

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(w.value for w in self.argv)


class ScopeMarker(NamedTuple):
    """Entering or leaving a subshell (``( ... )``, a pipeline element, a background job): a ``cd``
    inside does not change the directory of what follows the scope. A ``branch`` scope (the body
    of an ``if`` or a loop) runs in the current shell, maybe: a ``cd`` inside leaves the directory
    unknown."""

    enter: bool
    branch: bool = False


Item = SimpleCommand | ScopeMarker


class Parsed(NamedTuple):
    """Outcome "simple": a flat list of simple commands (with scope markers) we can judge one by one."""

    items: tuple[Item, ...]
    #: The operators between commands, in order (``&&``, ``||``, ``;``, ``|``, ``&``, newline).
    operators: tuple[str, ...] = ()
    #: The simple commands of ``items``.
    commands: tuple[SimpleCommand, ...] = ()


def parsed(items: tuple[Item, ...], operators: tuple[str, ...] = ()) -> Parsed:
    return Parsed(items, operators, tuple(i for i in items if isinstance(i, SimpleCommand)))


class TooComplex(NamedTuple):
    """Outcome "too complex": substitutions, unresolvable expansions, control flow. Headless, the
    answer is "ask", which means deny."""

    reason: str
    #: The security check this falls under, when one does (e.g. 8 for ``$(...)``).
    check_id: int | None = None


class ParseUnavailable(NamedTuple):
    """Outcome "parser unavailable": tree-sitter could not be loaded; a conservative fallback decides."""

    reason: str = "the shell parser is not available"


ParseOutcome = Parsed | TooComplex | ParseUnavailable


@dataclass(frozen=True, slots=True)
class Finding:
    """A security check that fired."""

    check_id: int
    message: str
    extra: dict[str, str] = field(default_factory=dict)
