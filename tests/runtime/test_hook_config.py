"""Hook configuration: Claude Code's shape, matchers as Claude Code reads them, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.permissions.schema import HOOK_EVENTS
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.runtime.hook_config import FIRED_EVENTS, matcher_matches, merge_hooks, parse_hooks
from bot.runtime.hook_runner import hooks_from_policy
from tests.conftest import FIXTURES

CLAUDE_SETTINGS = FIXTURES / "claude-settings"
#: Not JSON (comments): tests/permissions/test_schema.py checks the error.
UNLOADABLE = {"zed-industries__zed.json"}
SETTINGS = sorted(p for p in CLAUDE_SETTINGS.glob("*.json") if p.name not in UNLOADABLE)


@pytest.mark.parametrize("path", SETTINGS, ids=[p.stem for p in SETTINGS])
def test_real_settings_files_hooks_load(path: Path) -> None:
    data = json.loads(path.read_text())
    config = parse_hooks(data.get("hooks"), str(path))
    assert set(config.events) == set(data.get("hooks", {})) & set(FIRED_EVENTS)
    for event in set(data.get("hooks", {})) - set(FIRED_EVENTS):
        assert any(repr(event) in w and "never fired headless, ignored" in w for w in config.warnings), event
    for entries in config.events.values():
        for entry in entries:
            assert all(h.command and h.timeout_s > 0 for h in entry.hooks)


def load_hooks(name: str) -> tuple[str, tuple[str, ...], object]:
    """A real settings file loaded as a run loads it: the policy, then its hooks."""
    path = str(CLAUDE_SETTINGS / name)
    policy = load_policy_stack([PolicyLayer("repository", path=path)])
    config = hooks_from_policy(policy.hooks)
    return path, config.warnings, config


@pytest.mark.parametrize(
    ("description", "matcher"),
    [
        ("a star", "*"),
        ("a star with spaces", " * "),
        ("empty", ""),
        ("absent", None),
    ],
)
def test_a_match_everything_matcher_is_not_compiled_as_a_regex(description: str, matcher: str | None) -> None:
    entry: dict[str, object] = {"hooks": [{"type": "command", "command": "check"}]}
    if matcher is not None:
        entry["matcher"] = matcher
    config = parse_hooks({"PreToolUse": [entry], "Stop": [entry]}, "p.json")
    assert [h.command for h in config.commands_for("PreToolUse", "mcp__x__y")] == ["check"], description
    assert [h.command for h in config.commands_for("Stop")] == ["check"], description


def test_a_real_stop_hook_with_a_star_matcher_loads() -> None:
    _, _, config = load_hooks("bidon-io__bidon-sdk-android.json")
    assert [h.command.split(" && ")[0] for h in config.commands_for("Stop")] == ["cd $CLAUDE_PROJECT_DIR"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("description", "event", "fragment"),
    [
        ("a Claude Code event that never fires headless", "StopFailure", "hook event 'StopFailure'"),
        ("compaction never happens headless", "PostCompact", "hook event 'PostCompact'"),
        ("one of the newest events", "PostToolBatch", "hook event 'PostToolBatch'"),
        ("nobody to notify", "Notification", "hook event 'Notification'"),
        ("an event Claude Code does not have", "BeforeLunch", "unknown hook event 'BeforeLunch'"),
        ("a misspelt event says what was meant", "PreToolUs", "did you mean 'PreToolUse'"),
    ],
)
def test_events_a_headless_run_never_fires_are_a_warning_with_their_line(
    description: str, event: str, fragment: str
) -> None:
    config = parse_hooks(
        {event: [{"hooks": [{"type": "command", "command": "x"}]}]}, "p.json", {"hooks": 4, f"hooks.{event}": 5}
    )
    assert not config, description
    assert len(config.warnings) == 1
    assert config.warnings[0].startswith("p.json:5: ") and fragment in config.warnings[0], config.warnings
    assert config.warnings[0].endswith("never fired headless, ignored")


def test_the_hook_event_list_is_the_schemas() -> None:
    assert set(FIRED_EVENTS) <= set(HOOK_EVENTS)


def test_a_real_file_with_unfired_events_loads_and_each_warning_names_the_events_line() -> None:
    path, warnings, config = load_hooks("0-AI-UG__open-cli-deployment__settings-local.json")
    lines = {"Notification": 45, "SessionEnd": 75, "PermissionRequest": 85, "StopFailure": 95}
    for event, line in lines.items():
        assert any(w.startswith(f"{path}:{line}: ") and repr(event) in w for w in warnings), (event, warnings)
    assert set(config.events) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreToolUse"}  # type: ignore[attr-defined]


def test_errors_from_policy_hooks_name_the_line_of_the_hook(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [{"hooks": [{"type": "command", "command": "x"}]}],
                    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": -1}]}],
                }
            },
            indent=1,
        )
    )
    policy = load_policy_stack([PolicyLayer("repository", path=str(path))])
    with pytest.raises(ConfigError) as info:
        hooks_from_policy(policy.hooks)
    assert (info.value.path, info.value.line) == (str(path), 17), str(info.value)


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
        ("a star with spaces matches all", " * ", "Read", True),
    ],
)
def test_matchers(description: str, matcher: str | None, tool: str, expected: bool) -> None:
    assert matcher_matches(matcher, tool) is expected, description


@pytest.mark.parametrize(
    ("description", "raw", "fragment"),
    [
        ("hooks is not an object", [], "must be an object of event names"),
        ("entries not a list", {"PreToolUse": {}}, "must be a list"),
        ("entry without hooks", {"PreToolUse": [{"matcher": "Bash"}]}, "hooks` must be a list"),
        ("unknown key in entry", {"PreToolUse": [{"hooks": [], "matchr": "x"}]}, "unknown keys: matchr"),
        ("empty command", {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}, "non-empty string"),
        ("bad timeout", {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}, "positive number"),
        ("bad regex", {"PreToolUse": [{"matcher": "Edit(", "hooks": []}]}, "not a valid regular expression"),
        (
            "an if that is not a rule",
            {"PreToolUse": [{"hooks": [{"command": "x", "if": "git *"}]}]},
            "`hooks.PreToolUse[0].hooks[0].if`: rule 'git *'",
        ),
        (
            "an if that is not a string",
            {"PreToolUse": [{"hooks": [{"command": "x", "if": ["Bash"]}]}]},
            "must be a permission rule",
        ),
    ],
)
def test_malformed_hooks_name_the_file_and_what_is_wrong(description: str, raw: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_hooks(raw, "policy.json", {"hooks": 4, "hooks.PreToolUse": 5})
    assert fragment in str(info.value), description
    assert str(info.value).startswith("policy.json")


@pytest.mark.parametrize(
    ("description", "text", "tool", "content"),
    [
        ("a command prefix", "Bash(git commit*)", "Bash", "git commit*"),
        ("a whole tool", "Write", "Write", None),
        ("a path pattern", "Edit(*.ts)", "Edit", "*.ts"),
        ("escapes are read as in permission rules", r"Bash(python3 -c print\(1\))", "Bash", "python3 -c print(1)"),
    ],
)
def test_an_if_is_read_as_a_permission_rule(description: str, text: str, tool: str, content: str | None) -> None:
    config = parse_hooks({"PostToolUse": [{"hooks": [{"command": "x", "if": text}]}]}, "p.json")
    (hook,) = config.commands_for("PostToolUse", "Bash")
    assert hook.condition is not None, description
    assert (hook.condition.tool, hook.condition.content, hook.condition.text) == (tool, content, text)


def test_real_hooks_with_an_if_keep_it() -> None:
    _, warnings, config = load_hooks("bibito-__claude-workflow-kit.json")
    hooks = config.commands_for("PreToolUse", "Bash")  # type: ignore[attr-defined]
    assert [h.condition.text if h.condition else None for h in hooks] == ["Bash(rm -rf *)", None, None, None]
    assert not [w for w in warnings if "if" in w]


def test_an_if_on_an_event_without_a_tool_means_the_hook_never_runs() -> None:
    config = parse_hooks(
        {"Stop": [{"hooks": [{"command": "x", "if": "Bash(git *)"}, {"command": "y"}]}]},
        "p.json",
        {"hooks.Stop[0].hooks[0]": 7},
    )
    assert [h.command for h in config.commands_for("Stop")] == ["y"]
    assert config.warnings[0].startswith("p.json:7: ") and "never runs" in config.warnings[0]


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
