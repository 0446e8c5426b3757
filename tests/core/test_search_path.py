"""The PATH of what the bot runs on the host: the workspace never chooses the program.

A workflow may put a directory of the checkout on PATH (``$GITHUB_WORKSPACE/node_modules/.bin``),
and a relative entry resolves against the working directory, the workspace. Each attack plants the
program there and fails without :func:`bot.core.search_path.host_search_path` (checked by reverting
it: the planted program runs)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from bot.core.host_git import host_git_env
from bot.core.search_path import host_search_path
from bot.orchestration.git import GitWorkspace
from bot.shell.sandbox.status import SandboxSettings, prepare_sandbox

REAL_PATH = os.environ.get("PATH", "/usr/bin:/bin")


@pytest.mark.parametrize(
    ("value", "untrusted", "expected"),
    [
        ("/usr/bin:/bin", (), "/usr/bin:/bin"),
        ("bin:/usr/bin::.:./node_modules/.bin", (), "/usr/bin"),
        ("/ws/node_modules/.bin:/usr/bin:/ws", ("/ws",), "/usr/bin"),
        ("/ws2/bin:/usr/bin", ("/ws",), "/ws2/bin:/usr/bin"),  # a neighbour is not inside
        ("/usr/bin:/usr/bin/", (), "/usr/bin:/usr/bin/"),
        ("/usr/bin:/usr/bin", (), "/usr/bin"),
    ],
)
def test_relative_and_workspace_entries_leave_the_path(value: str, untrusted: tuple[str, ...], expected: str) -> None:
    assert host_search_path(value, untrusted) == expected
    assert host_search_path(None) is None


def test_a_link_into_the_workspace_is_inside_it(tmp_path: Path) -> None:
    (tmp_path / "ws" / "bin").mkdir(parents=True)
    (tmp_path / "elsewhere").symlink_to(tmp_path / "ws" / "bin")
    assert host_search_path(f"{tmp_path / 'elsewhere'}:/usr/bin", (tmp_path / "ws",)) == "/usr/bin"


def _plant(directory: Path, name: str, marker: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / name
    program.write_text(f"#!/bin/sh\necho planted >> {marker}\nexit 1\n")
    program.chmod(0o755)


def _repository(path: Path) -> Path:
    env = {"PATH": REAL_PATH, "HOME": str(path.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    path.mkdir(parents=True)
    for args in (
        ["init", "-q"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "i"],
    ):
        subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)
    return path


def test_the_bots_own_git_is_never_a_git_the_workspace_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _repository(tmp_path / "ws")
    marker = tmp_path / "ran"
    _plant(ws / "bin", "git", marker)
    _plant(ws / "node_modules" / ".bin", "git", marker)
    monkeypatch.chdir(ws)
    monkeypatch.setenv("PATH", f"bin:{ws / 'node_modules' / '.bin'}:{REAL_PATH}")
    workspace = GitWorkspace(ws, home=tmp_path / "home")
    assert workspace.has_changes()  # the planted files are new in the tree: git really ran
    assert not marker.exists(), "the workspace's git ran as the bot's own"
    env = host_git_env(git_dir=None, work_tree=None, home=tmp_path, untrusted=(ws,))
    assert env["PATH"] == host_search_path(REAL_PATH)


def test_the_sandbox_is_never_a_bwrap_the_workspace_holds(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "ran"
    _plant(ws / "node_modules" / ".bin", "bwrap", marker)
    _plant(ws / "node_modules" / ".bin", "setpriv", marker)
    environ = {"PATH": f"{ws / 'node_modules' / '.bin'}:{tmp_path / 'nothing'}", "HOME": str(tmp_path)}

    async def main() -> object:
        return await prepare_sandbox(
            SandboxSettings(mode="auto"), workspace=ws, scratch_dir=tmp_path / "s", env={}, environ=environ
        )

    status = anyio.run(main)
    assert not marker.exists(), "the workspace's bwrap (or setpriv) was run as the sandbox's"
    assert not getattr(status, "available", True)
