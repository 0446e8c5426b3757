"""The orchestration package sits below the modes that drive it: it imports neither adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot"

#: package -> packages it must never import (the layers above it).
FORBIDDEN = {
    "orchestration": ("bot.github", "bot.local", "bot.cli"),
    "github": ("bot.local", "bot.cli"),
}


def imports_of(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_no_layer_above_it(package: str) -> None:
    bad = [
        f"{path.relative_to(BOT.parent)}:{line} imports {name}"
        for path in sorted((BOT / package).rglob("*.py"))
        for line, name in imports_of(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package])
    ]
    assert bad == []


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from bot.github.api import GitHubApi\n")
    assert imports_of(module) == [(2, "bot.github.api")]
