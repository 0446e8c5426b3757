"""What a fleet asks of GitHub, across repositories: whether a token can reach and push to each,
which repositories a query names, and the fleet's one tracking issue.

:class:`PyGithubFleetApi` is the PyGithub implementation; like :mod:`bot.github.api` it retries
through :func:`bot.github.api.call_with_retries` and raises only our errors. Unlike
:class:`~bot.github.api.PyGithubApi` it is not bound to one repository: a fleet's plan asks about
every repository it names, with the token the legs will push with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from github import Auth, Github

from bot.errors import GitHubAuthError, GitHubError, GitHubNotFound
from bot.github.api import DEFAULT_API_URL, REQUEST_TIMEOUT, RetryPolicy, call_with_retries

#: GitHub's search returns at most 1,000 results, 100 a page.
SEARCH_PAGE = 100
MAX_SEARCH_PAGES = 10


@dataclass(frozen=True, slots=True)
class RepositoryAccess:
    """What one GET /repos/{owner}/{repo} told about a token's reach."""

    repository: str
    #: ``reachable``: the token may push; else why not, in words a maintainer acts on.
    reachable: bool
    reason: str
    default_branch: str | None = None


@dataclass(frozen=True, slots=True)
class IssueRef:
    number: int
    html_url: str


def access_from_repo(repository: str, data: Mapping[str, Any]) -> RepositoryAccess:
    """The verdict from a repository's JSON (pure: the fleet tests table-test it)."""
    branch = data.get("default_branch") if isinstance(data.get("default_branch"), str) else None
    if data.get("archived"):
        return RepositoryAccess(repository, False, "archived: it cannot take a push", branch)
    if data.get("disabled"):
        return RepositoryAccess(repository, False, "disabled by GitHub", branch)
    permissions = data.get("permissions")
    if isinstance(permissions, Mapping) and not permissions.get("push"):
        return RepositoryAccess(
            repository,
            False,
            "the token can read it but not push (the App needs contents: write on it)",
            branch,
        )
    return RepositoryAccess(repository, True, "the token can push", branch)


def access_from_error(repository: str, error: GitHubError) -> RepositoryAccess:
    if isinstance(error, GitHubNotFound):
        reason = "not found, or not visible to the token (is the App installed on it?)"
    elif isinstance(error, GitHubAuthError) and error.status == 401:
        reason = "the token was refused (401 Bad credentials)"
    elif isinstance(error, GitHubAuthError):
        reason = f"forbidden ({error.status}): {error}"
    else:
        reason = f"could not be checked: {error}"
    return RepositoryAccess(repository, False, reason)


class PyGithubFleetApi:
    """The fleet's GitHub calls over PyGithub, with one token for every repository."""

    def __init__(self, *, token: str, api_url: str = DEFAULT_API_URL, policy: RetryPolicy | None = None) -> None:
        self._policy = policy or RetryPolicy()
        # retry=None: one retry policy, ours (bot.github.api).
        self._github = Github(
            base_url=api_url.rstrip("/"),
            auth=Auth.Token(token),
            retry=None,
            lazy=True,
            timeout=REQUEST_TIMEOUT,
            seconds_between_requests=0,
            seconds_between_writes=0,
            user_agent="headless-bot",
        )

    def close(self) -> None:
        self._github.close()

    def _json(self, operation: str, verb: str, path: str, body: dict[str, Any] | None = None, **params: Any) -> Any:
        def call() -> Any:
            _, data = self._github.requester.requestJsonAndCheck(verb, path, parameters=params or None, input=body)
            return data

        return call_with_retries(operation, call, self._policy)

    def access(self, repository: str) -> RepositoryAccess:
        try:
            data = self._json(f"read {repository}", "GET", f"/repos/{_path(repository)}")
        except GitHubError as error:
            return access_from_error(repository, error)
        return access_from_repo(repository, data if isinstance(data, Mapping) else {})

    def search_repositories(self, terms: str) -> list[str]:
        """Full names the repository search answers for ``terms`` (``org:x topic:y``), sorted."""
        names: list[str] = []
        for page in range(1, MAX_SEARCH_PAGES + 1):
            data = self._json(
                f"search repositories ({terms})",
                "GET",
                "/search/repositories",
                q=terms,
                per_page=SEARCH_PAGE,
                page=page,
            )
            items = data.get("items") if isinstance(data, Mapping) else None
            if not isinstance(items, list):
                break
            names.extend(str(i["full_name"]) for i in items if isinstance(i, Mapping) and i.get("full_name"))
            if len(items) < SEARCH_PAGE:
                break
        return sorted(set(names), key=str.lower)

    def find_issue(self, repository: str, label: str) -> IssueRef | None:
        """The oldest issue (open or closed) carrying ``label``: the fleet's tracking issue."""
        data = self._json(
            f"list issues of {repository}",
            "GET",
            f"/repos/{_path(repository)}/issues",
            labels=label,
            state="all",
            sort="created",
            direction="asc",
            per_page=1,
        )
        if isinstance(data, list) and data and isinstance(data[0], Mapping):
            return IssueRef(int(data[0]["number"]), str(data[0].get("html_url") or ""))
        return None

    def create_issue(self, repository: str, *, title: str, body: str, label: str) -> IssueRef:
        data = self._json(
            f"create an issue in {repository}",
            "POST",
            f"/repos/{_path(repository)}/issues",
            {"title": title, "body": body, "labels": [label]},
        )
        return IssueRef(int(data["number"]), str(data.get("html_url") or ""))

    def update_issue(self, repository: str, number: int, *, body: str) -> IssueRef:
        data = self._json(
            f"update issue #{number} of {repository}",
            "PATCH",
            f"/repos/{_path(repository)}/issues/{number}",
            {"body": body, "state": "open"},
        )
        return IssueRef(int(data["number"]), str(data.get("html_url") or ""))

    def comment(self, repository: str, number: int, body: str) -> str:
        data = self._json(
            f"comment on issue #{number} of {repository}",
            "POST",
            f"/repos/{_path(repository)}/issues/{number}/comments",
            {"body": body},
        )
        return str(data.get("html_url") or "")


def _path(repository: str) -> str:
    owner, _, name = repository.partition("/")
    return f"{quote(owner, safe='')}/{quote(name, safe='')}"
