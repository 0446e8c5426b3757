"""Where a stdio MCP server runs, and what of the workspace reaches it.

A stdio server runs on the host, outside the sandbox, and the common launchers read their working
directory: ``python -m`` and ``python -c`` put it first on ``sys.path`` (for every later import
too), ``npx`` runs the project's ``node_modules/.bin`` and obeys its ``.npmrc`` (``node-options``,
``script-shell``), ``uv run`` obeys ``pyproject.toml``, ``uv.toml``, ``.python-version`` and
``.venv``, ``docker run`` resolves ``--env-file .env`` and ``-v ./dir`` against it, and servers
read ``./.env`` (``process.loadEnvFile()``, python-dotenv, pydantic-settings). When servers start,
the workspace already holds what nobody trusts — a pull request's head, an earlier run's branch —
and from the first command on, whatever the model writes. So:

* every stdio server of a manager runs in one private directory made for it (mode 0700, empty,
  removed when the manager closes), never in the workspace; a private directory that would lie
  inside the workspace or a directory the policy lets the model write (``TMPDIR`` pointing there)
  is refused, and the stdio servers fail with the reason;
* the ``PATH`` a server inherits keeps no entry inside those directories and no relative entry:
  a workflow that put ``$GITHUB_WORKSPACE/.venv/bin`` on ``PATH`` does not let the checkout choose
  the ``npx``, ``uvx`` or ``python`` a server starts with (nor the ``git`` it runs later);
* a configuration names the workspace where it wants it, as ``${CLAUDE_PROJECT_DIR}``
  (:func:`bot.mcp.config.with_workspace`). What it names there, the server reads on the host.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from bot.core.search_path import host_search_path, within_any

#: Said when a server that names a relative path fails: relative paths no longer mean the workspace.
RELATIVE_HINT = (
    "relative paths ({paths}) resolve against the server's own private directory, not the workspace: "
    "write ${{CLAUDE_PROJECT_DIR}}/… to name the workspace"
)

#: Arguments that end like this name a file (``python server.py``, ``node index.js``).
_FILE_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".json", ".toml", ".yaml", ".yml", ".env")


def _roots(workspace: Path | None, writable: Sequence[Path]) -> list[Path]:
    return ([workspace] if workspace is not None else []) + list(writable)


def directory_problem(directory: Path, workspace: Path | None, writable: Sequence[Path] = ()) -> str | None:
    """Why ``directory`` cannot be the servers' private working directory, or ``None``. Launchers
    look in it and in its parents (npm and uv walk up to the first project they find)."""
    if workspace is not None and within_any(directory, _roots(workspace, ())):
        where = "inside the workspace"
    elif within_any(directory, _roots(None, writable)):
        where = "inside a directory the policy lets the model write"
    else:
        return None
    return (
        f"the servers' private directory {directory} would be {where}, where the model writes "
        "(set TMPDIR to a directory outside it)"
    )


def inherited_path(value: str | None, workspace: Path | None, writable: Sequence[Path] = ()) -> str | None:
    """``PATH`` without relative entries (they resolve against the working directory) and without
    entries inside the workspace or a directory the model writes."""
    return host_search_path(value, _roots(workspace, writable))


def relative_paths(command: str, args: Sequence[str]) -> list[str]:
    """The command and arguments that look like relative paths: before servers ran in a private
    directory they meant the workspace (``node server.js``, ``"args": ["."]``, ``-v ./data:/data``)."""
    found = []
    if "/" in command and not os.path.isabs(command) and not command.startswith("$"):
        found.append(command)
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if not value or os.path.isabs(value) or value.startswith("$") or "://" in value:
            continue
        if value in (".", "..") or value.startswith(("./", "../")) or value.endswith(_FILE_SUFFIXES):
            found.append(arg)
    return found
