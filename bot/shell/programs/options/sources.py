"""Where a program's documentation is read from, and which package and version it belongs to.

The generator runs three kinds of subprocess, each from a temporary directory that is also its
HOME, with stdin closed, a timeout and the environment of :func:`environment` (nothing inherited):

* ``man`` (``-w`` to locate a page, ``-P cat`` to render it; ``-M DIR`` for a program that ships
  its pages in a directory of its own, npm's);
* ``PROGRAM --help`` (or ``PROGRAM SUB --help``) of a program the analysis tables, found on the
  system's directories and the maintainer's tool directories (:data:`TOOL_DIRS` and
  ``--tool-dir``), never a workspace's files; ``PROGRAM --version`` when no package records one;
* ``dpkg-query`` for the Debian package owning a page or binary.

A tool installed with pip or npm is identified without running anything: the distribution whose
console script it is (``importlib.metadata`` over its environment's ``site-packages``), or the
nearest ``package.json`` above the script a ``node_modules/.bin`` entry points to.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

#: Long enough for ``man`` to format a large page (bash(1), git-config(1)) on a slow runner.
TIMEOUT_SECONDS = 20
#: ``--help`` of a program that waits or misbehaves is not worth more than this (node tools take a
#: few seconds to start on a loaded machine).
HELP_TIMEOUT_SECONDS = 10
#: Where tools installed outside the system's directories live on a maintainer's machine (rustup's
#: cargo and rustc, the project's virtual environment with pytest, ruff, mypy, rg).
TOOL_DIRS = (str(Path.home() / ".cargo" / "bin"), str(Path(sys.executable).parent))
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"


def environment(home: str, tool_dirs: tuple[str, ...] = ()) -> dict[str, str]:
    """What every subprocess of the generator receives, and nothing else."""
    dirs = (*TOOL_DIRS, *tool_dirs)
    man_dirs = [str(Path(d).parent / "share" / "man") for d in dirs if (Path(d).parent / "share" / "man").is_dir()]
    env = {
        # the installed programs, then the tool directories (the maintainer's, last: a scratch
        # environment's pip or python does not shadow the system's)
        "PATH": ":".join((SYSTEM_PATH, *dirs)),
        "HOME": home,  # a temporary one: no rc file of the operator's is read
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",  # English documentation, stable formatting
        "MANWIDTH": "200",  # an option's header on one line
        "MANPAGER": "cat",
        "PAGER": "cat",  # man prints instead of paging
        "TERM": "dumb",
        "NO_COLOR": "1",  # no escape sequences
        "COLUMNS": "200",  # click, argparse and yargs wrap at the terminal's width
    }
    if man_dirs:
        # pages a tool directory's environment installed (share/man beside bin/); the trailing
        # colon appends the system's manual path
        env["MANPATH"] = ":".join(man_dirs) + ":"
    return env


def run(argv: list[str], env: dict[str, str], cwd: str, timeout: int) -> str | None:
    """Standard output (or error, for a program that prints its help there), without overstrikes."""
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).decode("utf-8", "replace").replace(cwd, "~")  # defaults under HOME
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # colour some tools print whatever NO_COLOR says
    return re.sub(r".\x08", "", text)


def own_man_dir(program: str, env: dict[str, str]) -> str | None:
    """The directory of pages a program ships outside the manual path: npm's ``man/``."""
    if program != "npm":
        return None
    from shutil import which

    binary = which("npm", path=env["PATH"])
    if binary is None:
        return None
    directory = Path(os.path.realpath(binary)).parents[1] / "man"  # node_modules/npm/bin/npm-cli.js
    return str(directory) if directory.is_dir() else None


def package(path: str, env: dict[str, str], cwd: str) -> tuple[str, str]:
    """The package that ships ``path`` and its version (``("", "")`` when none is known): npm's
    ``package.json``, a Python distribution's metadata, else Debian's."""
    return _npm_package(path) or _python_distribution(path) or _debian_package(path, env, cwd) or ("", "")


def _npm_package(path: str) -> tuple[str, str] | None:
    real = Path(os.path.realpath(path))
    if "node_modules" not in real.parts:
        return None
    for parent in real.parents:
        manifest = parent / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("name") and data.get("version"):
                return str(data["name"]), str(data["version"])
        if parent.name == "node_modules":
            break
    return None


def _python_distribution(path: str) -> tuple[str, str] | None:
    """The distribution whose console script ``path`` is, in the environment it belongs to."""
    script = Path(path)
    if not (script.parent.parent / "pyvenv.cfg").is_file():
        return None
    sites = [str(p) for p in script.parent.parent.glob("lib/python*/site-packages")]
    for dist in metadata.distributions(path=sites):
        for entry in dist.entry_points:
            if entry.group in ("console_scripts", "gui_scripts") and entry.name == script.name:
                return dist.metadata["Name"], dist.version
    return None


def _debian_package(path: str, env: dict[str, str], cwd: str) -> tuple[str, str] | None:
    owner = run(["dpkg-query", "-S", os.path.realpath(path)], env, cwd, TIMEOUT_SECONDS) or ""
    if ":" not in owner or "no path found" in owner:
        owner = run(["dpkg-query", "-S", path], env, cwd, TIMEOUT_SECONDS) or ""
    if ":" not in owner or "no path found" in owner:
        return None
    name = owner.split(":", 1)[0].split(",")[0].strip()
    version = run(["dpkg-query", "-W", "-f=${Version}", name], env, cwd, TIMEOUT_SECONDS) or ""
    return name, version.strip()
