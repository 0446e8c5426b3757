"""Shared fixtures. Tests mirror the source tree and are named as behaviour sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.tools.context import ToolUseContext, make_context

SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def context(workspace: Path, tmp_path: Path) -> ToolUseContext:
    return make_context(workspace, scratch_dir=tmp_path / "scratch")
