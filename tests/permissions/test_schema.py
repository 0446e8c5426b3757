"""The policy schema: Claude Code settings load unchanged, our ``bot`` key, errors with file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.permissions.documents import parse_document
from bot.permissions.rules import parse_rule_text
from bot.permissions.schema import HOOK_EVENTS, load_policy_file, validate_document
from tests.conftest import FIXTURES

CLAUDE_SETTINGS = FIXTURES / "claude-settings"
#: Real files that do not load, and why (each has its own test).
UNLOADABLE = {"zed-industries__zed.json": "comments are not allowed in JSON"}
SETTINGS = sorted(p for p in CLAUDE_SETTINGS.glob("*.json") if p.name not in UNLOADABLE)


@pytest.mark.parametrize("path", SETTINGS, ids=[p.stem for p in SETTINGS])
def test_real_claude_code_settings_files_load_and_their_rules_parse(path: Path) -> None:
    policy = load_policy_file(str(path), "repository")
    raw = json.loads(path.read_text())
    perms = raw.get("permissions", {})
    written = [t.strip() for b in ("allow", "deny", "ask") for t in perms.get(b, [])]
    texts = [r.text for r in policy.rules]
    assert texts == [t for t in written if t in texts]
    for skipped in (t for t in written if t not in texts):  # invalid allow rules, each named in a warning
        assert any(repr(skipped) in w and "skipped" in w for w in policy.warnings), skipped
    for rule in policy.rules:
        assert parse_rule_text(rule.text) == (rule.tool, rule.content)
        assert rule.ref.file == str(path) and rule.ref.line is not None
        assert raw_line(path, rule.ref.line).strip().startswith(json.dumps(rule.text))
    assert len([w for w in policy.warnings if "settings this bot does not use" in w]) <= 1
    if "hooks" in raw:
        assert policy.hooks is not None and set(policy.hooks.events) == set(raw["hooks"]) & set(HOOK_EVENTS)


@pytest.mark.parametrize("name", sorted(UNLOADABLE))
def test_real_files_that_do_not_load_say_why(name: str) -> None:
    with pytest.raises(ConfigError, match=UNLOADABLE[name]):
        load_policy_file(str(CLAUDE_SETTINGS / name), "repository")


def raw_line(path: Path, line: int) -> str:
    return path.read_text().splitlines()[line - 1]


def test_unused_claude_code_keys_are_one_warning_naming_them() -> None:
    policy = load_policy_file(str(FIXTURES / "claude-settings" / "trailofbits__claude-code-config.json"), "repository")
    assert len(policy.warnings) == 1
    assert "alwaysThinkingEnabled" in policy.warnings[0] and "cleanupPeriodDays" in policy.warnings[0]


def test_the_strict_example_disables_bypass_mode() -> None:
    path = FIXTURES / "claude-settings" / "anthropics__claude-code__examples-settings-strict.json"
    policy = load_policy_file(str(path), "organisation")
    assert policy.disable_bypass is not None and policy.disable_bypass.origin.line == 3


def check(text: str, name: str = "policy.json") -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        validate_document(parse_document(text, name), "repository")
    return caught.value


@pytest.mark.parametrize(
    ("description", "text", "line", "message"),
    [
        (
            "a misspelt key we read",
            '{\n  "permissions": {},\n  "permission": {}\n}',
            3,
            "unknown key 'permission'.*did you mean 'permissions'",
        ),
        ("a key we read, in the wrong case", '{\n  "Hooks": {}\n}', 2, "did you mean 'hooks'"),
        ("an unknown permissions key", '{\n  "permissions": {\n    "alow": []\n  }\n}', 3, "permissions.alow"),
        ("an unknown bot key", '{\n  "bot": {\n    "max_turns": 3\n  }\n}', 3, "bot.max_turns"),
        ("an unknown limit", '{"bot": {\n "limits": {\n  "turns": 3}}}', 3, "bot.limits.turns"),
        (
            "a malformed deny rule",
            '{"permissions": {\n "deny": [\n  "Read",\n  "Bash("\n ]}}',
            4,
            "permissions.deny\\[1\\]",
        ),
        (
            "a malformed ask rule",
            '{"permissions": {\n "ask": [\n  "git *"\n ]}}',
            3,
            "permissions.ask\\[0\\].*'git \\*' is not a tool name",
        ),
        ("a rule that is not a string", '{"permissions": {"deny": [\n 3\n]}}', 2, "must be a string"),
        ("rules that are not a list", '{"permissions": {\n "deny": "Read"}}', 2, "must be a list"),
        ("a bad mode", '{"permissions": {\n "defaultMode": "yolo"}}', 2, "defaultMode"),
        (
            "a bad disableBypassPermissionsMode",
            '{"permissions": {\n "disableBypassPermissionsMode": true}}',
            2,
            'must be "disable"',
        ),
        ("a zero turn limit", '{"bot": {"limits": {\n "max_turns": 0}}}', 2, "at least 1"),
        ("a boolean budget", '{"bot": {"limits": {\n "max_budget_usd": true}}}', 2, "greater than 0"),
        ("a bad sandbox value", '{"bot": {\n "sandbox": "sometimes"}}', 2, "bot.sandbox"),
        ("a secret let into the shell", '{"bot": {"env": [\n "GITHUB_TOKEN"]}}', 2, "secret"),
        ("a bad env name", '{"bot": {"env": {\n "A-B": "x"}}}', 2, "not an environment variable"),
        ("a hook group without hooks", '{"hooks": {"PreToolUse": [\n {"matcher": "Bash"}]}}', 2, "non-empty list"),
        (
            "a command hook without a command",
            '{"hooks": {"Stop": [{"hooks": [\n {"type": "command"}]}]}}',
            2,
            'needs a "command"',
        ),
        ("an empty verify command", '{"bot": {\n "verify": ["pytest", " "]}}', 2, "empty command"),
        ("a document that is not an object", "[\n1]", None, "must be an object"),
    ],
)
def test_schema_errors_name_the_file_and_the_line(description: str, text: str, line: int | None, message: str) -> None:
    error = check(text)
    assert error.path == "policy.json", description
    assert error.line == line, (description, str(error))
    assert re.search(message, str(error)), (description, str(error))


def test_a_yaml_policy_error_names_the_yaml_line() -> None:
    error = check("permissions:\n  deny:\n    - Read\n    - WebFetch(example.com)\n", "policy.yml")
    assert error.line == 4 and "domain:HOST" in str(error)


def test_a_toml_policy_error_names_the_toml_line() -> None:
    error = check('[permissions]\ndeny = [\n  "Read",\n  "mcp__x(y)",\n]\n', "policy.toml")
    assert error.line == 4 and "no content" in str(error)


def test_the_bot_key_is_read() -> None:
    text = """{
  "bot": {
    "extends": "fix",
    "limits": {"max_turns": 12, "max_budget_usd": 2.5, "timeout_minutes": 30},
    "model": "claude-sonnet-4-5",
    "sandbox": "required",
    "env": {"NODE_ENV": "test", "CI": null},
    "verify": ["pytest -q"],
    "scheduled_task": "Update dependencies.",
    "allow_git_dir_writes": true,
    "allow_workflow_writes": false
  }
}"""
    policy = validate_document(parse_document(text, "p.json"), "repository")
    assert policy.extends is not None and policy.extends.value == "fix"
    values = {k: s.value for k, s in policy.settings.items()}
    assert values == {
        "limits.max_turns": 12,
        "limits.max_budget_usd": 2.5,
        "limits.timeout_minutes": 30.0,
        "model": "claude-sonnet-4-5",
        "sandbox": "required",
        "verify": ("pytest -q",),
        "scheduled_task": "Update dependencies.",
        "allow_git_dir_writes": True,
        "allow_workflow_writes": False,
    }
    assert {k: s.value for k, s in policy.env.items()} == {"NODE_ENV": "test", "CI": None}
    assert policy.settings["model"].origin.line == 5


def test_hooks_and_mcp_servers_are_kept_raw_with_their_file() -> None:
    text = json.dumps(
        {
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]},
            "mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}},
        },
        indent=1,
    )
    policy = validate_document(parse_document(text, "p.json"), "organisation")
    assert policy.hooks is not None and policy.hooks.origin.file == "p.json"
    assert policy.hooks.events["PreToolUse"][0]["matcher"] == "Bash"
    assert policy.mcp_servers["git"].value["command"] == "uvx"
    assert policy.mcp_servers["git"].origin.source == "organisation"


@pytest.mark.parametrize(
    ("description", "fixture", "key", "line"),
    [
        ("a newer Claude Code display setting", "bhyslop__recipemuster.json", "showThinkingSummaries", 2),
        ("a newer Claude Code skills setting", "biancamoreno__arbor-ds.json", "skillOverrides", 3),
    ],
)
def test_an_unknown_top_level_key_is_a_warning_naming_the_file_line_and_key(
    description: str, fixture: str, key: str, line: int
) -> None:
    path = str(CLAUDE_SETTINGS / fixture)
    policy = load_policy_file(path, "repository")
    assert any(w.startswith(f"{path}:{line}: ") and repr(key) in w and "ignored" in w for w in policy.warnings), (
        description,
        policy.warnings,
    )


@pytest.mark.parametrize(
    ("description", "fixture", "rules", "lines", "kept"),
    [
        ("a bare star", "006mi4__hytale-server-manager__settings-local.json", ["*"], [4], 9),
        (
            "commands without a tool name",
            "bhupendra1011__sample-agent.json",
            ["npm run *", "npm install *", "git *"],
            [4, 5, 6],
            0,
        ),
    ],
)
def test_an_invalid_allow_rule_is_skipped_with_a_warning_naming_file_and_line(
    description: str, fixture: str, rules: list[str], lines: list[int], kept: int
) -> None:
    path = str(CLAUDE_SETTINGS / fixture)
    policy = load_policy_file(path, "repository")
    assert len(policy.rules) == kept, description
    for rule, line in zip(rules, lines, strict=True):
        assert any(w.startswith(f"{path}:{line}: ") and repr(rule) in w and "skipped" in w for w in policy.warnings), (
            description,
            rule,
            policy.warnings,
        )


@pytest.mark.parametrize(
    ("description", "behavior"),
    [
        ("a deny rule: skipping it would allow more", "deny"),
        ("an ask rule: skipping it would allow more", "ask"),
    ],
)
def test_an_invalid_deny_or_ask_rule_is_still_an_error(description: str, behavior: str) -> None:
    error = check(json.dumps({"permissions": {behavior: ["Read", "*"]}}, indent=1))
    assert error.line == 5 and f"permissions.{behavior}[1]" in str(error), description


@pytest.mark.parametrize(
    ("description", "event", "fragment"),
    [
        ("a Claude Code event a headless run never fires", "StopFailure", None),
        ("another one", "PostCompact", None),
        ("an event Claude Code does not have", "BeforeLunch", "unknown hook event 'BeforeLunch'"),
    ],
)
def test_hook_events_we_do_not_fire_are_kept_or_warned_never_an_error(
    description: str, event: str, fragment: str | None
) -> None:
    text = json.dumps({"hooks": {event: [{"hooks": [{"type": "command", "command": "x"}]}]}}, indent=1)
    policy = validate_document(parse_document(text, "p.json"), "repository")
    assert policy.hooks is not None
    if fragment is None:  # a Claude Code event: kept for the hooks layer, which warns that it never fires
        assert event in HOOK_EVENTS and event in policy.hooks.events, description
    else:
        assert event not in policy.hooks.events
        assert any(
            w.startswith("p.json:3: ") and fragment in w and "never fired headless, ignored" in w
            for w in policy.warnings
        ), (description, policy.warnings)


def test_claude_code_current_hook_events_are_all_known() -> None:
    documented = {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "PermissionRequest",
        "PermissionDenied",
        "Notification",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "Elicitation",
        "ElicitationResult",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "Setup",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "SessionStart",
        "SessionEnd",
        "PreModelSwitch",
        "PostModelSwitch",
        "MessageDisplay",
        "DirectoryAdded",
    }
    assert set(HOOK_EVENTS) == documented


def test_a_hook_set_knows_the_line_of_every_event_group_and_hook() -> None:
    path = str(CLAUDE_SETTINGS / "bibito-__claude-workflow-kit.json")
    hooks = load_policy_file(path, "repository").hooks
    assert hooks is not None
    assert hooks.lines["hooks"] == 2 and hooks.lines["hooks.PreToolUse"] == 3
    assert hooks.lines["hooks.PreToolUse[1]"] == 30 and hooks.lines["hooks.PreToolUse[0].hooks[1]"] == 13
