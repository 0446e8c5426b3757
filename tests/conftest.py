"""Shared fixtures. Tests mirror the source tree and are named as behaviour sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.tools.context import ToolUseContext, make_context

# Verbatim copies of ../shared/fixtures (real files written by other people); CI has no ../shared.
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "upstream"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def context(workspace: Path, tmp_path: Path) -> ToolUseContext:
    return make_context(workspace, scratch_dir=tmp_path / "scratch")
