"""Writing into ``/dev/null`` or ``/dev/stdout`` through an option (``curl -o /dev/null``) makes no
file, so it needs no Edit rule; replacing a device, or writing another, still counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision


@pytest.mark.parametrize(
    "command",
    [
        "curl -sSf -o /dev/null https://example.com",
        "wget -q -O /dev/null https://example.com",
        "sort -o /dev/stdout README.md",
        "go test -coverprofile=/dev/null ./...",
    ],
)
def test_writing_into_dev_null_needs_no_edit_rule(ws: Path, command: str) -> None:
    (ws / "README.md").write_text("x\n")
    rules = ["Bash(curl:*)", "Bash(wget:*)", "Bash(sort:*)", "Bash(go test:*)"]
    assert isinstance(final_decision(command, context_for(ws, rules)), Allow)


@pytest.mark.parametrize(
    "command", ["ln -sf README.md /dev/null", "rm -f /dev/null", "curl -o /dev/sda https://example.com"]
)
def test_replacing_a_device_or_writing_another_still_counts(ws: Path, command: str) -> None:
    rules = ["Bash(ln:*)", "Bash(rm:*)", "Bash(curl:*)"]
    assert not isinstance(final_decision(command, context_for(ws, rules)), Allow)
