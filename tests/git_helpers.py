"""git for tests that build repositories: no system or global configuration, a fixed identity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: The environment of a test's own git commands (``HOME`` is added per call).
GIT_ENV = {
    "PATH": os.environ.get("PATH", ""),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(cwd: Path, *args: str) -> str:
    """Run ``git ARGS`` in ``cwd`` (its ``HOME`` is ``cwd``); its standard output."""
    done = subprocess.run(["git", *args], cwd=cwd, env={**GIT_ENV, "HOME": str(cwd)}, check=True, capture_output=True)
    return done.stdout.decode()
