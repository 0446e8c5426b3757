"""Permission results: a small tagged union, consumed with ``match``.

A tool's own ``check_permissions`` and a hook may return any of the four; the final decision of a
headless run is only ever :class:`Allow` or :class:`Deny` (an "ask" becomes a deny that remembers
it was an ask, seeds 4.4 stage 4e: there is nobody to ask).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

#: Where a decision came from, for the run log and the denial message.
DecisionSource = Literal["rule", "hook", "tool", "mode", "default", "safety", "validation", "workspace"]


@dataclass(frozen=True, slots=True)
class RuleRef:
    """The rule that decided, and where it was written (file and line when it came from a file)."""

    text: str
    source: str
    file: str | None = None
    line: int | None = None

    def where(self) -> str:
        if self.file is None:
            return self.source
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def describe(self) -> str:
        return f"`{self.text}` ({self.source}, {self.where()})" if self.file else f"`{self.text}` ({self.source})"


@dataclass(frozen=True, slots=True)
class Allow:
    reason: str = ""
    source: DecisionSource = "default"
    rule: RuleRef | None = None
    #: A hook or the tool may rewrite the input (Claude Code's ``updatedInput``).
    updated_input: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Deny:
    reason: str
    source: DecisionSource = "default"
    rule: RuleRef | None = None
    #: True when the decision was "ask" and headless turned it into a denial.
    was_ask: bool = False
    #: Rules a maintainer could add to allow this call (shown in the denial message).
    suggestions: tuple[str, ...] = ()
    #: Stable id of a security check that fired, when one did (Bash analysis).
    check_id: int | None = None
    warnings: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Ask:
    """Somebody would be asked. Headless, this becomes a :class:`Deny` with ``was_ask=True``."""

    reason: str
    source: DecisionSource = "default"
    rule: RuleRef | None = None
    suggestions: tuple[str, ...] = ()
    check_id: int | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Passthrough:
    """No opinion: the next link of the chain decides."""

    reason: str = ""
    warnings: tuple[str, ...] = ()


PermissionResult = Allow | Deny | Ask | Passthrough
Decision = Allow | Deny


def ask_to_deny(ask: Ask) -> Deny:
    """Headless: nobody can answer, so an "ask" is a denial that says it was one."""
    return Deny(
        reason=ask.reason,
        source=ask.source,
        rule=ask.rule,
        was_ask=True,
        suggestions=ask.suggestions,
        check_id=ask.check_id,
        warnings=ask.warnings,
    )


def denial_message(tool_name: str, deny: Deny) -> str:
    """What the model reads: which rule denied the call and what it may do instead."""
    lines = [f"Permission to use {tool_name} was denied: {deny.reason}"]
    if deny.rule is not None:
        lines.append(f"Decided by rule {deny.rule.describe()}.")
    if deny.was_ask:
        lines.append("This call needs approval, and this run is headless: nobody can approve it.")
    lines.append(
        "Do not retry the same call. Use another approach that the policy allows, "
        "or finish and say in your summary what you could not do and why."
    )
    if deny.suggestions:
        rules = ", ".join(f"`{s}`" for s in deny.suggestions)
        lines.append(f"A maintainer could allow it by adding {rules} to the policy's allow list.")
    return "\n".join(lines)
