"""The stand-in's state: what the fake GitHub knows (users, repositories with their issues, pull
requests, comments, review comments, check runs and reactions), the ``Call`` an operation gets,
and GitHub's error and pagination shapes. The operations over it are in
:mod:`bot.testing.github_standin_ops`.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.testing.github_standin_shapes import (
    JSON,
    CheckRun,
    Comment,
    Issue,
    Pull,
    PullStats,
    Reaction,
    Repo,
    ReviewComment,
    Urls,
    User,
    error_json,
    validation_json,
)

#: GitHub's per_page default and maximum.
DEFAULT_PER_PAGE, MAX_PER_PAGE = 30, 100

ZERO_SHA = "0" * 40


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fake_sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def git(git_dir: Path, *args: str) -> str:
    """Read-only git plumbing on a bare repository (stdout, empty on failure). The stand-in plays
    GitHub's server: its git gets PATH and no configuration but the repository's own."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
    }
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False, env=env)
    return done.stdout if done.returncode == 0 else ""


class Reply(Exception):
    """Raised by an operation to answer with an error status."""

    def __init__(self, status: int, body: JSON, headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


def not_found() -> Reply:
    return Reply(404, error_json("Not Found", 404))


def invalid(message: str, resource: str, field_name: str, code: str = "invalid") -> Reply:
    return Reply(
        422,
        validation_json(
            "Validation Failed", {"resource": resource, "field": field_name, "code": code, "message": message}
        ),
    )


@dataclass(slots=True)
class RepoState:
    repo: Repo
    #: A bare repository whose branches are the truth; else ``refs`` is.
    git_dir: Path | None
    refs: dict[str, str] = field(default_factory=dict)
    next_number: int = 1
    issues: dict[int, Issue] = field(default_factory=dict)
    pulls: dict[int, Pull] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    review_comments: dict[int, ReviewComment] = field(default_factory=dict)
    check_runs: dict[int, CheckRun] = field(default_factory=dict)


@dataclass(slots=True)
class Store:
    urls: Urls
    users: dict[str, User] = field(default_factory=dict)
    repos: dict[str, RepoState] = field(default_factory=dict)
    reactions: list[Reaction] = field(default_factory=list)
    last_id: int = 1000

    def next_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def user(self, login: str, kind: str = "User") -> User:
        if login not in self.users:
            self.users[login] = User(login, self.next_id(), kind)
        return self.users[login]

    def state(self, full_name: str) -> RepoState:
        try:
            return self.repos[full_name.lower()]
        except KeyError:
            raise KeyError(f"the stand-in has no repository {full_name!r}") from None

    def new_issue(self, state: RepoState, title: str, body: str | None, user: User, *, is_pull: bool = False) -> Issue:
        stamp = now()
        issue = Issue(state.next_number, self.next_id(), title, body, user, stamp, stamp, is_pull=is_pull)
        state.issues[issue.number] = issue
        state.next_number += 1
        return issue

    def new_comment(self, state: RepoState, issue_number: int, body: str, user: User) -> Comment:
        stamp = now()
        comment = Comment(self.next_id(), issue_number, body, user, stamp, stamp)
        state.comments[comment.id] = comment
        return comment

    def new_pull(
        self,
        state: RepoState,
        head_state: RepoState,
        head: str,
        base: str,
        title: str,
        body: str | None,
        user: User,
        draft: bool,
    ) -> Pull:
        issue = self.new_issue(state, title, body, user, is_pull=True)
        pull = Pull(
            issue.number,
            self.next_id(),
            title,
            body,
            user,
            head,
            head_state.repo,
            base,
            issue.created_at,
            issue.updated_at,
            draft=draft,
        )
        state.pulls[pull.number] = pull
        return pull

    def branch_sha(self, state: RepoState, branch: str) -> str | None:
        if state.git_dir is None:
            return state.refs.get(branch)
        out = git(state.git_dir, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
        return out.strip() or None

    def stats(self, state: RepoState, pull: Pull) -> PullStats:
        head_state = self.state(pull.head_repo.full_name)
        head = self.branch_sha(head_state, pull.head_ref) or ZERO_SHA
        base = self.branch_sha(state, pull.base_ref) or ZERO_SHA
        if state.git_dir is None or head_state is not state or ZERO_SHA in (head, base):
            return PullStats(head, base)
        commits = git(state.git_dir, "rev-list", "--count", f"{base}..{head}").strip()
        added = deleted = files = 0
        for line in git(state.git_dir, "diff", "--numstat", f"{base}...{head}").splitlines():
            plus, minus, _ = line.split("\t", 2)
            files += 1
            added += int(plus) if plus.isdigit() else 0
            deleted += int(minus) if minus.isdigit() else 0
        return PullStats(head, base, int(commits or 0), added, deleted, files)

    def reaction_counts(self, kind: str, ident: int) -> dict[str, int]:
        counts: dict[str, int] = {}
        for reaction in self.reactions:
            if reaction.subject == (kind, ident):
                counts[reaction.content] = counts.get(reaction.content, 0) + 1
        return counts


@dataclass(frozen=True, slots=True)
class Call:
    store: Store
    state: RepoState
    params: dict[str, str]
    query: dict[str, list[str]]
    body: Any
    user: User

    def number(self, name: str) -> int:
        value = self.params[name]
        if not value.isdigit():
            raise not_found()
        return int(value)

    def text(self, name: str, *, required: bool = False) -> str | None:
        body = self.body if isinstance(self.body, dict) else {}
        value = body.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise invalid(f"{name} must be a string", "Body", name, "missing_field" if value is None else "invalid")
        return value

    def field(self, name: str) -> Any:
        return self.body.get(name) if isinstance(self.body, dict) else None

    def arg(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else None


Result = tuple[int, Any] | tuple[int, Any, dict[str, str]]


Operation = Callable[[Call], Result]


def paginate(call: Call, items: list[Any], url: str) -> Result:
    """GitHub's pagination: ``page``/``per_page`` and a ``Link`` header with next/last."""
    per_page = min(max(int(call.arg("per_page") or DEFAULT_PER_PAGE), 1), MAX_PER_PAGE)
    page = max(int(call.arg("page") or 1), 1)
    last = max((len(items) + per_page - 1) // per_page, 1)
    links = []
    keep = {k: v[-1] for k, v in call.query.items() if k not in ("page", "per_page")}
    base = url + "?" + "".join(f"{k}={v}&" for k, v in keep.items()) + f"per_page={per_page}&page="
    if page < last:
        links.append(f'<{base}{page + 1}>; rel="next"')
        links.append(f'<{base}{last}>; rel="last"')
    if page > 1:
        links.append(f'<{base}1>; rel="first"')
        links.append(f'<{base}{page - 1}>; rel="prev"')
    headers = {"Link": ", ".join(links)} if links else {}
    return 200, items[(page - 1) * per_page : page * per_page], headers
