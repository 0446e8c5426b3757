"""What a run returns: why it stopped, what it said, every tool call, usage and cost.

Nothing here touches git: the work a run did is on disk in the workspace whatever the stop reason,
and the GitHub layer commits it. The outcome only has to say what happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot.agent.compaction import Compaction
from bot.agent.usage import ZERO_USAGE, Usage
from bot.permissions.decision import Deny
from bot.runtime.pipeline import ToolCallRecord

#: ``needs_input``: the model asked the requester a question (AskUserQuestion); the run waits for the reply.
StopReason = Literal[
    "completed", "max_turns", "budget", "wall_time", "context_window", "error", "aborted", "needs_input"
]


@dataclass(frozen=True, slots=True)
class Stop:
    reason: StopReason
    detail: str = ""

    @property
    def is_limit(self) -> bool:
        return self.reason in ("max_turns", "budget", "wall_time", "context_window")


@dataclass(frozen=True, slots=True)
class ToolCallEntry:
    """One line of the run's tool-call log."""

    turn: int
    record: ToolCallRecord
    agent_id: str | None = None
    #: The call ran in a turn attempt that failed and was retried: the model never saw its result.
    discarded: bool = False

    @property
    def denied(self) -> bool:
        return self.record.denied

    def denial_text(self) -> str | None:
        decision = self.record.decision
        if not isinstance(decision, Deny):
            return None
        rule = f" (rule {decision.rule.describe()})" if decision.rule is not None else ""
        return f"{decision.reason}{rule}"


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One model response: its usage and cost, how many attempts it took."""

    turn: int
    model: str
    usage: Usage
    cost_usd: float
    stop_reason: str | None
    attempts: int = 1
    request_id: str | None = None
    agent_id: str | None = None
    #: The model was not in the price table: priced at the most expensive rates.
    cost_estimated: bool = False
    #: The request asked for a summary to compact the conversation (not a turn of the task).
    compaction: bool = False


@dataclass(slots=True)
class AgentOutcome:
    stop: Stop
    #: The model's last text (its summary), or "" when it never finished one.
    final_text: str
    turns: list[TurnRecord] = field(default_factory=list)
    tool_calls: list[ToolCallEntry] = field(default_factory=list)
    #: The conversation, API-shaped (the transcript file has it too).
    messages: list[dict[str, Any]] = field(default_factory=list)
    transcript_path: Path | None = None
    agent_id: str | None = None
    #: Sub-agents' usage and cost are included (they count against the same budget).
    total_cost_usd: float = 0.0
    #: Every time the conversation was shrunk to fit the context window (sub-agents' included).
    compactions: list[Compaction] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        total = ZERO_USAGE
        for turn in self.turns:
            total = total + turn.usage
        return total

    @property
    def model_retries(self) -> int:
        """Model API attempts that failed and were retried (sub-agents' and compactions' included)."""
        return sum(max(0, t.attempts - 1) for t in self.turns)

    @property
    def cost_usd(self) -> float:
        return sum(t.cost_usd for t in self.turns)

    @property
    def denials(self) -> list[ToolCallEntry]:
        return [c for c in self.tool_calls if c.denied]

    @property
    def completed(self) -> bool:
        return self.stop.reason == "completed"
