"""A failing test is reported as a failure, never as a pytest INTERNALERROR.

The construct that crashed the suite on CPython 3.11 (< 3.11.8): a test fails while garbage with a
finaliser that raises is waiting (an asyncio subprocess transport left open raises "Event loop is
closed" when it is finalised after its loop ended). pytest's report parses the test's file; a
garbage collection inside that parse runs the finaliser, pytest's unraisable-exception hook formats
its traceback, 3.11's traceback module parses again for its carets, and the nested parse corrupts
the AST constructor's shared recursion counter (CPython gh-106905): "SystemError: AST constructor
recursion depth mismatch". tests/conftest.py collects the garbage before a failure's report and
keeps the collector off while it is made.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The finaliser raises from a reference cycle; the collector's threshold is set so that the next
# collection comes during the report's parse of this (padded, so the parse allocates a lot) file.
FAILING_TEST = """
import gc


class FinalisedLate:
    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        raise RuntimeError("Event loop is closed")


def test_fails() -> None:
    gc.collect()
    FinalisedLate()
    gc.set_threshold(1000)
    assert 1 == 2
"""
PADDING = "\n".join(f"def _pad_{i}(x):\n    return [x, {{'a': x + {i}}}, (x, x)]\n" for i in range(3000))


def run_inner(tmp_path: Path, *plugins: str) -> str:
    (tmp_path / "test_inner.py").write_text(FAILING_TEST + "\n" + PADDING)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    for plugin in plugins:
        args += ["-p", plugin]
    # The inner pytest: the interpreter's path to find this repository's conftest, nothing secret.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    done = subprocess.run(
        [*args, "test_inner.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    return done.stdout + done.stderr


def test_a_failure_with_a_late_finaliser_is_reported_as_the_failure(tmp_path: Path) -> None:
    output = run_inner(tmp_path, "tests.conftest")
    assert "INTERNALERROR" not in output
    assert "1 failed" in output
    assert "assert 1 == 2" in output


@pytest.mark.skipif(sys.version_info >= (3, 11, 8), reason="CPython 3.11.8 fixed the shared recursion counter")
def test_without_the_guard_the_same_failure_is_an_internal_error(tmp_path: Path) -> None:
    # The control: the construct above does crash pytest on this interpreter, so the test above can fail.
    output = run_inner(tmp_path)
    assert "SystemError: AST constructor recursion depth mismatch" in output
