"""Run limits — max turns, budget (USD), wall time, the context window — and the pure check the loop makes.

The policy layer parses limits from policy files into :class:`RunLimits`; the loop checks them
before every turn (:func:`limit_before_turn`) and enforces the wall time inside a turn too (the
stream and the running tools are aborted at the deadline). The budget is checked between turns:
a turn already streaming is never cut for money, so a run may end up to one turn over budget, and
the outcome says by how much. The context window is not checked here: the loop measures the
conversation against it before every request and shrinks it (:mod:`bot.agent.compaction`); only a
conversation that cannot be shrunk enough ends the run with ``context_window``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import anyio

#: Below this a window cannot hold the system prompt, the tools and a compacted conversation.
MIN_CONTEXT_WINDOW = 4_000

LimitName = Literal["max_turns", "budget", "wall_time", "context_window"]


@dataclass(frozen=True, slots=True)
class RunLimits:
    """``None`` means no limit of that kind."""

    max_turns: int | None = None
    max_budget_usd: float | None = None
    wall_time_s: float | None = None
    #: The model's context window in tokens, overriding the table in :mod:`bot.agent.context_window`
    #: (policy ``bot.limits.context_window``): a smaller window compacts sooner.
    context_window: int | None = None

    def __post_init__(self) -> None:
        if self.max_turns is not None and self.max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        if self.max_budget_usd is not None and self.max_budget_usd < 0:
            raise ValueError("max_budget_usd must not be negative")
        if self.wall_time_s is not None and self.wall_time_s <= 0:
            raise ValueError("wall_time_s must be positive")
        if self.context_window is not None and self.context_window < MIN_CONTEXT_WINDOW:
            raise ValueError(f"context_window must be at least {MIN_CONTEXT_WINDOW:,} tokens")


@dataclass(frozen=True, slots=True)
class LimitHit:
    limit: LimitName
    detail: str


def limit_before_turn(limits: RunLimits, *, turns_done: int, cost_usd: float, elapsed_s: float) -> LimitHit | None:
    """May another turn start? ``None`` if yes; otherwise the first limit reached."""
    if limits.wall_time_s is not None and elapsed_s >= limits.wall_time_s:
        return wall_time_hit(limits.wall_time_s, elapsed_s)
    if limits.max_budget_usd is not None and cost_usd >= limits.max_budget_usd:
        return LimitHit("budget", f"spent ${cost_usd:.4f} of the {format_usd(limits.max_budget_usd)} budget")
    if limits.max_turns is not None and turns_done >= limits.max_turns:
        return LimitHit("max_turns", f"{turns_done} of {limits.max_turns} turns used")
    return None


def format_usd(amount: float) -> str:
    """Dollars with the digits the amount has: cents as cents (``$1.50``), a budget set below a
    cent or between cents as written (``$0.012``, not a rounded ``$0.01`` that reads as less)."""
    cents = f"{amount:.2f}"
    if float(cents) == amount:
        return f"${cents}"
    return "$" + f"{amount:.6f}".rstrip("0")


def wall_time_hit(limit_s: float, elapsed_s: float) -> LimitHit:
    return LimitHit("wall_time", f"{elapsed_s:.1f} s elapsed, the limit is {limit_s:g} s")


class Clock(Protocol):
    """Monotonic seconds. The loop reads time only through this (tests pass a fake)."""

    def __call__(self) -> float: ...


def monotonic() -> float:
    return anyio.current_time()
