"""Which files a hook command runs, and whether they are still the trusted ones.

Hook commands come from the default branch's policy, but the scripts they name live in the
checkout: ``python scripts/lint.py``, ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh``, ``make lint``
(the Makefile). A pull request's head, or the model during the run, can rewrite them. A hook whose
files changed — anywhere in the tree, not only under ``.claude/`` — is not run: a ``PreToolUse`` or
``UserPromptSubmit`` hook then blocks (a guard that cannot run must not let the call through), any
other hook is skipped; the run's summary names the file. Hooks also run in the sandbox
(:mod:`bot.shell.execute.confine`), so what this cannot see (a script sourcing another file) runs with no
more than a Bash command gets.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
from collections.abc import Iterable
from pathlib import Path

#: Files a program reads as its script when none is named (``make`` reads the Makefile).
IMPLICIT_FILES: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "npm": ("package.json",),
    "npx": ("package.json",),
    "yarn": ("package.json",),
    "pnpm": ("package.json",),
    "bun": ("package.json",),
    "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
    "just": ("justfile", "Justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"),
    "pre-commit": (".pre-commit-config.yaml",),
    "rake": ("Rakefile",),
    "invoke": ("tasks.py",),
    "poe": ("pyproject.toml",),
    "hatch": ("pyproject.toml",),
}
#: Words that look like scripts even without a directory part.
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".ps1")
_PROJECT_VARS = re.compile(r"\$\{?(?:CLAUDE_PROJECT_DIR|BOT_PROJECT_DIR)\}?")
_OPERATORS = re.compile(r"[;&|()<>`]+")
#: A dotted module name, as ``python -m`` takes it.
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
#: How deep quoted scripts inside quoted scripts are looked into.
MAX_NESTED_SCRIPTS = 3


def _words(text: str, depth: int = 0) -> list[str]:
    """The words of ``text``, and of every quoted word with spaces in it (``bash -c "$(cat x)"``:
    the inner script's words name files too)."""
    try:
        words = shlex.split(_OPERATORS.sub(" ", text))
    except ValueError:
        words = _OPERATORS.sub(" ", text).split()
    out: list[str] = []
    for word in words:
        out.append(word)
        if depth < MAX_NESTED_SCRIPTS and any(c.isspace() for c in word):
            out += _words(word, depth + 1)
    return out


def referenced_files(command: str, project_dir: Path) -> tuple[str, ...]:
    """Paths, relative to ``project_dir``, of the files inside it that ``command`` names or runs
    implicitly — whether or not they exist now (a script the model creates later counts): words
    that look like scripts, words that name a file of the project now (``source hookrc``), the
    module ``python -m pkg.mod`` runs, a program's implicit file (the Makefile)."""
    text = _PROJECT_VARS.sub(str(project_dir), command)
    words = _words(text)
    root = project_dir.resolve()
    found: list[str] = []
    for index, word in enumerate(words):
        if index > 0 and words[index - 1] == "-m" and _MODULE.fullmatch(word):
            base = word.replace(".", "/")
            found += [f"{base}.py", f"{base}/__init__.py", f"{base}/__main__.py"]
            continue
        if not word or word.startswith("-") or "=" in word.split("/")[0]:
            continue
        name = Path(word).name
        found += IMPLICIT_FILES.get(name, ())
        candidate = Path(word) if Path(word).is_absolute() else project_dir / word
        if "/" not in word and not word.endswith(_SCRIPT_SUFFIXES) and not candidate.is_file():
            continue
        try:
            relative = candidate.resolve().relative_to(root)
        except (ValueError, OSError):
            continue  # outside the project: not the checkout's to change
        if str(relative) != ".":
            found.append(relative.as_posix())
    return tuple(dict.fromkeys(found))


def _digest(path: Path) -> str | None:
    """The content's hash. A script the model replaced by a FIFO (or a link to a device) is not
    read: opening a FIFO blocks until a writer comes, and this runs on the event loop."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            return None
        if not stat.S_ISREG(mode):
            return f"not a regular file ({stat.filemode(mode)})"
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    finally:
        if fd >= 0:
            os.close(fd)


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
