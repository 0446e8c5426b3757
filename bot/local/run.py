"""``bot run --local``: the same run as on GitHub, with no GitHub.

A branch in the local repository, the comment Markdown and the outcome JSON in an output
directory, progress on the terminal. A maintainer tries a policy on a laptop before a workflow
uses it. With ``--replay`` the model's side comes from a recorded cassette: tools really run.
:class:`LocalAdapter` is the mode :func:`bot.orchestration.run.drive` runs with.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from bot.agent.events import EventLog, RunEvent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.agent.replay import prompt_mismatch
from bot.core.host_git import hardened_args, host_git_env
from bot.errors import CanaryTripped, ConfigError
from bot.local.progress import TerminalProgress
from bot.local.sessions import local_slot
from bot.orchestration.adapter import Checkout, Ending, EventSink, Work
from bot.orchestration.branches import slugify
from bot.orchestration.git import CoAuthor, GitWorkspace
from bot.orchestration.provenance import relative_text
from bot.orchestration.render import Provenance
from bot.orchestration.report import RunFacts, commit_message
from bot.orchestration.run import drive
from bot.orchestration.safety import RunSafety, start_safety
from bot.orchestration.session import RunConfig, TrustedFiles, working_tree_files

LOCAL_BRANCH_PREFIX = "bot/local-"


@dataclass(frozen=True, slots=True)
class LocalRun:
    repo: Path
    prompt: str
    output_dir: Path
    config: RunConfig
    replay: Path | None = None
    branch: str | None = None
    #: ``--resume ID``: continue that local session; ``--continue``: the most recent one.
    resume: str | None = None
    continue_last: bool = False


def ensure_repository(repo: Path, output_dir: Path, out: TextIO) -> Path:
    """The repository to work in. A directory that is not a git repository is copied into the output
    directory and initialised there, so the run never rewrites a tree that has no history."""
    # The bot's own git before the model runs (bot.core.host_git): allowlisted environment, nothing
    # that runs programs from the repository's configuration.
    env = host_git_env(git_dir=None, work_tree=None, home=output_dir / "git-home", untrusted=(repo,))
    inside = subprocess.run(
        ["git", *hardened_args(), "-C", str(repo), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if inside.returncode == 0 and Path(inside.stdout.strip()).resolve() == repo.resolve():
        return repo.resolve()
    copy = output_dir / "workspace"
    print(f"{repo} is not the top of a git repository: working on a copy at {copy}", file=out)
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc"))
    git = ["git", *hardened_args(), "-C", str(copy), "-c", "user.name=bot", "-c", "user.email=bot@localhost"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "Initial copy"]):
        subprocess.run([*git, *args], check=True, capture_output=True, env=env)
    return copy.resolve()


async def run_local(run: LocalRun, *, out: TextIO | None = None) -> int:
    """Returns the exit code: 0 when the run finished (whatever the model concluded), 1 on failure.
    Raises :class:`ConfigError` before anything is changed when the repository has uncommitted work."""
    run.output_dir.mkdir(parents=True, exist_ok=True)
    safety = start_safety()
    restore_streams = safety.egress.install_stream_redaction()
    try:  # the terminal stream is taken after the redaction is installed, so it is the redacting one
        adapter = LocalAdapter(run, out or sys.stderr, safety)
        adapter.check_clean()
        if run.replay is not None and (note := prompt_mismatch(run.replay, run.prompt)) is not None:
            print(f"note: {note}", file=adapter.out)
        return await drive(adapter, run.config, safety, replay=run.replay)
    finally:
        restore_streams()


class LocalAdapter:
    """The local mode: a branch in the repository (never pushed), files in the output directory,
    progress and the summary on the terminal."""

    report_file = "comment.md"

    def __init__(self, run: LocalRun, out: TextIO, safety: RunSafety) -> None:
        self.run = run
        self.out = out
        self.safety = safety
        self.output_dir = run.output_dir
        self.artifact_hint = str(run.output_dir / "changes.diff")
        self.repo = ensure_repository(run.repo, run.output_dir, out)
        self.git = GitWorkspace(self.repo, home=safety.host_home, private=(run.output_dir,))
        self._log = EventLog()

    def check_clean(self) -> None:
        if self.git.has_changes():
            raise ConfigError(
                "the repository has uncommitted changes; commit or stash them first, so the run's changes "
                "stay separate",
                path=self.repo,
            )

    def provenance(self) -> Provenance:
        return Provenance(actor="local")

    def trusted_files(self) -> TrustedFiles:
        return working_tree_files(self.repo)

    def prepare(self) -> Checkout:
        git = self.git
        git.configure_identity()
        base = git.current_branch() or "HEAD"
        slot = local_slot(
            git, self.run.prompt, resume=self.run.resume, continue_last=self.run.continue_last, out=self.out
        )
        saved = slot.saved
        default = saved.branch if saved is not None and saved.branch else LOCAL_BRANCH_PREFIX + slugify(self.run.prompt)
        branch = self.run.branch or default
        git.prepare_branch(branch, base=base)
        before = git.head_sha()
        print(f"branch {branch} (from {base} at {before[:12]}); session {slot.keys[0]}", file=self.out)
        return Checkout(git, branch, base, before, working_tree_files(self.repo), continuity=slot)

    def task(self, checkout: Checkout) -> AgentTask:
        return AgentTask(self.run.prompt)

    @asynccontextmanager
    async def progress(self) -> AsyncIterator[EventSink]:
        terminal = TerminalProgress(self.out)

        def sink(event: RunEvent) -> None:
            self._log(event)
            terminal.sink(event)

        yield sink

    def commit_message(self, outcome: AgentOutcome | None, checkout: Checkout) -> str:
        return commit_message(self.run.prompt, outcome, issue=None, finished=True)

    def co_authors(self) -> Sequence[CoAuthor]:
        return ()

    def publish(self, checkout: Checkout, work: Work) -> RunFacts:
        return RunFacts(branch=checkout.branch, commit=work.commit, sensitive_paths=work.sensitive_paths)

    def outcome_extra(self, checkout: Checkout | None, outcome: AgentOutcome | None) -> dict[str, Any]:
        # Paths a reader can use anywhere: the repository by name, the transcript beside this file.
        transcript = outcome.transcript_path if outcome else None
        return {
            "repository": self.repo.name,
            "base": checkout.base if checkout else None,
            "transcript": relative_text(str(transcript), [self.output_dir]) if transcript else None,
        }

    async def deliver(self, ending: Ending) -> None:
        report, out = ending.report, self.out
        print("", file=out)
        print(f"{report.conclusion}: {report.headline}", file=out)
        for f in report.files:
            print(f"  {f.status:<9} {f.path} (+{f.additions} -{f.deletions})", file=out)
        u = report.usage
        print(
            f"  {u.turns} turns, {u.input_tokens} input / {u.output_tokens} output tokens, ${u.cost_usd:.4f}",
            file=out,
        )
        print(f"  comment: {self.output_dir / self.report_file}", file=out)
        print(f"  outcome: {self.output_dir / 'outcome.json'}", file=out)
        if report.branch:
            print(f"  branch:  {report.branch} at {(report.commit or '')[:12]}", file=out)

    async def delivery_failed(self, ending: Ending, error: BaseException) -> None:
        print(f"failure: {ending.report.headline} (the summary could not be printed: {error})", file=sys.stderr)

    async def deliver_alert(self, alert: str, tripped: CanaryTripped) -> None:
        print(f"failure: {tripped}", file=self.out)


__all__ = ["LOCAL_BRANCH_PREFIX", "LocalAdapter", "LocalRun", "ensure_repository", "run_local"]
