"""The bot's import path drops what the job's PYTHONPATH and working directory put on it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core.import_path import confined

SITE = "/venv/lib/python3.11/site-packages"
STDLIB = "/usr/lib/python3.11"


@pytest.mark.parametrize(
    ("path", "pythonpath", "cwd", "kept"),
    [
        pytest.param(
            ["/venv/bin", "/ws/src", STDLIB, SITE], "/ws/src", "/ws", ["/venv/bin", STDLIB, SITE], id="PYTHONPATH"
        ),
        pytest.param(["/venv/bin", "/ws/src", STDLIB, SITE], "src", "/ws", ["/venv/bin", STDLIB, SITE], id="relative"),
        pytest.param(["/venv/bin", "/ws/src/", STDLIB], "src:lib", "/ws", ["/venv/bin", STDLIB], id="spelled-apart"),
        pytest.param(["/ws", STDLIB, SITE], "", "/ws", [STDLIB, SITE], id="python -m from the workspace"),
        pytest.param(["", STDLIB, SITE], "", "/ws", [STDLIB, SITE], id="python -c"),
        pytest.param(["/bot", STDLIB], "/bot", "/ws", ["/bot", STDLIB], id="the bot's own checkout"),
        pytest.param(["/venv/bin", STDLIB, SITE, "/bot"], "", "/ws", ["/venv/bin", STDLIB, SITE, "/bot"], id="nothing"),
    ],
)
def test_what_the_job_named_leaves_the_path(path: list[str], pythonpath: str, cwd: str, kept: list[str]) -> None:
    got, dropped = confined(path, {"PYTHONPATH": pythonpath}, cwd, "/bot")
    assert got == kept
    assert sorted(dropped) == sorted(set(path) - set(kept))


def test_a_process_started_with_pythonpath_in_the_workspace_imports_nothing_from_it(tmp_path: Path) -> None:
    """End to end in a real interpreter: after confinement, a module in the named directory that
    shadows one the bot imports later (here a standard-library one not yet loaded) is not used."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "this.py").write_text("raise SystemExit('the workspace module ran')\n")
    script = (
        "import sys\n"
        "from bot.core.import_path import confine_import_path\n"
        "dropped = confine_import_path()\n"
        "import this\n"
        "print('dropped', dropped)\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{src}{os.pathsep}{Path.cwd()}"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert str(src) in done.stdout


def test_a_fleet_leg_starts_the_bot_isolated_from_its_checkout(tmp_path: Path) -> None:
    """A leg runs ``bot run`` in the target's checkout: a module there named like one the CLI imports
    at start (here ``typer``) is never the one imported."""
    from bot.fleet.leg import bot_command

    (tmp_path / "typer.py").write_text("raise SystemExit('the checkout module ran')\n")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [*bot_command(), "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("bot "), done.stdout + done.stderr
