"""Hook configuration: Claude Code's shape, matchers as Claude Code reads them, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.runtime.hook_config import matcher_matches, merge_hooks, parse_hooks
from tests.conftest import FIXTURES

SETTINGS = sorted((FIXTURES / "claude-settings").glob("*.json"))


@pytest.mark.parametrize("path", SETTINGS, ids=[p.stem for p in SETTINGS])
def test_real_settings_files_hooks_load(path: Path) -> None:
    data = json.loads(path.read_text())
    config = parse_hooks(data.get("hooks"), str(path))
    fired = {e for e in data.get("hooks", {}) if e in config.events}
    assert set(config.events) == fired
    for entries in config.events.values():
        for entry in entries:
            assert all(h.command and h.timeout_s > 0 for h in entry.hooks)


@pytest.mark.parametrize(
    ("description", "matcher", "tool", "expected"),
    [
        ("no matcher matches all", None, "Bash", True),
        ("empty matcher matches all", "", "Read", True),
        ("star matches all", "*", "mcp__x__y", True),
        ("exact name", "Bash", "Bash", True),
        ("exact name is not a prefix", "Bash", "BashOutput", False),
        ("a list with |", "Edit|Write", "Write", True),
        ("a list with commas and spaces", "Edit, Write", "Write", True),
        ("a list does not match others", "Edit|Write", "Read", False),
        ("a regex is unanchored", "Edit.*", "NotebookEdit", True),
        ("a regex with anchors", "^Edit$", "NotebookEdit", False),
        ("MCP tools by full name", "mcp__github__.*", "mcp__github__create_issue", True),
        ("MCP exact name", "mcp__time__now", "mcp__time__now", True),
        ("an invalid regex matches nothing", "(", "Bash", False),
    ],
)
def test_matchers(description: str, matcher: str | None, tool: str, expected: bool) -> None:
    assert matcher_matches(matcher, tool) is expected, description


@pytest.mark.parametrize(
    ("description", "raw", "fragment"),
    [
        ("hooks is not an object", [], "must be an object of event names"),
        ("unknown event", {"PreToolUs": []}, "unknown hook event 'PreToolUs'"),
        ("entries not a list", {"PreToolUse": {}}, "must be a list"),
        ("entry without hooks", {"PreToolUse": [{"matcher": "Bash"}]}, "hooks` must be a list"),
        ("unknown key in entry", {"PreToolUse": [{"hooks": [], "matchr": "x"}]}, "unknown keys: matchr"),
        ("empty command", {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}, "non-empty string"),
        ("bad timeout", {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}, "positive number"),
        ("bad regex", {"PreToolUse": [{"matcher": "Edit(", "hooks": []}]}, "not a valid regular expression"),
    ],
)
def test_malformed_hooks_name_the_file_and_what_is_wrong(description: str, raw: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_hooks(raw, "policy.json", {"hooks": 4, "hooks.PreToolUse": 5})
    assert fragment in str(info.value), description
    assert str(info.value).startswith("policy.json")


def test_events_that_never_fire_headless_are_a_warning_not_an_error() -> None:
    config = parse_hooks({"Notification": [{"hooks": [{"type": "command", "command": "x"}]}]}, "p.json")
    assert not config
    assert "never fires" in config.warnings[0]


def test_prompt_hooks_are_ignored_with_a_warning() -> None:
    config = parse_hooks({"Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}]}, "p.json")
    assert config.commands_for("Stop") == []
    assert "only command hooks run headless" in config.warnings[0]


def test_identical_commands_run_once_and_sources_merge() -> None:
    a = parse_hooks({"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "check"}]}]}, "org.json")
    b = parse_hooks({"PreToolUse": [{"hooks": [{"command": "check"}, {"command": "log"}]}]}, "repo.json")
    merged = merge_hooks([a, b])
    assert [h.command for h in merged.commands_for("PreToolUse", "Bash")] == ["check", "log"]
    assert [h.source for h in merged.commands_for("PreToolUse", "Bash")] == ["org.json", "repo.json"]
    read = merged.commands_for("PreToolUse", "Read")
    assert [(h.command, h.source) for h in read] == [("check", "repo.json"), ("log", "repo.json")]
