"""What a run reports while it goes: a small tagged union and the sink it is sent to.

The GitHub layer subscribes one sink (a sticky progress comment, a live checklist); local runs
print. Every event names the agent it comes from (``None`` = the main agent, otherwise a
sub-agent's id) so a consumer can nest or filter sub-agents. A sink must not block: it is called
from inside the loop, between stream events. An exception in a sink is logged and dropped; it
never ends the run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.agent.limits import LimitName
from bot.agent.usage import Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TurnStarted:
    turn: int
    model: str
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class TextDelta:
    turn: int
    text: str
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A call entered the pipeline (its ``tool_use`` block was complete and the scheduler let it run)."""

    turn: int
    tool_use_id: str
    tool_name: str
    input: Any
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolProgressed:
    tool_use_id: str
    tool_name: str
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolFinished:
    turn: int
    tool_use_id: str
    tool_name: str
    summary: str
    is_error: bool
    denied: bool
    #: Why it was denied, with the rule when there is one (for the summary's denial list).
    denial: str | None
    duration_s: float
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class TodoItemView:
    content: str
    status: str
    active_form: str


@dataclass(frozen=True, slots=True)
class TodosChanged:
    todos: tuple[TodoItemView, ...]
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ModelRetrying:
    """An attempt failed and will be retried: text already streamed in this turn is void."""

    turn: int
    attempt: int
    reason: str
    delay_s: float
    agent_id: str | None = None

    def short_reason(self, limit: int = 160) -> str:
        """The reason on one line, cut to ``limit`` characters (a status line, a log line)."""
        flat = " ".join(self.reason.split())
        return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class TurnFinished:
    turn: int
    stop_reason: str | None
    usage: Usage
    cost_usd: float
    total_cost_usd: float
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class LimitReached:
    limit: LimitName
    detail: str
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ContextCompacted:
    """The conversation was shrunk before a request: old tool results cleared, or compacted into a summary."""

    kind: str
    turn: int
    tokens_before: int
    tokens_after: int
    items: int
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class RunFinished:
    stop_reason: str
    detail: str
    agent_id: str | None = None


RunEvent = (
    TurnStarted
    | TextDelta
    | ToolStarted
    | ToolProgressed
    | ToolFinished
    | TodosChanged
    | ModelRetrying
    | TurnFinished
    | LimitReached
    | ContextCompacted
    | RunFinished
)

EventSink = Callable[[RunEvent], None]


def drop_events(event: RunEvent) -> None:
    """A sink that ignores everything."""


def safe_emit(sink: EventSink, event: RunEvent) -> None:
    try:
        sink(event)
    except Exception:  # a broken progress comment must not break the run
        log.exception("event sink failed on %s", type(event).__name__)


class EventLog:
    """A sink that keeps everything (tests, local runs, the final report)."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def __call__(self, event: RunEvent) -> None:
        self.events.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
