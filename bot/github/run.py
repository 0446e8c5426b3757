"""``bot run`` on GitHub: an event in, a pushed branch, a pull request and a comment out.

The order matters and is the trust model in code:

1. the event decides whether anything happens (:func:`decide_trigger`) — nothing is called yet;
2. the actor is authorized (collaborator permission) before any reaction, comment or checkout;
3. policy, hooks, MCP config and instructions come from the default branch, never a PR's head;
4. the agent runs (:func:`bot.orchestration.run.drive`, with :class:`GitHubAdapter` as its mode);
   whatever happens, the workspace is committed (a checkpoint when unfinished) and pushed, and the
   comment says what happened.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from bot.agent.events import EventLog, RunEvent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask, QuotedData
from bot.core.secrets import process_secrets, secret
from bot.errors import BotError, CanaryTripped
from bot.github.api import GitHubApi, PyGithubApi
from bot.github.authorize import Refused, authorize
from bot.github.events import EventError, Trigger, TriggerSettings, decide_trigger, load_event_text
from bot.github.outputs import mask, write_outputs, write_step_summary
from bot.github.pr_text import commit_subject
from bot.github.progress import StickyProgress
from bot.github.publish import prepare_workspace, publish
from bot.github.redacting_api import RedactingGitHubApi
from bot.github.sessions import as_reply, github_slot, waiting_question
from bot.orchestration.adapter import Checkout, Ending, EventSink, Work
from bot.orchestration.conclusion import Conclusion
from bot.orchestration.continuity import Loaded
from bot.orchestration.git import CoAuthor, GitWorkspace
from bot.orchestration.render import GITHUB_COMMENT_LIMIT, Provenance, render_progress, render_result
from bot.orchestration.report import RunFacts, action_outputs, commit_message
from bot.orchestration.run import drive
from bot.orchestration.safety import RunSafety, start_safety
from bot.orchestration.session import RunConfig, TrustedFiles


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
    # A comment without the phrase may answer a question a stored session waits on.
    reply = await anyio.to_thread.run_sync(_waiting_reply, run, trigger) if trigger.reply_text else None
    if reply is not None:
        trigger = as_reply(trigger)
    if not trigger.triggered:
        print(f"not triggered: {trigger.reason}")
        write_outputs({"conclusion": Conclusion.SKIPPED})
        return 0
    secrets = list(process_secrets().values())
    mask(secrets, sys.stdout)
    safety = start_safety()
    # From here every line printed, every comment and file goes through the egress boundary.
    restore_streams = safety.egress.install_stream_redaction()
    try:
        raw_api = await anyio.to_thread.run_sync(lambda: PyGithubApi.from_environment())
        api = RedactingGitHubApi(raw_api, safety.egress)
        verdict = await anyio.to_thread.run_sync(authorize, trigger, api)
        if isinstance(verdict, Refused) and reply is not None and verdict.kind != "check_failed":
            # Only the requester or someone with write access answers; anyone else's comment is ignored.
            print(f"not triggered: {trigger.actor} cannot answer the bot's question ({verdict.reason})")
            write_outputs({"conclusion": Conclusion.SKIPPED})
            return 0
        if isinstance(verdict, Refused):
            return await _refused(run, trigger, api, verdict)
        from bot.github.explain import answer_explain, is_explain_request

        if is_explain_request(trigger):  # `@bot explain`: the policy's explanation, no model call
            return await answer_explain(run, trigger, api)
        adapter = GitHubAdapter(run, trigger, api, safety, verdict.permission, reply=reply)
        await adapter.announce()
        return await drive(adapter, run.config, safety, replay=run.replay)
    finally:
        restore_streams()


def _waiting_reply(run: GitHubRun, trigger: Trigger) -> Loaded | None:
    """The stored session whose pending question this comment may answer (read with the bot's
    hardened git, before anything else happens), or ``None``."""
    try:
        git = GitWorkspace(run.config.workspace.resolve(), token=secret("GITHUB_TOKEN"), private=(run.output_dir,))
        loaded = waiting_question(git, trigger)
    except BotError as exc:
        print(f"warning: the stored session could not be checked for a pending question: {exc}", file=sys.stderr)
        return None
    return loaded if loaded.session is not None else None


async def _refused(run: GitHubRun, trigger: Trigger, api: GitHubApi, verdict: Refused) -> int:
    """A refusal says so in the job log, the outputs and the job summary. A permission check that
    could not be made is a failure (exit 1): the requester was not told no, the check is broken."""
    if verdict.kind == "check_failed":
        text = f"The run did not start: {verdict.reason}."
        print(f"failure: {text}")
        write_step_summary(f"❌ {text}")
        write_outputs({"conclusion": Conclusion.FAILURE})
        return 1
    print(f"refused: {verdict.reason}")
    write_step_summary(f"⛔ Not run: {verdict.reason}.")
    if run.reply_on_refusal and trigger.issue is not None:
        text = f"Sorry @{trigger.actor}, only people with write access can ask me to do things here."
        await _quietly(api.create_issue_comment, trigger.issue, text)
    write_outputs({"conclusion": Conclusion.REFUSED})
    return 0


class GitHubAdapter:
    """The GitHub mode of :func:`bot.orchestration.run.drive`: a branch pushed to ``origin``, a pull
    request, the sticky comment as progress and result, Actions outputs and the job summary."""

    report_file = "summary.md"
    artifact_hint = "the workflow run's `bot-run-…` artifact"

    def __init__(
        self,
        run: GitHubRun,
        trigger: Trigger,
        api: GitHubApi,
        safety: RunSafety,
        permission: str | None,
        *,
        reply: Loaded | None = None,
    ) -> None:
        #: The stored session this run answers the question of (a reply without the phrase).
        self.reply = reply
        self.run = run
        self.trigger = trigger
        self.api = api
        self.safety = safety
        self.output_dir = run.output_dir
        self.permission = permission
        self.url = run_url(os.environ)
        self.repository = trigger.repository or api.repository
        self.secrets = list(process_secrets().values())
        self.sticky_id: int | None = None
        self._log = EventLog()
        self._git: GitWorkspace | None = None
        self._trusted: TrustedFiles | None = None

    # ----- before the run --------------------------------------------------------------------------

    async def announce(self) -> None:
        """The requester sees the run start: a reaction, and the sticky comment that becomes the result."""
        trigger = self.trigger
        if trigger.comment_id is not None:
            target = "issue_comment" if trigger.comment_kind == "issue" else "review_comment"
            await _quietly(self.api.add_reaction, target, trigger.comment_id, "eyes")
        elif trigger.issue is not None:
            await _quietly(self.api.add_reaction, "issue", trigger.issue, "eyes")
        if trigger.issue is not None:
            working = render_progress("Working…", run_url=self.url, secrets=self.secrets)
            comment = await _quietly(self.api.create_issue_comment, trigger.issue, working)
            self.sticky_id = getattr(comment, "id", None)

    def provenance(self) -> Provenance:
        return Provenance(actor=self.trigger.actor, permission=self.permission, run_url=self.url)

    def _workspace(self) -> GitWorkspace:
        if self._git is None:
            self._git = GitWorkspace(
                self.run.config.workspace.resolve(),
                token=secret("GITHUB_TOKEN"),
                home=self.safety.host_home,
                private=(self.output_dir,),
            )
        return self._git

    def trusted_files(self) -> TrustedFiles:
        """The default branch, fetched (the checkout itself is not changed yet)."""
        if self._trusted is None:
            git = self._workspace()
            base = self.api.default_branch()
            git.fetch(base)
            self._trusted = TrustedFiles(
                lambda path: git.read_file(base, path),
                f"the default branch ({base})",
                lambda directory: git.list_files(base, directory),
            )
        return self._trusted

    def prepare(self) -> Checkout:
        git = self._workspace()
        trusted = self.trusted_files()
        branch, base, pr_number, notes = prepare_workspace(git, self.api, self.trigger)
        # What a PR's head changes is untrusted: hooks that run one of those files are not run.
        untrusted = tuple(git.changed_files(base)) if self.trigger.pr is not None else ()
        slot = github_slot(
            git,
            self.api,
            self.trigger,
            phrase=self.run.settings.trigger_phrase,
            bot_login=self.run.settings.bot_login,
            sticky_id=self.sticky_id,
            run_url=self.url,
            reply=self.reply,
        )
        head = git.head_sha()
        return Checkout(git, branch, base, head, trusted, untrusted, tuple(notes), pr_number, continuity=slot)

    def task(self, checkout: Checkout) -> AgentTask:
        return build_task(self.trigger, self.repository)

    # ----- while it runs ---------------------------------------------------------------------------

    @asynccontextmanager
    async def progress(self) -> AsyncIterator[EventSink]:
        sticky = StickyProgress(self._post_sticky, run_url=self.url, secrets=self.secrets)

        def sink(event: RunEvent) -> None:
            self._log(event)
            sticky.sink(event)

        async with anyio.create_task_group() as tg:
            tg.start_soon(sticky.run)
            try:
                yield sink
            finally:
                await sticky.close()

    def _post_sticky(self, text: str) -> None:
        if self.sticky_id is not None:
            self.api.update_issue_comment(self.sticky_id, text)

    # ----- the work --------------------------------------------------------------------------------

    def _title(self) -> str:
        return self.trigger.context.get("title") or self.trigger.prompt or "bot changes"

    def commit_message(self, outcome: AgentOutcome | None, checkout: Checkout) -> str:
        # A follow-up on the branch's pull request is named after what it asked, not the issue again.
        subject = commit_subject(self._title(), self.trigger.prompt, follow_up=checkout.pr_number is not None)
        return commit_message(subject, outcome, issue=self.trigger.issue, finished=True)

    def co_authors(self) -> Sequence[CoAuthor]:
        trigger = self.trigger
        return [CoAuthor(trigger.actor)] if trigger.actor and not trigger.actor_is_bot else []

    def publish(self, checkout: Checkout, work: Work) -> RunFacts:
        return publish(checkout, work, self.api, self.trigger, self._title(), self.safety.egress, self.url)

    def outcome_extra(self, checkout: Checkout | None, outcome: AgentOutcome | None) -> dict[str, Any]:
        return {}

    # ----- the ending ------------------------------------------------------------------------------

    async def deliver(self, ending: Ending) -> None:
        egress = self.safety.egress
        report = ending.report
        comment = render_result(
            report, limit=GITHUB_COMMENT_LIMIT, secrets=self.secrets, allowed_hosts=ending.image_hosts
        )
        comment = egress.text(comment, "the result comment")
        summary = egress.text(ending.markdown, "the job summary")
        await self._post_result(comment)
        write_step_summary(summary)
        write_outputs({k: egress.quietly(v, "a step output") for k, v in action_outputs(report).items()})
        print(f"{report.conclusion}: {report.headline}")

    async def delivery_failed(self, ending: Ending, error: BaseException) -> None:
        egress = self.safety.egress
        report = ending.report
        write_step_summary(egress.quietly(ending.markdown, "the job summary"))
        outputs = action_outputs(report) | {"conclusion": str(Conclusion.FAILURE)}
        write_outputs({k: egress.quietly(v, "a step output") for k, v in outputs.items()})
        print(f"failure: {report.headline} (and the result could not be posted: {error})")

    async def deliver_alert(self, alert: str, tripped: CanaryTripped) -> None:
        await self._post_result(alert)
        write_step_summary(alert)
        write_outputs({"conclusion": Conclusion.FAILURE})
        print(f"failure: {tripped}")

    async def _post_result(self, text: str) -> None:
        """The run's last word: the sticky progress comment becomes it, or a new comment on the thread."""
        trigger = self.trigger
        if trigger.issue is None:
            return
        # When the sticky comment cannot be edited, the result is a new comment: a thread left on
        # "Working…" says the run is still going when it is over.
        if self.sticky_id is not None and await _quietly(self.api.update_issue_comment, self.sticky_id, text):
            return
        target = trigger.pr if trigger.pr is not None else trigger.issue
        if await _quietly(self.api.create_issue_comment, target, text) is None:
            print("warning: the run's result could not be posted on the thread; it is in the job summary")


async def _quietly(fn: Any, *args: Any) -> Any:
    """A best-effort API call (a reaction, a progress edit): logged, never fatal."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except BotError as exc:
        print(f"warning: {exc}", file=sys.stderr)
        return None


__all__ = ["GitHubAdapter", "GitHubRun", "build_task", "dry_run_decision", "load_event", "run_github", "run_url"]
