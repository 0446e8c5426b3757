"""The verdict on one simple command, and how the verdicts of a compound combine (seeds 4.6.2 step 5).

:mod:`bot.shell.judge.command` gives each simple command a :class:`Verdict`; :func:`combine` aggregates
them: any deny → deny, else any ask → ask, else any command no rule covers → unmatched, else allow.
:class:`State` is what earlier commands of the same compound leave to later ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from bot.permissions.decision import DecisionSource, RuleRef

VerdictKind = Literal["allow", "deny", "ask", "nomatch"]


@dataclass(slots=True)
class State:
    """What earlier commands of the same compound changed: the directory and the environment.

    ``cwd`` is the physical directory (what relative paths resolve against), ``pwd`` bash's
    logical ``$PWD`` (what ``cd ..`` climbs from; ``None``: same as ``cwd``). ``others`` are the
    directories the shell may be in instead, after a ``cd`` that may not run or may fail
    (``false && cd src; cat ../x``): paths are checked from each."""

    cwd: str | None
    tainted: str | None = None
    pwd: str | None = None
    others: tuple[tuple[str | None, str | None], ...] = ()
    #: ``set -P``/``set -o physical``: ``cd`` resolves symbolic links before ``..``.
    physical: bool = False

    def copy(self) -> State:
        return State(self.cwd, self.tainted, self.pwd, self.others, self.physical)

    @property
    def logical(self) -> str | None:
        return self.pwd if self.pwd is not None else self.cwd

    def all_cwds(self) -> tuple[str | None, ...]:
        """The directory the shell is in, then every other one it may be in."""
        if not self.others:
            return (self.cwd,)
        return (self.cwd, *(cwd for cwd, _ in self.others))


class Verdict(NamedTuple):
    kind: VerdictKind
    reason: str = ""
    rule: RuleRef | None = None
    check_id: int | None = None
    source: DecisionSource = "tool"
    suggestions: tuple[str, ...] = ()
    #: Allowed without a rule (a neutral command such as ``cd src`` or ``echo``).
    neutral: bool = False
    #: The rules that allowed the parts of a compound, for the reason text.
    rules: tuple[RuleRef, ...] = ()


ALLOW_NEUTRAL = Verdict("allow", neutral=True)
#: Allowed without a rule because it only reads what a Read would be allowed (bot.shell.judge.no_rule).
ALLOW_READ_ONLY = Verdict("allow", "reads only", neutral=True)
_PRIORITY = {"deny": 0, "ask": 1, "nomatch": 2, "allow": 3}


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """Any deny → deny; else any ask → ask; else any unmatched → unmatched; else allow."""
    if len(verdicts) == 1:
        return verdicts[0]
    if not verdicts:
        return ALLOW_NEUTRAL
    worst = verdicts[0]
    rank = _PRIORITY[worst.kind]
    for verdict in verdicts:
        verdict_rank = _PRIORITY[verdict.kind]
        if verdict_rank < rank:
            worst, rank = verdict, verdict_rank
    if rank == 3:  # all allowed
        rules: list[RuleRef] = []
        first = None
        neutral = True
        for verdict in verdicts:
            rule = verdict.rule
            if rule is not None:
                rules.append(rule)
                if first is None:
                    first = rule
            else:
                rules.extend(verdict.rules)
            neutral = neutral and verdict.neutral
        return Verdict("allow", worst.reason, first, neutral=neutral, rules=tuple(rules))
    if rank == 2:  # nothing denied or asked, something unmatched
        suggestions = tuple(s for v in verdicts if v.kind == "nomatch" for s in v.suggestions)
        return Verdict("nomatch", worst.reason, suggestions=suggestions)
    return worst
