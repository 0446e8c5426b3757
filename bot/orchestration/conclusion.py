"""How a run ended, as one value: what the action's ``conclusion`` output says and what decides the
exit code.

A run that started always ends in one of these (the finaliser of :mod:`bot.orchestration.finish`
makes sure of it, whatever raised). ``skipped`` and ``refused`` are the GitHub adapter's endings
before a run starts. A new ending (a run that stops to ask its requester something) is a member
here and a word in :data:`HEADINGS`; :func:`exit_code` already treats it as not a failure.
"""

from __future__ import annotations

from enum import StrEnum


class Conclusion(StrEnum):
    SUCCESS = "success"
    #: Stopped at a limit, cancelled, or verification failed: the work so far is kept.
    PARTIAL = "partial"
    FAILURE = "failure"
    #: The model asked the requester a question: the work so far is pushed, the session waits for the reply.
    NEEDS_INPUT = "needs-input"
    #: Not triggered: nothing was done.
    SKIPPED = "skipped"
    #: Triggered by someone without write access: nothing was done.
    REFUSED = "refused"


def exit_code(conclusion: Conclusion) -> int:
    """1 when the run failed (the job goes red), else 0: a partial run is work kept, not an error."""
    return 1 if conclusion is Conclusion.FAILURE else 0


__all__ = ["Conclusion", "exit_code"]
