"""The GitHub side of a run's branch: which branch it works on, and publishing the committed work
(the secret and canary scan of what is pushed, the push, the pull request)."""

from __future__ import annotations

import os

from bot.core.secrets import process_secrets
from bot.errors import BotError, GitError, PushRejected
from bot.github.api import GitHubApi, PullRequestInfo
from bot.github.events import Trigger
from bot.github.pr_text import compose_body, draft_reason, pr_title, run_label, run_part
from bot.orchestration.adapter import Checkout, Work
from bot.orchestration.egress import Egress
from bot.orchestration.git import GitWorkspace, PublishTooLarge
from bot.orchestration.push import push_work
from bot.orchestration.render import finalize
from bot.orchestration.report import RunFacts


def prepare_workspace(git: GitWorkspace, api: GitHubApi, trigger: Trigger) -> tuple[str, str, int | None, list[str]]:
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


def publish(
    checkout: Checkout,
    work: Work,
    api: GitHubApi,
    trigger: Trigger,
    title: str,
    egress: Egress,
    run_url: str | None = None,
) -> RunFacts:
    """Push the committed work and open (or update) the pull request. A failure after the push
    says that the branch is on GitHub and where."""
    git, branch, base, commit = checkout.git, checkout.branch, checkout.base, work.commit
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
        pushed = push_work(git, branch)
    except PushRejected as exc:
        return RunFacts(
            branch=branch,
            commit=commit,
            error=f"the push of `{branch}` was rejected ({exc}); the commit {commit[:12]} is kept in "
            "the workflow's checkout and its diff in the run's artifact",
        )
    # Where the work is now: a rebase changed the commit, a refusal the branch (then the pull
    # request is a new one, from that branch: the old one's branch does not hold this work).
    branch, commit, notes = pushed.branch, pushed.commit, pushed.notes
    pr_number = None if pushed.moved_from(checkout.branch) else checkout.pr_number
    draft = not work.finished or any(not ok for _, ok in work.verification) or bool(work.sensitive_paths)
    part = run_part(trigger, work.outcome, changes.files)
    label = run_label(trigger.prompt, commit, run_url)
    try:
        if pr_number is not None and trigger.pr is None:
            # A re-run on the bot's own pull request: this run on top, the earlier ones kept below.
            body = _rendered(compose_body(part, label, api.get_pull(pr_number).body))
            pull = api.update_pull(pr_number, body=body)
            notes += _gate(api, pull, draft, work)
        elif pr_number is not None:  # someone's pull request: its description is theirs
            pull = api.get_pull(pr_number)
        else:
            body = _rendered(compose_body(part, label))
            pull = api.create_pull(head=branch, base=base, title=pr_title(trigger, title), body=body, draft=draft)
    except BotError as exc:
        return RunFacts(
            branch=branch,
            commit=commit,
            pushed=True,
            sensitive_paths=work.sensitive_paths,
            notes=notes,
            error=f"the branch {branch_link(api, branch)} was pushed (commit {commit[:12]}), but the pull "
            f"request could not be {'updated' if pr_number is not None else 'opened'} ({exc}); "
            "open it from the branch",
        )
    return RunFacts(
        branch=branch,
        commit=commit,
        pushed=True,
        pr_url=pull.html_url,
        sensitive_paths=work.sensitive_paths,
        notes=notes,
    )


def branch_link(api: GitHubApi, branch: str) -> str:
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    return f"[`{branch}`]({server}/{api.repository}/tree/{branch})"


def _gate(api: GitHubApi, pull: PullRequestInfo, draft: bool, work: Work) -> tuple[str, ...]:
    """The verification gate on a re-run: the bot's pull request is ready for review when this run
    finished and verified, a draft when it did not, and the report says which. Only the bot's own
    pull request: a person's is theirs to mark."""
    if pull.draft == draft:
        return ()
    why = draft_reason(work)
    try:
        api.set_pull_draft(pull.number, draft)
    except BotError as exc:
        state = "a draft" if draft else "ready for review"
        return (f"The pull request should now be {state} ({why}), but GitHub refused the change: {exc}.",)
    if draft:
        return (f"The pull request is a draft again: {why}.",)
    return (f"The pull request is ready for review: {why}.",)


def _rendered(body: str) -> str:
    """Redacted before it is neutralised, as every comment is: a redaction marker can complete an image."""
    return finalize(body, list(process_secrets().values()))


__all__ = ["branch_link", "prepare_workspace", "publish"]
