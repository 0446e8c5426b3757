"""Attacks on the bot's own git: a workspace whose .git a command rewrote must not run code on the host.

Each test plants what sandboxed (or unsandboxed) model-written code could write, then lets the bot
do what it does after the model finished (status, diff, commit, push) and checks that no planted
command ran — a marker file it would create stays absent — or that the bot refused to go on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.core.host_git import GitDirTampered, host_git_env
from bot.orchestration.git import GitWorkspace
from tests.orchestration.test_git import clone, commit, git

TOKEN = "ghs_GuardT0ken" + "x" * 20


@pytest.fixture(autouse=True)
def no_machine_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty-gitconfig").write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "empty-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    bare = tmp_path / "origin.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    seed = clone(bare, tmp_path / "seed")
    commit(seed, {"README.md": "# app\n", "app.py": "print('hi')\n"}, "initial")
    git("push", "-q", "origin", "main", cwd=seed)
    return bare


@pytest.fixture
def work(origin: Path, tmp_path: Path) -> Path:
    return clone(origin, tmp_path / "work")


def evil(tmp_path: Path) -> tuple[Path, Path]:
    """A program that leaves a marker (and the environment it got) when it runs."""
    marker = tmp_path / "PWNED"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\nenv > {marker}\nexit 0\n")
    script.chmod(0o755)
    return script, marker


def after_the_model(ws: GitWorkspace, work: Path) -> None:
    """What the runner does once the agent finished."""
    (work / "app.py").write_text("print('fixed')\n")
    ws.has_changes()
    ws.commit_all("fix")
    ws.diff("origin/main")


@pytest.mark.parametrize(
    ("description", "key"),
    [
        ("fsmonitor runs on status, diff and add", "core.fsmonitor"),
        ("hooksPath points at a directory of hooks", "core.hooksPath"),
        ("a pager", "core.pager"),
        ("an external diff", "diff.external"),
    ],
)
def test_configuration_written_before_the_seal_runs_nothing(
    description: str, key: str, work: Path, tmp_path: Path
) -> None:
    script, marker = evil(tmp_path)
    value = str(script)
    if key == "core.hooksPath":
        hooks = tmp_path / "hooks"
        hooks.mkdir()
        for name in ("pre-commit", "commit-msg", "post-commit", "pre-push", "reference-transaction"):
            shutil.copy(script, hooks / name)
        value = str(hooks)
    git("config", "--local", key, value, cwd=work)
    ws = GitWorkspace(work, token=TOKEN)
    after_the_model(ws, work)
    ws.push("bot/x")
    assert not marker.exists(), description


def test_hooks_in_the_git_directory_never_run_on_commit_or_push(work: Path, tmp_path: Path) -> None:
    script, marker = evil(tmp_path)
    for name in ("pre-commit", "commit-msg", "post-commit", "pre-push", "post-checkout", "reference-transaction"):
        shutil.copy(script, work / ".git" / "hooks" / name)
    ws = GitWorkspace(work, token=TOKEN)
    ws.prepare_branch("bot/x", base="main")
    after_the_model(ws, work)
    ws.push("bot/x")
    assert not marker.exists()


@pytest.mark.parametrize(
    "description",
    [
        "core.fsmonitor added to .git/config",
        ".git/commondir points at a copied repository whose config runs a command",
        ".git/config.worktree appears",
        ".git renamed away and rebuilt",
        ".git replaced by a .git file pointing elsewhere",
        "an include of a file the workspace controls",
    ],
)
def test_a_git_directory_changed_after_the_seal_stops_every_host_git_command(
    description: str, work: Path, tmp_path: Path
) -> None:
    script, marker = evil(tmp_path)
    ws = GitWorkspace(work, token=TOKEN)
    ws.seal()
    dot_git = work / ".git"
    if description.startswith("core.fsmonitor"):
        with (dot_git / "config").open("a") as f:
            f.write(f"[core]\n\tfsmonitor = {script}\n")
    elif description.startswith(".git/commondir"):
        copy = tmp_path / "copied.git"
        shutil.copytree(dot_git, copy)
        with (copy / "config").open("a") as f:
            f.write(f"[core]\n\tfsmonitor = {script}\n")
        (dot_git / "commondir").write_text(str(copy) + "\n")
    elif description.startswith(".git/config.worktree"):
        (dot_git / "config.worktree").write_text(f"[core]\n\tfsmonitor = {script}\n")
    elif description.startswith(".git renamed"):
        shutil.copytree(dot_git, tmp_path / "rebuilt")
        dot_git.rename(work / "old-git")
        shutil.copytree(tmp_path / "rebuilt", dot_git)
        with (dot_git / "config").open("a") as f:
            f.write(f"[core]\n\tfsmonitor = {script}\n")
    elif description.startswith(".git replaced"):
        shutil.copytree(dot_git, tmp_path / "elsewhere.git")
        with (tmp_path / "elsewhere.git" / "config").open("a") as f:
            f.write(f"[core]\n\tfsmonitor = {script}\n")
        shutil.rmtree(dot_git)
        dot_git.write_text(f"gitdir: {tmp_path / 'elsewhere.git'}\n")
    else:
        (work / "inc.cfg").write_text(f"[core]\n\tfsmonitor = {script}\n")
        with (dot_git / "config").open("a") as f:
            f.write(f"[include]\n\tpath = {work / 'inc.cfg'}\n")
    with pytest.raises(GitDirTampered) as refused:
        after_the_model(ws, work)
    assert "changed during the run" in str(refused.value)
    with pytest.raises(GitDirTampered):
        ws.push("bot/x")
    assert not marker.exists(), description


def test_an_intact_seal_lets_the_run_commit_and_push(work: Path, origin: Path) -> None:
    ws = GitWorkspace(work, token=TOKEN)
    ws.configure_identity()
    ws.prepare_branch("bot/x", base="main")
    ws.seal()
    after_the_model(ws, work)
    assert ws.push("bot/x").how == "created"
    assert git("--git-dir", str(origin), "rev-parse", "bot/x") == ws.head_sha()


def test_a_nested_repository_planted_in_the_tree_is_data_not_a_repository(work: Path, tmp_path: Path) -> None:
    script, marker = evil(tmp_path)
    nested = work / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (nested / "f.txt").write_text("x\n")
    subprocess.run(["git", "-C", str(nested), "config", "core.fsmonitor", str(script)], check=True)
    ws = GitWorkspace(work, token=TOKEN)
    ws.seal()
    after_the_model(ws, work)
    assert not marker.exists()


def test_the_users_global_config_is_not_read(work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script, marker = evil(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {script}\n\tpager = {script}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    ws = GitWorkspace(work, token=TOKEN)
    after_the_model(ws, work)
    assert not marker.exists()


def test_the_environment_is_an_allowlist() -> None:
    parent = {
        "PATH": "/usr/bin",
        "GITHUB_TOKEN": TOKEN,
        "GIT_DIR": "/elsewhere",
        "GIT_SSH_COMMAND": "evil",
        "LD_PRELOAD": "/x.so",
        "HTTPS_PROXY": "http://proxy:3128",
    }
    env = host_git_env(git_dir=Path("/w/.git"), work_tree=Path("/w"), home=Path("/h"), parent=parent)
    assert env["GIT_DIR"] == "/w/.git"
    assert "GITHUB_TOKEN" not in env and "GIT_SSH_COMMAND" not in env and "LD_PRELOAD" not in env
    assert "HTTPS_PROXY" not in env
    remote = host_git_env(git_dir=Path("/w/.git"), work_tree=Path("/w"), home=Path("/h"), parent=parent, remote=True)
    assert remote["HTTPS_PROXY"] == "http://proxy:3128"
    assert os.devnull == env["GIT_CONFIG_GLOBAL"]
