"""The provenance line of a report: who asked, which policy files (by hash), which model and limits."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from bot.agent.limits import RunLimits
from bot.orchestration.render import Provenance
from bot.orchestration.session import PreparedRun


def with_policy(base: Provenance, prepared: PreparedRun) -> Provenance:
    """``base`` (who asked, the run's link) plus what the prepared run was built from."""
    files = tuple((label, hashlib.sha256(text.encode()).hexdigest()) for label, text in prepared.policy_sources)
    return replace(base, policy_files=files, model=prepared.session.model, limits=shown_limits(prepared.limits))


def shown_limits(limits: RunLimits) -> tuple[tuple[str, str], ...]:
    """The limits that are set, as the provenance line shows them."""
    shown = []
    for name in ("max_turns", "max_budget_usd", "wall_time_s"):
        value = getattr(limits, name, None)
        if value is not None:
            shown.append((name, f"{value:g}" if isinstance(value, float) else str(value)))
    return tuple(shown)


__all__ = ["shown_limits", "with_policy"]
