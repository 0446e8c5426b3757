"""The policy schema: Claude Code settings load unchanged, our ``bot`` key, errors with file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.permissions.documents import parse_document
from bot.permissions.rules import parse_rule_text
from bot.permissions.schema import load_policy_file, validate_document
from tests.conftest import FIXTURES

SETTINGS = sorted((FIXTURES / "claude-settings").glob("*.json"))


@pytest.mark.parametrize("path", SETTINGS, ids=[p.stem for p in SETTINGS])
def test_real_claude_code_settings_files_load_and_their_rules_parse(path: Path) -> None:
    policy = load_policy_file(str(path), "repository")
    raw = json.loads(path.read_text())
    perms = raw.get("permissions", {})
    written = [t for b in ("allow", "deny", "ask") for t in perms.get(b, [])]
    assert [r.text for r in policy.rules] == [t.strip() for t in written]
    for rule in policy.rules:
        assert parse_rule_text(rule.text) == (rule.tool, rule.content)
        assert rule.ref.file == str(path) and rule.ref.line is not None
        assert raw_line(path, rule.ref.line).strip().startswith(json.dumps(rule.text))
    assert len([w for w in policy.warnings if "settings this bot does not use" in w]) <= 1
    if "hooks" in raw:
        assert policy.hooks is not None and set(policy.hooks.events) == set(raw["hooks"])


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
        ("an unknown top-level key", '{\n  "permissions": {},\n  "allowTools": []\n}', 3, "unknown key 'allowTools'"),
        ("an unknown permissions key", '{\n  "permissions": {\n    "alow": []\n  }\n}', 3, "permissions.alow"),
        ("an unknown bot key", '{\n  "bot": {\n    "max_turns": 3\n  }\n}', 3, "bot.max_turns"),
        ("an unknown limit", '{"bot": {\n "limits": {\n  "turns": 3}}}', 3, "bot.limits.turns"),
        ("a malformed rule", '{"permissions": {\n "allow": [\n  "Read",\n  "Bash("\n ]}}', 4,
         "permissions.allow\\[1\\]"),
        ("a rule that is not a string", '{"permissions": {"deny": [\n 3\n]}}', 2, "must be a string"),
        ("rules that are not a list", '{"permissions": {\n "deny": "Read"}}', 2, "must be a list"),
        ("a bad mode", '{"permissions": {\n "defaultMode": "yolo"}}', 2, "defaultMode"),
        ("a bad disableBypassPermissionsMode", '{"permissions": {\n "disableBypassPermissionsMode": true}}', 2,
         "must be \"disable\""),
        ("a zero turn limit", '{"bot": {"limits": {\n "max_turns": 0}}}', 2, "at least 1"),
        ("a boolean budget", '{"bot": {"limits": {\n "max_budget_usd": true}}}', 2, "greater than 0"),
        ("a bad sandbox value", '{"bot": {\n "sandbox": "sometimes"}}', 2, "bot.sandbox"),
        ("a secret let into the shell", '{"bot": {"env": [\n "GITHUB_TOKEN"]}}', 2, "secret"),
        ("a bad env name", '{"bot": {"env": {\n "A-B": "x"}}}', 2, "not an environment variable"),
        ("a hook group without hooks", '{"hooks": {"PreToolUse": [\n {"matcher": "Bash"}]}}', 2,
         "non-empty list"),
        ("a command hook without a command", '{"hooks": {"Stop": [{"hooks": [\n {"type": "command"}]}]}}', 2,
         "needs a \"command\""),
        ("an empty verify command", '{"bot": {\n "verify": ["pytest", " "]}}', 2, "empty command"),
        ("a document that is not an object", "[\n1]", None, "must be an object"),
    ],
)
def test_schema_errors_name_the_file_and_the_line(description: str, text: str, line: int | None,
                                                  message: str) -> None:
    error = check(text)
    assert error.path == "policy.json", description
    assert error.line == line, (description, str(error))
    assert re.search(message, str(error)), (description, str(error))


def test_a_yaml_policy_error_names_the_yaml_line() -> None:
    error = check("permissions:\n  allow:\n    - Read\n    - WebFetch(example.com)\n", "policy.yml")
    assert error.line == 4 and "domain:HOST" in str(error)


def test_a_toml_policy_error_names_the_toml_line() -> None:
    error = check('[permissions]\nallow = [\n  "Read",\n  "mcp__x(y)",\n]\n', "policy.toml")
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
    assert values == {"limits.max_turns": 12, "limits.max_budget_usd": 2.5, "limits.timeout_minutes": 30.0,
                      "model": "claude-sonnet-4-5", "sandbox": "required", "verify": ("pytest -q",),
                      "scheduled_task": "Update dependencies.", "allow_git_dir_writes": True,
                      "allow_workflow_writes": False}
    assert {k: s.value for k, s in policy.env.items()} == {"NODE_ENV": "test", "CI": None}
    assert policy.settings["model"].origin.line == 5


def test_hooks_and_mcp_servers_are_kept_raw_with_their_file() -> None:
    text = json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                                "command": "x"}]}]},
                       "mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}, indent=1)
    policy = validate_document(parse_document(text, "p.json"), "organisation")
    assert policy.hooks is not None and policy.hooks.origin.file == "p.json"
    assert policy.hooks.events["PreToolUse"][0]["matcher"] == "Bash"
    assert policy.mcp_servers["git"].value["command"] == "uvx"
    assert policy.mcp_servers["git"].origin.source == "organisation"


def test_an_unknown_hook_event_is_a_warning_not_an_error() -> None:
    text = json.dumps({"hooks": {"BeforeLunch": [{"hooks": [{"type": "command", "command": "x"}]}]}})
    policy = validate_document(parse_document(text, "p.json"), "repository")
    assert any("BeforeLunch" in w for w in policy.warnings)
