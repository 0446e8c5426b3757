"""The README's two commands near the top stay true: the demo command runs as written (its files,
options and preset exist, and it fixes the bug), and the test command ends with its 'N passed' line."""

from __future__ import annotations

import re
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
COMMANDS = re.findall(r"```sh\n(.*?)\n```", README, re.S)


def test_the_readme_starts_with_the_two_commands() -> None:
    install_and_demo, tests = COMMANDS[:2]
    assert "pip install -e ." in install_and_demo and "bot run --local" in install_and_demo
    assert "python -m pytest -q" in tests


def demo_argv() -> list[str]:
    words = shlex.split(COMMANDS[0])
    start = words.index("bot")
    return words[start + 1 :]


def test_the_demo_command_names_files_that_exist() -> None:
    argv = demo_argv()
    for option in ("--repo", "--replay", "--policy"):
        assert (ROOT / argv[argv.index(option) + 1]).exists(), option


@pytest.mark.slow
def test_the_demo_command_fixes_the_bug_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Run from a copy of the examples, as a newcomer's checkout would, into its own output folder.
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*demo_argv(), "--output-dir", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    fixed = (tmp_path / "out" / "workspace" / "stats.py").read_text()
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in fixed
    assert "differs from the task" not in result.output  # the README's prompt is the recorded one


def test_the_test_command_keeps_its_summary_line() -> None:
    # The README passes -q; one more in addopts makes it -qq, which drops the 'N passed' line.
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "-q" not in shlex.split(addopts)
