"""Pushing the run's work when the remote refuses: a real bare origin with real hooks in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import PushRejected
from bot.orchestration.git import GitWorkspace
from bot.orchestration.push import PUSH_RETRIES, fresh_branch_name, push_work
from tests.orchestration.test_git import clone, commit, git, no_machine_git_config, origin, work, ws

__all__ = ["no_machine_git_config", "origin", "work", "ws"]  # fixtures, shared with the git adapter's tests

BRANCH = "bot/issue-1-fix"


def hook(origin: Path, script: str) -> Path:
    """A pre-receive hook in the origin: it sees ``old new ref`` lines on stdin; non-zero refuses."""
    path = origin / "hooks" / "pre-receive"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def start_branch(ws: GitWorkspace, work: Path) -> None:
    ws.prepare_branch(BRANCH, base="main")
    ws.seal()
    (work / "app.py").write_text("print('fixed')\n")
    ws.commit_all("Fix the greeting")


def remote_sha(origin: Path, branch: str) -> str:
    return git("rev-parse", f"refs/heads/{branch}", cwd=origin, check=False)


def no_sleep(seconds: float) -> None:
    pass


def test_a_hook_that_fails_once_is_retried(ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path) -> None:
    marker = tmp_path / "refused-once"
    hook(origin, f'if [ ! -e "{marker}" ]; then touch "{marker}"; echo "flaky check" >&2; exit 1; fi\nexit 0\n')
    start_branch(ws, work)
    waits: list[float] = []
    pushed = push_work(ws, BRANCH, sleep=waits.append)
    assert pushed.branch == BRANCH
    assert remote_sha(origin, BRANCH) == ws.head_sha()
    assert len(waits) == 1
    assert pushed.notes == ()


def test_a_protected_branch_gets_the_work_on_a_fresh_branch(ws: GitWorkspace, work: Path, origin: Path) -> None:
    hook(
        origin,
        'while read old new ref; do\n  if [ "$ref" = "refs/heads/'
        + BRANCH
        + '" ]; then echo "GH006: Protected branch update failed" >&2; exit 1; fi\ndone\nexit 0\n',
    )
    start_branch(ws, work)
    pushed = push_work(ws, BRANCH, sleep=no_sleep)
    fresh = fresh_branch_name(BRANCH, ws.head_sha())
    assert pushed.branch == fresh
    assert pushed.moved_from(BRANCH)
    assert remote_sha(origin, fresh) == ws.head_sha()
    assert git("branch", "--list", BRANCH, cwd=origin) == ""
    (note,) = pushed.notes
    assert f"`{BRANCH}` was refused ({PUSH_RETRIES + 1} times:" in note
    assert "Protected branch update failed" in note
    assert f"`{fresh}`" in note


def test_someone_pushing_meanwhile_gets_the_runs_commits_rebased_onto_theirs(
    ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path
) -> None:
    start_branch(ws, work)
    ws.push(BRANCH)
    (work / "app.py").write_text("print('fixed again')\n")
    ws.commit_all("Second step")
    # Someone else pushes a commit touching another file to the same branch mid-run.
    other = clone(origin, tmp_path / "other")
    git("checkout", "-q", BRANCH, cwd=other)
    theirs = commit(other, {"NOTES.md": "a note\n"}, "their change")
    git("push", "-q", "origin", BRANCH, cwd=other)
    pushed = push_work(ws, BRANCH, sleep=no_sleep)
    assert pushed.branch == BRANCH
    assert remote_sha(origin, BRANCH) == ws.head_sha() == pushed.commit
    # Their commit is kept under the run's.
    assert git("merge-base", "--is-ancestor", theirs, pushed.commit, cwd=origin, check=False) == ""
    assert git("show", f"{BRANCH}:app.py", cwd=origin) == "print('fixed again')"
    assert git("show", f"{BRANCH}:NOTES.md", cwd=origin) == "a note"
    assert "rebased" in pushed.notes[0]


def test_a_conflicting_push_meanwhile_gets_the_work_on_a_fresh_branch(
    ws: GitWorkspace, work: Path, origin: Path, tmp_path: Path
) -> None:
    start_branch(ws, work)
    ws.push(BRANCH)
    (work / "app.py").write_text("print('ours')\n")
    ws.commit_all("Our step")
    other = clone(origin, tmp_path / "other")
    git("checkout", "-q", BRANCH, cwd=other)
    commit(other, {"app.py": "print('theirs')\n"}, "their conflicting change")
    git("push", "-q", "origin", BRANCH, cwd=other)
    ours = ws.head_sha()
    pushed = push_work(ws, BRANCH, sleep=no_sleep)
    assert pushed.branch == fresh_branch_name(BRANCH, ours)
    assert pushed.commit == ours  # the rebase was abandoned: the run's commits as they were
    assert git("show", f"{pushed.branch}:app.py", cwd=origin) == "print('ours')"
    assert git("show", f"{BRANCH}:app.py", cwd=origin) == "print('theirs')"
    assert "conflict" in pushed.notes[-1]
    assert git("status", "--porcelain", cwd=work) == ""  # no rebase left half done


def test_a_remote_that_refuses_everything_raises_with_the_commit_kept(
    ws: GitWorkspace, work: Path, origin: Path
) -> None:
    hook(origin, 'echo "all pushes are frozen" >&2\nexit 1\n')
    start_branch(ws, work)
    with pytest.raises(PushRejected, match="refused too") as raised:
        push_work(ws, BRANCH, sleep=no_sleep)
    assert raised.value.commit == ws.head_sha()
