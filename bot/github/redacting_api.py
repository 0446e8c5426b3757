"""The GitHub API seam behind the egress boundary: every string argument redacted before it is sent.

Comments, pull request titles and bodies and branch names are what the run publishes on GitHub;
they pass :meth:`bot.orchestration.egress.Egress.text` (a canary raises before anything is sent).
"""

from __future__ import annotations

from bot.github.api import CollaboratorPermission, CommentInfo, GitHubApi, PullRequestInfo, ReactionTarget
from bot.orchestration.egress import Egress


class RedactingGitHubApi:
    """A ``GitHubApi`` whose every string argument (comment bodies, PR titles and bodies, branch
    names) goes through :meth:`Egress.text` first: redacted, and a canary raises before anything is
    sent. Written out method by method: a method the protocol gains is missing here (an error),
    never passed through unredacted."""

    def __init__(self, api: GitHubApi, egress: Egress) -> None:
        self._api = api
        self._egress = egress

    def _t(self, text: str, what: str) -> str:
        return self._egress.text(text, f"the {what} of a GitHub API call")

    def _md(self, text: str, what: str) -> str:
        """A Markdown body: redacted, and neutralised again when redaction changed it — the marker
        ``[REDACTED:…]`` between a ``!`` and a ``(url)`` the model wrote is an image that fetches."""
        redacted = self._t(text, what)
        if redacted == text:
            return text
        from bot.orchestration.markdown_safety import neutralize

        return neutralize(redacted)

    @property
    def repository(self) -> str:
        return self._api.repository

    def default_branch(self) -> str:
        return self._api.default_branch()

    def collaborator_permission(self, login: str) -> CollaboratorPermission:
        return self._api.collaborator_permission(self._t(login, "user name"))

    def get_pull(self, number: int) -> PullRequestInfo:
        return self._api.get_pull(number)

    def find_open_pull(self, head_branch: str) -> PullRequestInfo | None:
        return self._api.find_open_pull(self._t(head_branch, "branch"))

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool) -> PullRequestInfo:
        return self._api.create_pull(
            head=self._t(head, "branch"),
            base=self._t(base, "branch"),
            title=self._t(title, "pull request title"),
            body=self._md(body, "pull request body"),
            draft=draft,
        )

    def update_pull(self, number: int, *, title: str | None = None, body: str | None = None) -> PullRequestInfo:
        return self._api.update_pull(
            number,
            title=None if title is None else self._t(title, "pull request title"),
            body=None if body is None else self._md(body, "pull request body"),
        )

    def set_pull_draft(self, number: int, draft: bool) -> PullRequestInfo:
        return self._api.set_pull_draft(number, draft)

    def create_issue_comment(self, issue: int, body: str) -> CommentInfo:
        return self._api.create_issue_comment(issue, self._md(body, "comment"))

    def list_issue_comments(self, issue: int, *, after_id: int = 0) -> list[CommentInfo]:
        return self._api.list_issue_comments(issue, after_id=after_id)

    def get_issue_comment(self, comment_id: int) -> CommentInfo:
        return self._api.get_issue_comment(comment_id)

    def update_issue_comment(self, comment_id: int, body: str) -> CommentInfo:
        return self._api.update_issue_comment(comment_id, self._md(body, "comment"))

    def add_reaction(self, target: ReactionTarget, ident: int, content: str = "eyes") -> None:
        self._api.add_reaction(target, ident, self._t(content, "reaction"))

    def reply_to_review_comment(self, pull: int, comment_id: int, body: str) -> CommentInfo:
        return self._api.reply_to_review_comment(pull, comment_id, self._md(body, "review reply"))


__all__ = ["RedactingGitHubApi"]
