"""A concurrent process swapping a path component for a link between the permission check and the
file access (a background Bash command may do it) never makes Read, Write, Edit or NotebookEdit
reach outside the workspace or into ``.git/``: the call fails and nothing outside is touched.

The swaps happen at hook points (right after stage 3's check, right after ``call()`` resolved
the path, right after the directory walk), so each test is deterministic; one test also runs a
real swapping thread against many calls.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bot.tools.edit
import bot.tools.files.safe_open as safe_open
import bot.tools.notebook_edit
import bot.tools.path_tool
import bot.tools.read
import bot.tools.write
from bot.errors import ToolInputError
from bot.interface.context import ToolUseContext
from bot.runtime.pipeline import ToolCallOutcome
from bot.tools.files.atomic import atomic_write_at
from bot.tools.files.safe_open import RACE_MESSAGE, file_slot, open_directory
from tests.tools.helpers import context_for, run_tool
from tests.tools.samples import code_cell, make_notebook

ALL = ("Read", "Write", "Edit", "NotebookEdit")
NOTEBOOK = make_notebook([code_cell("c1", "x = 1\n", [])])
SECRET = "OUTSIDE_SECRET inside\n"  # 'inside' so that Edit's old_string would match it too


@pytest.fixture
def layout(workspace: Path, tmp_path: Path) -> Path:
    """ws/d/{f.txt,n.ipynb}, ws/.git/hooks, and the same files outside with the same bytes and mtime
    (so that a staleness check alone would not notice a swap)."""
    outside = tmp_path / "outside"
    for root, text in ((workspace, "inside\n"), (outside, SECRET)):
        (root / "d").mkdir(parents=True)
        (root / "d" / "f.txt").write_text(text)
        (root / "d" / "n.ipynb").write_bytes(NOTEBOOK)
    (outside / "secret.txt").write_text(SECRET)
    (workspace / "inside.txt").write_text("inside\n")
    (workspace / ".git" / "hooks").mkdir(parents=True)
    for name in ("f.txt", "n.ipynb"):
        shutil.copystat(workspace / "d" / name, outside / "d" / name)
    return tmp_path


@pytest.fixture
def ctx(layout: Path) -> ToolUseContext:
    return context_for(layout / "ws", layout / "scratch", allow=ALL)


def outside_untouched(layout: Path) -> bool:
    outside = layout / "outside"
    return (
        (outside / "d" / "f.txt").read_text() == SECRET
        and (outside / "d" / "n.ipynb").read_bytes() == NOTEBOOK
        and sorted(p.name for p in outside.iterdir()) == ["d", "secret.txt"]
        and sorted(p.name for p in (outside / "d").iterdir()) == ["f.txt", "n.ipynb"]
    )


def call_input(tool: str, name: str = "f.txt") -> dict[str, Any]:
    match tool:
        case "Read":
            return {"file_path": f"d/{name}"}
        case "Write":
            return {"file_path": f"d/{name}", "content": "PWNED\n"}
        case "Edit":
            return {"file_path": f"d/{name}", "old_string": "inside", "new_string": "PWNED"}
        case _:
            return {"notebook_path": "d/n.ipynb", "cell_id": "cell-0", "new_source": "PWNED"}


def read_first(ctx: ToolUseContext, tool: str) -> None:
    target = "d/n.ipynb" if tool == "NotebookEdit" else "d/f.txt"
    assert not run_tool(ctx, "Read", {"file_path": target}).result.is_error


def hook_once(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, action: Callable[[], object]) -> None:
    """Run ``action`` right after the first call of ``owner.name`` returns."""
    real = getattr(owner, name)
    fired: list[bool] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if not fired:
            fired.append(True)
            action()
        return result

    monkeypatch.setattr(owner, name, wrapper)


def after_call_resolves(monkeypatch: pytest.MonkeyPatch, tool: str, action: Callable[[], object]) -> None:
    """Run ``action`` right after ``call()`` resolved the path (the first resolution after stage 3)."""
    hook_once(
        monkeypatch,
        bot.tools.path_tool,
        "check_path_access",
        lambda: hook_once(monkeypatch, TOOL_MODULES[tool], "resolve_path", action),
    )


def swap_for_link(path: Path, target: Path) -> Callable[[], None]:
    """A directory or file at ``path`` renamed away, and a link to ``target`` put in its place."""

    def action() -> None:
        path.rename(path.with_name(path.name + ".old"))
        path.symlink_to(target)

    return action


TOOL_MODULES = {
    "Read": bot.tools.read,
    "Write": bot.tools.write,
    "Edit": bot.tools.edit,
    "NotebookEdit": bot.tools.notebook_edit,
}


def assert_race_error(outcome: ToolCallOutcome) -> None:
    assert outcome.result.is_error, outcome.result.text
    assert RACE_MESSAGE in outcome.result.text
    assert "OUTSIDE_SECRET" not in outcome.result.text


@pytest.mark.parametrize("tool", ALL)
def test_a_directory_swapped_for_a_link_after_resolution_is_not_followed(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    read_first(ctx, tool)
    after_call_resolves(monkeypatch, tool, swap_for_link(layout / "ws" / "d", layout / "outside" / "d"))
    assert_race_error(run_tool(ctx, tool, call_input(tool)))
    assert outside_untouched(layout)


@pytest.mark.parametrize("tool", ALL)
def test_the_file_swapped_for_a_link_after_resolution_is_not_followed(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    read_first(ctx, tool)
    name = "n.ipynb" if tool == "NotebookEdit" else "f.txt"
    after_call_resolves(monkeypatch, tool, swap_for_link(layout / "ws" / "d" / name, layout / "outside" / "d" / name))
    assert_race_error(run_tool(ctx, tool, call_input(tool)))
    assert outside_untouched(layout)


def test_a_link_switched_outside_after_the_permission_check_is_not_read(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = layout / "ws" / "x"
    link.symlink_to("inside.txt")

    def switch() -> None:
        link.unlink()
        link.symlink_to(layout / "outside" / "secret.txt")

    hook_once(monkeypatch, bot.tools.path_tool, "check_path_access", switch)
    assert_race_error(run_tool(ctx, "Read", {"file_path": "x"}))


@pytest.mark.parametrize(
    ("description", "target", "created"),
    [
        ("into .git/hooks (a hook the next git command runs)", ".git/hooks/pre-commit", "ws/.git/hooks/pre-commit"),
        ("outside the workspace", "../outside/wr.txt", "outside/wr.txt"),
    ],
)
def test_a_dangling_link_switched_after_the_permission_check_is_not_written(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch, description: str, target: str, created: str
) -> None:
    link = layout / "ws" / "y"
    link.symlink_to("newin.txt")

    def switch() -> None:
        link.unlink()
        link.symlink_to(target)

    hook_once(monkeypatch, bot.tools.path_tool, "check_path_access", switch)
    assert_race_error(run_tool(ctx, "Write", {"file_path": "y", "content": "#!/bin/sh\necho PWNED\n"}))
    assert not (layout / created).exists() and not (layout / "ws" / "newin.txt").exists()


def test_missing_directories_are_not_created_through_a_link_swapped_in(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    after_call_resolves(monkeypatch, "Write", lambda: (layout / "ws" / "a").symlink_to(layout / "outside"))
    assert_race_error(run_tool(ctx, "Write", {"file_path": "a/b/c.txt", "content": "PWNED\n"}))
    assert outside_untouched(layout)


@pytest.mark.parametrize(
    ("description", "tool", "moved_to", "reason"),
    [
        ("a directory moved outside while it was open: Read", "Read", "outside/moved", "outside the workspace"),
        ("a directory moved into .git while it was open: Write", "Write", "ws/.git/moved", "writes into .git/"),
        ("a directory moved into .git while it was open: Edit", "Edit", "ws/.git/moved", "writes into .git/"),
    ],
)
def test_the_real_path_of_the_opened_directory_is_checked_again(
    layout: Path,
    ctx: ToolUseContext,
    monkeypatch: pytest.MonkeyPatch,
    description: str,
    tool: str,
    moved_to: str,
    reason: str,
) -> None:
    read_first(ctx, tool)
    hook_once(monkeypatch, safe_open, "open_directory", lambda: (layout / "ws" / "d").rename(layout / moved_to))
    outcome = run_tool(ctx, tool, call_input(tool))
    assert_race_error(outcome)
    assert reason in outcome.result.text
    assert (layout / moved_to / "f.txt").read_text() == "inside\n"


def test_without_the_kernel_s_answer_an_inode_check_stands_in(
    layout: Path, ctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(safe_open, "fd_real_path", lambda fd: None)
    assert "inside" in run_tool(ctx, "Read", {"file_path": "d/f.txt"}).result.text
    assert not run_tool(ctx, "Write", {"file_path": "d/new.txt", "content": "ok\n"}).result.is_error
    hook_once(monkeypatch, safe_open, "open_directory", swap_for_link(layout / "ws" / "d", layout / "outside" / "d"))
    assert_race_error(run_tool(ctx, "Read", {"file_path": "d/f.txt"}))


def test_links_inside_the_workspace_still_work(layout: Path, ctx: ToolUseContext) -> None:
    ws = layout / "ws"
    (ws / "alias").symlink_to("d")
    (ws / "f-link").symlink_to("d/f.txt")
    (ws / "dangling").symlink_to("d/created.txt")
    assert "inside" in run_tool(ctx, "Read", {"file_path": "alias/f.txt"}).result.text
    assert "inside" in run_tool(ctx, "Read", {"file_path": "f-link"}).result.text
    assert not run_tool(
        ctx, "Edit", {"file_path": "f-link", "old_string": "inside", "new_string": "edited"}
    ).result.is_error
    assert (ws / "d" / "f.txt").read_text() == "edited\n" and (ws / "f-link").is_symlink()
    assert not run_tool(ctx, "Write", {"file_path": "dangling", "content": "new\n"}).result.is_error
    assert (ws / "d" / "created.txt").read_text() == "new\n"


def test_a_real_concurrent_swapper_never_gets_a_read_or_a_write_out(layout: Path, ctx: ToolUseContext) -> None:
    ws = layout / "ws"
    stop = threading.Event()

    def flip(link: Path, targets: tuple[str, str]) -> None:
        i = 0
        while not stop.is_set():
            tmp = ws / f".flip-{link.name}{i % 2}"
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(targets[i % 2])
            os.replace(tmp, link)
            i += 1

    threads = [
        threading.Thread(target=flip, args=(ws / "x", ("inside.txt", str(layout / "outside" / "secret.txt")))),
        threading.Thread(target=flip, args=(ws / "y", ("newin.txt", ".git/hooks/pre-commit"))),
    ]
    for t in threads:
        t.start()
    try:
        for _ in range(60):
            assert "OUTSIDE_SECRET" not in run_tool(ctx, "Read", {"file_path": "x"}).result.text
            run_tool(ctx, "Write", {"file_path": "y", "content": "#!/bin/sh\n"})
            assert not (ws / ".git" / "hooks" / "pre-commit").exists()
            (ws / "newin.txt").unlink(missing_ok=True)
            ctx.read_file_state.forget(ws / "newin.txt")
    finally:
        stop.set()
        for t in threads:
            t.join()


def test_atomic_write_at_replaces_a_link_at_the_name_instead_of_following_it(tmp_path: Path) -> None:
    (tmp_path / "target.txt").write_text("keep")
    (tmp_path / "name").symlink_to("target.txt")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        atomic_write_at(fd, "name", b"new")
    finally:
        os.close(fd)
    assert (tmp_path / "target.txt").read_text() == "keep"
    assert not (tmp_path / "name").is_symlink() and (tmp_path / "name").read_text() == "new"


def test_a_write_lands_in_the_directory_that_was_opened_whatever_its_path_becomes(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "elsewhere").mkdir()
    fd = open_directory(tmp_path, ("d",), "d/f.txt", create=False)
    try:
        swap_for_link(tmp_path / "d", tmp_path / "elsewhere")()
        atomic_write_at(fd, "f.txt", b"x")
    finally:
        os.close(fd)
    assert (tmp_path / "d.old" / "f.txt").read_bytes() == b"x"
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize(
    ("description", "parts", "create", "message"),
    [
        (
            "a missing directory is reported as the file the model named",
            ("nope", "deeper"),
            False,
            "d/f.txt: no such file or directory",
        ),
        ("a link on the way is a race", ("link",), True, RACE_MESSAGE),
        ("a file on the way is not a directory", ("file",), True, "not a directory"),
    ],
)
def test_open_directory_refusals(
    tmp_path: Path, description: str, parts: tuple[str, ...], create: bool, message: str
) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path)
    with pytest.raises(ToolInputError, match=message):
        open_directory(tmp_path, parts, "d/f.txt", create=create)


def test_open_directory_creates_what_is_missing(tmp_path: Path) -> None:
    os.close(open_directory(tmp_path, ("a", "b"), "a/b/c.txt", create=True))
    assert (tmp_path / "a" / "b").is_dir()


def test_a_path_outside_every_allowed_directory_has_no_slot(layout: Path, ctx: ToolUseContext) -> None:
    with (
        pytest.raises(ToolInputError, match=RACE_MESSAGE),
        file_slot(layout / "outside" / "secret.txt", "secret.txt", ctx, write=False),
    ):
        pass


def test_a_link_swapped_in_after_the_decision_does_not_get_past_a_deny_rule(tmp_path: Path) -> None:
    # Red team: `notes.txt` was a plain file when the policy allowed the Read, then became a link
    # to `.env`, which `Read(.env)` denies.
    import anyio

    from bot.interface.messages import Progress
    from bot.tools.read import ReadTool
    from tests.tools.helpers import context_for as tools_context

    workspace = (tmp_path / "ws").resolve()
    workspace.mkdir()
    (workspace / ".env").write_text("API_KEY=SECRET\n")
    (workspace / "notes.txt").write_text("notes\n")
    context = tools_context(workspace, tmp_path / "scratch", allow=["Read"], deny=["Read(.env)"])
    tool = ReadTool()

    async def main() -> str:
        parsed = tool.parse_input({"file_path": "notes.txt"})
        (workspace / "notes.txt").unlink()
        (workspace / "notes.txt").symlink_to(workspace / ".env")
        try:
            result = await tool.call(parsed, context, Progress("t", "Read"))
        except Exception as exc:
            return str(exc)
        return str(result.data)

    outcome = anyio.run(main)
    assert "SECRET" not in outcome
    assert "deny rule" in outcome
