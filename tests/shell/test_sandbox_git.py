"""Inside the sandbox, ``.git`` is a read-only mount point of its own: code the model wrote cannot
change, rename, replace or redirect the git directory the bot's host-side git later reads, and plain
git read commands still work."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from bot.interface.context import make_context
from bot.permissions.context import PermissionContext
from bot.shell.execute.env import build_child_env
from bot.shell.execute.process import run_process, shell_argv
from bot.shell.sandbox.status import Sandboxed, ensure_sandbox
from tests.shell.sandbox_support import bwrap_works, git, make_repo, prepare

__all__ = ["bwrap_works"]

ATTACKS = """
try() { if ( eval "$2" ) >/dev/null 2>&1; then echo "DID $1"; else echo "refused $1"; fi; }
try rename 'mv .git .git-away'
try remove 'rm -rf .git && test ! -e .git'
try commondir 'echo /elsewhere > .git/commondir'
try config.worktree 'printf "[core]\\n\\tfsmonitor = evil\\n" > .git/config.worktree'
try fsmonitor 'git config core.fsmonitor evil'
try hook 'echo evil > .git/hooks/pre-push'
try index 'echo x > .git/index'
try replace-with-file 'mv .git .git-away && printf "gitdir: /x" > .git'
try rebuild 'mv .git .git-away && mkdir .git'
try gitfile 'printf "gitdir: /x" > .git'
"""


def _verdicts(output: str) -> dict[str, str]:
    return {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in output.splitlines() if " " in line}


@pytest.mark.usefixtures("bwrap_works")
def test_the_git_directory_cannot_be_changed_renamed_replaced_or_redirected(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    config_before = (ws / ".git" / "config").read_text()
    box = prepare(ws, tmp_path / "scratch")

    verdicts = _verdicts(box.out(ATTACKS))

    assert verdicts and set(verdicts.values()) == {"refused"}, verdicts
    git_dir = ws / ".git"
    assert git_dir.is_dir() and (git_dir / "HEAD").is_file()
    assert not (git_dir / "commondir").exists() and not (git_dir / "config.worktree").exists()
    assert (git_dir / "config").read_text() == config_before
    assert not (ws / ".git-away").exists()


@pytest.mark.usefixtures("bwrap_works")
def test_git_status_diff_and_log_still_work_inside_with_a_read_only_index(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    box = prepare(ws, tmp_path / "scratch")

    result = box.run("git status --short && git diff --stat && git log --format=%s")

    assert result.exit_code == 0, result.stderr.text()
    lines = result.stdout.text().splitlines()
    assert lines[0] == " M a.txt"
    assert "1 file changed, 1 insertion(+)" in result.stdout.text()
    assert lines[-1] == "first"


@pytest.mark.usefixtures("bwrap_works")
def test_a_worktree_git_file_and_the_directories_it_names_are_read_only(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main")
    worktree = tmp_path / "wt"
    git(main, "worktree", "add", "-q", str(worktree), "-b", "side")
    gitfile = (worktree / ".git").read_text()
    box = prepare(worktree, tmp_path / "scratch")
    private = main / ".git" / "worktrees" / "wt"

    verdicts = _verdicts(
        box.out(
            'try() { if ( eval "$2" ) >/dev/null 2>&1; then echo "DID $1"; else echo "refused $1"; fi; }\n'
            "try gitfile 'printf \"gitdir: /x\" > .git'\n"
            "try remove 'rm -f .git && test ! -e .git'\n"
            f"try commondir 'echo /x > {private}/commondir'\n"
            f"try common-config 'echo evil >> {main}/.git/config'\n"
            "try fsmonitor 'git config core.fsmonitor evil'\n"
        )
    )

    assert verdicts and set(verdicts.values()) == {"refused"}, verdicts
    assert (worktree / ".git").read_text() == gitfile
    assert box.run("git status --short").exit_code == 0


@pytest.mark.usefixtures("bwrap_works")
def test_a_policy_that_allows_git_dir_writes_still_keeps_hooks_and_config_read_only(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    box = prepare(ws, tmp_path / "scratch", allow_git_dir_writes=True)

    verdicts = _verdicts(
        box.out(
            'try() { if ( eval "$2" ) >/dev/null 2>&1; then echo "DID $1"; else echo "refused $1"; fi; }\n'
            "try objects 'echo x > .git/objects/probe'\n"
            "try hook 'echo evil > .git/hooks/pre-push'\n"
            "try config 'echo evil >> .git/config'\n"
        )
    )

    assert verdicts == {"objects": "DID", "hook": "refused", "config": "refused"}


@pytest.mark.usefixtures("bwrap_works")
def test_an_additional_directorys_git_directory_is_read_only_too(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    other = make_repo(tmp_path / "other")
    box = prepare(ws, tmp_path / "scratch", additional_directories=(other,))

    result = box.run(f"echo evil > {other}/.git/commondir; echo $?; echo ok > {other}/file; echo $?")

    assert result.stdout.text().split() == ["1", "0"]
    assert not (other / ".git" / "commondir").exists() and (other / "file").read_text() == "ok\n"


@pytest.mark.usefixtures("bwrap_works")
def test_a_sub_agent_in_its_own_worktree_gets_the_same_sandbox_laid_out_around_it(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main")
    scratch = tmp_path / "scratch"
    worktree = scratch / "worktrees" / "agent-1"
    git(main, "worktree", "add", "-q", str(worktree), "-b", "agent-1")
    env = build_child_env(os.environ).env
    parent = make_context(main, scratch_dir=scratch, permission=PermissionContext(extra={"sandbox": "required"}))
    parent_status = anyio.run(lambda: ensure_sandbox(parent, env))
    child = parent.with_(workspace=worktree.resolve(), agent_id="agent-1")

    status = anyio.run(lambda: ensure_sandbox(child, env))

    assert status.spec is not None and parent_status.spec is not None
    assert worktree.resolve() in status.spec.writable and main not in status.spec.writable
    assert anyio.run(lambda: ensure_sandbox(child, env)) is status
    argv = status.launch_argv(
        Sandboxed(),
        shell_argv("echo made > made.txt && git status --short && (echo x > .git) 2>/dev/null || echo refused"),
        cwd=worktree,
    )
    result = anyio.run(lambda: run_process(argv, cwd=worktree, env=env, timeout_s=60))
    assert result.stdout.text().splitlines() == ["?? made.txt", "refused"], result.stderr.text()


@pytest.mark.parametrize(
    ("description", "config", "kept"),
    [
        (
            "checkout's persisted header goes",
            '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n[core]\n\tbare = false\n',
            '[http "https://github.com/"]\n[core]\n\tbare = false\n',
        ),
        (
            "a token in a remote URL goes",
            '[remote "origin"]\n\turl = https://x:ghs_' + "a" * 36 + "@github.com/o/r\n"
            "\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
            '[remote "origin"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
        ),
        (
            "a known secret's value goes, with its continuation lines",
            "[x]\n\tv = s3cr3t-value-1 \\\n\tmore\n\tw = 1\n",
            "[x]\n\tw = 1\n",
        ),
        ("everything else stays", "[user]\n\tname = bot\n", "[user]\n\tname = bot\n"),
        (
            "a section named by a URL with a token goes whole",
            '[url "https://x:ghs_'
            + "a" * 36
            + '@github.com/"]\n\tinsteadOf = https://github.com/\n[user]\n\tname = bot\n',
            "[user]\n\tname = bot\n",
        ),
    ],
)
def test_the_sandbox_shows_git_config_without_credentials(description: str, config: str, kept: str) -> None:
    from bot.shell.sandbox.git_dirs import credential_free_config

    assert credential_free_config(config, {"MY_SECRET": "s3cr3t-value-1"}) == kept, description


def test_submodule_configs_are_among_those_shown_without_credentials(tmp_path: Path) -> None:
    from bot.shell.sandbox.git_dirs import protect_repository

    repo = make_repo(tmp_path / "repo")
    module = repo / ".git" / "modules" / "lib" / "nested"
    module.mkdir(parents=True)
    (module / "config").write_text("[core]\n")
    protection = protect_repository(repo, allow_git_dir_writes=False)
    assert module / "config" in protection.configs
    assert repo / ".git" / "config" in protection.configs


def test_a_worktrees_commondir_stays_read_only_even_when_git_may_write(tmp_path: Path) -> None:
    from bot.shell.sandbox.git_dirs import protect_repository

    repo = make_repo(tmp_path / "repo")
    worktree = tmp_path / "worktree"
    git(repo, "worktree", "add", "-q", "-b", "side", str(worktree))
    protection = protect_repository(worktree, allow_git_dir_writes=True)
    own = repo.resolve() / ".git" / "worktrees" / "worktree"
    assert own in protection.writable  # git may write the worktree's git directory...
    # ...but not what would send the bot's host-side git to another directory's configuration.
    assert {own / "commondir", own / "gitdir"} <= set(protection.read_only)
