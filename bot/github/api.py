"""What the bot asks of GitHub's REST API, and the PyGithub implementation of it.

``GitHubApi`` is the seam: one repository's default branch, a collaborator's permission, pull
requests (get, find the open one for a branch, create, update), issue comments (create, get,
update), reactions and review-comment replies. ``PyGithubApi`` implements it; it is the only
module that imports PyGithub, and it raises only our errors (``bot.errors.GitHubError`` and its
subclasses), each naming the operation that failed.

Built from the Actions environment (``GITHUB_API_URL``, ``GITHUB_REPOSITORY``) it talks to
github.com, GitHub Enterprise Server (``https://host/api/v3``) or the local stand-in
(``bot.testing.github_standin``) with no code change.

Retries are ours, not PyGithub's (its urllib3 retry is turned off so there is one policy): 5xx,
429, secondary rate limits (a 403 whose message says so, or any 403/429 with ``retry-after``), an
exhausted primary limit that resets soon, and dropped connections are retried a bounded number of
times, waiting what ``retry-after`` asks or backing off exponentially. A wait longer than
``RetryPolicy.max_wait`` is not waited out: the call fails at once with ``GitHubRateLimited``.
The sleep is injectable so tests never sleep.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar
from urllib.parse import quote

import requests
from github import Auth, Github, GithubException
from github.GithubObject import NotSet
from github.PullRequest import PullRequest
from github.Requester import Requester
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from bot.core.secrets import full_environ
from bot.errors import (
    ConfigError,
    GitHubAuthError,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubUnavailable,
    GitHubValidationError,
)

T = TypeVar("T")

DEFAULT_API_URL = "https://api.github.com"
#: Attempts per call, the first included: 4 rides out a short outage or a secondary limit.
MAX_ATTEMPTS = 4
#: The longest single wait we accept; a longer ``retry-after`` or reset fails the call instead
#: (a run has a wall-time limit; waiting an hour for a primary limit is not a retry).
MAX_RETRY_WAIT = 60.0
#: Exponential back-off when the server gives no ``retry-after``: 1 s, 2 s, 4 s … (plus jitter).
BACKOFF_BASE = 1.0
#: PyGithub waits 0.25 s between requests and 1 s between writes by default. The bot makes a few
#: dozen calls a run and the progress comment is throttled by its reporter, and secondary limits are
#: retried above, so no spacing is added.
SECONDS_BETWEEN_REQUESTS = 0.0
SECONDS_BETWEEN_WRITES = 0.0
REQUEST_TIMEOUT = 30

Permission = Literal["admin", "write", "read", "none"]
ReactionTarget = Literal["issue", "issue_comment", "review_comment"]
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@dataclass(frozen=True, slots=True)
class CollaboratorPermission:
    """The collaborator-permission endpoint's answer. ``permission`` is GitHub's legacy base role
    (maintain shows as write, triage as read); ``role_name`` is the real role, custom ones included."""

    login: str
    permission: str
    role_name: str


@dataclass(frozen=True, slots=True)
class PullRequestInfo:
    number: int
    state: str
    draft: bool
    title: str
    body: str
    head_ref: str
    head_sha: str
    #: ``owner/name`` of the head repository; ``None`` when the fork was deleted.
    head_repository: str | None
    base_ref: str
    html_url: str


@dataclass(frozen=True, slots=True)
class CommentInfo:
    id: int
    body: str
    html_url: str
    author: str | None


#: Comments read from one thread (a session's "what changed since"): ten pages of a hundred.
MAX_LISTED_COMMENTS = 1_000


class GitHubApi(Protocol):
    """One repository's GitHub, as the bot uses it. Every method raises ``GitHubError`` subclasses."""

    @property
    def repository(self) -> str: ...

    def default_branch(self) -> str: ...

    def collaborator_permission(self, login: str) -> CollaboratorPermission:
        """Raises ``GitHubNotFound`` when GitHub does not know the user."""
        ...

    def get_pull(self, number: int) -> PullRequestInfo: ...

    def find_open_pull(self, head_branch: str) -> PullRequestInfo | None:
        """The open PR whose head is ``head_branch`` of this repository, if any."""
        ...

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool) -> PullRequestInfo: ...

    def update_pull(self, number: int, *, title: str | None = None, body: str | None = None) -> PullRequestInfo: ...

    def set_pull_draft(self, number: int, draft: bool) -> PullRequestInfo:
        """Mark the pull request a draft, or ready for review (GraphQL: REST has no verb for it)."""
        ...

    def create_issue_comment(self, issue: int, body: str) -> CommentInfo:
        """A comment on an issue or on a PR's conversation (PRs are issues)."""
        ...

    def get_issue_comment(self, comment_id: int) -> CommentInfo: ...

    def list_issue_comments(self, issue: int, *, after_id: int = 0) -> list[CommentInfo]:
        """The thread's comments with an id above ``after_id``, oldest first (at most
        :data:`MAX_LISTED_COMMENTS`)."""
        ...

    def update_issue_comment(self, comment_id: int, body: str) -> CommentInfo: ...

    def add_reaction(self, target: ReactionTarget, ident: int, content: str = "eyes") -> None:
        """React to an issue or PR (``ident`` is its number) or to a comment (its id)."""
        ...

    def reply_to_review_comment(self, pull: int, comment_id: int, body: str) -> CommentInfo: ...


# ----- retries -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = MAX_ATTEMPTS
    max_wait: float = MAX_RETRY_WAIT
    backoff: float = BACKOFF_BASE
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    jitter: Callable[[], float] = field(default=random.random)


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name.lower():
            return str(value)
    return None


def _message(error: GithubException) -> str:
    data = error.data
    message = data.get("message") if isinstance(data, dict) else None
    return str(message) if message else str(data or "")


def _is_secondary_limit(error: GithubException) -> bool:
    if error.status not in (403, 429):
        return False
    return Requester.isSecondaryRateLimitError(_message(error)) or _header(error.headers, "retry-after") is not None


def _is_primary_limit(error: GithubException) -> bool:
    return error.status in (403, 429) and _header(error.headers, "x-ratelimit-remaining") == "0"


def requested_wait(error: BaseException, policy: RetryPolicy) -> float | None:
    """What the server asked us to wait (``retry-after``, or the primary limit's reset), if anything."""
    if not isinstance(error, GithubException):
        return None
    after = _header(error.headers, "retry-after")
    if after is not None:
        try:
            return max(float(after), 0.0)
        except ValueError:
            return None
    if _is_primary_limit(error):
        reset = _header(error.headers, "x-ratelimit-reset")
        if reset is not None and reset.replace(".", "", 1).isdigit():
            return max(float(reset) - policy.clock(), 0.0) + 1.0
    return None


def is_retryable(error: BaseException, policy: RetryPolicy) -> bool:
    if isinstance(error, requests.ConnectionError | requests.Timeout):
        return True
    if not isinstance(error, GithubException):
        return False
    limited = _is_secondary_limit(error) or _is_primary_limit(error) or error.status == 429
    if not (error.status >= 500 or limited):
        return False
    wait = requested_wait(error, policy)
    if _is_primary_limit(error) and wait is None:
        return False
    return wait is None or wait <= policy.max_wait


def _wait(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        asked = requested_wait(error, policy) if error is not None else None
        if asked is not None:
            return asked
        backoff = policy.backoff * float(2 ** (state.attempt_number - 1)) * (1 + policy.jitter() / 4)
        return min(backoff, policy.max_wait)

    return wait


def translate(error: BaseException, operation: str) -> GitHubError:
    """A PyGithub or requests failure as our error, naming the operation (never the token)."""
    if isinstance(error, requests.RequestException):
        return GitHubUnavailable(
            f"GitHub could not be reached to {operation}: {type(error).__name__}", operation=operation
        )
    if not isinstance(error, GithubException):
        return GitHubError(f"GitHub call to {operation} failed: {type(error).__name__}", operation=operation)
    status = error.status
    message = _message(error)
    details = ""
    if isinstance(error.data, dict) and isinstance(error.data.get("errors"), list):
        parts = [str(e.get("message") or e.get("code")) for e in error.data["errors"] if isinstance(e, dict)]
        details = "".join(f"; {p}" for p in parts if p and p != "None")
    text = f"GitHub refused to {operation}: {status} {message}{details}"
    if status == 401:
        return GitHubAuthError(f"{text} (check the token)", operation=operation, status=status)
    if status == 404:
        return GitHubNotFound(text, operation=operation, status=status)
    if status == 422:
        return GitHubValidationError(text, operation=operation, status=status)
    if status == 429 or _is_secondary_limit(error) or _is_primary_limit(error) or Requester.isRateLimitError(message):
        return GitHubRateLimited(text, operation=operation, status=status)
    if status == 403:
        return GitHubAuthError(f"{text} (the token lacks a permission)", operation=operation, status=status)
    if status >= 500:
        return GitHubUnavailable(text, operation=operation, status=status)
    return GitHubError(text, operation=operation, status=status)


def call_with_retries(operation: str, fn: Callable[[], T], policy: RetryPolicy) -> T:
    """Run ``fn`` under the retry policy; raise our error for the last failure."""
    retrying = Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=_wait(policy),
        retry=retry_if_exception(lambda e: is_retryable(e, policy)),
        sleep=policy.sleep,
        reraise=True,
    )
    try:
        return retrying(fn)
    except (GithubException, requests.RequestException) as error:
        raise translate(error, operation) from error


# ----- the PyGithub implementation ------------------------------------------------------------------


def _pull_info(pr: PullRequest) -> PullRequestInfo:
    head_repo = pr.head.repo
    return PullRequestInfo(
        number=pr.number,
        state=pr.state,
        draft=bool(pr.draft),
        title=pr.title or "",
        body=pr.body or "",
        head_ref=pr.head.ref,
        head_sha=pr.head.sha,
        head_repository=head_repo.full_name if head_repo else None,
        base_ref=pr.base.ref,
        html_url=pr.html_url,
    )


def _comment_info(data: Mapping[str, Any]) -> CommentInfo:
    user = data.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    return CommentInfo(
        id=int(data["id"]),
        body=str(data.get("body") or ""),
        html_url=str(data.get("html_url") or ""),
        author=login if isinstance(login, str) else None,
    )


class PyGithubApi:
    """``GitHubApi`` over PyGithub, for one repository (``owner/name``)."""

    def __init__(
        self,
        *,
        repository: str,
        token: str,
        api_url: str = DEFAULT_API_URL,
        policy: RetryPolicy | None = None,
        timeout: int = REQUEST_TIMEOUT,
        seconds_between_requests: float = SECONDS_BETWEEN_REQUESTS,
        seconds_between_writes: float = SECONDS_BETWEEN_WRITES,
    ) -> None:
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise ConfigError(f"GITHUB_REPOSITORY must be owner/name, got {repository!r}")
        if not token:
            raise ConfigError("no GitHub token: set the github_token input (GITHUB_TOKEN)")
        self._repository = repository
        self._policy = policy or RetryPolicy()
        # lazy: objects are built from URLs without a GET each; retry=None: one retry policy, ours.
        self._github = Github(
            base_url=api_url.rstrip("/"),
            auth=Auth.Token(token),
            retry=None,
            lazy=True,
            timeout=timeout,
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=seconds_between_writes,
            user_agent="headless-bot",
        )
        self._repo = self._github.get_repo(repository)
        self._path = f"/repos/{repository}"
        self._default_branch: str | None = None

    @classmethod
    def from_environment(
        cls, env: Mapping[str, str] | None = None, *, token: str | None = None, policy: RetryPolicy | None = None
    ) -> PyGithubApi:
        """From the Actions environment: ``GITHUB_API_URL``, ``GITHUB_REPOSITORY`` and the token
        (the argument, else ``GITHUB_TOKEN``, from the secret store)."""
        env = full_environ() if env is None else env
        repository = env.get("GITHUB_REPOSITORY", "")
        if not repository:
            raise ConfigError("GITHUB_REPOSITORY is not set (owner/name of the repository)")
        return cls(
            repository=repository,
            token=token if token is not None else env.get("GITHUB_TOKEN", ""),
            api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            policy=policy,
        )

    @property
    def repository(self) -> str:
        return self._repository

    def close(self) -> None:
        self._github.close()

    def _call(self, operation: str, fn: Callable[[], T]) -> T:
        return call_with_retries(operation, fn, self._policy)

    def _request(self, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        _, data = self._github.requester.requestJsonAndCheck(verb, f"{self._path}{path}", input=body)
        return data

    def default_branch(self) -> str:
        if self._default_branch is None:
            self._default_branch = self._call("read the repository", lambda: str(self._repo.default_branch))
        return self._default_branch

    def collaborator_permission(self, login: str) -> CollaboratorPermission:
        def read() -> CollaboratorPermission:
            data = self._request("GET", f"/collaborators/{quote(login, safe='')}/permission")
            return CollaboratorPermission(
                login=login,
                permission=str(data.get("permission") or "none"),
                role_name=str(data.get("role_name") or ""),
            )

        return self._call(f"read the permission of {login}", read)

    def get_pull(self, number: int) -> PullRequestInfo:
        return self._call(f"read PR #{number}", lambda: _pull_info(self._repo.get_pull(number)))

    def find_open_pull(self, head_branch: str) -> PullRequestInfo | None:
        owner = self._repository.split("/")[0]

        def find() -> PullRequestInfo | None:
            for pr in self._repo.get_pulls(state="open", head=f"{owner}:{head_branch}"):
                info = _pull_info(pr)
                # Trust but verify: a server that ignores the filter must not hand us another PR.
                if info.head_ref == head_branch and (info.head_repository or "").lower() == self._repository.lower():
                    return info
            return None

        return self._call(f"find the open PR for {head_branch}", find)

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool) -> PullRequestInfo:
        try:
            return self._call(
                f"open a PR from {head}",
                lambda: _pull_info(self._repo.create_pull(base=base, head=head, title=title, body=body, draft=draft)),
            )
        except GitHubValidationError as error:
            # A retried create whose first attempt went through (or a race with another run): the
            # PR exists, so use it rather than fail.
            existing = self.find_open_pull(head) if "already exists" in str(error) else None
            if existing is None:
                raise
            return existing

    def update_pull(self, number: int, *, title: str | None = None, body: str | None = None) -> PullRequestInfo:
        def update() -> PullRequestInfo:
            pr = self._repo.get_pull(number)
            if title is not None or body is not None:
                pr.edit(title=NotSet if title is None else title, body=NotSet if body is None else body)
            return _pull_info(pr)

        return self._call(f"update PR #{number}", update)

    def set_pull_draft(self, number: int, draft: bool) -> PullRequestInfo:
        def change() -> PullRequestInfo:
            pr = self._repo.get_pull(number)
            if bool(pr.draft) != draft:
                pr.convert_to_draft() if draft else pr.mark_ready_for_review()
            return _pull_info(pr)

        return self._call(f"mark PR #{number} {'a draft' if draft else 'ready for review'}", change)

    def create_issue_comment(self, issue: int, body: str) -> CommentInfo:
        return self._call(
            f"comment on #{issue}",
            lambda: _comment_info(self._request("POST", f"/issues/{issue}/comments", {"body": body})),
        )

    def list_issue_comments(self, issue: int, *, after_id: int = 0) -> list[CommentInfo]:
        def read() -> list[CommentInfo]:
            found: list[CommentInfo] = []
            for page in range(1, MAX_LISTED_COMMENTS // 100 + 1):
                data = self._request("GET", f"/issues/{issue}/comments?per_page=100&page={page}")
                items = data if isinstance(data, list) else []
                found += [c for c in map(_comment_info, items) if c.id > after_id]
                if len(items) < 100:
                    break
            return found[:MAX_LISTED_COMMENTS]

        return self._call(f"list the comments of #{issue}", read)

    def get_issue_comment(self, comment_id: int) -> CommentInfo:
        return self._call(
            f"read comment {comment_id}", lambda: _comment_info(self._request("GET", f"/issues/comments/{comment_id}"))
        )

    def update_issue_comment(self, comment_id: int, body: str) -> CommentInfo:
        return self._call(
            f"update comment {comment_id}",
            lambda: _comment_info(self._request("PATCH", f"/issues/comments/{comment_id}", {"body": body})),
        )

    def add_reaction(self, target: ReactionTarget, ident: int, content: str = "eyes") -> None:
        if content not in REACTIONS:
            raise ValueError(f"unknown reaction {content!r}; GitHub has {', '.join(REACTIONS)}")
        path = {
            "issue": f"/issues/{ident}",
            "issue_comment": f"/issues/comments/{ident}",
            "review_comment": f"/pulls/comments/{ident}",
        }[target]
        self._call(
            f"react to {target.replace('_', ' ')} {ident}",
            lambda: self._request("POST", f"{path}/reactions", {"content": content}),
        )

    def reply_to_review_comment(self, pull: int, comment_id: int, body: str) -> CommentInfo:
        return self._call(
            f"reply to review comment {comment_id}",
            lambda: _comment_info(
                self._request("POST", f"/pulls/{pull}/comments/{comment_id}/replies", {"body": body})
            ),
        )
