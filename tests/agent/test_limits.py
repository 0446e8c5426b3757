from __future__ import annotations

import pytest

from bot.agent.limits import RunLimits, limit_before_turn


@pytest.mark.parametrize(
    ("case", "limits", "turns", "cost", "elapsed", "hit"),
    [
        ("no limits never stop", RunLimits(), 1_000, 1e6, 1e6, None),
        ("turns left", RunLimits(max_turns=3), 2, 0, 0, None),
        ("the last turn was used", RunLimits(max_turns=3), 3, 0, 0, "max_turns"),
        ("money left", RunLimits(max_budget_usd=1.0), 0, 0.99, 0, None),
        ("the budget is spent", RunLimits(max_budget_usd=1.0), 0, 1.0, 0, "budget"),
        ("time left", RunLimits(wall_time_s=60), 0, 0, 59.9, None),
        ("time is up", RunLimits(wall_time_s=60), 0, 0, 60, "wall_time"),
        ("wall time is reported before budget and turns", RunLimits(3, 1.0, 60), 3, 2.0, 61, "wall_time"),
        ("budget before turns", RunLimits(3, 1.0, 60), 3, 2.0, 0, "budget"),
    ],
)
def test_which_limit_stops_the_next_turn(
    case: str, limits: RunLimits, turns: int, cost: float, elapsed: float, hit: str | None
) -> None:
    result = limit_before_turn(limits, turns_done=turns, cost_usd=cost, elapsed_s=elapsed)
    assert (None if result is None else result.limit) == hit, case


@pytest.mark.parametrize(
    ("case", "kwargs"),
    [
        ("zero turns", {"max_turns": 0}),
        ("a negative budget", {"max_budget_usd": -1}),
        ("no time at all", {"wall_time_s": 0}),
    ],
)
def test_nonsense_limits_are_refused(case: str, kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        RunLimits(**kwargs)  # type: ignore[arg-type]
