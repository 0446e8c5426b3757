"""Matching ``Bash(...)`` rule contents against one simple command (seeds 4.6.2).

A rule content is a command pattern, the same three forms the policy layer reads
(:mod:`bot.permissions.rules`): exact (``npm test``), prefix (``git commit:*`` and ``git commit *``
are the same rule) and wildcard (``*`` anywhere, across spaces; ``\\*`` is a literal star).
Matching is on the command's *canonical* form — its words with quotes resolved, joined by single
spaces — so ``git  "commit"`` matches ``git commit:*`` and extra spaces or tabs do not matter, and
prefixes match on word boundaries (``Bash(git:*)`` does not match ``gitx``).

A matching allow rule also says how much of the command it *spells out*: its literal prefix (the
text before its first ``*``, or all of it for exact and prefix rules). Words that carry a capability
no wildcard should grant — an inner program under a wrapper, ``git -c core.pager=...``, a path
outside the workspace — are only approved by a rule whose literal prefix covers them
(:func:`covers`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from bot.permissions.rules import Rule

PatternKind = Literal["exact", "prefix", "wildcard"]
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class BashPattern:
    kind: PatternKind
    #: Exact/prefix: the canonical text. Wildcard: the source (for messages).
    text: str
    #: The spelled-out start: what a match guarantees the command begins with.
    literal: str
    #: The first word of the literal (the program), ``""`` when the rule starts with ``*``.
    program: str
    regex: re.Pattern[str] | None = None
    #: A ``:*`` rule ending in a URL: the characters that may continue its last word, as the
    #: path of the same host (see :func:`_url_tail`); ``""`` where the next must be a space.
    url_tail: str = ""

    def matches(self, canonical: str) -> bool:
        match self.kind:
            case "exact":
                return canonical == self.text
            case "prefix":
                text = self.text
                if canonical == text:
                    return True
                if not canonical.startswith(text):
                    return False
                after = canonical[len(text)]
                return after == " " or (bool(self.url_tail) and (self.url_tail == "*" or after in self.url_tail))
            case "wildcard":
                assert self.regex is not None
                return self.regex.fullmatch(canonical) is not None


def _normalise_literal(text: str) -> str:
    """Resolve quotes in a rule's literal part the way bash would (``-m "wip"`` → ``-m wip``) and
    collapse whitespace, so rules compare with canonical commands."""
    text = text.strip()
    if any(q in text for q in "'\"\\"):
        try:
            return " ".join(shlex.split(text))
        except ValueError:
            pass
    return _SPACES.sub(" ", text)


@lru_cache(maxsize=4_096)
def compile_pattern(content: str) -> BashPattern:
    text = content.strip()
    if text.endswith(":*"):
        literal = _normalise_literal(text[:-2])
        return BashPattern("prefix", literal, literal, literal.split(" ", 1)[0], url_tail=_url_tail(literal))
    star_free = text.replace("\\*", "")
    if text.endswith(" *") and "*" not in star_free[:-2]:
        literal = _normalise_literal(text[:-2])
        return BashPattern("prefix", literal, literal, literal.split(" ", 1)[0])
    if "*" not in star_free:
        literal = _normalise_literal(text.replace("\\*", "*"))
        return BashPattern("exact", literal, literal, literal.split(" ", 1)[0])
    trailing_any = text.endswith(" *") and not text.endswith("\\ *")
    body = text[:-2] if trailing_any else text
    pieces: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("\\*", i):
            current.append("*")
            i += 2
        elif body[i] == "*":
            pieces.append("".join(current))
            current = []
            i += 1
        else:
            current.append(body[i])
            i += 1
    pieces.append("".join(current))
    normalised = [_SPACES.sub(" ", p) for p in pieces]
    normalised[0] = normalised[0].lstrip()
    regex = ".*".join(re.escape(p) for p in normalised) + ("(?: .*)?" if trailing_any else "")
    literal = normalised[0]
    program = literal.split(" ", 1)[0] if " " in literal else ""
    return BashPattern("wildcard", text, literal, program, re.compile(regex, re.DOTALL))


def _url_tail(literal: str) -> str:
    """``Bash(curl http://site.com/:*)`` "matches curl commands that start with exactly
    curl http://site.com/" (Claude Code's documentation): a ``:*`` rule whose last word is a URL
    goes on into that URL's path, never into another host. Once the host is followed by a path,
    anything may follow (``*``); right after the host only what starts a path, query or fragment
    (``/?#``), so ``https://api.example.com.evil.com`` and ``…com@evil.com`` stay unmatched."""
    last = literal.rsplit(" ", 1)[-1]
    scheme, sep, rest = last.partition("://")
    if not sep or not scheme.isalpha():
        return ""
    host, slash, _path = rest.partition("/")
    if not host or any(c in host for c in "*?[]{}@"):
        return ""
    return "*" if slash else "/?#"


def covers(pattern: BashPattern, span_end: int) -> bool:
    """Does the rule's literal spell out the command up to character ``span_end`` of the canonical
    form? Exact rules spell out everything."""
    return pattern.kind == "exact" or span_end <= len(pattern.literal)


@dataclass(frozen=True, slots=True)
class CompiledRule:
    rule: Rule
    pattern: BashPattern


class RuleIndex:
    """The ``Bash(...)`` content rules of one behaviour, indexed by program for speed."""

    __slots__ = ("_any", "_by_program", "rules")

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: tuple[CompiledRule, ...] = tuple(
            CompiledRule(r, compile_pattern(r.content)) for r in rules if r.tool == "Bash" and r.content is not None
        )
        self._by_program: dict[str, list[CompiledRule]] = {}
        self._any: list[CompiledRule] = []
        for compiled in self.rules:
            program = compiled.pattern.program
            if program and "*" not in program:
                self._by_program.setdefault(program, []).append(compiled)
            else:
                self._any.append(compiled)

    def candidates(self, program: str) -> list[CompiledRule]:
        found = self._by_program.get(program)
        if not found:
            return self._any
        return found + self._any if self._any else found

    def first(self, canonical: str, program: str) -> CompiledRule | None:
        for compiled in self.candidates(program):
            if compiled.pattern.matches(canonical):
                return compiled
        return None


@dataclass(frozen=True, slots=True)
class RuleSet:
    deny: RuleIndex
    ask: RuleIndex
    allow: RuleIndex


@lru_cache(maxsize=64)
def rule_set(deny: tuple[Rule, ...], ask: tuple[Rule, ...], allow: tuple[Rule, ...]) -> RuleSet:
    """Compiled and indexed rules, cached per policy (contexts are immutable and reused)."""
    return RuleSet(RuleIndex(deny), RuleIndex(ask), RuleIndex(allow))


def canonical(values: Sequence[str]) -> tuple[str, list[int]]:
    """The canonical text of a command and the end offset of each word in it."""
    ends: list[int] = []
    total = -1
    for value in values:
        total += len(value) + 1
        ends.append(total)
    return " ".join(values), ends
