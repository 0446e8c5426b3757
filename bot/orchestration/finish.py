"""The one finaliser: every run that started ends here, however it ended.

It writes the output directory (the rendered report, ``changes.diff``, ``outcome.json``; every file
already there scrubbed through the egress boundary), then hands the ending to the adapter to post.
When posting fails, the adapter still leaves what it can (outputs, the job summary, a log line) and
the run fails; a canary anywhere turns the ending into the alert alone.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bot.agent.outcome import AgentOutcome
from bot.core.secrets import process_secrets
from bot.errors import CanaryTripped
from bot.orchestration.adapter import Checkout, Ending, RunAdapter
from bot.orchestration.conclusion import Conclusion, exit_code
from bot.orchestration.git_records import DiffStats
from bot.orchestration.provenance import relative_report
from bot.orchestration.render import JOB_SUMMARY_LIMIT, render_result
from bot.orchestration.report import RunFacts, build_report, outcome_data
from bot.orchestration.safety import RunSafety


def build_ending(
    adapter: RunAdapter,
    outcome: AgentOutcome | None,
    diff: DiffStats | None,
    facts: RunFacts,
    checkout: Checkout | None,
    image_hosts: tuple[str, ...] = (),
) -> Ending:
    # A reader knows the repository, not the runner: its absolute paths are made relative.
    report = relative_report(
        build_report(outcome, diff, facts), checkout.git.root if checkout else None, adapter.output_dir
    )
    secrets = list(process_secrets().values())
    markdown = render_result(report, limit=JOB_SUMMARY_LIMIT, secrets=secrets, allowed_hosts=image_hosts)
    diff_text = "".join(f.patch + "\n" for f in diff.files) if diff is not None else ""
    return Ending(report, outcome, markdown, adapter.outcome_extra(checkout, outcome), diff_text, image_hosts)


async def finish(adapter: RunAdapter, ending: Ending, safety: RunSafety) -> int:
    egress = safety.egress
    try:
        _write_output_dir(adapter, ending, safety)
        await adapter.deliver(ending)
    except CanaryTripped as tripped:
        return await stopped_by_canary(adapter, safety, tripped)
    except Exception as exc:  # the result could not be posted: what can still be left is left
        print(f"error: the run's result could not be delivered: {type(exc).__name__}: {exc}", file=sys.stderr)
        try:
            await adapter.delivery_failed(ending, exc)
        except Exception as again:  # nothing more can be done from here but say so
            print(f"error: {type(again).__name__}: {again}", file=sys.stderr)
        return exit_code(Conclusion.FAILURE)
    if egress.canaries.tripped is not None:  # recorded (a log line) rather than raised
        return await stopped_by_canary(adapter, safety, egress.canaries.tripped)
    return exit_code(Conclusion(ending.report.conclusion))


def _write_output_dir(adapter: RunAdapter, ending: Ending, safety: RunSafety) -> None:
    """What the workflow uploads as the run's artifact, through the egress boundary: every file
    already there (transcripts, task outputs, large results) scrubbed, every new one redacted."""
    egress = safety.egress
    out = adapter.output_dir
    out.mkdir(parents=True, exist_ok=True)
    egress.scrub_tree(out)
    egress.canaries.raise_if_tripped()
    egress.write_file(out / adapter.report_file, egress.text(ending.markdown, "the run's report"))
    egress.write_file(out / "changes.diff", ending.diff_text)
    data: dict[str, Any] = outcome_data(ending.report, ending.outcome, extra=ending.extra)
    egress.write_file(out / "outcome.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")


async def stopped_by_canary(adapter: RunAdapter, safety: RunSafety, tripped: CanaryTripped) -> int:
    """Nothing more is committed, pushed or posted but the alert."""
    alert = safety.leave_alert(adapter.output_dir, adapter.report_file, tripped)
    await adapter.deliver_alert(alert, tripped)
    return exit_code(Conclusion.FAILURE)


__all__ = ["build_ending", "finish", "stopped_by_canary"]
