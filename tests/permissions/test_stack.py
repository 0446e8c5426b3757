"""Policy sources merged: precedence, extends, bypass, session grants, and what ``policy show`` prints."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from bot.errors import ConfigError
from bot.permissions.chain import PermissionRequest
from bot.permissions.describe import policy_json, policy_text
from bot.permissions.engine import PolicyEngine
from bot.permissions.stack import (
    PRESETS_DIR,
    PolicyLayer,
    add_session_rules,
    find_repository_policy,
    list_presets,
    load_policy_stack,
)


def write(path: Path, data: dict[str, Any]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def policy(
    mode: str | None = None, allow: list[str] | None = None, deny: list[str] | None = None, **bot: Any
) -> dict[str, Any]:
    perms: dict[str, Any] = {}
    if mode:
        perms["defaultMode"] = mode
    if allow:
        perms["allow"] = allow
    if deny:
        perms["deny"] = deny
    data: dict[str, Any] = {"permissions": perms}
    if bot:
        data["bot"] = bot
    return data


def test_scalars_come_from_the_strongest_source_that_sets_them(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo.json", policy("acceptEdits", model="repo-model", limits={"max_turns": 5}))
    org = write(tmp_path / "org.json", policy("plan", limits={"max_turns": 9}))
    flag = write(tmp_path / "flag.json", policy(limits={"timeout_minutes": 3}))
    merged = load_policy_stack(
        [PolicyLayer("flag", flag), PolicyLayer("organisation", org), PolicyLayer("repository", repo)]
    )
    assert [f.source for f in merged.files] == ["repository", "organisation", "flag"]
    assert merged.mode.value == "plan" and merged.mode.origin.file == org
    assert merged.setting("model") == "repo-model"
    assert merged.setting("limits.max_turns") == 9
    assert merged.setting("limits.timeout_minutes") == 3.0
    assert load_policy_stack([PolicyLayer("organisation", org)], mode="acceptEdits").mode.value == "acceptEdits"


def test_rules_are_kept_strongest_source_first(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo.json", policy(deny=["Read(a)"]))
    org = write(tmp_path / "org.json", policy(deny=["Read(b)"]))
    merged = load_policy_stack(
        [PolicyLayer("repository", repo), PolicyLayer("organisation", org)],
        deny=["Read(c)"],
        session=[("deny", "Read(d)")],
    )
    assert [(r.text, r.ref.source) for r in merged.deny] == [
        ("Read(c)", "cliArg"),
        ("Read(b)", "organisation"),
        ("Read(a)", "repository"),
        ("Read(d)", "session"),
    ]


def test_a_file_extends_a_preset_below_itself(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo.json", policy(allow=["Bash(make docs)"], extends="fix", limits={"max_turns": 7}))
    merged = load_policy_stack([PolicyLayer("repository", repo)])
    assert [(Path(f.path).name, f.source) for f in merged.files] == [
        ("fix.json", "preset"),
        ("repo.json", "repository"),
    ]
    assert merged.setting("limits.max_turns") == 7
    assert any(r.text == "Edit" and r.ref.source == "preset" for r in merged.allow)
    assert merged.allow[0].text == "Bash(make docs)"


def test_a_file_extends_a_path_next_to_it_with_its_own_source(tmp_path: Path) -> None:
    write(tmp_path / "base" / "common.json", policy(deny=["WebFetch"]))
    repo = write(tmp_path / "repo.json", policy(extends="base/common.json"))
    merged = load_policy_stack([PolicyLayer("repository", repo)])
    assert [(r.text, r.ref.source) for r in merged.deny] == [("WebFetch", "repository")]


@pytest.mark.parametrize(
    ("description", "files", "message"),
    [
        ("an unknown preset", {"a.json": policy(extends="nope")}, "no preset named 'nope'"),
        ("a missing file", {"a.json": policy(extends="missing.json")}, "no such file"),
        ("a cycle", {"a.json": policy(extends="b.json"), "b.json": policy(extends="a.json")}, "cycle"),
        ("itself", {"a.json": policy(extends="./a.json")}, "cycle"),
    ],
)
def test_bad_extends_are_config_errors_with_the_line(
    tmp_path: Path, description: str, files: dict[str, dict[str, Any]], message: str
) -> None:
    for name, data in files.items():
        write(tmp_path / name, data)
    with pytest.raises(ConfigError, match=message) as caught:
        load_policy_stack([PolicyLayer("repository", str(tmp_path / "a.json"))])
    assert caught.value.path is not None, description


def test_a_policy_read_from_the_default_branch_may_extend_only_a_preset() -> None:
    text = json.dumps({"bot": {"extends": "../evil.json"}})
    with pytest.raises(ConfigError, match="only a preset"):
        load_policy_stack([PolicyLayer("repository", path=".github/bot-policy.json", text=text)])
    merged = load_policy_stack(
        [PolicyLayer("repository", path=".github/bot-policy.json", text=json.dumps({"bot": {"extends": "read-only"}}))]
    )
    assert merged.mode.value == "plan"


def test_bypass_in_a_repository_policy_is_ignored_with_a_warning(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo.json", policy("bypassPermissions"))
    merged = load_policy_stack([PolicyLayer("repository", repo)])
    assert merged.mode.value == "default"
    assert any("bypassPermissions is ignored" in w for w in merged.warnings)


def test_bypass_set_by_the_workflow_is_loudly_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    org = write(tmp_path / "org.json", policy("bypassPermissions"))
    with caplog.at_level(logging.WARNING, logger="bot.permissions"):
        merged = load_policy_stack([PolicyLayer("organisation", org)])
    assert merged.mode.value == "bypassPermissions"
    assert "PERMISSIONS BYPASSED" in caplog.text and any("PERMISSIONS BYPASSED" in w for w in merged.warnings)


def test_disable_bypass_anywhere_refuses_bypass(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo.json", {"permissions": {"disableBypassPermissionsMode": "disable"}})
    merged = load_policy_stack([PolicyLayer("repository", repo)], mode="bypassPermissions")
    assert merged.mode.value == "default"
    assert any("refused" in w for w in merged.warnings)


def test_the_permission_context_carries_rules_dirs_and_write_switches(tmp_path: Path) -> None:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    repo = write(
        tmp_path / "repo.json",
        {"permissions": {"additionalDirectories": ["../shared", "/opt/x"]}, "bot": {"allow_git_dir_writes": True}},
    )
    org = write(tmp_path / "org.json", {"permissions": {"additionalDirectories": ["/opt/x"]}})
    merged = load_policy_stack([PolicyLayer("repository", repo), PolicyLayer("organisation", org)], allow=["Read"])
    context = merged.permission_context(ws)
    assert context.additional_directories == ((tmp_path / "shared").resolve(), Path("/opt/x"))
    assert context.allow_git_dir_writes and not context.allow_workflow_writes
    assert [r.text for r in context.allow] == ["Read"]


def test_env_servers_and_hooks_merge_by_source(tmp_path: Path) -> None:
    hook = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}
    repo = write(
        tmp_path / "repo.json",
        {"bot": {"env": {"A": "repo", "B": "repo"}}, "hooks": hook, "mcpServers": {"git": {"command": "repo"}}},
    )
    org = write(
        tmp_path / "org.json", {"bot": {"env": {"A": "org"}}, "hooks": hook, "mcpServers": {"git": {"command": "org"}}}
    )
    merged = load_policy_stack([PolicyLayer("repository", repo), PolicyLayer("organisation", org)])
    assert {k: v.value for k, v in merged.env.items()} == {"A": "org", "B": "repo"}
    assert merged.mcp_servers["git"].value == {"command": "org"}
    assert [h.origin.source for h in merged.hooks] == ["repository", "organisation"]


def test_a_session_grant_is_the_weakest_rule() -> None:
    merged = load_policy_stack(deny=["Read(.env)"])
    context = add_session_rules(merged.permission_context(Path("/")), "allow", ["Read"])
    assert context.allow[-1].ref.source == "session"
    decision = PolicyEngine().decide(PermissionRequest("Read", {}, Path("/"), subject="/.env"), context)
    assert decision.rule is not None and decision.rule.text == "Read(.env)"


def test_a_file_is_parsed_once_while_it_does_not_change(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", policy(allow=["Read"]))
    first = load_policy_stack([PolicyLayer("repository", path)]).files[0]
    assert load_policy_stack([PolicyLayer("repository", path)]).files[0] is first
    write(tmp_path / "p.json", policy(allow=["Read", "Glob"]))
    assert [r.text for r in load_policy_stack([PolicyLayer("repository", path)]).allow] == ["Read", "Glob"]


def test_bad_rule_flags_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="--deny 'Bash\\('"):
        load_policy_stack(deny=["Bash("])
    with pytest.raises(ConfigError, match="--mode"):
        load_policy_stack(mode="yolo")


def test_the_shipped_presets_exist_and_load() -> None:
    assert {"read-only", "fix", "maintenance"} <= set(list_presets())
    for name in list_presets():
        merged = load_policy_stack([PolicyLayer("preset", preset=name)])
        assert merged.allow and merged.deny, name
        assert not merged.warnings, name
        assert all(r.ref.file and r.ref.file.startswith(str(PRESETS_DIR)) for r in merged.deny)


def test_show_lists_every_rule_with_its_source_file_and_line(tmp_path: Path) -> None:
    repo = write(
        tmp_path / "repo.json", policy("acceptEdits", allow=["Read"], deny=["Read(.env)"], limits={"max_turns": 3})
    )
    merged = load_policy_stack([PolicyLayer("repository", repo)], ask=["WebFetch"])
    text = policy_text(merged)
    assert "Mode: acceptEdits  (repository" in text
    assert f"Read(.env)  repository  {os.path.abspath(repo)}:8" in text
    assert "WebFetch  cliArg" in text and "limits.max_turns = 3" in text
    data = policy_json(merged)
    assert data["deny"][0]["rule"] == "Read(.env)" and data["deny"][0]["line"] == 8
    assert data["ask"] == [{"rule": "WebFetch", "source": "cliArg", "file": None, "line": None}]
    assert data["settings"]["limits.max_turns"]["value"] == 3


def test_the_repository_policy_is_found_in_the_usual_places(tmp_path: Path) -> None:
    assert find_repository_policy(tmp_path) is None
    write(tmp_path / ".claude" / "settings.json", {})
    assert find_repository_policy(tmp_path) == tmp_path / ".claude" / "settings.json"
    write(tmp_path / ".github" / "bot-policy.json", {})
    assert find_repository_policy(tmp_path) == tmp_path / ".github" / "bot-policy.json"
