"""The GitHub stand-in, with what a fleet needs besides one repository's endpoints.

:class:`FleetStandIn` adds, over :class:`~bot.testing.github_standin.GitHubStandIn`'s state:

- what ``GET /repos/{owner}/{repo}`` says about the caller: ``permissions`` from the caller's role
  (push for admin, maintain and write), ``archived``, ``topics``; a private repository the caller
  has no role on is a 404, as on GitHub (a token sees only what it may read);
- ``GET /search/repositories`` for the qualifiers a fleet uses (``org:``, ``topic:``, ``archived:``),
  answering only what the caller can see;
- issues with labels: ``GET /repos/{owner}/{repo}/issues`` (``labels``, ``state``, ``sort``,
  ``direction``), ``POST`` to create one, ``PATCH …/issues/{number}`` to edit its body and state.

Shapes are the base stand-in's (``repository``, ``issue``) with those fields set. These operations
are not in the REST subset the base stand-in is validated against, so their answers are not
checked against GitHub's description here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.testing.github_standin import API_PREFIX, Exchange, GitHubStandIn
from bot.testing.github_standin_shapes import Repo, User, error_json, issue_json, repo_json
from bot.testing.github_standin_store import Call, Reply, RepoState, not_found, paginate

PUSH_ROLES = frozenset({"admin", "maintain", "write"})
_REPO_PATH = re.compile(API_PREFIX + r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/?")
_ISSUES_PATH = re.compile(API_PREFIX + r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/?")
_ISSUE_PATH = re.compile(API_PREFIX + r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<number>\d+)/?")
_SEARCH_PATH = API_PREFIX + "/search/repositories"


@dataclass(slots=True)
class _Meta:
    topics: tuple[str, ...] = ()
    archived: bool = False
    labels: dict[int, list[str]] = field(default_factory=dict)


class FleetStandIn(GitHubStandIn):
    """The stand-in for fleet tests: several repositories, a token's reach, search, tracking issues."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._meta: dict[str, _Meta] = {}

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        private: bool = False,
        git_dir: str | Path | None = None,
        default_sha: str | None = None,
        topics: Sequence[str] = (),
        archived: bool = False,
    ) -> Repo:
        repo = super().add_repo(
            full_name, default_branch=default_branch, private=private, git_dir=git_dir, default_sha=default_sha
        )
        with self._lock:
            self._meta[full_name.lower()] = _Meta(tuple(topics), archived)
        return repo

    def labels(self, full_name: str, number: int) -> list[str]:
        with self._lock:
            return list(self._meta[full_name.lower()].labels.get(number, []))

    # ----- answering -------------------------------------------------------------------------------

    def handle(
        self, method: str, target: str, headers: Mapping[str, str], raw: bytes
    ) -> tuple[int, Any, dict[str, str]]:
        parts = urlsplit(target)
        operation = self._fleet_operation(method, parts.path)
        if operation is None:
            status, data, extra = super().handle(method, target, headers, raw)
            if method == "GET" and _REPO_PATH.fullmatch(parts.path) and status == 200:
                with self._lock:
                    status, data = self._seen_by(headers, data)
            return status, data, extra
        import json

        query = parse_qs(parts.query)
        try:
            body: Any = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = None
        with self._lock:
            try:
                user = self._authenticate(headers)
                result = self._fleet_answer(operation, parts.path, query, body, user)
                status, data = result[0], result[1]
                extra = dict(result[2]) if len(result) == 3 else {}
            except Reply as reply:
                status, data, extra = reply.status, reply.body, reply.headers
            self._exchanges.append(Exchange(method, parts.path, query, dict(headers), body, operation, status, data))
        return status, data, extra

    @staticmethod
    def _fleet_operation(method: str, path: str) -> str | None:
        if method == "GET" and path.rstrip("/") == _SEARCH_PATH:
            return "search/repos"
        if _ISSUES_PATH.fullmatch(path):
            return {"GET": "issues/list-for-repo", "POST": "issues/create"}.get(method)
        if method == "PATCH" and _ISSUE_PATH.fullmatch(path):
            return "issues/update"
        return None

    def _role(self, state: RepoState, login: str) -> str | None:
        if login == state.repo.owner.login:
            return "admin"
        held = state.repo.collaborators.get(login)
        if held is not None:
            return held[1]
        # Without a token list every token is the bot, which may do everything (the base behaviour).
        return "admin" if self.tokens is None else None

    def _visible(self, state: RepoState, login: str) -> bool:
        return not state.repo.private or self._role(state, login) not in (None, "none")

    def _seen_by(self, headers: Mapping[str, str], data: Any) -> tuple[int, Any]:
        user = self._authenticate(headers)
        state = self._store.repos.get(str(data.get("full_name", "")).lower())
        if state is None:
            return 200, data
        if not self._visible(state, user.login):
            return 404, error_json("Not Found", 404)
        return 200, self._repo_data(state, user.login, data)

    def _repo_data(self, state: RepoState, login: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        data = dict(data or repo_json(state.repo, self._store.urls))
        meta = self._meta.get(state.repo.full_name.lower(), _Meta())
        role = self._role(state, login)
        data["topics"] = list(meta.topics)
        data["archived"] = meta.archived
        data["permissions"] = {
            "admin": role == "admin",
            "maintain": role in ("admin", "maintain"),
            "push": role in PUSH_ROLES,
            "triage": role in ("admin", "maintain", "write", "triage"),
            "pull": role not in (None, "none") or not state.repo.private,
        }
        return data

    def _fleet_answer(
        self, operation: str, path: str, query: dict[str, list[str]], body: Any, user: User
    ) -> tuple[int, Any] | tuple[int, Any, dict[str, str]]:
        if operation == "search/repos":
            return 200, self._search(query.get("q", [""])[-1], user.login)
        match = _ISSUE_PATH.fullmatch(path) or _ISSUES_PATH.fullmatch(path)
        assert match is not None
        state = self._store.repos.get(f"{match['owner']}/{match['repo']}".lower())
        if state is None or not self._visible(state, user.login):
            raise not_found()
        meta = self._meta.setdefault(state.repo.full_name.lower(), _Meta())
        call = Call(self._store, state, dict(match.groupdict()), query, body, user)
        if operation == "issues/list-for-repo":
            return self._list_issues(call, meta)
        if self._role(state, user.login) not in PUSH_ROLES | {"triage"}:
            raise Reply(403, error_json("Resource not accessible by integration", 403))
        if not isinstance(body, dict):
            raise Reply(400, error_json("Problems parsing JSON", 400))
        if operation == "issues/create":
            title = call.text("title", required=True) or ""
            created = self._store.new_issue(state, title, call.text("body"), user)
            labels = body.get("labels") or []
            meta.labels[created.number] = [str(label) for label in labels]
            return 201, self._issue_data(state, meta, created.number)
        number = int(match["number"])
        issue = state.issues.get(number)
        if issue is None or issue.is_pull:
            raise not_found()
        if "body" in body:
            issue.body = call.text("body")
        if body.get("state") in ("open", "closed"):
            issue.state = body["state"]
        return 200, self._issue_data(state, meta, number)

    def _issue_data(self, state: RepoState, meta: _Meta, number: int) -> dict[str, Any]:
        issue = state.issues[number]
        count = sum(1 for c in state.comments.values() if c.issue_number == number)
        data = issue_json(state.repo, issue, self._store.urls, comments=count)
        data["labels"] = [{"name": name, "color": "ededed", "default": False} for name in meta.labels.get(number, [])]
        return data

    def _list_issues(self, call: Call, meta: _Meta) -> tuple[int, Any] | tuple[int, Any, dict[str, str]]:
        wanted = {w for w in (call.arg("labels") or "").split(",") if w}
        which = call.arg("state") or "open"
        issues = [
            i
            for i in call.state.issues.values()
            if not i.is_pull and (which == "all" or i.state == which) and wanted <= set(meta.labels.get(i.number, []))
        ]
        issues.sort(key=lambda i: i.number, reverse=call.arg("direction") != "asc")
        items = [self._issue_data(call.state, meta, i.number) for i in issues]
        return paginate(call, items, f"{self._store.urls.api}/repos/{call.state.repo.full_name}/issues")

    def _search(self, q: str, login: str) -> dict[str, Any]:
        terms = dict(t.split(":", 1) for t in q.split() if ":" in t)
        items = []
        for key in sorted(self._store.repos):
            state = self._store.repos[key]
            meta = self._meta.get(key, _Meta())
            if "org" in terms and state.repo.owner.login.lower() != terms["org"].lower():
                continue
            if "topic" in terms and terms["topic"] not in meta.topics:
                continue
            if terms.get("archived") == "false" and meta.archived:
                continue
            if not self._visible(state, login):
                continue
            items.append(self._repo_data(state, login))
        return {"total_count": len(items), "incomplete_results": False, "items": items}
