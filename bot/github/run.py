"""``bot run`` on GitHub: an event in, a pushed branch, a pull request and a comment out.

The order matters and is the trust model in code:

1. the event decides whether anything happens (:func:`decide_trigger`) — nothing is called yet;
2. the actor is authorized (collaborator permission) before any reaction, comment or checkout;
3. policy, hooks, MCP config and instructions come from the default branch, never a PR's head;
4. the agent runs; whatever happens, the workspace is committed (a checkpoint when unfinished)
   and pushed, and the comment says what happened.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio

from bot.agent.events import EventLog, RunEvent
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask, QuotedData
from bot.core.host_git import GitDirTampered
from bot.core.secrets import process_secrets, secret
from bot.errors import BotError, CanaryTripped, GitError, PushRejected, canary_tripped_in, first_error
from bot.github.api import GitHubApi, PyGithubApi
from bot.github.authorize import authorize
from bot.github.events import EventError, Trigger, TriggerSettings, decide_trigger, load_event_text
from bot.github.outputs import mask, write_outputs, write_step_summary
from bot.github.progress import StickyProgress
from bot.github.redacting_api import RedactingGitHubApi
from bot.interface.abort import AbortSignal
from bot.orchestration.egress import Egress
from bot.orchestration.git import CoAuthor, DiffStats, GitWorkspace, PublishTooLarge
from bot.orchestration.render import (
    GITHUB_COMMENT_LIMIT,
    JOB_SUMMARY_LIMIT,
    Provenance,
    RunReport,
    finalize,
    render_progress,
    render_result,
)
from bot.orchestration.report import (
    RunFacts,
    action_outputs,
    build_report,
    commit_message,
    diff_paths,
    sensitive_changes,
)
from bot.orchestration.safety import RunSafety, start_safety
from bot.orchestration.session import PreparedRun, RunConfig, TrustedFiles, prepare_run, replaying
from bot.orchestration.signals import cancel_on_signals
from bot.orchestration.verify import run_verification


@dataclass(frozen=True, slots=True)
class GitHubRun:
    event_name: str
    event_path: Path
    settings: TriggerSettings
    config: RunConfig
    output_dir: Path
    replay: Path | None = None
    reply_on_refusal: bool = False


def load_event(event_path: Path) -> Any:
    """The event payload, decoded within bounds (size, nesting): its text is anyone's."""
    try:
        text = event_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EventError(f"{event_path}: no such event file") from None
    except UnicodeDecodeError as exc:
        raise EventError(f"{event_path}: not a JSON event payload ({exc})") from None
    return load_event_text(text, str(event_path))


def dry_run_decision(event_name: str, event_path: Path, settings: TriggerSettings, repo: Path) -> dict[str, Any]:
    return decide_trigger(event_name, load_event(event_path), settings).dry_run_json()


def run_url(env: Any) -> str | None:
    server, repo, run_id = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_RUN_ID")
    return f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else None


def build_task(trigger: Trigger, repository: str) -> AgentTask:
    """The trusted framing plus everything third parties wrote, quoted as data."""
    where = {
        "issue_comment": f"issue #{trigger.issue}",
        "issue": f"issue #{trigger.issue}",
        "pr_comment": f"pull request #{trigger.pr}",
        "review_comment": f"a review comment on pull request #{trigger.pr}",
        "review": f"a review of pull request #{trigger.pr}",
    }.get(trigger.kind, trigger.kind.replace("_", " "))
    who = f"@{trigger.actor} (write access checked)" if trigger.actor else "the workflow"
    lines = [f"Repository {repository}. {who} asked for this on {where}."]
    quoted: list[QuotedData] = []
    if trigger.kind in ("workflow_dispatch", "schedule", "repository_dispatch"):
        lines.append(f"Task:\n{trigger.prompt}")
    else:
        lines.append("Do what the request quoted below asks; the issue or pull request it refers to is quoted too.")
        if trigger.context.get("comment"):
            quoted.append(QuotedData("request", trigger.context["comment"], author=trigger.actor))
        elif trigger.prompt:
            quoted.append(QuotedData("request", trigger.prompt, author=trigger.actor))
        for key, label in (
            ("title", "title"),
            ("body", "description"),
            ("file", "file under review"),
            ("diff_hunk", "diff hunk under review"),
        ):
            if trigger.context.get(key):
                quoted.append(QuotedData(label, trigger.context[key]))
    lines.append(
        "Work in the checkout. Do not commit, push or open pull requests: the runner commits and pushes "
        "your changes and posts your final message as the summary, so end with a short summary."
    )
    return AgentTask("\n\n".join(lines), quoted=tuple(quoted))


async def run_github(run: GitHubRun) -> int:
    payload = load_event(run.event_path)
    trigger = decide_trigger(run.event_name, payload, run.settings)
    out = sys.stdout
    if not trigger.triggered:
        print(f"not triggered: {trigger.reason}", file=out)
        write_outputs({"conclusion": "skipped"})
        return 0
    secrets = list(process_secrets().values())
    mask(secrets, out)
    safety = start_safety()
    # From here every line printed, every comment and file goes through the egress boundary.
    restore_streams = safety.egress.install_stream_redaction()
    try:
        raw_api = await anyio.to_thread.run_sync(lambda: PyGithubApi.from_environment())
        return await _authorize_and_run(run, trigger, RedactingGitHubApi(raw_api, safety.egress), safety, secrets)
    finally:
        restore_streams()


async def _authorize_and_run(
    run: GitHubRun, trigger: Trigger, api: GitHubApi, safety: RunSafety, secrets: list[str]
) -> int:
    out = sys.stdout
    verdict = await anyio.to_thread.run_sync(authorize, trigger, api)
    if not verdict.allowed:
        print(f"refused: {verdict.reason}", file=out)
        if run.reply_on_refusal and trigger.issue is not None:
            text = f"Sorry @{trigger.actor}, only people with write access can ask me to do things here."
            await _quietly(api.create_issue_comment, trigger.issue, text)
        write_outputs({"conclusion": "refused"})
        return 0
    return await _authorized_run(run, trigger, api, getattr(verdict, "permission", None), secrets, safety)


async def _authorized_run(
    run: GitHubRun, trigger: Trigger, api: GitHubApi, permission: str | None, secrets: list[str], safety: RunSafety
) -> int:
    env = os.environ
    url = run_url(env)
    repository = trigger.repository or api.repository
    await _react(api, trigger)
    sticky_id: int | None = None
    if trigger.issue is not None:
        comment = await _quietly(
            api.create_issue_comment, trigger.issue, render_progress("Working…", run_url=url, secrets=secrets)
        )
        sticky_id = getattr(comment, "id", None)

    def post_sticky(text: str) -> None:
        if sticky_id is not None:
            api.update_issue_comment(sticky_id, text)

    workspace = run.config.workspace.resolve()
    git = GitWorkspace(workspace, token=secret("GITHUB_TOKEN"), home=safety.host_home, private=(run.output_dir,))
    provenance = Provenance(actor=trigger.actor, permission=permission, run_url=url)
    try:
        branch, base, pr_number, notes = await anyio.to_thread.run_sync(_prepare_workspace, git, api, trigger)
    except BotError as exc:
        return await _finish(
            run, api, trigger, None, None, RunFacts(error=str(exc), provenance=provenance), sticky_id, secrets, safety
        )
    before = git.head_sha()
    trusted = TrustedFiles(lambda path: git.read_file(base, path), f"the default branch ({base})")
    # What a PR's head changes is untrusted: hooks that run one of those files are not run.
    untrusted = tuple(git.changed_files(base)) if trigger.pr is not None else ()
    # From here on the model may run commands: the git directory is sealed as it is now.
    seal = git.seal()
    guard = safety.guard()
    config = replace(run.config, untrusted_paths=untrusted, guard=guard, git_seal=seal)
    abort = AbortSignal()
    outcome: AgentOutcome | None = None
    error: str | None = None
    raised_trip: CanaryTripped | None = None
    verification: tuple[tuple[str, bool], ...] = ()
    hook_files: tuple[str, ...] = ()
    image_hosts: tuple[str, ...] = ()
    sticky = StickyProgress(post_sticky, run_url=url, secrets=secrets)
    log = EventLog()

    def sink(event: RunEvent) -> None:
        log(event)
        sticky.sink(event)

    config = replace(config, workspace=workspace, scratch_dir=run.output_dir / "scratch")
    with ExitStack() as replay_stack:
        if run.replay is not None:
            cassette, config = replaying(run.replay, config)
            replay_stack.enter_context(cassette)
        try:
            async with AsyncExitStack() as stack:
                await stack.enter_async_context(cancel_on_signals(abort))
                prepared: PreparedRun = await stack.enter_async_context(prepare_run(config, trusted, abort=abort))
                notes += [f"Policy warning: {w}" for w in prepared.warnings]
                provenance = _provenance(provenance, prepared)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(sticky.run)
                    try:
                        outcome = await run_agent(build_task(trigger, repository), prepared.session, sink)
                    finally:
                        await sticky.close()
                if outcome is not None and outcome.completed:
                    verification = await run_verification(prepared, workspace)
                notes += prepared.run_log_notes()
                hook_files = prepared.hook_files()
                image_hosts = prepared.image_hosts()
        except Exception as exc:  # setup failures are ours; anything else is a bug: say so, keep the work
            leaf = first_error(exc)
            raised_trip = canary_tripped_in(exc)
            if raised_trip is not None:
                pass  # handled below, before anything is pushed
            elif isinstance(leaf, BotError):
                error = str(leaf)
            else:
                error = f"internal error ({type(leaf).__name__}: {leaf})"
                safety.egress.write_file(run.output_dir / "error.txt", traceback.format_exc())
    if outcome is not None and outcome.final_text:
        safety.canaries.observe(outcome.final_text, "the model's final message")
    tripped = safety.tripped or raised_trip
    if tripped is not None:  # nothing more is committed, pushed or posted but the alert
        return await _stopped_by_canary(run, api, trigger, sticky_id, safety, tripped)
    if guard.counter.summary():
        notes.append(str(guard.counter.summary()) + ".")
    diff: DiffStats | None = None
    try:
        facts = await anyio.to_thread.run_sync(
            _commit_and_push,
            git,
            api,
            trigger,
            outcome,
            branch,
            base,
            pr_number,
            verification,
            abort.aborted,
            safety.egress,
            before,
            hook_files,
        )
        diff = await anyio.to_thread.run_sync(git.diff, before)
    except GitDirTampered as exc:  # nothing is committed or pushed from a reconfigured repository
        facts = RunFacts(branch=branch, error=str(exc))
    except CanaryTripped as exc:  # in a commit message or the pull request's text
        return await _stopped_by_canary(run, api, trigger, sticky_id, safety, exc)
    facts = replace(
        facts,
        error=facts.error or error,
        notes=tuple(notes) + facts.notes,
        provenance=provenance,
        verification=verification,
        cancelled=abort.aborted,
        artifact_hint="the workflow run's `bot-run-…` artifact",
    )
    return await _finish(run, api, trigger, outcome, diff, facts, sticky_id, secrets, safety, image_hosts)


async def _stopped_by_canary(
    run: GitHubRun, api: GitHubApi, trigger: Trigger, sticky_id: int | None, safety: RunSafety, tripped: CanaryTripped
) -> int:
    alert = safety.leave_alert(run.output_dir, "summary.md", tripped)
    await _post_result(api, trigger, sticky_id, alert)
    write_step_summary(alert)
    write_outputs({"conclusion": "failure"})
    print(f"failure: {tripped}")
    return 1


def _prepare_workspace(git: GitWorkspace, api: GitHubApi, trigger: Trigger) -> tuple[str, str, int | None, list[str]]:
    """The work branch (a PR's head, or the issue's branch, reused on re-runs) and the trusted base."""
    git.configure_identity()
    base = api.default_branch()
    git.fetch(base)
    notes: list[str] = []
    if trigger.pr is not None:
        pull = api.get_pull(trigger.pr)
        if pull.head_repository != api.repository:
            raise GitError(
                f"pull request #{trigger.pr} comes from a fork ({pull.head_repository or 'deleted'}); "
                "the bot cannot push to a fork's branch. Ask for the change on an issue instead, or "
                "push the branch to this repository and mention the bot on a PR from it."
            )
        git.prepare_branch(pull.head_ref)
        changed = git.changed_paths(base)
        if changed:
            notes.append(
                "This pull request changes " + ", ".join(f"`{p}`" for p in changed) + "; the run used "
                f"the versions on `{base}` (configuration is never taken from a pull request's head)."
            )
        return pull.head_ref, base, pull.number, notes
    branch = trigger.branch or f"bot/run-{os.environ.get('GITHUB_RUN_ID', 'local')}"
    git.prepare_branch(branch, base=base)
    existing = api.find_open_pull(branch)
    return branch, base, existing.number if existing else None, notes


def _commit_and_push(
    git: GitWorkspace,
    api: GitHubApi,
    trigger: Trigger,
    outcome: AgentOutcome | None,
    branch: str,
    base: str,
    pr_number: int | None,
    verification: tuple[tuple[str, bool], ...],
    cancelled: bool,
    egress: Egress,
    before: str = "HEAD",
    hook_files: tuple[str, ...] = (),
) -> RunFacts:
    """Whatever happened, keep the work: commit (a checkpoint when unfinished), push, open or update the PR."""
    finished = outcome is not None and outcome.completed and not cancelled
    co_authors = [CoAuthor(trigger.actor)] if trigger.actor and not trigger.actor_is_bot else []
    title = trigger.context.get("title") or trigger.prompt or "bot changes"
    if git.has_changes():
        if finished:
            git.commit_all(
                egress.text(commit_message(title, outcome, issue=trigger.issue, finished=True), "the commit message"),
                co_authors=co_authors,
            )
        else:
            reason = outcome.stop.reason if outcome is not None else "the run failed"
            git.checkpoint(reason, co_authors=co_authors)
    commit = git.head_sha()
    changes = git.diff(base)
    if not changes.files:
        return RunFacts(branch=branch, commit=commit, notes=("No changes to push.",))
    # A push publishes: the changes must hold no canary (that stops the run) and no known secret.
    # Scanned as git stores them, not as the diff shows them (a binary file shows no content), and
    # with NULs dropped too: an ASCII value written as UTF-16 is its bytes with a NUL between each.
    try:
        published = git.published_text(base)
    except PublishTooLarge as exc:
        return RunFacts(
            branch=branch,
            commit=commit,
            error=f"{exc}, so they were not pushed; the commit {commit[:12]} is kept in the workflow's checkout only",
        )
    holder = None
    for view in (published, published.replace("\0", "")):
        egress.canaries.check(view, "the changes about to be pushed")
        holder = holder or egress.secret_in(view)
    if holder is not None:
        return RunFacts(
            branch=branch,
            commit=commit,
            error=f"the changes hold the value of a secret ({holder}), so they were not pushed; the "
            f"commit {commit[:12]} is kept in the workflow's checkout only",
        )
    try:
        git.push(branch)
    except PushRejected as exc:
        return RunFacts(
            branch=branch,
            commit=commit,
            error=f"the push of `{branch}` was rejected ({exc}); the commit {commit[:12]} is kept in "
            "the workflow's checkout and its diff in the run's artifact",
        )
    # What the run itself changed (not what a PR's head already did) among the bot's and CI's config.
    sensitive = tuple(sensitive_changes(diff_paths(git.diff(before)), hook_scripts=hook_files))
    draft = not finished or any(not ok for _, ok in verification) or bool(sensitive)
    # Redacted before it is neutralised, as every comment is: a redaction marker can complete an image.
    body = finalize(_pr_body(trigger, outcome), list(process_secrets().values()))
    if pr_number is not None:
        pull = api.update_pull(pr_number, body=body) if trigger.pr is None else api.get_pull(pr_number)
    else:
        pull = api.create_pull(head=branch, base=base, title=_pr_title(trigger, title), body=body, draft=draft)
    return RunFacts(branch=branch, commit=commit, pushed=True, pr_url=pull.html_url, sensitive_paths=sensitive)


def _pr_title(trigger: Trigger, title: str) -> str:
    first = title.strip().splitlines()[0][:200] if title.strip() else "bot changes"
    return f"{first} (#{trigger.issue})" if trigger.issue is not None else first


def _pr_body(trigger: Trigger, outcome: AgentOutcome | None) -> str:
    from bot.orchestration.render import defuse_mentions

    summary = defuse_mentions(outcome.final_text.strip()) if outcome is not None and outcome.final_text else ""
    lines = [summary or "_The run did not finish; this pull request holds its work so far._", ""]
    if trigger.issue is not None and trigger.pr is None:
        lines.append(f"Fixes #{trigger.issue}")
    if trigger.actor:
        lines.append(f"Requested by @{trigger.actor}.")
    return "\n".join(lines)


async def _finish(
    run: GitHubRun,
    api: GitHubApi,
    trigger: Trigger,
    outcome: AgentOutcome | None,
    diff: DiffStats | None,
    facts: RunFacts,
    sticky_id: int | None,
    secrets: list[str],
    safety: RunSafety,
    image_hosts: tuple[str, ...] = (),
) -> int:
    report = build_report(outcome, diff, facts)
    comment = render_result(report, limit=GITHUB_COMMENT_LIMIT, secrets=secrets, allowed_hosts=image_hosts)
    summary = render_result(report, limit=JOB_SUMMARY_LIMIT, secrets=secrets, allowed_hosts=image_hosts)
    try:
        _write_artifacts(run.output_dir, report, outcome, diff, summary, safety.egress)
        comment = safety.egress.text(comment, "the result comment")
        summary = safety.egress.text(summary, "the job summary")
    except CanaryTripped as tripped:
        return await _stopped_by_canary(run, api, trigger, sticky_id, safety, tripped)
    await _post_result(api, trigger, sticky_id, comment)
    write_step_summary(summary)
    write_outputs({k: safety.egress.quietly(v, "a step output") for k, v in action_outputs(report).items()})
    print(f"{report.conclusion}: {report.headline}")
    return 1 if report.conclusion == "failure" else 0


async def _post_result(api: GitHubApi, trigger: Trigger, sticky_id: int | None, text: str) -> None:
    """The run's last word: the sticky progress comment becomes it, or a new comment on the thread."""
    if trigger.issue is None:
        return
    if sticky_id is not None:
        await _quietly(api.update_issue_comment, sticky_id, text)
    else:
        await _quietly(api.create_issue_comment, trigger.pr if trigger.pr is not None else trigger.issue, text)


def _write_artifacts(
    output_dir: Path,
    report: RunReport,
    outcome: AgentOutcome | None,
    diff: DiffStats | None,
    summary: str,
    egress: Egress,
) -> None:
    """What the workflow uploads as the run's artifact, through the egress boundary: every file
    already there (transcripts, task outputs, large results) scrubbed, every new one redacted."""
    output_dir.mkdir(parents=True, exist_ok=True)
    egress.scrub_tree(output_dir)
    egress.canaries.raise_if_tripped()
    egress.write_file(output_dir / "summary.md", summary)
    if diff is not None:
        egress.write_file(output_dir / "changes.diff", "".join(f.patch + "\n" for f in diff.files))
    from bot.orchestration.report import outcome_data

    egress.write_file(output_dir / "outcome.json", json.dumps(outcome_data(report, outcome), indent=2) + "\n")


def _provenance(base: Provenance, prepared: PreparedRun) -> Provenance:
    import hashlib

    limits = prepared.limits
    shown = tuple(
        (k, f"{v:g}" if isinstance(v, float) else str(v))
        for k, v in (
            ("max_turns", limits.max_turns),
            ("max_budget_usd", limits.max_budget_usd),
            ("wall_time_s", limits.wall_time_s),
        )
        if v is not None
    )
    files = tuple((label, hashlib.sha256(text.encode()).hexdigest()) for label, text in prepared.policy_sources)
    return replace(base, policy_files=files, model=prepared.session.model, limits=shown)


async def _react(api: GitHubApi, trigger: Trigger) -> None:
    if trigger.comment_id is not None:
        target = "issue_comment" if trigger.comment_kind == "issue" else "review_comment"
        await _quietly(api.add_reaction, target, trigger.comment_id, "eyes")
    elif trigger.issue is not None:
        await _quietly(api.add_reaction, "issue", trigger.issue, "eyes")


async def _quietly(fn: Any, *args: Any) -> Any:
    """A best-effort API call (a reaction, a progress edit): logged, never fatal."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except BotError as exc:
        print(f"warning: {exc}", file=sys.stderr)
        return None
