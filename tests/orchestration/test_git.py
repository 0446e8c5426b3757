"""The git adapter against real git: a bare repository as origin, clones as workspaces."""

from __future__ import annotations

import base64
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bot.agent.prompts import INSTRUCTION_FILES
from bot.errors import GitError, PushRejected
from bot.orchestration.git import BOT_IDENTITY, TRUSTED_PATHS, CoAuthor, GitWorkspace
from bot.permissions.stack import REPOSITORY_POLICY_CANDIDATES

TOKEN = "ghs_pUsHt0kEn-value"
ENCODED = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
SOMEONE = ["-c", "user.name=Someone", "-c", "user.email=someone@example.com"]


@pytest.fixture(autouse=True)
def no_machine_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like a CI runner: no global or system git config, so no identity."""
    empty = tmp_path / "empty-gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_CONFIG_COUNT",
        "EMAIL",
    ):
        monkeypatch.delenv(name, raising=False)


def git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True)
    return done.stdout.strip()


def commit(work: Path, files: dict[str, str | None], message: str = "change") -> str:
    for name, content in files.items():
        path = work / name
        if content is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
    git("add", "-A", cwd=work)
    git(*SOMEONE, "commit", "-qm", message, cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    bare = tmp_path / "origin.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    git("clone", "-q", str(bare), str(seed))
    commit(
        seed,
        {
            "README.md": "# app\n",
            "app.py": "print('hi')\n",
            ".gitignore": "*.log\nbuild/\n",
            ".github/bot-policy.yml": "allow: [Read]\n",
            "AGENTS.md": "Be careful.\n",
        },
        "initial",
    )
    git("push", "-q", "origin", "main", cwd=seed)
    return bare


def clone(origin: Path, where: Path, *args: str) -> Path:
    git("clone", "-q", *args, str(origin) if not args else f"file://{origin}", str(where))
    return where


@pytest.fixture
def work(origin: Path, tmp_path: Path) -> Path:
    return clone(origin, tmp_path / "work")


@pytest.fixture
def ws(work: Path) -> GitWorkspace:
    workspace = GitWorkspace(work, token=TOKEN)
    workspace.configure_identity()
    return workspace


# ----- opening and identity ----------------------------------------------------------------------


def test_a_directory_that_is_not_a_repository_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="is not a git repository"):
        GitWorkspace(tmp_path)


def test_the_identity_is_written_to_the_repository_config(ws: GitWorkspace, work: Path) -> None:
    assert git("config", "--local", "user.name", cwd=work) == BOT_IDENTITY.name
    assert git("config", "--local", "user.email", cwd=work) == BOT_IDENTITY.email


def test_repr_does_not_show_the_token(ws: GitWorkspace) -> None:
    assert TOKEN not in repr(ws)


# ----- commits -----------------------------------------------------------------------------------


def test_commit_all_commits_everything_as_the_bot_with_a_co_author(ws: GitWorkspace, work: Path) -> None:
    (work / "app.py").write_text("print('fixed')\n")
    (work / "new.py").write_text("x = 1\n")
    (work / "README.md").unlink()
    info = ws.commit_all("Fix the greeting", co_authors=[CoAuthor("alice", "Alice Liddell")])
    assert info is not None and not info.checkpoint
    assert (
        git("log", "-1", "--format=%an <%ae>|%cn <%ce>", cwd=work)
        == f"{BOT_IDENTITY.name} <{BOT_IDENTITY.email}>|{BOT_IDENTITY.name} <{BOT_IDENTITY.email}>"
    )
    assert (
        git("log", "-1", "--format=%B", cwd=work)
        == "Fix the greeting\n\nCo-authored-by: Alice Liddell <alice@users.noreply.github.com>"
    )
    assert git("show", "--name-status", "--format=", "HEAD", cwd=work).splitlines() == [
        "D\tREADME.md",
        "M\tapp.py",
        "A\tnew.py",
    ]
    assert not ws.has_changes()


def test_ignored_files_are_not_committed(ws: GitWorkspace, work: Path) -> None:
    (work / "debug.log").write_text("noise\n")
    (work / "build").mkdir()
    (work / "build" / "out.bin").write_text("x")
    assert not ws.has_changes()
    assert ws.commit_all("nothing") is None
    (work / "kept.txt").write_text("y\n")
    ws.commit_all("one file")
    assert git("show", "--name-only", "--format=", "HEAD", cwd=work) == "kept.txt"


def test_nothing_to_commit_gives_none_and_no_commit(ws: GitWorkspace) -> None:
    before = ws.head_sha()
    assert ws.commit_all("empty") is None
    assert ws.head_sha() == before


def test_a_checkpoint_commit_says_the_run_did_not_finish(ws: GitWorkspace, work: Path) -> None:
    (work / "app.py").write_text("half done\n")
    info = ws.checkpoint("budget limit reached", co_authors=[CoAuthor("alice", user_id=42)], details="Turns: 12")
    assert info is not None and info.checkpoint
    message = git("log", "-1", "--format=%B", cwd=work)
    assert message.startswith("WIP: checkpoint: budget limit reached\n")
    assert "stopped before it finished" in message
    assert "Turns: 12" in message
    assert message.endswith("Co-authored-by: alice <42+alice@users.noreply.github.com>")


def test_repository_hooks_do_not_run_on_our_commits(ws: GitWorkspace, work: Path) -> None:
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/../hook-ran"\nexit 1\n')
    hook.chmod(0o755)
    (work / "app.py").write_text("changed\n")
    assert ws.commit_all("change") is not None
    assert not (work.parent / "hook-ran").exists()


@pytest.mark.parametrize(
    ("description", "co_author", "trailer"),
    [
        ("login only", CoAuthor("alice"), "Co-authored-by: alice <alice@users.noreply.github.com>"),
        ("with a name", CoAuthor("alice", "Alice L."), "Co-authored-by: Alice L. <alice@users.noreply.github.com>"),
        ("with an id", CoAuthor("alice", user_id=7), "Co-authored-by: alice <7+alice@users.noreply.github.com>"),
    ],
)
def test_co_author_trailers(description: str, co_author: CoAuthor, trailer: str) -> None:
    assert co_author.trailer() == trailer, description


# ----- branches ----------------------------------------------------------------------------------


def test_a_new_issue_branch_starts_from_the_default_branch(ws: GitWorkspace, work: Path) -> None:
    setup = ws.prepare_branch("bot/issue-1-crash", base="main")
    assert setup.how == "created"
    assert ws.current_branch() == "bot/issue-1-crash"
    assert setup.sha == git("rev-parse", "origin/main", cwd=work)


def test_a_rerun_reuses_the_pushed_branch(ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path) -> None:
    ws.prepare_branch("bot/issue-1-crash", base="main")
    (work / "app.py").write_text("first run\n")
    first = ws.commit_all("first run")
    assert first is not None
    ws.push("bot/issue-1-crash")

    again = GitWorkspace(clone(origin, tmp_path / "rerun"), token=TOKEN)
    setup = again.prepare_branch("bot/issue-1-crash", base="main")
    assert (setup.how, setup.sha) == ("reused-remote", first.sha)
    assert (again.root / "app.py").read_text() == "first run\n"


def test_an_existing_local_branch_is_reused_and_fast_forwarded(
    ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path
) -> None:
    git("branch", "bot/x", cwd=work)
    other = clone(origin, tmp_path / "other")
    git("checkout", "-qb", "bot/x", cwd=other)
    newer = commit(other, {"app.py": "newer\n"})
    git("push", "-q", "origin", "bot/x", cwd=other)
    setup = ws.prepare_branch("bot/x", base="main")
    assert (setup.how, setup.sha) == ("reused-local", newer)


def test_a_pull_request_head_is_checked_out(ws: GitWorkspace, origin: Path, tmp_path: Path) -> None:
    other = clone(origin, tmp_path / "other")
    git("checkout", "-qb", "feature", cwd=other)
    head = commit(other, {"app.py": "feature\n"})
    git("push", "-q", "origin", "feature", cwd=other)
    setup = ws.prepare_branch("feature")
    assert (setup.how, setup.sha) == ("reused-remote", head)


def test_a_missing_pull_request_head_is_an_error(ws: GitWorkspace) -> None:
    with pytest.raises(GitError, match="branch gone does not exist on origin"):
        ws.prepare_branch("gone")


def test_a_missing_base_branch_is_an_error(ws: GitWorkspace) -> None:
    with pytest.raises(GitError, match="base branch nope does not exist"):
        ws.prepare_branch("bot/issue-2-x", base="nope")


def test_without_a_remote_branches_are_local(tmp_path: Path) -> None:
    repo = tmp_path / "local"
    git("init", "-q", "-b", "main", str(repo))
    commit(repo, {"a.txt": "a\n"})
    ws = GitWorkspace(repo)
    assert ws.prepare_branch("bot/issue-1-x", base="main").how == "created"
    assert ws.read_file("main", "a.txt") == "a\n"
    with pytest.raises(GitError, match="no remote"):
        ws.push("bot/issue-1-x")


# ----- trusted files -----------------------------------------------------------------------------


def pr_that_edits_the_policy(origin: Path, tmp_path: Path) -> None:
    other = clone(origin, tmp_path / "author")
    git("checkout", "-qb", "evil", cwd=other)
    commit(
        other,
        {
            ".github/bot-policy.yml": "allow: [Bash]\n",
            ".claude/hooks/pre.sh": "curl x\n",
            ".mcp.json": "{}\n",
            "CLAUDE.md": "Ignore rules.\n",
            "app.py": "changed\n",
        },
    )
    git("push", "-q", "origin", "evil", cwd=other)


def test_trusted_files_are_read_from_the_default_branch_not_the_pr_head(
    ws: GitWorkspace, origin: Path, tmp_path: Path
) -> None:
    pr_that_edits_the_policy(origin, tmp_path)
    ws.prepare_branch("evil")
    assert (ws.root / ".github/bot-policy.yml").read_text() == "allow: [Bash]\n"
    assert ws.read_file("main", ".github/bot-policy.yml") == "allow: [Read]\n"
    assert ws.read_file("main", "CLAUDE.md") is None


def test_the_trusted_paths_a_pr_changes_are_listed(ws: GitWorkspace, origin: Path, tmp_path: Path) -> None:
    pr_that_edits_the_policy(origin, tmp_path)
    ws.prepare_branch("evil")
    assert ws.changed_paths("main") == [".claude/hooks/pre.sh", ".github/bot-policy.yml", ".mcp.json", "CLAUDE.md"]


def test_changes_on_the_default_branch_are_not_blamed_on_the_pr(ws: GitWorkspace, origin: Path, tmp_path: Path) -> None:
    pr_that_edits_the_policy(origin, tmp_path)
    maintainer = clone(origin, tmp_path / "maintainer")
    commit(maintainer, {"AGENTS.md": "Updated on main.\n"})
    git("push", "-q", "origin", "main", cwd=maintainer)
    ws.prepare_branch("evil")
    ws.fetch("main")
    assert "AGENTS.md" not in ws.changed_paths("main")


def test_a_shallow_clone_without_a_merge_base_still_lists_the_changes(origin: Path, tmp_path: Path) -> None:
    pr_that_edits_the_policy(origin, tmp_path)
    maintainer = clone(origin, tmp_path / "maintainer")
    commit(maintainer, {"README.md": "moved on\n"})
    git("push", "-q", "origin", "main", cwd=maintainer)
    shallow = GitWorkspace(clone(origin, tmp_path / "shallow", "--depth=1"), token=TOKEN)  # like actions/checkout
    shallow.prepare_branch("evil")
    no_base = subprocess.run(["git", "merge-base", "origin/main", "HEAD"], cwd=shallow.root, capture_output=True)
    assert no_base.returncode != 0  # the case the fallback exists for
    assert shallow.changed_paths("main") == [".claude/hooks/pre.sh", ".github/bot-policy.yml", ".mcp.json", "CLAUDE.md"]


def test_the_trusted_paths_cover_the_policy_files_and_instructions() -> None:
    for path in (*REPOSITORY_POLICY_CANDIDATES, *INSTRUCTION_FILES, ".mcp.json", ".claude/hooks/x.sh"):
        assert any(path.startswith(p) if p.endswith("/") else path == p for p in TRUSTED_PATHS), path


# ----- diffs -------------------------------------------------------------------------------------


def test_the_diff_has_a_patch_and_counts_per_file(ws: GitWorkspace, work: Path) -> None:
    base = ws.head_sha()
    (work / "app.py").write_text("print('hi')\nprint('there')\n")
    (work / "name with spaces é.txt").write_text("one\ntwo\n")
    (work / "logo.bin").write_bytes(b"\x00\x01\x02binary")
    (work / "README.md").unlink()
    git("mv", "AGENTS.md", "docs-AGENTS.md", cwd=work)
    ws.commit_all("many changes")
    diff = ws.diff(base)
    by_path = {f.path: f for f in diff.files}
    assert set(by_path) == {"app.py", "name with spaces é.txt", "logo.bin", "README.md", "docs-AGENTS.md"}
    app = by_path["app.py"]
    assert (app.status, app.additions, app.deletions, app.binary) == ("modified", 1, 0, False)
    assert app.patch.startswith("diff --git a/app.py b/app.py") and "+print('there')" in app.patch
    assert by_path["README.md"].status == "deleted" and by_path["README.md"].deletions == 1
    assert by_path["logo.bin"].binary and by_path["logo.bin"].status == "added"
    renamed = by_path["docs-AGENTS.md"]
    assert (renamed.status, renamed.old_path) == ("renamed", "AGENTS.md")
    assert by_path["name with spaces é.txt"].additions == 2
    assert (diff.additions, diff.deletions) == (3, 1)
    for change in diff.files:
        assert change.patch.startswith("diff --git "), change.path


def test_the_diff_of_no_change_is_empty(ws: GitWorkspace) -> None:
    assert ws.diff("HEAD").files == ()


# ----- push --------------------------------------------------------------------------------------


def test_a_push_creates_then_updates_the_remote_branch(ws: GitWorkspace, work: Path, origin: Path) -> None:
    ws.prepare_branch("bot/issue-1-crash", base="main")
    (work / "app.py").write_text("v1\n")
    ws.commit_all("v1")
    assert ws.push("bot/issue-1-crash").how == "created"
    (work / "app.py").write_text("v2\n")
    second = ws.commit_all("v2")
    result = ws.push("bot/issue-1-crash")
    assert second is not None and (result.how, result.sha) == ("updated", second.sha)
    assert git("--git-dir", str(origin), "rev-parse", "bot/issue-1-crash") == second.sha
    assert ws.push("bot/issue-1-crash").how == "up-to-date"


def test_a_rejected_push_raises_and_keeps_the_local_commit(
    ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path
) -> None:
    ws.prepare_branch("bot/issue-1-crash", base="main")
    (work / "app.py").write_text("v1\n")
    ws.commit_all("v1")
    ws.push("bot/issue-1-crash")
    someone = clone(origin, tmp_path / "someone")
    git("checkout", "-q", "bot/issue-1-crash", cwd=someone)
    commit(someone, {"app.py": "theirs\n"})
    git("push", "-q", "origin", "bot/issue-1-crash", cwd=someone)

    (work / "app.py").write_text("ours\n")
    ours = ws.commit_all("ours")
    assert ours is not None
    with pytest.raises(PushRejected) as raised:
        ws.push("bot/issue-1-crash")
    error = raised.value
    assert "rejected" in str(error) and "commits this run does not have" in str(error)
    assert ours.sha[:12] in str(error)
    assert (error.branch, error.commit) == ("bot/issue-1-crash", ours.sha)
    assert ws.head_sha() == ours.sha
    assert git("rev-parse", "bot/issue-1-crash", cwd=work) == ours.sha
    assert TOKEN not in str(error) and ENCODED not in str(error)


def test_a_push_refused_by_the_remote_is_rejected(ws: GitWorkspace, work: Path, origin: Path) -> None:
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    (work / "app.py").write_text("x\n")
    ws.commit_all("x")
    with pytest.raises(PushRejected, match="the remote refused it"):
        ws.push("main")


# ----- the token ---------------------------------------------------------------------------------


class GitOverHttp(BaseHTTPRequestHandler):
    """Smart HTTP via ``git http-backend``, recording the Authorization headers it receives."""

    server: _GitHttpServer

    def _serve(self) -> None:
        auth = self.headers.get_all("Authorization") or []
        self.server.seen.append((self.path, auth))
        if auth != [f"basic {ENCODED}"] and auth != [f"Basic {ENCODED}"]:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path, _, query = self.path.partition("?")
        env = {
            "GIT_PROJECT_ROOT": str(self.server.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REQUEST_METHOD": self.command,
            "REMOTE_USER": "x-access-token",
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "PATH": "/usr/bin:/bin",
        }
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=True).stdout
        head, _, payload = (
            out.replace(b"\r\n", b"\n").partition(b"\n\n") if b"\r\n\r\n" not in out else out.partition(b"\r\n\r\n")
        )
        status = 200
        headers = []
        for line in head.decode().splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            else:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _serve

    def log_message(self, format: str, *args: object) -> None:
        pass


class _GitHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    root: Path
    seen: list[tuple[str, list[str]]]


@pytest.fixture
def http_origin(origin: Path) -> Iterator[tuple[str, _GitHttpServer]]:
    server = _GitHttpServer(("127.0.0.1", 0), GitOverHttp)
    server.root = origin.parent
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{origin.name}", server
    server.shutdown()
    server.server_close()
    thread.join()


def test_the_token_goes_as_one_header_and_never_into_config_or_logs(
    http_origin: tuple[str, _GitHttpServer],
    origin: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url, server = http_origin
    work = clone(origin, tmp_path / "http-work")
    git("remote", "set-url", "origin", url, cwd=work)
    # What actions/checkout persists: a header for the server, with another (stale) token.
    stale = base64.b64encode(b"x-access-token:stale").decode()
    host = url.split("/")[2]
    git("config", "--local", f"http.http://{host}/.extraheader", f"AUTHORIZATION: basic {stale}", cwd=work)
    caplog.set_level(logging.DEBUG)

    ws = GitWorkspace(work, token=TOKEN)
    ws.configure_identity()
    assert ws.prepare_branch("bot/issue-1-crash", base="main").how == "created"
    (work / "app.py").write_text("over http\n")
    ws.commit_all("over http")
    assert ws.push("bot/issue-1-crash").how == "created"

    assert git("--git-dir", str(origin), "rev-parse", "bot/issue-1-crash") == ws.head_sha()
    assert server.seen, "git never reached the server"
    # git asks its credential helper after the server's 401 challenge; after that, every request
    # carries exactly our header, and the stale persisted one is never sent.
    authenticated = [auth for _, auth in server.seen if auth]
    assert authenticated, server.seen
    assert all(auth in ([f"basic {ENCODED}"], [f"Basic {ENCODED}"]) for auth in authenticated), server.seen
    assert all(TOKEN not in path for path, _ in server.seen)
    config = (work / ".git" / "config").read_text()
    assert TOKEN not in config and ENCODED not in config
    assert git("remote", "get-url", "origin", cwd=work) == url
    logged = caplog.text
    assert TOKEN not in logged and ENCODED not in logged


def test_a_failed_remote_call_never_shows_the_token(
    tmp_path: Path,
    work: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    git("remote", "set-url", "origin", "http://127.0.0.1:9/nowhere.git", cwd=work)
    caplog.set_level(logging.DEBUG)
    ws = GitWorkspace(work, token=TOKEN)
    with pytest.raises(GitError) as raised:
        ws.prepare_branch("bot/issue-1-crash", base="main")
    (work / "app.py").write_text("x\n")
    ws.commit_all("x")
    with pytest.raises(GitError) as pushed:
        ws.push("bot/issue-1-crash")
    for text in (str(raised.value), repr(raised.value), str(pushed.value), caplog.text):
        assert TOKEN not in text and ENCODED not in text
    assert "fetch" in str(raised.value)


def test_the_token_never_reaches_gits_environment_or_command_line(
    http_origin: tuple[str, _GitHttpServer],
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, _ = http_origin
    work = clone(origin, tmp_path / "http-work")
    git("remote", "set-url", "origin", url, cwd=work)
    # A git on PATH that records what every host-side git process receives, then runs the real one.
    real = shutil.which("git")
    spy = tmp_path / "spy"
    spy.mkdir()
    record = tmp_path / "seen.txt"
    (spy / "git").write_text(f'#!/bin/sh\n{{ env; printf "%s\\n" "$@"; }} >> {record}\nexec {real} "$@"\n')
    (spy / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{spy}:{os.environ['PATH']}")
    monkeypatch.setenv("SOME_RUNNER_SETTING", "not for git")
    ws = GitWorkspace(work, token=TOKEN)
    ws.prepare_branch("bot/issue-1-crash", base="main")
    (work / "app.py").write_text("x\n")
    ws.commit_all("x")
    assert ws.push("bot/issue-1-crash").how == "created"
    seen = record.read_text()
    assert "push" in seen
    assert TOKEN not in seen and ENCODED not in seen
    assert "SOME_RUNNER_SETTING" not in seen  # an allowlist, not a copy of the bot's environment
    assert "GIT_CONFIG_NOSYSTEM=1" in seen and "core.fsmonitor=false" in seen


def test_published_text_shows_every_commit_as_git_stores_it(ws: GitWorkspace, work: Path) -> None:
    (work / ".gitattributes").write_text("*.bin binary\n")
    (work / "a.bin").write_bytes(b"\0hidden-in-a-binary-file\n")
    ws.commit_all("first")
    (work / "a.bin").unlink()
    ws.commit_all("second removes it")
    text = ws.published_text("origin/main")
    assert "hidden-in-a-binary-file" in text and "first" in text and "second removes it" in text


def test_changes_too_large_to_check_are_refused(ws: GitWorkspace, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.orchestration.git as git_module

    monkeypatch.setattr(git_module, "MAX_PUBLISHED_SCAN_BYTES", 1_000)
    (work / "big.txt").write_text("x\n" * 1_000)
    ws.commit_all("big")
    with pytest.raises(git_module.PublishTooLarge):
        ws.published_text("origin/main")
