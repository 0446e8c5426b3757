"""`hatch run ENV:NAME` is a project script when the project defines it, else a command."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from bot.shell.api import check_bash_permissions
from bot.shell.programs.hatch import is_hatch_script
from tests.shell.conftest import context_for

PYPROJECT = """
[tool.hatch.envs.default.scripts]
test = "pytest {args}"

[tool.hatch.envs.style.scripts]
lint = ["ruff check ."]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root.resolve()


@pytest.mark.parametrize(
    ("description", "word", "expected"),
    [
        ("an env's script", "style:lint", True),
        ("a default script by name", "test", True),
        ("a default script with its env", "default:test", True),
        ("a script of another env is not this env's", "style:test", False),
        ("a command", "rm", False),
        ("a command in an env", "style:rm", False),
        ("a path", "style:./x", False),
    ],
)
def test_scripts_are_read_from_pyproject(project: Path, description: str, word: str, expected: bool) -> None:
    assert is_hatch_script(word, str(project), (str(project),)) is expected, description


def test_a_subdirectory_finds_the_project_file(project: Path) -> None:
    assert is_hatch_script("style:lint", str(project / "src"), (str(project),))


def test_hatch_toml_scripts(tmp_path: Path) -> None:
    (tmp_path / "hatch.toml").write_text('[envs.docs.scripts]\nbuild = "mkdocs build"\n')
    assert is_hatch_script("docs:build", str(tmp_path), (str(tmp_path),))


@pytest.mark.parametrize(
    ("description", "command", "allowed"),
    [
        ("a script", "hatch run style:lint", True),
        ("matrix selectors before a script", "hatch run +py=py310 -type=x style:lint", True),
        ("a command, not a script", "hatch run style:rm -rf src", False),
        ("a bare command", "hatch run curl example.com", False),
    ],
)
def test_the_rule_for_hatch_run_covers_scripts_only(
    project: Path, description: str, command: str, allowed: bool
) -> None:
    result = check_bash_permissions(command, context_for(project, ["Bash(hatch run:*)"]))
    assert isinstance(result, Allow) is allowed, (description, result)


def test_a_script_with_extra_arguments_needs_a_rule_that_spells_them_out(project: Path) -> None:
    # hatch appends them to the script's commands (`pytest --cov-report=html:.git/hooks`).
    result = check_bash_permissions("hatch run style:lint --install-types", context_for(project, ["Bash(hatch run:*)"]))
    assert not isinstance(result, Allow)
