"""Real Claude Code settings files used alone as the policy: read-only file tools inside the
workspace need no rule (as in Claude Code), everything that acts stays deny-by-default, and deny
rules, paths outside the workspace and symlinks out of it are still refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.permissions.decision import Allow, Deny
from bot.permissions.stack import PolicyLayer
from bot.runtime.policy_checker import CheckInput, PolicyChecker

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upstream" / "claude-settings"

#: Settings files with a ``permissions`` section and no rule that allows Read, Glob or Grep.
SETTINGS = [
    "PytaichukBohdan__coding-agents-settings.json",
    "disler__claude-code-hooks-mastery.json",
    "trailofbits__claude-code-config.json",
    "trailofbits__claude-code-devcontainer.json",
    "anthropics__claude-code__examples-settings-strict.json",
]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "repo").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / ".env").write_text("TOKEN=secret\n")
    (root / ".devcontainer").mkdir()
    (root / ".devcontainer" / "devcontainer.json").write_text("{}\n")
    outside = (tmp_path / "outside").resolve()
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    (root / "link-out").symlink_to(outside / "secret.txt")
    (root / "dir-out").symlink_to(outside)
    return root


def decide(ws: Path, settings: str, tool: str, payload: dict[str, Any], tmp_path: Path) -> Any:
    copy = tmp_path / "settings" / settings
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(FIXTURES / settings, copy)
    with PolicyChecker(workspace=ws, layers=[PolicyLayer("repository", path=str(copy))]) as checker:
        return anyio.run(checker.check, CheckInput(tool, payload)).decision


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize(
    ("tool", "payload"),
    [
        ("Read", {"file_path": "src/a.py"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Grep", {"pattern": "x", "path": "src"}),
        ("Grep", {"pattern": "x"}),
    ],
)
def test_read_only_tools_inside_the_workspace_need_no_rule(
    ws: Path, tmp_path: Path, settings: str, tool: str, payload: dict[str, Any]
) -> None:
    decision = decide(ws, settings, tool, payload, tmp_path)
    assert isinstance(decision, Allow), decision
    assert decision.source == "workspace" and "inside the workspace" in decision.reason


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize(
    ("tool", "payload"),
    [
        ("Read", {"file_path": "/etc/hostname"}),
        ("Read", {"file_path": "../outside/secret.txt"}),
        ("Read", {"file_path": "link-out"}),  # a symlink out of the workspace
        ("Read", {"file_path": "dir-out/secret.txt"}),
        ("Glob", {"pattern": "*", "path": "dir-out"}),
        ("Glob", {"pattern": "../outside/*"}),
        ("Grep", {"pattern": "x", "path": "/etc"}),
        ("Bash", {"command": "python -c 1"}),
        ("Write", {"file_path": "new.txt", "content": "x"}),
        ("Edit", {"file_path": "src/a.py", "old_string": "1", "new_string": "2"}),
        ("WebFetch", {"url": "https://example.com/", "prompt": "p"}),
        ("mcp__github__list_issues", {}),
    ],
)
def test_what_acts_or_leaves_the_workspace_stays_denied(
    ws: Path, tmp_path: Path, settings: str, tool: str, payload: dict[str, Any]
) -> None:
    allows = json.loads((FIXTURES / settings).read_text()).get("permissions", {}).get("allow", [])
    decision = decide(ws, settings, tool, payload, tmp_path)
    if tool in allows:  # a bare `Write`/`Edit` in the file's allow list: Claude Code's meaning, honoured
        assert isinstance(decision, Allow), decision
    else:
        assert isinstance(decision, Deny), decision


def test_a_deny_rule_still_applies_to_a_read_inside_the_workspace(ws: Path, tmp_path: Path) -> None:
    decision = decide(
        ws,
        "trailofbits__claude-code-devcontainer.json",
        "Read",
        {"file_path": ".devcontainer/devcontainer.json"},
        tmp_path,
    )
    assert isinstance(decision, Deny) and decision.rule is not None
    assert decision.rule.text == "Read(.devcontainer/**)"


def test_the_trailofbits_home_denies_still_apply(ws: Path, tmp_path: Path) -> None:
    ssh = str(Path.home() / ".ssh" / "id_ed25519")
    decision = decide(ws, "trailofbits__claude-code-config.json", "Read", {"file_path": ssh}, tmp_path)
    assert isinstance(decision, Deny) and decision.rule is not None and decision.rule.text == "Read(~/.ssh/**)"


def test_a_preset_env_deny_applies_under_a_settings_file(ws: Path, tmp_path: Path) -> None:
    copy = tmp_path / "settings.json"
    shutil.copyfile(FIXTURES / "disler__claude-code-hooks-mastery.json", copy)
    layers = [PolicyLayer("preset", preset="fix"), PolicyLayer("repository", path=str(copy))]
    with PolicyChecker(workspace=ws, layers=layers) as checker:
        decision = anyio.run(checker.check, CheckInput("Read", {"file_path": ".env"})).decision
    assert isinstance(decision, Deny) and decision.rule is not None and decision.rule.text == "Read(.env)"


def test_an_ask_rule_still_turns_a_read_into_a_denial(ws: Path) -> None:
    with PolicyChecker(workspace=ws, ask=["Read(src/**)"]) as checker:
        decision = anyio.run(checker.check, CheckInput("Read", {"file_path": "src/a.py"})).decision
    assert isinstance(decision, Deny) and decision.was_ask


def test_an_additional_directory_is_read_without_a_rule_too(ws: Path, tmp_path: Path) -> None:
    extra = (tmp_path / "outside").resolve()
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"permissions": {"additionalDirectories": [str(extra)]}}))
    with PolicyChecker(workspace=ws, layers=[PolicyLayer("repository", path=str(policy))]) as checker:
        inside = anyio.run(checker.check, CheckInput("Read", {"file_path": str(extra / "secret.txt")})).decision
        beside = anyio.run(checker.check, CheckInput("Read", {"file_path": str(tmp_path / "p.json")})).decision
    assert isinstance(inside, Allow) and isinstance(beside, Deny)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize(
    ("tool", "payload"),
    [
        ("Read", {"file_path": ".git/config"}),
        ("Read", {"file_path": "src/../.git/config"}),
        ("Read", {"file_path": "vendor/lib/.git/config"}),
        ("Grep", {"pattern": "extraheader", "path": ".git"}),
        ("Glob", {"pattern": "*", "path": ".git"}),
        ("Read", {"file_path": "git-link/config"}),  # a link into the git directory
    ],
)
def test_the_git_directory_is_not_part_of_the_read_that_needs_no_rule(
    ws: Path, tmp_path: Path, settings: str, tool: str, payload: dict[str, Any]
) -> None:
    """actions/checkout leaves its token in ``.git/config`` (``http.<url>.extraheader``); the sandbox
    hides it from commands, so a read that needs no rule must not show it either."""
    git = ws / ".git"
    git.mkdir()
    (git / "config").write_text('[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n')
    (ws / "vendor" / "lib" / ".git").mkdir(parents=True)
    (ws / "vendor" / "lib" / ".git" / "config").write_text("[core]\n")
    (ws / "git-link").symlink_to(git)
    decision = decide(ws, settings, tool, payload, tmp_path)
    assert not (isinstance(decision, Allow) and decision.source == "workspace"), decision
