"""Which files a hook command runs, and the guard that keeps hooks from running changed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.hook_scripts import HookScriptGuard, referenced_files


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("a script by relative path", "python3 scripts/lint.py --fix", ("scripts/lint.py",)),
        (
            "the project variable, quoted",
            'bash "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"',
            (".claude/hooks/guard.sh",),
        ),
        ("the project variable in braces", "${CLAUDE_PROJECT_DIR}/.claude/hooks/check.py", (".claude/hooks/check.py",)),
        ("our own variable", "$BOT_PROJECT_DIR/tools/fmt.sh", ("tools/fmt.sh",)),
        ("a bare script name", "node check.js", ("check.js",)),
        ("make reads the Makefile", "make lint", ("Makefile", "makefile", "GNUmakefile")),
        ("npm reads package.json", "npm run lint", ("package.json",)),
        ("in a compound command", "cd sub && ./run.sh; echo done", ("run.sh",)),
        ("a program outside the project", "/usr/bin/jq .", ()),
        ("nothing from the checkout", "echo hi", ()),
        ("a path that leaves the project", "python3 ../elsewhere/x.py", ()),
    ],
)
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


def test_a_script_replaced_by_a_fifo_is_reported_changed_without_blocking(tmp_path: Path) -> None:
    import os
    import threading

    (tmp_path / "lint.py").write_text("print('ok')\n")
    guard = HookScriptGuard(tmp_path, ["python3 lint.py"])
    (tmp_path / "lint.py").unlink()
    os.mkfifo(tmp_path / "lint.py")
    answer: list[str | None] = []
    worker = threading.Thread(target=lambda: answer.append(guard.why_not("python3 lint.py")), daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert answer, "reading a FIFO the model left in place of a hook's script blocked the run"
    assert answer[0] is not None and "lint.py" in answer[0]


@pytest.mark.parametrize(
    ("description", "command", "expected"),
    [
        ("a script read by command substitution", 'bash -c "$(cat hooks/check.sh)"', "hooks/check.sh"),
        ("a file sourced by its bare name", "source hookrc && run", "hookrc"),
        ("a module run with python -m", "python3 -m tools.lint --fix", "tools/lint.py"),
        ("a package run with python -m", "python3 -m tools", "tools/__main__.py"),
        ("a script in backticks", "sh -c 'echo `cat hooks/x.txt`'", "hooks/x.txt"),
    ],
)
def test_hooks_that_run_a_file_indirectly_name_it(
    tmp_path: Path, description: str, command: str, expected: str
) -> None:
    (tmp_path / "hookrc").write_text("x=1\n")
    assert expected in referenced_files(command, tmp_path), description
