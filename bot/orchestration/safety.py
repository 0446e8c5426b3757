"""A run's leak defences, built once when the run starts: canaries, the egress boundary, the tool guard.

Shared by the GitHub mode and the local mode. :func:`start_safety` plants the canaries (decoy
variables in the bot's own environment, decoy credential files in the private ``HOME`` of the bot's
host-side processes), then builds the :class:`~bot.orchestration.egress.Egress` everything leaving the
process passes through and the :class:`~bot.core.guard.SecretGuard` the pipeline screens tool calls
with. Call it after the secrets were captured (``bot.core.secrets``), before any model call.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.core.canary import Canaries
from bot.core.guard import SecretGuard
from bot.errors import CanaryTripped
from bot.orchestration.egress import Egress


@dataclass(slots=True)
class RunSafety:
    canaries: Canaries
    egress: Egress
    #: The ``HOME`` of the bot's own host-side processes (its git): private, decoys inside.
    host_home: Path

    def guard(self, extra_names: Iterable[str] = ()) -> SecretGuard:
        return SecretGuard(canaries=self.canaries, extra_names=extra_names)

    @property
    def tripped(self) -> CanaryTripped | None:
        return self.canaries.tripped

    def leave_alert(self, output_dir: Path, name: str, tripped: CanaryTripped) -> str:
        """A run a canary stopped: what it already left is scrubbed, and ``name`` in the output
        directory holds the alert instead of the run's report. Returns the alert."""
        alert = canary_alert(tripped)
        self.egress.scrub_tree(output_dir)
        self.egress.write_file(output_dir / name, alert)
        return alert


def start_safety(*, plant: bool = True) -> RunSafety:
    canaries = Canaries()
    home = Path(tempfile.mkdtemp(prefix="bot-host-home-"))
    if plant:
        canaries.plant_environ()
        canaries.decoy_home(home)
    return RunSafety(canaries, Egress(canaries=canaries), home)


def canary_alert(tripped: CanaryTripped) -> str:
    """The short comment of a run a canary stopped: where, never the value."""
    return (
        "### ⛔ Stopped: a decoy credential turned up\n\n"
        f"{tripped}. A decoy (canary) credential only travels where a real secret could, so the run was "
        "stopped at once: nothing more was committed or pushed, and the model's output is not posted. "
        "Read the workflow run's log and artifact (redacted) to see which command or tool result carried it."
    )


__all__ = ["RunSafety", "canary_alert", "start_safety"]
