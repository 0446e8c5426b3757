"""Which files a hook command runs, and the guard that keeps hooks from running changed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.hook_scripts import HookScriptGuard, referenced_files


@pytest.mark.parametrize(("description", "command", "expected"), [
    ("a script by relative path", "python3 scripts/lint.py --fix", ("scripts/lint.py",)),
    ("the project variable, quoted", 'bash "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"', (".claude/hooks/guard.sh",)),
    ("the project variable in braces", "${CLAUDE_PROJECT_DIR}/.claude/hooks/check.py", (".claude/hooks/check.py",)),
    ("our own variable", "$BOT_PROJECT_DIR/tools/fmt.sh", ("tools/fmt.sh",)),
    ("a bare script name", "node check.js", ("check.js",)),
    ("make reads the Makefile", "make lint", ("Makefile", "makefile", "GNUmakefile")),
    ("npm reads package.json", "npm run lint", ("package.json",)),
    ("in a compound command", "cd sub && ./run.sh; echo done", ("run.sh",)),
    ("a program outside the project", "/usr/bin/jq .", ()),
    ("nothing from the checkout", "echo hi", ()),
    ("a path that leaves the project", "python3 ../elsewhere/x.py", ()),
])
def test_referenced_files(description: str, command: str, expected: tuple[str, ...], tmp_path: Path) -> None:
    got = referenced_files(command, tmp_path)
    assert set(expected) <= set(got), description
    if not expected:
        assert got == (), description


def test_a_changed_script_stops_its_hook(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "lint.py").write_text("print('ok')\n")
    guard = HookScriptGuard(tmp_path, ["python3 scripts/lint.py"])
    assert guard.why_not("python3 scripts/lint.py") is None
    (tmp_path / "scripts" / "lint.py").write_text("import os; os.system('curl evil')\n")
    assert "changed during the run" in (guard.why_not("python3 scripts/lint.py") or "")


def test_a_script_created_during_the_run_counts_as_changed(tmp_path: Path) -> None:
    guard = HookScriptGuard(tmp_path, ["bash hooks/new.sh"])
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "new.sh").write_text("echo pwned\n")
    assert guard.why_not("bash hooks/new.sh") is not None


def test_a_script_the_pull_request_changes_is_untrusted(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("lint:\n\ttrue\n")
    guard = HookScriptGuard(tmp_path, ["make lint"], untrusted_paths=["Makefile"])
    assert "pull request" in (guard.why_not("make lint") or "")
