"""Red team: the fast discovery of a workspace's repository (bot/orchestration/git_discovery.py)
against crafted ``.git`` layouts and configurations. On every layout here, wherever the fast path
answers it agrees with GitPython's ``Repo(path)`` and names ``PATH/.git`` itself (never a
directory a configuration or a pointer file names); a spelling of ``bare``/``worktree``/``include``
it cannot read sends the workspace to GitPython. The one spelling both read past (``[core] bare =
true`` on the section's line, which git reads as bare) does not matter to the bot's own git, which
names its work tree; nor do git's variables in the bot's environment."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import GitError
from bot.orchestration import git_discovery
from bot.orchestration.git import GitWorkspace
from bot.orchestration.git_discovery import GitLocation, locate, plain_layout
from tests.git_helpers import GIT_ENV, git

#: What ``git init`` writes, before a crafted line is added.
BASE_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tlogallrefupdates = true\n"


def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "commit", "-q", "-m", "init")
    return path


def config_bytes(data: bytes) -> Callable[[Path], Path]:
    """A repository whose ``.git/config`` is exactly ``data``."""

    def make(tmp: Path) -> Path:
        path = repo(tmp / "ws")
        (path / ".git" / "config").write_bytes(data)
        return path

    return make


def config_text(text: str) -> Callable[[Path], Path]:
    return config_bytes(text.encode())


def config_link(text: str) -> Callable[[Path], Path]:
    """``.git/config`` a symbolic link to a file outside the repository."""

    def make(tmp: Path) -> Path:
        path = repo(tmp / "ws")
        outside = tmp / "outside.cfg"
        outside.write_text(text)
        (path / ".git" / "config").unlink()
        (path / ".git" / "config").symlink_to(outside)
        return path

    return make


def config_directory(tmp: Path) -> Path:
    path = repo(tmp / "ws")
    (path / ".git" / "config").unlink()
    (path / ".git" / "config").mkdir()
    return path


def head_link(tmp: Path) -> Path:
    path = repo(tmp / "ws")
    head = path / ".git" / "HEAD"
    (path / ".git" / "HEAD.real").write_bytes(head.read_bytes())
    head.unlink()
    head.symlink_to("HEAD.real")
    return path


def dangling_pointer(name: str) -> Callable[[Path], Path]:
    """A pointer file (``commondir``, ``gitdir``, ``config.worktree``) that is a dangling link."""

    def make(tmp: Path) -> Path:
        path = repo(tmp / "ws")
        (path / ".git" / name).symlink_to(tmp / "nowhere")
        return path

    return make


def pointer_file(name: str, text: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = repo(tmp / "ws")
        elsewhere = repo(tmp / "elsewhere")
        (path / ".git" / name).write_text(text.format(elsewhere=elsewhere / ".git"))
        return path

    return make


def top_looks_like_a_git_dir(tmp: Path) -> Path:
    """The work tree's own top holds ``HEAD``, ``objects/`` and ``refs/`` (a repository of git
    fixtures): ``.git`` is still the repository, as git and GitPython find it."""
    path = repo(tmp / "ws")
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    (path / "objects").mkdir()
    (path / "refs").mkdir()
    (path / "config").write_text("[core]\n\tbare = false\n\tworktree = /\n")
    return path


def objects_elsewhere(tmp: Path) -> Path:
    """``.git/objects`` a link to another repository's objects: both discoveries accept it, and it
    names the same git directory (the seal covers ``objects/info/alternates``, not this)."""
    path = repo(tmp / "ws")
    other = repo(tmp / "other")
    objects = path / ".git" / "objects"
    objects.rename(tmp / "ws-objects")
    objects.symlink_to(other / ".git" / "objects")
    return path


def path_spelling(spelling: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = repo(tmp / "ws")
        (path / "sub").mkdir()
        return Path(spelling.format(ws=path))

    return make


LAYOUTS: dict[str, tuple[Callable[[Path], Path], bool]] = {
    # name: (make it, the fast path answers)
    "worktree in another case": (config_text(BASE_CONFIG + "[CORE]\n\tWorkTree = /tmp\n"), False),
    "worktree with no value": (config_text(BASE_CONFIG + "\tworktree\n"), False),
    "worktree on the section's line": (config_text("[core] worktree = /tmp\n" + BASE_CONFIG), False),
    "includeIf in another case": (config_text(BASE_CONFIG + '[IncludeIf "gitdir:/"]\n\tpath = /etc/x\n'), False),
    "include.path on one line": (config_text(BASE_CONFIG + "[include] path = x\n"), False),
    "bare = false, then bare alone": (config_text(BASE_CONFIG + "\tbare = false\n[core]\n\tbare\n"), False),
    "bare = yes": (config_text(BASE_CONFIG + "\tbare = yes\n"), False),
    "bare = 1": (config_text(BASE_CONFIG + "\tbare = 1\n"), False),
    "bare = TRUE, no spaces": (config_text(BASE_CONFIG + "\tbare=TRUE\n"), False),
    "bare = (empty, false to git)": (config_text(BASE_CONFIG + "\tbare =\n"), False),
    "bare = false with a comment": (config_text(BASE_CONFIG + "\tbare = false ; really\n"), False),
    "bare = false continued onto the next line": (config_text(BASE_CONFIG + "\tbare = false\\\ntrue\n"), False),
    "bare with CRLF line ends": (config_text((BASE_CONFIG + "\tbare = true\n").replace("\n", "\r\n")), False),
    "bare after a lone CR": (config_text("[core]\r\tbare = true\r\trepositoryformatversion = 0\r"), False),
    "bare after a UTF-8 byte-order mark": (config_bytes(b"\xef\xbb\xbf" + BASE_CONFIG.encode() + b"\tbare\n"), False),
    "bare = true in a value of invalid UTF-8": (config_bytes(BASE_CONFIG.encode() + b"\tbare = true\xfe\n"), False),
    # git refuses the whole file ("bad config line"): its git commands fail, GitPython agrees.
    "bare behind a byte git cannot parse": (config_bytes(BASE_CONFIG.encode() + b"\xff\tbare = true\n"), True),
    "bare in a subsection": (config_text(BASE_CONFIG + '[core "x"]\n\tbare = true\n'), False),
    "a config link to a file naming a work tree": (config_link(BASE_CONFIG + "\tworktree = /tmp\n"), False),
    "a config link to a plain file": (config_link(BASE_CONFIG + "\tbare = false\n"), True),
    "a config that is a directory": (config_directory, False),
    "no config at all": (config_bytes(b""), True),
    "a HEAD link": (head_link, False),
    "a dangling commondir link": (dangling_pointer("commondir"), False),
    "a dangling config.worktree link": (dangling_pointer("config.worktree"), False),
    "a commondir naming another repository": (pointer_file("commondir", "{elsewhere}\n"), False),
    "a gitdir file in .git": (pointer_file("gitdir", "{elsewhere}\n"), False),
    "the top looks like a git directory too": (top_looks_like_a_git_dir, True),
    "objects a link to another repository's": (objects_elsewhere, True),
    "the path through sub/..": (path_spelling("{ws}/sub/.."), True),
    "the path with a trailing slash": (path_spelling("{ws}/"), True),
    "the path with $VARIABLE": (path_spelling("$NO_SUCH_VARIABLE{ws}"), False),
}


def _gitpython(path: Path) -> GitLocation | str:
    try:
        return git_discovery._with_gitpython(path)
    except GitError as exc:
        return f"GitError: {exc}"


@pytest.mark.filterwarnings("ignore:The use of environment variables:UserWarning")
@pytest.mark.parametrize("name", LAYOUTS)
def test_a_crafted_layout_is_declined_or_found_as_gitpython_finds_it(tmp_path: Path, name: str) -> None:
    make, fast = LAYOUTS[name]
    path = make(tmp_path)
    found = plain_layout(path)
    assert (found is not None) is fast, found
    reference = _gitpython(path)
    if found is not None:
        assert found == reference
        top = Path(os.path.abspath(path)).resolve()
        assert found.root == top
        assert found.git_dir == found.common_dir == (top / ".git").resolve()
    try:
        located: GitLocation | str = locate(path)
    except GitError as exc:
        located = f"GitError: {exc}"
    assert located == reference


@pytest.mark.parametrize("line", ["[core] bare = true", "[core]bare=true"])
def test_bare_on_the_sections_line_is_read_by_neither_and_the_bots_git_names_its_work_tree(
    tmp_path: Path, line: str
) -> None:
    """git reads ``[core] bare = true`` (one line) as a bare repository; the fast path and
    GitPython both read past it and take the workspace as a work tree. That is GitPython's answer
    too, and the bot's own git names ``GIT_WORK_TREE``, so it still works on the same files."""
    path = repo(tmp_path / "ws")
    (path / ".git" / "config").write_text(f"{line}\n\trepositoryformatversion = 0\n")
    assert "core.bare=true" in git(path, "config", "--file", ".git/config", "--list")
    ceiling = {**GIT_ENV, "HOME": str(tmp_path), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    says = subprocess.run(
        ["git", "rev-parse", "--is-bare-repository"], cwd=path, env=ceiling, capture_output=True, text=True
    )
    assert says.stdout.strip() == "true"  # git's own reading

    found = plain_layout(path)
    assert found is not None and found == _gitpython(path)
    workspace = GitWorkspace(path, home=tmp_path / "home")
    assert workspace.root == path.resolve()
    assert not workspace.has_changes()
    (path / "a.txt").write_text("changed\n")
    assert workspace.has_changes()
    assert len(workspace.head_sha()) == 40


def test_a_huge_config_of_plain_settings_is_read_once_and_found(tmp_path: Path) -> None:
    """Size is no way past the checks: a config of 200,000 harmless lines with ``bare`` at the
    very end is still declined."""
    filler = "".join(f"\tkey{i} = value\n" for i in range(200_000))
    path = config_text("[other]\n" + filler + "[core]\n\tbare\n")(tmp_path)
    assert plain_layout(path) is None


def test_git_variables_in_the_bots_environment_do_not_move_the_fast_paths_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_COMMON_DIR``, ``GIT_OBJECT_DIRECTORY`` in the bot's own
    environment (GitPython reads some of them) change nothing: the fast path names ``PATH/.git``, the
    git directory the bot's own git (an allowlisted environment naming ``GIT_DIR``) then reads."""
    path = repo(tmp_path / "ws")
    other = repo(tmp_path / "other")
    clean = plain_layout(path)
    for name, value in {
        "GIT_DIR": other / ".git",
        "GIT_WORK_TREE": other,
        "GIT_COMMON_DIR": other / ".git",
        "GIT_OBJECT_DIRECTORY": other / ".git" / "objects",
    }.items():
        monkeypatch.setenv(name, str(value))
    found = plain_layout(path)
    assert found is not None and found == clean
    assert found.common_dir == (path / ".git").resolve()
    workspace = GitWorkspace(path, home=tmp_path / "home")
    (other / "a.txt").unlink()
    assert not workspace.has_changes()  # the other repository's change is not this one's
    (path / "a.txt").write_text("changed\n")
    assert workspace.has_changes()
    workspace.seal()
    (other / ".git" / "config").write_text("[core]\n\tfsmonitor = /bin/false\n")
    workspace.check_seal()  # another repository's config is not this one's seal
