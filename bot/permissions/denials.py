"""Denial tracking (seeds 4.4 stage 4f) and the run's denial log.

Every denial is recorded (tool, a short summary of the input, the reason, the rule and where it
was written) for the run's final summary. When the model keeps asking for what the policy
refuses, the tracker returns guidance to add to the conversation, so it stops retrying:

* the same tool and pattern denied ``REPEAT_THRESHOLD`` times or more;
* the same tool denied ``TOOL_THRESHOLD`` times or more, for any pattern;
* ``CONSECUTIVE_THRESHOLD`` denials in a row, whatever the tool (an allowed call resets this).

The pattern of a denial is the rule that decided, else the security check that fired, else the
rule a maintainer would add (the first suggestion), else the input summary.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from bot.permissions.decision import DecisionSource, Deny, RuleRef

#: The model retried a denied call once: tell it the answer will not change.
REPEAT_THRESHOLD = 2
#: Different calls of one tool keep being denied: the tool is not this run's way forward.
TOOL_THRESHOLD = 3
#: Claude Code's ``DenialTrackingState`` falls back after 3 consecutive denials; so do we.
CONSECUTIVE_THRESHOLD = 3


@dataclass(frozen=True, slots=True)
class DenialEntry:
    tool: str
    summary: str
    reason: str
    pattern: str
    decided_by: DecisionSource
    rule: RuleRef | None = None
    was_ask: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "input": self.summary,
            "reason": self.reason,
            "rule": None if self.rule is None else self.rule.text,
            "source": None if self.rule is None else self.rule.source,
            "where": None if self.rule is None else self.rule.where(),
            "was_ask": self.was_ask,
            "decided_by": self.decided_by,
        }


def denial_pattern(tool: str, summary: str, deny: Deny) -> str:
    if deny.rule is not None:
        return deny.rule.text
    if deny.check_id is not None:
        return f"{tool} (security check {deny.check_id})"
    if deny.suggestions:
        return deny.suggestions[0]
    return f"{tool}({summary})" if summary else tool


class DenialTracker:
    """One per run (a sub-agent gets its own). Not thread-safe; the agent loop owns it."""

    def __init__(
        self,
        *,
        repeat_threshold: int = REPEAT_THRESHOLD,
        tool_threshold: int = TOOL_THRESHOLD,
        consecutive_threshold: int = CONSECUTIVE_THRESHOLD,
    ) -> None:
        self.repeat_threshold = repeat_threshold
        self.tool_threshold = tool_threshold
        self.consecutive_threshold = consecutive_threshold
        self._entries: list[DenialEntry] = []
        self._by_pattern: Counter[tuple[str, str]] = Counter()
        self._by_tool: Counter[str] = Counter()
        self.consecutive = 0

    @property
    def entries(self) -> tuple[DenialEntry, ...]:
        return tuple(self._entries)

    @property
    def total(self) -> int:
        return len(self._entries)

    def record_allowed(self, tool: str) -> None:
        """A call went through: the streak of denials is over."""
        self.consecutive = 0

    def record_denial(self, tool: str, summary: str, deny: Deny) -> str | None:
        """Log a denial; return guidance for the conversation when the model should stop retrying."""
        pattern = denial_pattern(tool, summary, deny)
        self._entries.append(DenialEntry(tool, summary, deny.reason, pattern, deny.source, deny.rule, deny.was_ask))
        self._by_pattern[(tool, pattern)] += 1
        self._by_tool[tool] += 1
        self.consecutive += 1
        same = self._by_pattern[(tool, pattern)]
        if same >= self.repeat_threshold:
            return _reminder(
                f"{tool} has now been denied {same} times for the same reason ({_describe(pattern, deny)}). "
                "The policy does not change during this run, so retrying this call, or a variant of it, "
                "will be denied again."
            )
        if self._by_tool[tool] >= self.tool_threshold:
            return _reminder(
                f"{tool} has been denied {self._by_tool[tool]} times in this run. The policy does not allow "
                f"these uses of {tool}; stop trying it."
            )
        if self.consecutive >= self.consecutive_threshold:
            return _reminder(f"The last {self.consecutive} tool calls were all denied by the policy.")
        return None

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self._entries]


def _describe(pattern: str, deny: Deny) -> str:
    if deny.rule is not None:
        return f"rule `{deny.rule.text}` from {deny.rule.source} ({deny.rule.where()})"
    return deny.reason or pattern


def _reminder(text: str) -> str:
    return (
        f"<system-reminder>{text} Use an approach the policy allows, or finish and say in your "
        "summary what you could not do and which rule stopped you.</system-reminder>"
    )
