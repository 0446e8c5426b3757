"""Shared fixtures. Tests mirror the source tree and are named as behaviour sentences."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext, make_context

# Verbatim copies of ../shared/fixtures (real files written by other people); CI has no ../shared.
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "upstream"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failure's report parses the test's source (pytest's statement ranges). On CPython < 3.11.8
    a garbage collection inside that parse can run a finaliser that parses too (pytest's
    unraisable-exception hook formats a traceback, and 3.11's traceback module parses the line for
    its carets); the nested parse corrupts the AST constructor's shared recursion counter
    (CPython gh-106905) and the report ends in an INTERNALERROR instead of naming the failure. So
    the test's garbage is collected first, and no collection runs while the report is made."""
    if call.excinfo is None:
        return (yield)
    import gc

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if enabled:
            gc.enable()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def context(workspace: Path, tmp_path: Path) -> ToolUseContext:
    return make_context(workspace, scratch_dir=tmp_path / "scratch")


@pytest.fixture(autouse=True)
def _forget_captured_secrets() -> Iterator[None]:
    """`bot run` takes the secrets out of os.environ into a process-wide store; one test's secrets
    must not be the next one's."""
    yield
    import os

    from bot.core.canary import DECOY_ENV_NAMES
    from bot.core.secrets import forget_captured

    forget_captured()
    for name in DECOY_ENV_NAMES:  # planted by a run's canaries
        os.environ.pop(name, None)
