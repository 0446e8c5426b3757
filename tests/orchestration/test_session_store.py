"""Sessions in refs/bot/sessions/<n>, against real git: a bare origin, clones as runners."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.agent.saved_session import MAX_SESSION_BYTES, SavedSession, SessionError
from bot.errors import GitError
from bot.orchestration.git import GitWorkspace
from bot.orchestration.session_store import SESSION_REF_PREFIX, SessionStore, session_ref

SOMEONE = ["-c", "user.name=Someone", "-c", "user.email=someone@example.com"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *SOMEONE, *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "README.md").write_text("hi\n")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    git(seed, "push", "-q", str(origin), "main")
    return origin


def runner(origin: Path, tmp_path: Path, name: str) -> GitWorkspace:
    """A fresh checkout, as a new CI runner has."""
    path = tmp_path / name
    subprocess.run(["git", "clone", "-q", str(origin), str(path)], check=True)
    return GitWorkspace(path, home=tmp_path / f"{name}-home")


def session(summary: str = "Fixed it.") -> SavedSession:
    return SavedSession(
        threads=(7, 8),
        branch="bot/issue-7-x",
        head="a" * 40,
        policy_hash="p",
        requester="alice",
        stop_reason="completed",
        summary=summary,
        messages=({"role": "user", "content": "task"}, {"role": "assistant", "content": "done"}),
    )


def test_a_session_stored_by_one_runner_is_found_by_the_next_under_each_thread(origin: Path, tmp_path: Path) -> None:
    first = SessionStore(runner(origin, tmp_path, "one"), push=True)
    commit = first.save(session(), ["7", "8"])
    assert git(origin, "rev-parse", "refs/bot/sessions/7").strip() == commit
    assert git(origin, "rev-parse", "refs/bot/sessions/8").strip() == commit
    assert git(origin, "cat-file", "-p", commit).count("parent") == 0  # one commit, no history

    second = SessionStore(runner(origin, tmp_path, "two"), push=True)
    assert second.load("8") == session()
    assert second.load("9") is None
    second.save(session("Second run."), ["8"])
    third = SessionStore(runner(origin, tmp_path, "three"), push=True)
    loaded = third.load("8")
    assert loaded is not None and loaded.summary == "Second run."


def test_start_over_deletes_the_session_everywhere(origin: Path, tmp_path: Path) -> None:
    store = SessionStore(runner(origin, tmp_path, "one"), push=True)
    store.save(session(), ["7", "8"])
    store.forget(["7", "8", "9"])  # 9 never existed: not an error
    assert git(origin, "for-each-ref", SESSION_REF_PREFIX) == ""
    assert SessionStore(runner(origin, tmp_path, "two"), push=True).load("7") is None


def test_a_session_deleted_on_the_remote_is_gone_from_a_runner_that_had_fetched_it(
    origin: Path, tmp_path: Path
) -> None:
    workspace = runner(origin, tmp_path, "one")
    store = SessionStore(workspace, push=True)
    store.save(session(), ["7"])
    git(origin, "update-ref", "-d", "refs/bot/sessions/7")
    assert store.load("7") is None
    assert workspace.local_ref("refs/bot/sessions/7") is None


def test_a_malformed_or_oversized_session_is_an_error_naming_the_ref(origin: Path, tmp_path: Path) -> None:
    workspace = runner(origin, tmp_path, "one")
    store = SessionStore(workspace, push=True)
    for content, fragment in ((b"{not json", "not a stored session"), (b" " * (MAX_SESSION_BYTES + 1), "more than")):
        commit = workspace.write_snapshot({"session.json": content}, "forged\n")
        workspace.push_refs({session_ref("7"): commit})
        with pytest.raises((SessionError, GitError), match=fragment) as info:
            SessionStore(runner(origin, tmp_path, f"r{len(content)}"), push=True).load("7")
        assert "refs/bot/sessions/7" in str(info.value) or "session.json" in str(info.value)
    assert store.git is workspace


def test_local_sessions_stay_in_the_local_repository(origin: Path, tmp_path: Path) -> None:
    workspace = runner(origin, tmp_path, "laptop")
    store = SessionStore(workspace, push=False)
    store.save(session("older"), ["local/one"])
    git(workspace.root, "update-ref", "refs/bot/sessions/local/two", store.save(session("newer"), ["local/two"]))
    assert git(origin, "for-each-ref", SESSION_REF_PREFIX) == ""
    latest = store.latest_local()
    assert latest in ("local/one", "local/two")
    loaded = store.load("local/one")
    assert loaded is not None and loaded.summary == "older"


@pytest.mark.parametrize("key", ["../heads/main", "7/../../x", "local/", "local/a b", "", "-7"])
def test_a_malformed_key_names_no_ref(key: str) -> None:
    with pytest.raises(ValueError, match="not a session key"):
        session_ref(key)


def test_the_snapshot_ignores_the_workspaces_filters(origin: Path, tmp_path: Path) -> None:
    """A clean filter configured in the workspace (the model could write .gitattributes) never runs."""
    workspace = runner(origin, tmp_path, "one")
    (workspace.root / ".gitattributes").write_text("* filter=evil\n")
    marker = tmp_path / "ran"
    git(workspace.root, "config", "filter.evil.clean", f"touch {marker}; cat")
    workspace2 = GitWorkspace(workspace.root, home=tmp_path / "h2")
    commit = workspace2.write_snapshot({"session.json": b"{}"}, "x\n")
    assert workspace2.read_blob(commit, "session.json", 10) == b"{}"
    assert not marker.exists()


def test_only_the_newest_local_sessions_are_kept(origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import bot.orchestration.session_store as store_module

    monkeypatch.setattr(store_module, "MAX_LOCAL_SESSIONS", 2)
    workspace = runner(origin, tmp_path, "laptop")
    tree = git(workspace.root, "write-tree").strip()
    for i, when in enumerate(("2026-01-01", "2026-03-01", "2026-02-01")):  # older sessions, dated
        env = {**os.environ, "GIT_COMMITTER_DATE": f"{when}T00:00:00Z"}
        commit = subprocess.run(
            ["git", "-C", str(workspace.root), *SOMEONE, "commit-tree", tree, "-m", "old"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        git(workspace.root, "update-ref", f"refs/bot/sessions/local/old{i}", commit)
    SessionStore(workspace, push=False).save(session("new"), ["local/new"])
    kept = git(workspace.root, "for-each-ref", "--format=%(refname)", SESSION_REF_PREFIX).split()
    assert sorted(kept) == ["refs/bot/sessions/local/new", "refs/bot/sessions/local/old1"]
