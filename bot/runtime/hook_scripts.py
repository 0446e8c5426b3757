"""Which files a hook command runs, and whether they are still the trusted ones.

Hook commands come from the default branch's policy, but the scripts they name live in the
checkout: ``python scripts/lint.py``, ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh``, ``make lint``
(the Makefile). A pull request's head, or the model during the run, can rewrite them. A hook whose
files changed — anywhere in the tree, not only under ``.claude/`` — is not run: a ``PreToolUse`` or
``UserPromptSubmit`` hook then blocks (a guard that cannot run must not let the call through), any
other hook is skipped; the run's summary names the file. Hooks also run in the sandbox
(:mod:`bot.shell.confine`), so what this cannot see (a script sourcing another file) runs with no
more than a Bash command gets.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

#: Files a program reads as its script when none is named (``make`` reads the Makefile).
IMPLICIT_FILES: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "npm": ("package.json",), "npx": ("package.json",), "yarn": ("package.json",), "pnpm": ("package.json",),
    "bun": ("package.json",), "tox": ("tox.ini",), "nox": ("noxfile.py",), "just": ("justfile", "Justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"), "pre-commit": (".pre-commit-config.yaml",),
    "rake": ("Rakefile",), "invoke": ("tasks.py",), "poe": ("pyproject.toml",), "hatch": ("pyproject.toml",),
}
#: Words that look like scripts even without a directory part.
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".ps1")
_PROJECT_VARS = re.compile(r"\$\{?(?:CLAUDE_PROJECT_DIR|BOT_PROJECT_DIR)\}?")
_OPERATORS = re.compile(r"[;&|()<>]+")


def referenced_files(command: str, project_dir: Path) -> tuple[str, ...]:
    """Paths, relative to ``project_dir``, of the files inside it that ``command`` names or runs
    implicitly — whether or not they exist now (a script the model creates later counts)."""
    text = _PROJECT_VARS.sub(str(project_dir), command)
    try:
        words = shlex.split(_OPERATORS.sub(" ", text))
    except ValueError:
        words = _OPERATORS.sub(" ", text).split()
    root = project_dir.resolve()
    found: list[str] = []
    for word in words:
        if not word or word.startswith("-") or "=" in word.split("/")[0]:
            continue
        name = Path(word).name
        found += IMPLICIT_FILES.get(name, ())
        if "/" not in word and not word.endswith(_SCRIPT_SUFFIXES):
            continue
        candidate = Path(word) if Path(word).is_absolute() else project_dir / word
        try:
            relative = candidate.resolve().relative_to(root)
        except (ValueError, OSError):
            continue  # outside the project: not the checkout's to change
        if str(relative) != ".":
            found.append(relative.as_posix())
    return tuple(dict.fromkeys(found))


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


class HookScriptGuard:
    """Taken before the model runs: each hook command's files and their content."""

    def __init__(self, project_dir: Path, commands: Iterable[str], untrusted_paths: Iterable[str] = ()) -> None:
        self.project_dir = project_dir
        self._untrusted = frozenset(untrusted_paths)
        self._files: dict[str, tuple[str, ...]] = {}
        self._digests: dict[str, str | None] = {}
        for command in commands:
            self._remember(command)

    def _remember(self, command: str) -> tuple[str, ...]:
        if command not in self._files:
            files = referenced_files(command, self.project_dir)
            self._files[command] = files
            for rel in files:
                self._digests.setdefault(rel, _digest(self.project_dir / rel))
        return self._files[command]

    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rel for files in self._files.values() for rel in files))

    def why_not(self, command: str) -> str | None:
        """Why this hook must not run (its files changed), or ``None``."""
        for rel in self._remember(command):
            if rel in self._untrusted:
                return f"`{rel}`, which it runs, is changed by the pull request's head"
            if _digest(self.project_dir / rel) != self._digests.get(rel):
                return f"`{rel}`, which it runs, changed during the run"
        return None


__all__ = ["IMPLICIT_FILES", "HookScriptGuard", "referenced_files"]
