"""Claude Code's ``sandbox`` and ``env`` settings are honoured where they mean something here
(read by the shell under the names it reads), never to loosen the sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.shell.execute.env import policy_env_settings
from bot.shell.sandbox.status import sandbox_settings
from tests.conftest import FIXTURES


def load(tmp_path: Path, document: dict[str, object]) -> tuple[dict[str, object], tuple[str, ...]]:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(document, indent=2))
    merged = load_policy_stack([PolicyLayer("repository", path=str(path))])
    return merged.permission_context(tmp_path).extra, merged.warnings


def test_a_sandbox_that_must_not_fail_is_required(tmp_path: Path) -> None:
    extra, _ = load(tmp_path, {"sandbox": {"enabled": True, "failIfUnavailable": True}})
    assert sandbox_settings(extra).mode == "required"


@pytest.mark.parametrize("document", [{"enabled": False}, {"enabled": True}, {"failIfUnavailable": False}])
def test_claude_code_never_turns_the_sandbox_off(tmp_path: Path, document: dict[str, object]) -> None:
    extra, _ = load(tmp_path, {"sandbox": document})
    assert sandbox_settings(extra).mode == "auto"


def test_excluded_and_unsandboxed_commands_arrive_and_bot_keys_win(tmp_path: Path) -> None:
    claude = {"sandbox": {"excludedCommands": ["docker *"], "allowUnsandboxedCommands": False}}
    extra, _ = load(tmp_path, claude)
    settings = sandbox_settings(extra)
    assert tuple(settings.excluded_commands) == ("docker *",) and settings.allow_unsandboxed is False
    extra, _ = load(tmp_path, {**claude, "bot": {"excluded_commands": ["make *"], "sandbox": "required"}})
    assert tuple(sandbox_settings(extra).excluded_commands) == ("make *",)


def test_a_network_that_would_widen_access_is_warned_about(tmp_path: Path) -> None:
    _, warnings = load(tmp_path, {"sandbox": {"network": {"allowedDomains": ["github.com"]}}})
    assert any("sandbox.network.allowedDomains not honoured" in w and "bot.network" in w for w in warnings)
    extra, warnings = load(tmp_path, {"sandbox": {"autoAllowBashIfSandboxed": True}})
    assert sandbox_settings(extra).network is False
    assert any("settings this bot does not use" in w and "sandbox.autoAllowBashIfSandboxed" in w for w in warnings)


def test_the_strict_example_loads_with_no_network_warning(tmp_path: Path) -> None:
    path = tmp_path / "strict.json"
    shutil.copyfile(FIXTURES / "claude-settings" / "anthropics__claude-code__examples-settings-strict.json", path)
    merged = load_policy_stack([PolicyLayer("organisation", path=str(path))])
    assert not [w for w in merged.warnings if "not honoured" in w]
    assert sandbox_settings(merged.permission_context(tmp_path).extra).mode == "auto"


def test_claude_code_env_reaches_commands_and_bot_env_wins(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    shutil.copyfile(FIXTURES / "claude-settings" / "trailofbits__claude-code-config.json", path)
    extra = load_policy_stack([PolicyLayer("repository", path=str(path))]).permission_context(tmp_path).extra
    env, _, _ = policy_env_settings(extra)
    assert env["DISABLE_TELEMETRY"] == "1" and env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] == "1"
    extra, _ = load(tmp_path, {"env": {"NODE_ENV": "dev", "CI": "1"}, "bot": {"env": {"NODE_ENV": "test"}}})
    env, _, _ = policy_env_settings(extra)
    assert env == {"NODE_ENV": "test", "CI": "1"}


def test_a_secret_in_claude_code_env_is_skipped_with_a_warning(tmp_path: Path) -> None:
    extra, warnings = load(tmp_path, {"env": {"GITHUB_TOKEN": "x", "A-B": "y", "OK": "z"}})
    env, _, _ = policy_env_settings(extra)
    assert env == {"OK": "z"}
    assert any("settings.json:3: env: GITHUB_TOKEN is a secret" in w for w in warnings), warnings
    assert any("'A-B' is not an environment variable name" in w for w in warnings)


@pytest.mark.parametrize(
    ("document", "line", "message"),
    [
        ({"env": {"A": 1}}, 3, "env.A must be a string"),
        ({"env": ["A"]}, 2, "env must be an object"),
        ({"sandbox": {"enabled": "yes"}}, 3, "sandbox.enabled must be true or false"),
        ({"sandbox": {"excludedCommands": "docker"}}, 3, "sandbox.excludedCommands must be a list of strings"),
    ],
)
def test_a_malformed_value_is_an_error_with_its_line(
    tmp_path: Path, document: dict[str, object], line: int, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, document)
    assert info.value.line == line and message in str(info.value)
