"""Parsing a command with tree-sitter-bash into simple commands (seeds 4.6.1, 4.6.2 step 1).

The outcome is one of the seeds' three: :class:`~bot.shell.parse.syntax.Parsed` (a flat list of simple
commands we can judge one by one), :class:`~bot.shell.parse.syntax.TooComplex` (headless: ask, so deny)
or :class:`~bot.shell.parse.syntax.ParseUnavailable`. Anything the walker does not positively understand
is "too complex": an ERROR or MISSING node, control flow (``if``, ``for``, ``case``, functions),
substitutions, and constructs where tree-sitter and bash are known to disagree (``$"..."``).

Common shapes (plain or quoted words, ``&&``/``;``/``|`` chains, simple redirections) are flattened
by :mod:`bot.shell.parse.fast` in one pass over the tree; it declines everything else, and the
general walker below decides. Both reach the same outcome (``tests/shell/test_fast_parse.py``).

The Language and the Parser are module-level singletons: building them costs far more than a
parse (~9 µs), and parsing is not re-entrant per parser, so the module serialises it with a lock.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from bot.shell.judge.conditional import check_test_command
from bot.shell.parse.fast import assigns_after_time, fast_parsed
from bot.shell.parse.quoting import quote_views
from bot.shell.parse.redirects import OPERATORS, REDIRECT_NODES, RedirectWalker
from bot.shell.parse.syntax import (
    DYN,
    Assignment,
    Item,
    Parsed,
    ParseOutcome,
    ParseUnavailable,
    Redirect,
    ScopeMarker,
    SimpleCommand,
    TooComplex,
    Word,
)
from bot.shell.parse.words import ARG_NODES, Unresolvable, node_text, resolve_word

try:  # pragma: no cover - exercised by the fallback tests through monkeypatching
    import tree_sitter
    import tree_sitter_bash

    _LANGUAGE: Any = tree_sitter.Language(tree_sitter_bash.language())
    _PARSER: Any = tree_sitter.Parser(_LANGUAGE)
except Exception:
    _LANGUAGE = None
    _PARSER = None

_LOCK = threading.Lock()

#: Commands longer than this are not analysed (a model has no reason to send one); they are
#: "too complex". Claude Code's tree-sitter path has a similar cut-off.
MAX_COMMAND_CHARS = 10_000
#: Parse results kept, keyed by the command text (a call's permission check, read-only and
#: concurrency-safety questions all parse the same command).
PARSE_CACHE_SIZE = 512

#: ``if``/``elif``/``else`` and ``while``/``until``: every part is judged (each may run), and a ``cd``
#: inside leaves the directory unknown. Keywords are skipped.
_BRANCHING = frozenset({"if_statement", "elif_clause", "else_clause", "while_statement", "do_group"})
_KEYWORDS = frozenset({"if", "then", "elif", "else", "fi", "while", "until", "do", "done"})
_CONTROL_FLOW = {
    "for_statement": "a for loop",
    "c_style_for_statement": "a for loop",
    "case_statement": "a case statement",
    "function_definition": "a function definition (it could shadow any command)",
    "arithmetic_expansion": "an arithmetic command",
    "select_statement": "a select loop",
}
_DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: A plain word holding none of these is its own value (others go through the word resolver).
_WORD_SPECIAL = frozenset("\\*?[\n \t")


def parse_command(command: str) -> ParseOutcome:
    """Parse one Bash command string. Cached: the same command is asked about several times."""
    return _parse_cached(command)


def clear_parse_cache() -> None:
    _parse_cached.cache_clear()


def parse_tree(command: str) -> Any:
    """The bare tree-sitter parse (what the benchmark compares a full decision against)."""
    with _LOCK:
        return _PARSER.parse(command.encode("utf-8", "surrogateescape"))


@lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse_cached(command: str) -> ParseOutcome:
    return parse_fresh(command)


def parse_fresh(command: str, *, fast: bool = True) -> ParseOutcome:
    """Parse without the cache. ``fast=False`` skips :mod:`bot.shell.parse.fast` (the tests check
    that both paths reach the same outcome)."""
    if _PARSER is None:
        return ParseUnavailable()
    if len(command) > MAX_COMMAND_CHARS:
        return TooComplex(f"the command is longer than {MAX_COMMAND_CHARS} characters")
    data = command.encode("utf-8", "surrogateescape")
    with _LOCK:
        tree = _PARSER.parse(data)
    root = tree.root_node
    if root.has_error:
        return _error_outcome(root, len(data), command)
    ascii_src = command.isascii()
    if fast and ascii_src:
        outcome = fast_parsed(root, command, len(data))
        if outcome is not None:
            return outcome
    walker = _Walker(command, ascii_src)
    try:
        walker.check_edges(root, len(data))
        walker.statements(root)
    except Unresolvable as exc:
        return TooComplex(exc.reason, exc.check_id)
    items = walker.items
    commands = tuple([i for i in items if type(i) is SimpleCommand])
    return Parsed(tuple(items), tuple(walker.operators), commands)


def _error_outcome(root: Any, size: int, command: str) -> TooComplex:
    """MISSING nodes, or an error that runs to the end of the input, mean the command stops short
    (check 1); an error in the middle means tokens the parser could not place (check 14)."""
    stack = [root]
    runs_to_end = False
    while stack:
        node = stack.pop()
        if node.is_missing:
            return TooComplex(f"the command is incomplete (missing {node.type!r})", 1)
        if node.type == "ERROR" and node.end_byte >= size:
            runs_to_end = True
        stack.extend(node.children)
    if quote_views(command).unterminated:
        return TooComplex("a quote or heredoc is never closed", 14)
    if runs_to_end:
        return TooComplex("the command is incomplete (it stops in the middle of a construct)", 1)
    return TooComplex("the command does not parse as shell syntax (unbalanced quotes or malformed tokens)", 14)


class _Walker(RedirectWalker):
    """Flattens statements into simple commands, applying redirects of enclosing statements."""

    __slots__ = ("ascii", "items", "operators", "src")

    def __init__(self, src: str, ascii_src: bool) -> None:
        self.src = src
        self.ascii = ascii_src
        self.items: list[Item] = []
        self.operators: list[str] = []
        self.piped = 0

    def text(self, node: Any) -> str:
        return node_text(node, self.src, self.ascii)

    # ----- statements ---------------------------------------------------------------------------

    def statements(self, node: Any, redirects: tuple[Redirect, ...] = ()) -> None:
        start = len(self.items)
        children = node.children
        self.check_statement_gaps(node, children)
        for child in children:
            kind = child.type
            if kind in OPERATORS:
                self.operators.append(kind)
                if kind == "&":
                    # The statement before `&` runs in a background subshell.
                    self.items.insert(start, ScopeMarker(True))
                    self.items.append(ScopeMarker(False))
                start = len(self.items)
            elif kind == "comment":
                continue
            else:
                self.statement(child, redirects)

    def statement(self, node: Any, redirects: tuple[Redirect, ...]) -> None:
        kind = node.type
        if kind == "command":
            self.items.append(self.command(node, redirects))
        elif kind == "redirected_statement":
            self.redirected(node, redirects)
        elif kind == "list":
            self.statements(node, redirects)
        elif kind == "pipeline":
            self.check_statement_gaps(node, node.children)
            head = True
            for child in node.children:
                if child.type in ("|", "|&"):
                    self.operators.append(child.type)
                elif child.type != "comment":
                    element, element_redirects = child, redirects
                    if head:
                        element, element_redirects = self.pipeline_head(child, redirects)
                        head = False
                    self.items.append(ScopeMarker(True))
                    self.piped += 1
                    self.statement(element, element_redirects)
                    self.piped -= 1
                    self.items.append(ScopeMarker(False))
        elif kind == "subshell":
            self.items.append(ScopeMarker(True))
            self.statements_between(node, "(", ")", redirects)
            self.items.append(ScopeMarker(False))
        elif kind == "compound_statement":
            self.statements_between(node, "{", "}", redirects)
        elif kind == "negated_command":
            for child in node.children:
                if child.type != "!":
                    self.statement(child, redirects)
        elif kind in ("variable_assignment", "variable_assignments"):
            pairs = (
                [node]
                if kind == "variable_assignment"
                else [c for c in node.children if c.type == "variable_assignment"]
            )
            assigns = tuple(self.assignment(p, exported=False) for p in pairs)
            self.items.append(SimpleCommand((), assigns, redirects, self.text(node), "assign"))
        elif kind == "declaration_command":
            self.items.append(self.declaration(node, redirects))
        elif kind == "unset_command":
            argv = tuple(self.arg(c) if c.type != "unset" else Word("unset", "unset") for c in node.children)
            self.items.append(SimpleCommand(argv, (), redirects, self.text(node), "unset"))
        elif kind == "test_command":
            check_test_command(node, self.src, self.ascii)
            self.items.append(SimpleCommand((Word("[[", "[["),), (), redirects, self.text(node), "test"))
        elif kind in _BRANCHING:
            self.items.append(ScopeMarker(True, branch=True))
            for child in node.children:
                ckind = child.type
                if ckind in _KEYWORDS or ckind == "comment":
                    continue
                if ckind in OPERATORS:
                    self.operators.append(ckind)
                    continue
                self.statement(child, redirects)
            self.items.append(ScopeMarker(False, branch=True))
        elif kind in _CONTROL_FLOW:
            raise Unresolvable(f"the command uses {_CONTROL_FLOW[kind]}")
        else:
            raise Unresolvable(f"unsupported shell construct ({kind})")

    def pipeline_head(self, child: Any, redirects: tuple[Redirect, ...]) -> tuple[Any, tuple[Redirect, ...]]:
        """The first element of a pipeline, as bash sees it.

        tree-sitter-bash reads ``a && b 2>&1 | c`` as ``(a && b) 2>&1 | c``; bash runs
        ``a && (b 2>&1 | c)``: the pipeline binds tighter than ``&&``/``||``/``;`` and the redirect
        belongs to ``b`` alone. Taken as tree-sitter has it, a ``cd`` in ``a`` would be scoped to the
        pipeline's subshell and the commands after it judged from the wrong directory (``cd .git &&
        echo x 2>/dev/null | tee config``). So the list's leading statements are judged here, in the
        current shell, and only its last statement, with the redirect, enters the pipeline.
        """
        if child.type != "redirected_statement":
            return child, redirects
        body = child.child_by_field_name("body")
        if body is None or body.type != "list":
            return child, redirects
        self.check_statement_gaps(child, child.children)
        self.check_statement_gaps(body, body.children)
        parts = [c for c in body.children if c.type != "comment"]
        if any(c.type == "&" for c in parts):
            raise Unresolvable("a background job inside a redirected pipeline")
        for part in parts[:-1]:
            if part.type in OPERATORS:
                self.operators.append(part.type)
            else:
                self.statement(part, redirects)
        extra = tuple(r for c in child.children if c.type in REDIRECT_NODES for r in self.redirects_of(c))
        return parts[-1], redirects + extra

    def statements_between(self, node: Any, open_tok: str, close_tok: str, redirects: tuple[Redirect, ...]) -> None:
        self.check_statement_gaps(node, node.children)
        start = len(self.items)
        for child in node.children:
            kind = child.type
            if kind in (open_tok, close_tok, "comment"):
                continue
            if kind in OPERATORS:
                self.operators.append(kind)
                if kind == "&":
                    self.items.insert(start, ScopeMarker(True))
                    self.items.append(ScopeMarker(False))
                start = len(self.items)
                continue
            self.statement(child, redirects)

    # ----- simple commands ----------------------------------------------------------------------

    def command(self, node: Any, redirects: tuple[Redirect, ...]) -> SimpleCommand:
        argv: list[Word] = []
        assigns: list[Assignment] = []
        own: list[Redirect] = []
        children = node.children
        self.check_gaps(node, children)
        for child in children:
            kind = child.type
            if kind == "command_name":
                inner = child.children
                if len(inner) != 1:
                    raise Unresolvable("unsupported command name")
                first = inner[0]
                if first.type == "word" and self.ascii:
                    text = self.src[first.start_byte : first.end_byte]
                    if _WORD_SPECIAL.isdisjoint(text):
                        argv.append(Word(text, text))
                        continue
                name = self.arg(first)
                if name.dynamic or DYN in name.value:
                    raise Unresolvable("the command name comes from a variable", 6)
                if "$(" in name.text or "`" in name.text:
                    raise Unresolvable("the command name comes from a command substitution", 8)
                argv.append(name)
            elif kind == "variable_assignment":
                assigns.append(self.assignment(child, exported=True))
            elif kind in REDIRECT_NODES:
                own.extend(self.redirects_of(child))
            elif kind == "word" and self.ascii:
                # The common case, without the general resolver: a plain unquoted word.
                text = self.src[child.start_byte : child.end_byte]
                if not _WORD_SPECIAL.isdisjoint(text):
                    argv.append(resolve_word(child, self.src, True))
                else:
                    argv.append(Word(text, text))
            elif kind in ARG_NODES:
                argv.append(self.arg(child))
            elif kind == "comment":
                continue
            else:
                raise Unresolvable(f"unsupported shell syntax in a command ({kind})", 14)
        if argv and argv[0].text == "time" and assigns_after_time(argv):
            raise Unresolvable("an assignment after the time keyword (bash applies it to the command)", 14)
        all_redirects = redirects + tuple(own) if own else redirects
        return SimpleCommand(tuple(argv), tuple(assigns) if assigns else (), all_redirects, self.text(node))

    def arg(self, node: Any) -> Word:
        return resolve_word(node, self.src, self.ascii)

    def check_gaps(self, node: Any, children: list[Any]) -> None:
        """Where tree-sitter and bash split words differently, refuse: between the words of a command
        only blanks and line continuations may stand (tree-sitter drops the ``\\ `` of ``\\ x``), and two
        words may not touch (bash would join ``'a b'\\c`` into one word that tree-sitter splits)."""
        previous_end = node.start_byte
        previous_word = False
        for child in children:
            start = child.start_byte
            is_word = child.type in ARG_NODES or child.type == "command_name"
            if start > previous_end:
                gap = self.byte_slice(previous_end, start).replace("\\\n", "")
                if gap.strip(" \t") or (previous_word and is_word and not gap):
                    # text skipped, or two words glued by a line continuation (bash joins them)
                    raise Unresolvable("words that the parser and bash would split differently", 14)
            elif previous_word and is_word and start == previous_end:
                raise Unresolvable("words that the parser and bash would split differently", 14)
            previous_end = child.end_byte
            previous_word = is_word

    def check_edges(self, root: Any, size: int) -> None:
        """tree-sitter's root starts at the first token: text before it (``\\ rg`` is a program named
        " rg") or after its end must be blank."""
        for start, end in ((0, root.start_byte), (root.end_byte, size)):
            if end > start and self.byte_slice(start, end).replace("\\\n", "").strip(" \t\n"):
                raise Unresolvable("text the parser skipped at the edge of the command", 14)

    def check_statement_gaps(self, node: Any, children: list[Any], unchecked: int = -1) -> None:
        """Between statements, operators and comments only blanks, newlines and line continuations
        may stand; anything else is text tree-sitter skipped and bash would read. The gap before
        ``children[unchecked]`` is the caller's to check."""
        previous_end = node.start_byte
        for index, child in enumerate(children):
            if child.start_byte > previous_end and index != unchecked:
                gap = self.byte_slice(previous_end, child.start_byte).replace("\\\n", "")
                if gap.strip(" \t\n"):
                    raise Unresolvable("text the parser skipped between commands", 14)
            previous_end = child.end_byte
        if node.end_byte > previous_end:
            gap = self.byte_slice(previous_end, node.end_byte).replace("\\\n", "")
            if gap.strip(" \t\n"):
                raise Unresolvable("text the parser skipped between commands", 14)

    def byte_slice(self, start: int, end: int) -> str:
        if self.ascii:
            return self.src[start:end]
        return self.src.encode("utf-8", "surrogateescape")[start:end].decode("utf-8", "surrogateescape")

    def assignment(self, node: Any, *, exported: bool) -> Assignment:
        children = node.children
        if len(children) < 2 or children[0].type != "variable_name" or children[1].type not in ("=", "+="):
            raise Unresolvable("an array or subscripted assignment is evaluated at run time")
        name = self.text(children[0])
        if not _NAME.match(name):
            # bash reads `1X=y cmd` as a command named "1X=y", not an assignment
            raise Unresolvable(f"{name}= is not an assignment for bash", 14)
        if len(children) == 2:
            return Assignment(name, Word("", ""), exported)
        if len(children) != 3:
            raise Unresolvable("unsupported assignment")
        value_node = children[2]
        if value_node.type == "array":
            raise Unresolvable("array assignments are not supported")
        return Assignment(name, self.arg(value_node), exported)

    def declaration(self, node: Any, redirects: tuple[Redirect, ...]) -> SimpleCommand:
        keyword = node.children[0].type
        if keyword not in _DECLARATIONS:
            raise Unresolvable(f"unsupported declaration ({keyword})")
        argv: list[Word] = [Word(keyword, keyword)]
        assigns: list[Assignment] = []
        exported = keyword == "export"
        for child in node.children[1:]:
            kind = child.type
            if kind == "variable_assignment":
                assigns.append(self.assignment(child, exported=exported))
            elif kind == "variable_name":
                argv.append(Word(self.text(child), self.text(child)))
            elif kind in ARG_NODES:
                word = self.arg(child)
                if word.value.startswith("-") and "x" in word.value:
                    exported = True
                argv.append(word)
            else:
                raise Unresolvable(f"unsupported declaration syntax ({kind})")
        if exported:
            assigns = [Assignment(a.name, a.value, True) for a in assigns]
        return SimpleCommand(tuple(argv), tuple(assigns), redirects, self.text(node), "declare")
