"""The repository a workspace is, found without GitPython for the plain layout: wherever the fast
path answers it agrees with GitPython's ``Repo(path)``, and every other layout is GitPython's."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import GitError
from bot.orchestration import git_discovery
from bot.orchestration.git_discovery import GitLocation, locate, plain_layout
from tests.git_helpers import GIT_ENV, git


def repo(path: Path, *init: str) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main", *init)
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "commit", "-q", "-m", "init")
    return path


def plain(tmp: Path) -> Path:
    return repo(tmp / "plain")


def worktree(tmp: Path) -> Path:
    git(repo(tmp / "main"), "worktree", "add", "-q", str(tmp / "linked"), "-b", "other")
    return tmp / "linked"


def submodule(tmp: Path) -> Path:
    inner = repo(tmp / "inner")
    outer = repo(tmp / "outer")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    return outer / "sub"


def config_says(text: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = repo(tmp / "configured")
        with (path / ".git" / "config").open("a") as config:
            config.write(text)
        return path

    return make


def symlinked_dot_git(tmp: Path) -> Path:
    real = repo(tmp / "real")
    path = tmp / "linked-dot-git"
    path.mkdir()
    (path / ".git").symlink_to(real / ".git")
    return path


def head_says(content: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = plain(tmp)
        (path / ".git" / "HEAD").write_bytes(content)
        return path

    return make


def bare(tmp: Path) -> Path:
    path = tmp / "bare.git"
    path.mkdir()
    git(path, "init", "-q", "--bare")
    return path


def subdirectory(tmp: Path) -> Path:
    (plain(tmp) / "sub").mkdir()
    return tmp / "plain" / "sub"


def dot_git_itself(tmp: Path) -> Path:
    return plain(tmp) / ".git"


def not_a_repository(tmp: Path) -> Path:
    (tmp / "nothing").mkdir()
    return tmp / "nothing"


def broken_gitfile(tmp: Path) -> Path:
    path = tmp / "broken"
    path.mkdir()
    (path / ".git").write_text("not a gitfile\n")
    return path


LAYOUTS: dict[str, tuple[Callable[[Path], Path], bool]] = {
    # name: (make it, the fast path answers)
    "a plain clone": (plain, True),
    "bare = false, as git writes it": (config_says("[core]\n\tbare = false\n"), True),
    "a linked worktree (gitfile)": (worktree, False),
    "a submodule (gitfile, commondir-less)": (submodule, False),
    "core.worktree elsewhere": (config_says("[core]\n\tworktree = /tmp\n"), False),
    "core.bare = true": (config_says("[core]\n\tbare = true\n"), False),
    "bare, git's bare true spelling": (config_says("[core]\n\tbare\n"), False),
    "an include": (config_says("[include]\n\tpath = other.cfg\n"), False),
    "a .git symlink": (symlinked_dot_git, False),
    "a bare repository": (bare, False),
    "a subdirectory of a work tree (parents are not searched)": (subdirectory, False),
    "the .git directory itself": (dot_git_itself, False),
    "no repository": (not_a_repository, False),
    "a .git file that is no gitfile": (broken_gitfile, False),
    "a detached HEAD (an object name)": (head_says(b"0123456789abcdef0123456789abcdef01234567\n"), True),
    "a HEAD git does not take": (head_says(b"garbage\n"), False),
    "an empty HEAD": (head_says(b""), False),
    "a HEAD naming a ref outside refs/": (head_says(b"ref: /etc/passwd\n"), False),
}


def _gitpython(path: Path) -> GitLocation | str:
    try:
        return git_discovery._with_gitpython(path)
    except GitError as exc:
        return f"GitError: {exc}"


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_fast_path_agrees_with_gitpython_wherever_it_answers(tmp_path: Path, name: str) -> None:
    make, fast = LAYOUTS[name]
    path = make(tmp_path)
    found = plain_layout(path)
    reference = _gitpython(path)
    assert (found is not None) is fast, found
    if found is not None:
        assert found == reference
    try:
        located: GitLocation | str = locate(path)
    except GitError as exc:
        located = f"GitError: {exc}"
    assert located == reference


def test_a_plain_workspace_is_found_without_importing_gitpython(tmp_path: Path) -> None:
    path = plain(tmp_path)
    probe = (
        "import sys\n"
        "from bot.orchestration.git import GitWorkspace\n"
        f"ws = GitWorkspace({str(path)!r})\n"
        "print(ws.root, 'git' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=GIT_ENV, capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(path.resolve()), "False"], done.stderr[-2000:]
