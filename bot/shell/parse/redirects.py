"""Redirections and heredocs in the general walker of :mod:`bot.shell.parse.walk` (a concept of its
own): where tree-sitter and bash disagree on what a redirection covers.

* A redirection has exactly one target word: tree-sitter hangs the following words on it
  (``echo x > .git/config README.md``), bash passes them to the command. A second word is refused,
  and so is text between the operator and the target that tree-sitter skipped (an escaped blank,
  ``> \\ <newline> rm -rf x``), and a word glued to the close-descriptor token (``2>&-x`` is ``2>&-``
  and an argument ``x`` for bash).
* tree-sitter puts what follows ``<<EOF`` on its line inside the heredoc node: ``&& stmt``,
  ``|| stmt``, ``| stmt`` are walked after the command as bash runs them; words there are
  arguments for bash (refused).
* The heredoc body ends where bash ends it (:mod:`bot.shell.parse.heredoc`).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Any

from bot.shell.parse.heredoc import check_heredoc
from bot.shell.parse.syntax import Item, Redirect, ScopeMarker, SimpleCommand, Word
from bot.shell.parse.words import ARG_NODES, Unresolvable, resolve_word

OPERATORS = frozenset({"&&", "||", ";", "|", "|&", "&", ";;", "\n"})
REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SKIPPED_DASH = re.compile(r"[ \t]+-[ \t]+")


class RedirectWalker(ABC):
    """The redirection methods of ``ast_parse._Walker`` (which provides the attributes and the
    statement walker declared here)."""

    __slots__ = ("piped",)

    src: str
    ascii: bool
    items: list[Item]
    operators: list[str]
    #: Walking a pipeline element (a command after a heredoc start would leave the pipeline).
    piped: int

    @abstractmethod
    def statement(self, node: Any, redirects: tuple[Redirect, ...]) -> None:
        """Provided by the walker (:class:`bot.shell.parse.walk._Walker`)."""

    @abstractmethod
    def text(self, node: Any) -> str:
        """Provided by the walker (:class:`bot.shell.parse.walk._Walker`)."""

    @abstractmethod
    def arg(self, node: Any) -> Word:
        """Provided by the walker (:class:`bot.shell.parse.walk._Walker`)."""

    @abstractmethod
    def byte_slice(self, start: int, end: int) -> str:
        """Provided by the walker (:class:`bot.shell.parse.walk._Walker`)."""

    @abstractmethod
    def check_statement_gaps(self, node: Any, children: list[Any], unchecked: int = -1) -> None:
        """Provided by the walker (:class:`bot.shell.parse.walk._Walker`)."""

    # ----- redirects ----------------------------------------------------------------------------

    def redirected(self, node: Any, redirects: tuple[Redirect, ...]) -> None:
        """``body [redirects]``. tree-sitter puts what follows a heredoc start on its line inside the
        heredoc node (``cat <<EOF && rm x``, ``cat <<EOF | sh``): that tail is walked after the body,
        as bash runs it."""
        children = node.children
        body = node.child_by_field_name("body")
        # tree-sitter drops the `-` of `python3 - <<'EOF'` (it is in no node): bash passes it.
        dash = (
            body is not None
            and body.type == "command"
            and len(children) > 1
            and children[1].type == "heredoc_redirect"
            and _SKIPPED_DASH.fullmatch(self.byte_slice(body.end_byte, children[1].start_byte)) is not None
        )
        self.check_statement_gaps(node, children, 1 if dash else -1)
        extra: list[Redirect] = []
        tail: Any = None
        for index, child in enumerate(children):
            if child.type == "heredoc_redirect":
                found, tail = self.heredoc_parts(child)
                extra.extend(found)
                if tail is not None and index != len(children) - 1:
                    raise Unresolvable("a command after a heredoc start followed by more redirections", 14)
            elif child.type in REDIRECT_NODES:
                extra.extend(self.redirects_of(child))
        all_redirects = redirects + tuple(extra)
        if tail is not None and (body is None or self.piped):
            raise Unresolvable("a command after a heredoc start where the parser does not expect one", 14)
        if body is None:
            self.items.append(SimpleCommand((), (), all_redirects, self.text(node), "redirect"))
            return
        start = len(self.items)
        if body.type == "list" and tail is None:
            # `cd src && cat < ../x`: tree-sitter hangs a trailing redirection on the whole list;
            # bash gives it to the last command only
            self.check_statement_gaps(body, body.children)
            parts = [c for c in body.children if c.type != "comment"]
            for part in parts[:-1]:
                if part.type in OPERATORS:
                    self.operators.append(part.type)
                else:
                    self.statement(part, redirects)
            self.statement(parts[-1], all_redirects)
        else:
            self.statement(body, all_redirects)
        if dash:
            command = self.items[-1]
            if not isinstance(command, SimpleCommand):  # pragma: no cover - a command node gives one
                raise Unresolvable("a dash the parser dropped", 14)
            self.items[-1] = command._replace(argv=(*command.argv, Word("-", "-")), text=f"{command.text} -")
        if tail is None:
            return
        if tail[0].type in ("&&", "||"):
            self.operators.append(tail[0].type)
            self.statement(tail[1], redirects)
            return
        if body.type == "list":
            # `a && cat <<EOF | sh`: bash pipes only `cat`; tree-sitter's body is the whole list.
            raise Unresolvable("a heredoc in a pipeline after a list", 14)
        self.items.insert(start, ScopeMarker(True))
        self.items.append(ScopeMarker(False))
        self.pipe_tail(tail[0], redirects)

    def pipe_tail(self, node: Any, redirects: tuple[Redirect, ...]) -> None:
        """The ``| b | c && d`` tree-sitter hangs under a heredoc: the statements up to the first
        ``&&``/``||``/``;`` are pipeline elements (each in its own scope), the rest follow the pipeline."""
        kind = node.type
        if kind == "pipeline":
            self.check_statement_gaps(node, node.children)
            for child in node.children:
                if child.type in ("|", "|&"):
                    self.operators.append(child.type)
                elif child.type != "comment":
                    self.pipe_tail(child, redirects)
        elif kind == "list":
            self.check_statement_gaps(node, node.children)
            parts = [c for c in node.children if c.type != "comment"]
            self.pipe_tail(parts[0], redirects)
            for part in parts[1:]:
                if part.type == "&":
                    raise Unresolvable("a background job after a heredoc pipeline", 14)
                if part.type in OPERATORS:
                    self.operators.append(part.type)
                else:
                    self.statement(part, redirects)
        else:
            self.items.append(ScopeMarker(True))
            self.piped += 1
            self.statement(node, redirects)
            self.piped -= 1
            self.items.append(ScopeMarker(False))

    def redirects_of(self, node: Any) -> list[Redirect]:
        kind = node.type
        if kind == "herestring_redirect":
            self.check_redirect_gaps(node)
            target = [c for c in node.children if c.type != "<<<"]
            if len(target) > 1:
                raise Unresolvable("a here-string followed by more words (bash passes them to the command)", 14)
            word = self.arg(target[0]) if target else Word("", "")
            return [Redirect("<<<", None, None, dynamic_input=word.dynamic)]
        if kind == "heredoc_redirect":
            found, tail = self.heredoc_parts(node)
            if tail is not None:
                raise Unresolvable("a command after a heredoc start where the parser does not expect one", 14)
            return found
        return [self.redirect(node)]

    def check_redirect_gaps(self, node: Any) -> None:
        """Between the parts of a redirection only blanks and line continuations: tree-sitter skips an
        escaped blank (``> \\ \n rm -rf x`` has the target ``" "`` for bash, ``rm`` for tree-sitter)."""
        previous_end = node.start_byte
        for child in [*node.children, None]:
            start = node.end_byte if child is None else child.start_byte
            if start > previous_end and self.byte_slice(previous_end, start).replace("\\\n", "").strip(" \t"):
                raise Unresolvable("text in a redirection that the parser skipped", 14)
            if child is not None:
                previous_end = child.end_byte

    def redirect(self, node: Any) -> Redirect:
        self.check_redirect_gaps(node)
        fd: int | None = None
        op = ""
        target: Word | None = None
        for child in node.children:
            ckind = child.type
            if ckind == "file_descriptor":
                fd = int(self.text(child)) if self.text(child).isdigit() else None
            elif ckind in ARG_NODES:
                if ckind == "process_substitution":
                    raise Unresolvable("redirection to a process substitution runs a hidden command", 8)
                if target is not None:
                    # `echo x > .git/config README.md`: bash writes the first word, passes the rest.
                    raise Unresolvable("a redirection followed by more words (bash passes them to the command)", 14)
                target = self.arg(child)
            elif not op:
                op = ckind
            else:
                raise Unresolvable("malformed redirection", 14)
        if op in (">&-", "<&-"):
            # tree-sitter's close-descriptor token: bash reads `2>&-x` as `2>&-` and an argument `x`
            if target is not None:
                raise Unresolvable(f"a word glued to {op} (bash passes it to the command)", 14)
            return Redirect(op[:2], fd, Word("-", "-"))
        if target is None:
            raise Unresolvable("a redirection without a target", 1)
        if op == "<>" or (op == "<" and fd in (1, 2)):
            # `2< ci.yml` then `sort -o /dev/stderr`: the device name of that descriptor reopens the
            # file for writing
            raise Unresolvable(
                f"a file opened for reading on descriptor {1 if fd is None else fd} or for reading and writing", 9
            )
        if op in (">&", "<&") and target.value.startswith("-") and target.value != "-":
            # bash reads `2>& -x` as closing 2 and an argument `x`
            raise Unresolvable(f"a duplication to {target.text!r} (bash passes part of it to the command)", 14)
        if target.dynamic:
            raise Unresolvable(f"the redirection target {target.text!r} comes from a variable", 6)
        if target.glob:
            check = 9 if op in ("<", "<>", "<&") else 10
            raise Unresolvable(f"the redirection target {target.text!r} is a glob, only resolved at run time", check)
        return Redirect(op, fd, target)

    def heredoc_parts(self, node: Any) -> tuple[list[Redirect], Any]:
        """The redirects of a heredoc node, and the command tree-sitter put after its start on the
        same line: ``(operator, statement)`` for ``&& stmt``/``|| stmt``, ``(pipeline,)`` for ``| stmt``.

        tree-sitter's extent of the body is checked against bash's rule (the body ends at the first
        line equal to the delimiter, after joining line continuations when the delimiter is unquoted:
        :mod:`bot.shell.parse.heredoc`) so that no command can hide in what one of them thinks is data.
        Words after the start (``cat <<EOF ~/.ssh/id_rsa``) are arguments for bash: refused."""
        start = end = None
        strip_tabs = False
        dynamic = False
        body = ""
        body_node = end_node = start_node = None
        nested: list[Redirect] = []
        tail: tuple[Any, ...] | None = None
        children = node.children
        previous_end = node.start_byte
        skip = False
        for index, child in enumerate(children):
            kind = child.type
            if body_node is None and child.start_byte > previous_end:
                gap = self.byte_slice(previous_end, child.start_byte).replace("\\\n", "")
                if gap.strip(" \t\n" if kind == "heredoc_body" else " \t"):
                    raise Unresolvable("text on a heredoc's line that the parser skipped", 14)
            previous_end = child.end_byte
            if skip:
                skip = False
                continue
            if tail is not None and kind not in ("heredoc_body", "heredoc_end"):
                raise Unresolvable("a heredoc line the parser splits in an unexpected way", 14)
            if kind == "heredoc_start":
                start, start_node = self.text(child), child
            elif kind == "heredoc_end":
                end, end_node = self.text(child), child
            elif kind in ("<<", "<<-"):
                strip_tabs = kind == "<<-"
                if self.text(child) != kind:
                    # `cat x -<<EOF`: the token holds the `-` bash passes as an argument
                    raise Unresolvable(f"a heredoc operator written {self.text(child)!r}", 14)
            elif kind == "heredoc_body":
                body, body_node = self.text(child), child
                for part in child.children:
                    if part.type in ("command_substitution", "arithmetic_expansion", "process_substitution"):
                        raise Unresolvable("a heredoc body runs a command substitution", 8)
                    if part.type in ("simple_expansion", "expansion"):
                        resolve_word(part, self.src, self.ascii)
                        dynamic = True
            elif start_node is None or body_node is not None:
                raise Unresolvable(f"unsupported heredoc syntax ({kind})", 14)
            elif kind in REDIRECT_NODES:
                # `cat <<'EOF' > file`: redirects after the delimiter sit inside the heredoc node.
                nested.extend(self.redirects_of(child))
            elif (
                kind in ("&&", "||")
                and index + 1 < len(children)
                and children[index + 1].type not in ("heredoc_body", "heredoc_end")
            ):
                tail, skip = (child, children[index + 1]), True
            elif kind == "pipeline" and child.children and child.children[0].type in ("|", "|&"):
                tail = (child,)
            elif kind in ARG_NODES:
                raise Unresolvable("words after a heredoc start are arguments for bash", 14)
            else:
                raise Unresolvable(f"unsupported syntax after a heredoc start ({kind})", 14)
        if start is None or end is None or start_node is None or end_node is None or body_node is None:
            raise Unresolvable("an unterminated heredoc", 1)
        text = self.byte_slice(node.start_byte, end_node.end_byte)
        quoted = check_heredoc(
            text,
            start,
            end,
            body,
            strip_tabs,
            after_start=len(self.byte_slice(node.start_byte, start_node.end_byte)),
            body_start=len(self.byte_slice(node.start_byte, body_node.start_byte)),
            following=self.byte_slice(end_node.end_byte, end_node.end_byte + 1),
        )
        heredoc = Redirect("<<-" if strip_tabs else "<<", None, None, dynamic_input=dynamic and not quoted)
        return [heredoc, *nested], tail
