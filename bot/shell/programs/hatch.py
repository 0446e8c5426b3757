"""``hatch run [ENV:]NAME``: a script of the project, or a command (hatch's own rule).

Hatch runs NAME as the environment's script when the project defines one (``[tool.hatch.envs.ENV
.scripts]`` in ``pyproject.toml``, ``[envs.ENV.scripts]`` in ``hatch.toml``), and as a command
otherwise. A script is project code, as ``npm run NAME`` is: the rule for ``hatch run`` covers it.
A command is judged as a command of its own. Only a script the files define *now* counts; anything
unreadable or ambiguous is a command (the safe reading).
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

#: Project files larger than this are not read (a pyproject.toml is a few kilobytes).
MAX_PROJECT_FILE_BYTES = 1_000_000


def is_hatch_script(word: str, cwd: str | None, roots: tuple[str, ...]) -> bool:
    """Whether ``word`` (``ENV:NAME`` or ``NAME``) names a script of the hatch project that
    ``cwd`` belongs to (the nearest ``pyproject.toml``/``hatch.toml`` up to a workspace root)."""
    if cwd is None or not word or "/" in word:
        return False
    env, _, name = word.rpartition(":")
    env = env or "default"
    directory = cwd
    while True:
        for filename, prefix in (("hatch.toml", ("envs",)), ("pyproject.toml", ("tool", "hatch", "envs"))):
            document = _load(os.path.join(directory, filename))
            if document is None:
                continue
            envs = _dig(document, prefix)
            if isinstance(envs, dict):
                scripts = _dig(envs, (env, "scripts"))
                if isinstance(scripts, dict) and name in scripts:
                    return True
        if directory in roots or directory == "/" or not any(directory.startswith(r + "/") for r in roots):
            return False
        directory = os.path.dirname(directory)


def _load(path: str) -> dict[str, Any] | None:
    try:
        if os.path.getsize(path) > MAX_PROJECT_FILE_BYTES:
            return None
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


def _dig(value: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
