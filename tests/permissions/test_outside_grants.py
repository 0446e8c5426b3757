"""An allow rule that names a path outside the workspace (``Read(//etc/**)``) grants it, as in
Claude Code: the call is decided by the rules and really runs. Deny rules still apply; a bare
``Read``, an unanchored pattern, a link out of the granted directory and writes under a read rule
grant nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow, Deny
from tests.tools.helpers import context_for, decide_tool, run_tool


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    shared = (tmp_path / "shared").resolve()
    (shared / "docs").mkdir(parents=True)
    (shared / "docs" / "guide.md").write_text("the guide\n")
    (shared / "secret.txt").write_text("secret\n")
    elsewhere = (tmp_path / "elsewhere").resolve()
    elsewhere.mkdir()
    (elsewhere / "key.txt").write_text("key\n")
    (shared / "docs" / "link").symlink_to(elsewhere / "key.txt")
    return ws, shared, tmp_path / "scratch"


def test_a_read_rule_for_an_outside_directory_grants_reading_it(dirs: tuple[Path, Path, Path]) -> None:
    ws, shared, scratch = dirs
    context = context_for(ws, scratch, allow=[f"Read(/{shared}/**)"])
    decision = decide_tool(context, "Read", {"file_path": str(shared / "docs" / "guide.md")})
    assert isinstance(decision, Allow) and decision.rule is not None
    assert decision.rule.text == f"Read(/{shared}/**)"
    outcome = run_tool(context, "Read", {"file_path": str(shared / "docs" / "guide.md")})
    assert not outcome.result.is_error and "the guide" in outcome.result.text
    grep = run_tool(context, "Grep", {"pattern": "guide", "path": str(shared / "docs"), "output_mode": "content"})
    assert not grep.result.is_error and "the guide" in grep.result.text, grep.result.text


def test_an_edit_rule_for_an_outside_directory_grants_writing_it(dirs: tuple[Path, Path, Path]) -> None:
    ws, shared, scratch = dirs
    context = context_for(ws, scratch, allow=[f"Edit(/{shared}/out/**)"])
    outcome = run_tool(context, "Write", {"file_path": str(shared / "out" / "new.txt"), "content": "made\n"})
    assert not outcome.result.is_error, outcome.result.text
    assert (shared / "out" / "new.txt").read_text() == "made\n"


@pytest.mark.parametrize(
    ("description", "allow", "deny", "tool", "target"),
    [
        ("a bare Read is not a grant outside", ["Read"], [], "Read", "docs/guide.md"),
        ("an unanchored pattern is not a grant outside", ["Read(*.md)"], [], "Read", "docs/guide.md"),
        ("another outside directory", ["Read(//{shared}/docs/**)"], [], "Read", "secret.txt"),
        ("a deny rule still applies", ["Read(//{shared}/**)"], ["Read(//{shared}/secret.txt)"], "Read", "secret.txt"),
        ("a link out of the granted directory", ["Read(//{shared}/**)"], [], "Read", "docs/link"),
        ("a read rule grants no write", ["Read(//{shared}/**)"], [], "Write", "docs/new.txt"),
        ("an edit rule grants no read", ["Edit(//{shared}/**)"], [], "Read", "docs/guide.md"),
    ],
)
def test_what_is_not_granted(
    dirs: tuple[Path, Path, Path], description: str, allow: list[str], deny: list[str], tool: str, target: str
) -> None:
    ws, shared, scratch = dirs
    fill = {"shared": str(shared).lstrip("/")}
    context = context_for(ws, scratch, allow=[a.format(**fill) for a in allow], deny=[d.format(**fill) for d in deny])
    raw: dict[str, str] = {"file_path": str(shared / target)}
    if tool == "Write":
        raw["content"] = "x"
    assert isinstance(decide_tool(context, tool, raw), Deny), description
    outcome = run_tool(context, tool, raw)
    assert outcome.result.is_error, description
