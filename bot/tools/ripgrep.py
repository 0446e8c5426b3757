"""The ripgrep binary, and running it without a shell.

The ``ripgrep`` wheel puts only a binary at ``<venv>/bin/rg``; a system ``rg`` may shadow it on
``PATH``, so the interpreter's own scripts directory is looked at first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from functools import cache
from pathlib import Path

import anyio

from bot.errors import ToolExecutionError


@cache
def rg_path() -> str:
    override = os.environ.get("BOT_RG_PATH")
    if override:
        return override
    scripts = Path(sysconfig.get_path("scripts")) / "rg"
    if scripts.is_file() and os.access(scripts, os.X_OK):
        return str(scripts)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolExecutionError("ripgrep (rg) is not installed: install the `ripgrep` package")


async def run_rg(args: list[str], cwd: Path, *, timeout_s: float = 60.0) -> tuple[int, bytes, bytes]:
    """Run rg; exit 0 = matches, 1 = none, 2 = error (partial results may still be in stdout)."""
    with anyio.fail_after(timeout_s):
        done = await anyio.run_process([rg_path(), *args], cwd=cwd, check=False,
                                       stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr
