"""What the real-sandbox tests share: a skip when ``bwrap`` cannot run here, a prepared sandbox, a run.

The skip is never silent: the probe's reason is shown with ``-rs`` and as a warning.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from bot.shell.execute.env import build_child_env
from bot.shell.execute.process import ProcessResult, run_process, shell_argv
from bot.shell.sandbox.status import Sandboxed, SandboxSettings, SandboxStatus, prepare_sandbox, probe_bwrap

#: A git identity for fixture commits, passed as ``-c`` options (no global config is touched).
GIT_IDENTITY = ("-c", "user.email=fixture@example.invalid", "-c", "user.name=fixture", "-c", "commit.gpgsign=false")


@pytest.fixture(scope="module")
def bwrap_works() -> str:
    probe = anyio.run(probe_bwrap)
    if not probe.works:
        warnings.warn(f"sandbox tests skipped: {probe.reason}", stacklevel=1)
        pytest.skip(f"bwrap cannot run here: {probe.reason}")
    return probe.reason


@dataclass
class Box:
    """A prepared sandbox for a workspace, and a way to run commands in it."""

    ws: Path
    scratch: Path
    env: dict[str, str]
    status: SandboxStatus

    def run(self, command: str, *, cwd: Path | None = None) -> ProcessResult:
        where = cwd or self.ws
        argv = self.status.launch_argv(Sandboxed(), shell_argv(command), cwd=where)
        return anyio.run(lambda: run_process(argv, cwd=where, env=self.env, timeout_s=60))

    def out(self, command: str, *, cwd: Path | None = None) -> str:
        return self.run(command, cwd=cwd).stdout.text()


def prepare(
    ws: Path,
    scratch: Path,
    *,
    environ: Mapping[str, str] | None = None,
    network: bool = False,
    additional_directories: tuple[Path, ...] = (),
    allow_git_dir_writes: bool = False,
) -> Box:
    """A ``required`` sandbox for ``ws``; ``environ`` stands for the bot's environment (HOME, PATH...)."""
    environ = dict(os.environ if environ is None else environ)
    env = build_child_env(environ).env
    env.update(TMPDIR="/tmp")
    settings = SandboxSettings(mode="required", network=network)
    status = anyio.run(
        lambda: prepare_sandbox(
            settings,
            workspace=ws,
            scratch_dir=scratch,
            env=env,
            environ=environ,
            additional_directories=additional_directories,
            allow_git_dir_writes=allow_git_dir_writes,
        )
    )
    return Box(ws, scratch, env, status)


def git(cwd: Path, *args: str) -> str:
    """Host-side git for building fixtures. Its environment: PATH to find git, HOME pointed at the
    fixture so no user configuration is read, and no system configuration."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    done = subprocess.run(
        ["git", *GIT_IDENTITY, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


def make_repo(root: Path) -> Path:
    """A repository with one commit and one modified file."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "first")
    (root / "a.txt").write_text("one\ntwo\n")
    return root
