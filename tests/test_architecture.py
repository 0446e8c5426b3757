"""What the architecture promises, checked over the source: every process the bot starts receives an
environment built on purpose (never a copy of the bot's), and production code never imports `bot.testing`.

A call that starts a process without ``env=`` inherits the bot's environment. The secrets are taken
out of ``os.environ`` at start-up, but what is left (the runner's variables, canaries planted to
catch exactly this) must not reach a child either. This test reads the source: a new call site
without an explicit environment fails here until it says what its child receives.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"
#: (module attribute, function) pairs that start a process.
STARTERS = {
    ("subprocess", "run"),
    ("subprocess", "Popen"),
    ("subprocess", "call"),
    ("subprocess", "check_call"),
    ("subprocess", "check_output"),
    ("anyio", "open_process"),
    ("anyio", "run_process"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
    ("os", "system"),
    ("os", "popen"),
}
#: Call sites that start a process through our own wrapper, which requires ``env`` by signature.
WRAPPERS = {"run_process"}


def process_calls() -> list[tuple[str, int, bool]]:
    found = []
    for path in sorted(BOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                name = (func.value.id, func.attr)
            if name in STARTERS:
                has_env = any(k.arg == "env" for k in node.keywords)
                found.append((f"{path.relative_to(BOT.parent)}:{node.lineno}", node.lineno, has_env))
    return found


def test_the_scan_finds_the_call_sites() -> None:
    assert len(process_calls()) >= 5  # git, hooks, ripgrep, the shell, setpriv...


@pytest.mark.parametrize(("where", "line", "has_env"), process_calls(), ids=[c[0] for c in process_calls()])
def test_every_process_gets_an_explicit_environment(where: str, line: int, has_env: bool) -> None:
    assert has_env, f"{where} starts a process without env=: build its environment from an allowlist"


def test_our_process_wrapper_requires_an_environment() -> None:
    import inspect

    from bot.shell.execute.process import run_process

    parameter = inspect.signature(run_process).parameters["env"]
    assert parameter.default is inspect.Parameter.empty


def test_production_code_never_imports_the_testing_package() -> None:
    offenders = []
    for path in sorted(BOT.rglob("*.py")):
        if path.is_relative_to(BOT / "testing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if any(n == "bot.testing" or n.startswith("bot.testing.") for n in names):
                offenders.append(f"{path.relative_to(BOT.parent)}:{node.lineno}")
    assert offenders == []
