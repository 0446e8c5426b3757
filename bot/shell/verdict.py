"""The verdict on one simple command, and how the verdicts of a compound combine (seeds 4.6.2 step 5).

:mod:`bot.shell.judge` gives each simple command a :class:`Verdict`; :func:`combine` aggregates
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
    """What earlier commands of the same compound changed: the directory and the environment."""

    cwd: str | None
    tainted: str | None = None

    def copy(self) -> State:
        return State(self.cwd, self.tainted)


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
