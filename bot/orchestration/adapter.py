"""The seam between a run and the mode that drives it: :class:`RunAdapter`.

:func:`bot.orchestration.run.drive` runs the stages every run has (set-up, agent, verification,
commit, the one finaliser); an adapter supplies what differs between GitHub and the local mode: where
the checkout comes from, what the task says, how work is published (a push and a pull request, or
nothing), how progress is shown and where the result goes (a comment, outputs and the job summary;
or files and the terminal). Adapters live above this package (:mod:`bot.github.run`,
:mod:`bot.local.run`) and this package never imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bot.agent.events import RunEvent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.errors import CanaryTripped
from bot.orchestration.continuity import SessionSlot
from bot.orchestration.git import CoAuthor, GitWorkspace
from bot.orchestration.render import Provenance, RunReport
from bot.orchestration.report import RunFacts
from bot.orchestration.session import TrustedFiles

#: What the agent loop calls with each event (it must not block).
EventSink = Callable[[RunEvent], None]


@dataclass(frozen=True, slots=True)
class Checkout:
    """Where the run works, as the adapter set it up (before the model runs anything)."""

    git: GitWorkspace
    branch: str
    #: The branch the run's work is measured against (the default branch; locally the one checked out).
    base: str
    #: HEAD before the agent ran: the run's own changes are ``before..HEAD``.
    before: str
    #: Where policy, hooks, MCP config and instructions are read from.
    trusted: TrustedFiles
    #: Files a pull request's head changes: hooks that run one of them are not run.
    untrusted_paths: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: An open pull request for the branch (a re-run), or the PR the run was asked on.
    pr_number: int | None = None
    #: The task's stored session: the one this run resumes and where it leaves its own
    #: (:mod:`bot.orchestration.continuity`); ``None``: the mode keeps none.
    continuity: SessionSlot | None = None


@dataclass(frozen=True, slots=True)
class Work:
    """What the agent stage left, committed: what an adapter publishes."""

    outcome: AgentOutcome | None
    #: The agent completed and nothing cancelled it.
    finished: bool
    commit: str
    verification: tuple[tuple[str, bool], ...] = ()
    #: The run's own changes among the files that configure the bot or CI.
    sensitive_paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Ending:
    """Everything the finaliser reports: every run, however it ended, becomes one of these."""

    report: RunReport
    outcome: AgentOutcome | None
    #: The rendered report as the output directory keeps it (the job summary's size).
    markdown: str
    #: Extra fields for ``outcome.json``.
    extra: dict[str, Any] = field(default_factory=dict)
    #: The run's diff as ``changes.diff`` keeps it.
    diff_text: str = ""
    #: Hosts whose images the posted Markdown may keep (the policy's WebFetch domains).
    image_hosts: tuple[str, ...] = ()


class RunAdapter(Protocol):
    """What a mode supplies to :func:`bot.orchestration.run.drive`. The sync methods run in a worker
    thread (they call git and HTTP); each may raise :class:`~bot.errors.BotError`, which ends the run
    as a failure that says so; anything else is reported as an internal error."""

    #: Where the run's files go (the workflow's artifact; locally the ``--output-dir``).
    output_dir: Path
    #: The name of the rendered report in :attr:`output_dir` (``summary.md``, ``comment.md``).
    report_file: str
    #: Where the run's diff is, said in the report when it is too long to show.
    artifact_hint: str

    def provenance(self) -> Provenance:
        """Who asked and from where; the finaliser adds policy hashes, model and limits."""
        ...

    def trusted_files(self) -> TrustedFiles:
        """Where policy, hooks, MCP config and instructions are read from, before :meth:`prepare`
        touches the checkout (they are checked first). :meth:`prepare`'s checkout names the same."""
        ...

    def prepare(self) -> Checkout:
        """The work branch checked out, the trusted base known. Nothing the model wrote runs yet."""
        ...

    def task(self, checkout: Checkout) -> AgentTask: ...

    def commit_message(self, outcome: AgentOutcome | None, checkout: Checkout) -> str:
        """The message of the run's commit when it finished (unfinished work is a checkpoint)."""
        ...

    def co_authors(self) -> Sequence[CoAuthor]: ...

    def publish(self, checkout: Checkout, work: Work) -> RunFacts:
        """Make the committed work visible (push, pull request) and say where it is. A failure after
        something was published returns facts saying both (``pushed`` and ``error``): never raises
        for what it already did."""
        ...

    def progress(self) -> AbstractAsyncContextManager[EventSink]:
        """Live progress while the agent runs: entered before the first model call, left after the
        last event."""
        ...

    def outcome_extra(self, checkout: Checkout | None, outcome: AgentOutcome | None) -> dict[str, Any]: ...

    async def deliver(self, ending: Ending) -> None:
        """Where the result goes besides the output directory. Raising :class:`CanaryTripped`
        (a canary in what is about to be posted) turns the ending into the canary alert."""
        ...

    async def deliver_alert(self, alert: str, tripped: CanaryTripped) -> None:
        """A canary tripped: the alert (already in the output directory) is the only thing posted
        and printed."""
        ...

    async def delivery_failed(self, ending: Ending, error: BaseException) -> None:
        """:meth:`deliver` raised: leave what can still be left (outputs, summary, a log line)."""
        ...


__all__ = ["Checkout", "Ending", "EventSink", "RunAdapter", "Work"]
