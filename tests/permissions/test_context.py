"""The permission context: which whole tools a blanket rule removes (families included)."""

from __future__ import annotations

import pytest

from bot.permissions.context import PermissionContext
from bot.permissions.rules import make_rule


@pytest.mark.parametrize(
    ("description", "deny", "tool", "removed"),
    [
        ("a whole-tool deny removes the tool", "Read", "Read", True),
        ("a Read deny removes Glob and Grep too", "Read", "Grep", True),
        ("an Edit deny removes Write too", "Edit", "Write", True),
        ("a path deny removes nothing", "Read(.env)", "Read", False),
        ("a server deny removes its tools", "mcp__gh", "mcp__gh__list", True),
        ("a deny of one tool leaves the others", "Glob", "Read", False),
    ],
)
def test_blanket_denies(description: str, deny: str, tool: str, removed: bool) -> None:
    context = PermissionContext(deny=(make_rule(deny, "deny", "repository"),))
    assert context.is_blanket_denied(tool) is removed, description
