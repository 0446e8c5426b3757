"""``bot run --local``: the same run as on GitHub, with no GitHub.

A branch in the local repository, the comment Markdown and the outcome JSON in an output
directory, progress on the terminal. A maintainer tries a policy on a laptop before a workflow
uses it. With ``--replay`` the model's side comes from a recorded cassette: tools really run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import traceback
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from bot.agent.events import EventLog, RunEvent
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.core.host_git import GitDirTampered, hardened_args, host_git_env
from bot.errors import ConfigError, canary_tripped_in, first_error
from bot.github.events import slugify
from bot.github.progress import TerminalProgress
from bot.interface.abort import AbortSignal
from bot.orchestration.git import CoAuthor, DiffStats, GitWorkspace
from bot.orchestration.render import JOB_SUMMARY_LIMIT, Provenance, render_result
from bot.orchestration.report import RunFacts, build_report, commit_message, diff_paths, outcome_data, sensitive_changes
from bot.orchestration.safety import RunSafety, start_safety
from bot.orchestration.session import RunConfig, prepare_run, replaying, working_tree_files
from bot.orchestration.signals import cancel_on_signals
from bot.orchestration.verify import run_verification

LOCAL_BRANCH_PREFIX = "bot/local-"


@dataclass(frozen=True, slots=True)
class LocalRun:
    repo: Path
    prompt: str
    output_dir: Path
    config: RunConfig
    replay: Path | None = None
    branch: str | None = None


def ensure_repository(repo: Path, output_dir: Path, out: TextIO) -> Path:
    """The repository to work in. A directory that is not a git repository is copied into the output
    directory and initialised there, so the run never rewrites a tree that has no history."""
    # The bot's own git before the model runs (bot.core.host_git): allowlisted environment, nothing
    # that runs programs from the repository's configuration.
    env = host_git_env(git_dir=None, work_tree=None, home=output_dir / "git-home")
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
    """Returns the exit code: 0 when the run finished (whatever the model concluded), 1 on failure."""
    run.output_dir.mkdir(parents=True, exist_ok=True)
    safety = start_safety()
    restore_streams = safety.egress.install_stream_redaction()
    try:  # the terminal stream is taken after the redaction is installed, so it is the redacting one
        return await _run_local(run, out or sys.stderr, safety)
    finally:
        restore_streams()


async def _run_local(run: LocalRun, out: TextIO, safety: RunSafety) -> int:
    repo = ensure_repository(run.repo, run.output_dir, out)
    git = GitWorkspace(repo, home=safety.host_home, private=(run.output_dir,))
    git.configure_identity()
    if git.has_changes():
        raise ConfigError(
            "the repository has uncommitted changes; commit or stash them first, so the run's changes stay separate",
            path=repo,
        )
    base = git.current_branch() or "HEAD"
    branch = run.branch or LOCAL_BRANCH_PREFIX + slugify(run.prompt)
    git.prepare_branch(branch, base=base)
    before = git.head_sha()
    print(f"branch {branch} (from {base} at {before[:12]})", file=out)
    seal = git.seal()  # from here on the model may run commands in the repository

    scratch = run.output_dir / "scratch"
    guard = safety.guard()
    config = replace(run.config, workspace=repo, scratch_dir=scratch, guard=guard, git_seal=seal)
    abort = AbortSignal()
    log = EventLog()
    terminal = TerminalProgress(out)

    def sink(event: RunEvent) -> None:
        log(event)
        terminal.sink(event)

    outcome: AgentOutcome | None = None
    error: str | None = None
    with ExitStack() as stack:
        if run.replay is not None:
            cassette, config = replaying(run.replay, config)
            stack.enter_context(cassette)
        async with cancel_on_signals(abort), prepare_run(config, working_tree_files(repo), abort=abort) as prepared:
            for warning in prepared.warnings:
                print(f"warning: {warning}", file=out)
            raised_trip = None
            try:
                outcome = await run_agent(AgentTask(run.prompt), prepared.session, sink)
            except Exception as exc:  # the loop reports its own failures: this is a bug, keep the work
                leaf = first_error(exc)
                raised_trip = canary_tripped_in(exc)
                if raised_trip is None:
                    error = f"{type(leaf).__name__}: {leaf}"
                    safety.egress.write_file(run.output_dir / "error.txt", traceback.format_exc())
            if outcome is not None and outcome.final_text:
                safety.canaries.observe(outcome.final_text, "the model's final message")
            tripped = safety.tripped or raised_trip
            if tripped is not None:  # nothing is committed; the alert is the whole outcome
                safety.leave_alert(run.output_dir, "comment.md", tripped)
                print(f"failure: {tripped}", file=out)
                return 1
            verification = await run_verification(prepared, repo) if outcome and outcome.completed else ()
            notes = tuple(prepared.run_log_notes())
            if guard.counter.summary():
                notes += (str(guard.counter.summary()) + ".",)
            hook_files = prepared.hook_files()
            image_hosts = prepared.image_hosts()
            policy_files = tuple(_hashes(prepared.policy_sources))
            model = prepared.session.model
            limits = prepared.limits

    finished = outcome is not None and outcome.completed
    diff: DiffStats | None = None
    commit: str | None = None
    try:
        if git.has_changes():
            if finished:
                git.commit_all(commit_message(run.prompt, outcome, issue=None, finished=True))
            else:
                git.checkpoint(outcome.stop.reason if outcome is not None else "setup failed")
        diff = git.diff(before)
        commit = git.head_sha()
    except GitDirTampered as exc:  # nothing is committed from a reconfigured repository
        error = str(exc)
    sensitive = tuple(sensitive_changes(diff_paths(diff), hook_scripts=hook_files))
    facts = RunFacts(
        branch=branch,
        commit=commit,
        pushed=False,
        error=error,
        notes=notes,
        sensitive_paths=sensitive,
        verification=verification if outcome else (),
        cancelled=abort.aborted,
        provenance=Provenance(actor="local", policy_files=policy_files, model=model, limits=_limits(limits)),
        artifact_hint=f"{run.output_dir / 'changes.diff'}",
    )
    report = build_report(outcome, diff, facts)
    comment = render_result(report, limit=JOB_SUMMARY_LIMIT, allowed_hosts=image_hosts)
    data = outcome_data(
        report,
        outcome,
        extra={
            "repository": str(repo),
            "base": base,
            "transcript": str(outcome.transcript_path) if outcome and outcome.transcript_path else None,
        },
    )
    # Everything the run leaves goes through the egress boundary (redacted; a canary stops it).
    egress = safety.egress
    egress.scrub_tree(run.output_dir)
    egress.quietly(comment, "the result comment")
    if safety.tripped is not None:
        safety.leave_alert(run.output_dir, "comment.md", safety.tripped)
        print(f"failure: {safety.tripped}", file=out)
        return 1
    egress.write_file(run.output_dir / "comment.md", comment)
    egress.write_file(run.output_dir / "changes.diff", "".join(f.patch + "\n" for f in diff.files) if diff else "")
    egress.write_file(run.output_dir / "outcome.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    _print_summary(report.headline, data, run.output_dir, out)
    return 1 if report.conclusion == "failure" else 0


def _hashes(sources: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    import hashlib

    return [(label, hashlib.sha256(text.encode()).hexdigest()) for label, text in sources]


def _limits(limits: object) -> tuple[tuple[str, str], ...]:
    out = []
    for name in ("max_turns", "max_budget_usd", "wall_time_s"):
        value = getattr(limits, name, None)
        if value is not None:
            out.append((name, f"{value:g}" if isinstance(value, float) else str(value)))
    return tuple(out)


def _print_summary(headline: str, data: dict[str, object], output_dir: Path, out: TextIO) -> None:
    print("", file=out)
    print(f"{data['conclusion']}: {headline}", file=out)
    files = data["files"]
    assert isinstance(files, list)
    for f in files:
        print(f"  {f['status']:<9} {f['path']} (+{f['additions']} -{f['deletions']})", file=out)
    print(
        f"  {data['turns']} turns, {data['input_tokens']} input / {data['output_tokens']} output tokens, "
        f"${float(str(data['cost_usd'])):.4f}",
        file=out,
    )
    print(f"  comment: {output_dir / 'comment.md'}", file=out)
    print(f"  outcome: {output_dir / 'outcome.json'}", file=out)
    if data.get("branch"):
        print(f"  branch:  {data['branch']} at {str(data.get('commit') or '')[:12]}", file=out)


__all__ = ["CoAuthor", "LocalRun", "ensure_repository", "run_local"]
