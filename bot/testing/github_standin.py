"""A local GitHub: an HTTP server that speaks the part of GitHub's REST API the bot uses.

The 21 operations of ``tests/fixtures/upstream/github-rest-subset.json`` (GitHub's published REST
description, cut to what a bot needs) over in-memory state, served under ``/api/v3`` like GitHub
Enterprise Server, so PyGithub works unchanged with ``base_url=standin.api_url``::

    with GitHubStandIn() as gh:
        gh.add_repo("octo/app", git_dir=bare_origin)      # branches read from a real bare repo
        gh.set_permission("octo/app", "alice", "write")
        issue = gh.add_issue("octo/app", "Crash on empty input", user="alice")
        os.environ["GITHUB_API_URL"] = gh.api_url
        ...
        assert gh.requests("pulls/create")[0].body["draft"] is False

What tests need besides the endpoints: per-user permissions (``set_permission``; legacy
``permission`` derived from the role as GitHub does), injected failures (``fail`` — the next N
calls of an operation get a 5xx — and ``secondary_rate_limit`` — a 403 with ``retry-after``), a
record of every exchange (``exchanges``/``requests``: method, path, query, headers, body, status and
response), and a token requirement (401 without ``Authorization``). Response bodies come from
:mod:`bot.testing.github_standin_shapes`; a test validates them against the description.

Behaviours kept from the real service because code that talks to it must handle them: a ``head``
filter without ``owner:`` is ignored (GitHub lists every PR); creating a PR for a head branch that
does not exist, with no commits over the base, or a second open one for the same head is a 422;
reacting twice with the same content returns the existing reaction with 200.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.testing.github_standin_graphql import GRAPHQL_OPERATIONS, GRAPHQL_PATH, answer_graphql, graphql_operation
from bot.testing.github_standin_ops import API_PREFIX, OPERATIONS, route
from bot.testing.github_standin_shapes import (
    JSON,
    CheckRun,
    Comment,
    Issue,
    Pull,
    Reaction,
    Repo,
    ReviewComment,
    Urls,
    User,
    error_json,
)
from bot.testing.github_standin_store import Call, Reply, RepoState, Store, fake_sha, now

__all__ = ["API_PREFIX", "OPERATIONS", "Exchange", "GitHubStandIn"]

DEFAULT_BOT_LOGIN = "github-actions[bot]"
#: Role → legacy ``permission`` (maintain shows as write, triage as read).
LEGACY_PERMISSION = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
#: How often the serving loop checks for ``stop`` (the stdlib default, 0.5 s, is what stopping costs).
SHUTDOWN_POLL = 0.02
_REASONS = {
    500: "Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    429: "Too Many Requests",
    403: "Forbidden",
    401: "Bad credentials",
    404: "Not Found",
}


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request the stand-in answered, and its answer."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    operation: str | None
    status: int
    response: Any


@dataclass(slots=True)
class _Fault:
    operation: str
    status: int
    body: JSON
    headers: dict[str, str]
    remaining: int


class GitHubStandIn:
    """The server and its state. Start and stop it with ``with``; every method is thread-safe."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        bot_login: str = DEFAULT_BOT_LOGIN,
        tokens: Mapping[str, str] | None = None,
    ) -> None:
        #: When given, only these tokens are accepted, each acting as its login; else any token is the bot.
        self.tokens = dict(tokens) if tokens is not None else None
        self.bot_login = bot_login
        self._lock = threading.RLock()
        self._faults: list[_Fault] = []
        self._exchanges: list[Exchange] = []
        self._server = _Server((host, port), _Handler, self)
        self._thread: threading.Thread | None = None
        self._store = Store(Urls(api=self.server_url + API_PREFIX, web=self.server_url))
        self._store.user(bot_login, "Bot")

    # ----- lifecycle -------------------------------------------------------------------------------

    @property
    def server_url(self) -> str:
        """What ``GITHUB_SERVER_URL`` should be."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def api_url(self) -> str:
        """What ``GITHUB_API_URL`` (and PyGithub's ``base_url``) should be."""
        return self.server_url + API_PREFIX

    def start(self) -> GitHubStandIn:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, args=(SHUTDOWN_POLL,), name="github-standin", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.close_connections()
        self._server.server_close()

    def __enter__(self) -> GitHubStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----- state set-up ----------------------------------------------------------------------------

    def add_user(self, login: str, *, bot: bool = False) -> User:
        with self._lock:
            return self._store.user(login, "Bot" if bot else "User")

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        private: bool = False,
        git_dir: str | Path | None = None,
        default_sha: str | None = None,
    ) -> Repo:
        """A repository. With ``git_dir`` (a bare repository) branches and SHAs are read from it;
        without, the default branch points at ``default_sha`` (or a made-up SHA) and ``set_ref`` adds more."""
        owner, name = full_name.split("/", 1)
        with self._lock:
            store = self._store
            repo = Repo(store.user(owner), name, store.next_id(), default_branch, private, now())
            state = RepoState(repo, Path(git_dir) if git_dir is not None else None)
            if state.git_dir is None:
                state.refs[default_branch] = default_sha or fake_sha(f"{full_name}:{default_branch}")
            store.repos[full_name.lower()] = state
            return repo

    def set_permission(self, full_name: str, login: str, role: str, *, permission: str | None = None) -> None:
        """Give ``login`` a role: admin, maintain, write, triage, read or none. A custom role needs
        ``permission``, its legacy base (admin, write, read or none). Unknown logins get a 404;
        known users without a role read a public repository and have ``none`` on a private one."""
        legacy = permission or LEGACY_PERMISSION.get(role)
        if legacy not in ("admin", "write", "read", "none"):
            raise ValueError(f"role {role!r} needs permission= (admin, write, read or none)")
        with self._lock:
            self._store.user(login)
            self._store.state(full_name).repo.collaborators[login] = (legacy, role)

    def set_ref(self, full_name: str, branch: str, sha: str) -> None:
        """Point a branch at a SHA (repositories without ``git_dir``)."""
        with self._lock:
            self._store.state(full_name).refs[branch] = sha

    def add_issue(self, full_name: str, title: str, body: str | None = "", *, user: str = "octocat") -> int:
        with self._lock:
            store = self._store
            return store.new_issue(store.state(full_name), title, body, store.user(user)).number

    def add_comment(self, full_name: str, issue_number: int, body: str, *, user: str = "octocat") -> int:
        """A comment on an issue or a PR's conversation; returns its id."""
        with self._lock:
            store = self._store
            state = store.state(full_name)
            if issue_number not in state.issues:
                raise KeyError(f"no issue #{issue_number} in {full_name}")
            return store.new_comment(state, issue_number, body, store.user(user)).id

    def add_pull(
        self,
        full_name: str,
        head: str,
        *,
        base: str | None = None,
        title: str = "A change",
        body: str | None = "",
        user: str = "octocat",
        draft: bool = False,
        head_repo: str | None = None,
    ) -> int:
        """An open PR from branch ``head`` of ``head_repo`` (default: this repository, else a fork
        added with ``add_repo``). No check that the branch exists: set-up may describe any state."""
        with self._lock:
            store = self._store
            state = store.state(full_name)
            head_state = store.state(head_repo) if head_repo else state
            return store.new_pull(
                state, head_state, head, base or state.repo.default_branch, title, body, store.user(user), draft
            ).number

    def add_review_comment(
        self,
        full_name: str,
        pull_number: int,
        body: str,
        *,
        path: str = "README.md",
        line: int = 1,
        user: str = "octocat",
        diff_hunk: str = "@@ -1 +1 @@",
    ) -> int:
        with self._lock:
            store = self._store
            state = store.state(full_name)
            pull = state.pulls[pull_number]
            stamp = now()
            comment = ReviewComment(
                store.next_id(),
                pull_number,
                body,
                path,
                diff_hunk,
                store.stats(state, pull).head_sha,
                store.user(user),
                stamp,
                stamp,
                line=line,
            )
            state.review_comments[comment.id] = comment
            return comment.id

    # ----- faults ----------------------------------------------------------------------------------

    def fail(
        self,
        operation: str,
        *,
        status: int = 502,
        times: int = 1,
        message: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """The next ``times`` calls of ``operation`` (an operationId like ``pulls/create``, or ``*``)
        are answered with ``status`` (and GitHub's error body) instead of being carried out."""
        known = (*OPERATIONS, *GRAPHQL_OPERATIONS)
        if operation != "*" and operation not in known:
            raise ValueError(f"unknown operation {operation!r}; known: {', '.join(known)}")
        body = error_json(message or _REASONS.get(status, "Server Error"), status)
        with self._lock:
            self._faults.append(_Fault(operation, status, body, dict(headers or {}), times))

    def secondary_rate_limit(
        self, operation: str, *, times: int = 1, retry_after: int | None = 1, status: int = 403
    ) -> None:
        """GitHub's secondary rate limit: a 403 (or 429) whose message says so, with ``retry-after``."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        self.fail(operation, status=status, times=times, message=SECONDARY_RATE_LIMIT_MESSAGE, headers=headers)

    # ----- inspection ------------------------------------------------------------------------------

    @property
    def exchanges(self) -> list[Exchange]:
        """Every request answered so far (including refused ones), oldest first."""
        with self._lock:
            return list(self._exchanges)

    def requests(self, operation: str | None = None, *, method: str | None = None) -> list[Exchange]:
        """Exchanges of one operation (all when ``None``), oldest first."""
        return [
            e
            for e in self.exchanges
            if (operation is None or e.operation == operation) and (method is None or e.method == method)
        ]

    def clear_requests(self) -> None:
        with self._lock:
            self._exchanges.clear()

    def issue(self, full_name: str, number: int) -> Issue:
        with self._lock:
            return self._store.state(full_name).issues[number]

    def comments(self, full_name: str, issue_number: int | None = None) -> list[Comment]:
        with self._lock:
            return [
                c
                for c in self._store.state(full_name).comments.values()
                if issue_number is None or c.issue_number == issue_number
            ]

    def pulls(self, full_name: str) -> list[Pull]:
        with self._lock:
            return list(self._store.state(full_name).pulls.values())

    def review_comments(self, full_name: str, pull_number: int | None = None) -> list[ReviewComment]:
        with self._lock:
            return [
                c
                for c in self._store.state(full_name).review_comments.values()
                if pull_number is None or c.pull_number == pull_number
            ]

    def reactions(self, kind: str | None = None, subject_id: int | None = None) -> list[Reaction]:
        """Reactions on ``("issue", number)``, ``("issue_comment", id)`` or ``("review_comment", id)``."""
        with self._lock:
            return [
                r
                for r in self._store.reactions
                if (kind is None or r.subject[0] == kind) and (subject_id is None or r.subject[1] == subject_id)
            ]

    def check_runs(self, full_name: str) -> list[CheckRun]:
        with self._lock:
            return list(self._store.state(full_name).check_runs.values())

    # ----- dispatch --------------------------------------------------------------------------------

    def handle(
        self, method: str, target: str, headers: Mapping[str, str], raw: bytes
    ) -> tuple[int, Any, dict[str, str]]:
        """Answer one request: the HTTP handler's whole job, callable without a socket."""
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        try:
            body: Any = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            status, response, extra = self._answer(method, parts.path, headers, body, query)
            operation = graphql_operation(body) if parts.path == GRAPHQL_PATH else route(method, parts.path)[0]
            self._exchanges.append(
                Exchange(method, parts.path, query, dict(headers), body, operation, status, response)
            )
        return status, response, extra

    def _answer(
        self, method: str, path: str, headers: Mapping[str, str], body: Any, query: dict[str, list[str]]
    ) -> tuple[int, Any, dict[str, str]]:
        operation, params, op = route(method, path)
        try:
            user = self._authenticate(headers)
            if method == "POST" and path == GRAPHQL_PATH:
                return self._graphql(body)
            if op is None or operation is None:
                raise Reply(404, error_json("Not Found", 404))
            for fault in self._faults:
                if fault.remaining > 0 and fault.operation in (operation, "*"):
                    fault.remaining -= 1
                    return fault.status, fault.body, dict(fault.headers)
            if method in ("POST", "PATCH") and not isinstance(body, dict):
                raise Reply(400, error_json("Problems parsing JSON", 400))
            state = self._store.repos.get(f"{params['owner']}/{params['repo']}".lower())
            if state is None:
                raise Reply(404, error_json("Not Found", 404))
            result = op(Call(self._store, state, params, query, body, user))
            return result[0], result[1], dict(result[2]) if len(result) == 3 else {}
        except Reply as reply:
            return reply.status, reply.body, reply.headers

    def _graphql(self, body: Any) -> tuple[int, Any, dict[str, str]]:
        operation = graphql_operation(body)
        for fault in self._faults:
            if fault.remaining > 0 and fault.operation in (operation, "*"):
                fault.remaining -= 1
                return fault.status, fault.body, dict(fault.headers)
        status, response = answer_graphql(self._store, body)
        return status, response, {}

    def _authenticate(self, headers: Mapping[str, str]) -> User:
        value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
        scheme, _, token = value.strip().partition(" ")
        if not token.strip() or scheme.lower() not in ("token", "bearer"):
            raise Reply(401, error_json("Requires authentication", 401))
        if self.tokens is None:
            return self._store.users[self.bot_login]
        login = self.tokens.get(token.strip())
        if login is None:
            raise Reply(401, error_json("Bad credentials", 401))
        return self._store.user(login, "Bot" if login.endswith("[bot]") else "User")


# ----- HTTP ---------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], standin: GitHubStandIn) -> None:
        self.standin = standin
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def track(self, conn: socket.socket, *, add: bool) -> None:
        with self._connections_lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def close_connections(self) -> None:
        """Hang up on kept-alive clients so their handler threads end with the server."""
        with self._connections_lock:
            for conn in self._connections:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
            self._connections.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: PyGithub reuses its connection
    disable_nagle_algorithm = True  # else every request stalls ~40 ms (delayed ACK)
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, add=True)

    def finish(self) -> None:
        self.server.track(self.connection, add=False)
        super().finish()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        status, response, headers = self.server.standin.handle(self.command, self.path, dict(self.headers), raw)
        payload = b"" if response is None else json.dumps(response).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-GitHub-Media-Type", "github.v3; format=json")
        for name, value in _rate_headers(headers).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read ``exchanges`` instead


def _rate_headers(headers: dict[str, str]) -> dict[str, str]:
    merged = {
        "X-RateLimit-Limit": "5000",
        "X-RateLimit-Remaining": "4999",
        "X-RateLimit-Used": "1",
        "X-RateLimit-Resource": "core",
        "X-RateLimit-Reset": str(int(time.time()) + 3600),
    }
    for name, value in headers.items():
        for key in list(merged):
            if key.lower() == name.lower():
                del merged[key]
        merged[name] = value
    return merged
