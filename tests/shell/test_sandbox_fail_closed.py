"""Where users run — GitHub Actions — no shell command runs unsandboxed unless the policy says
``sandbox: off``: ``auto`` without a working bwrap refuses, as ``required`` does. Locally ``auto``
still runs unsandboxed, with a warning nobody can miss."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.permissions.stack import PolicyLayer, list_presets, load_policy_stack
from bot.shell.sandbox.status import (
    Refused,
    SandboxSettings,
    SandboxStatus,
    SandboxUnavailable,
    Unsandboxed,
    decide_sandbox,
    prepare_sandbox,
    sandbox_settings,
)

ACTIONS = {"GITHUB_ACTIONS": "true"}


@pytest.mark.parametrize(
    ("description", "extra", "environ", "refused"),
    [
        ("auto in Actions: refused", {"sandbox": "auto"}, ACTIONS, True),
        ("no key in Actions (auto by default): refused", {}, ACTIONS, True),
        ("required in Actions: refused", {"sandbox": "required"}, ACTIONS, True),
        ("off in Actions, said explicitly: unsandboxed", {"sandbox": "off"}, ACTIONS, False),
        ("auto locally: unsandboxed", {"sandbox": "auto"}, {}, False),
        (
            "GITHUB_ACTIONS set to something else is not Actions",
            {"sandbox": "auto"},
            {"GITHUB_ACTIONS": "false"},
            False,
        ),
        ("required locally: refused", {"sandbox": "required"}, {}, True),
    ],
)
def test_without_a_working_sandbox_commands_are_refused_in_actions_unless_the_policy_says_off(
    description: str, extra: dict[str, object], environ: dict[str, str], refused: bool
) -> None:
    settings = sandbox_settings(extra, environ=environ)
    choice = decide_sandbox(settings, available=False, unavailable_reason="bwrap is not installed")
    assert isinstance(choice, Refused if refused else Unsandboxed), choice


def test_the_settings_keep_the_policys_word_and_say_why_they_are_stricter() -> None:
    settings = sandbox_settings({"sandbox": "auto"}, environ=ACTIONS)
    assert settings.mode == "auto" and settings.required
    choice = decide_sandbox(settings, available=False, unavailable_reason="no bwrap")
    assert isinstance(choice, Refused) and "GitHub Actions" in choice.reason and "sandbox: off" in choice.reason
    assert not sandbox_settings({"sandbox": "auto"}, environ={}).required


def test_auto_in_actions_without_bwrap_refuses_the_run_up_front(tmp_path: Path) -> None:
    environ = {"PATH": str(tmp_path), "HOME": str(tmp_path), **ACTIONS}

    async def main() -> SandboxStatus:
        return await prepare_sandbox(
            sandbox_settings({"sandbox": "auto"}, environ=environ),
            workspace=tmp_path,
            scratch_dir=tmp_path / "s",
            env={},
            environ=environ,
        )

    with pytest.raises(SandboxUnavailable, match=r"GitHub Actions.*bwrap is not installed.*sandbox: off"):
        anyio.run(main)


def test_auto_locally_without_bwrap_warns_loudly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    environ = {"PATH": str(tmp_path), "HOME": str(tmp_path)}

    async def main() -> SandboxStatus:
        return await prepare_sandbox(
            SandboxSettings(mode="auto"), workspace=tmp_path, scratch_dir=tmp_path / "s", env={}, environ=environ
        )

    with caplog.at_level("WARNING"):
        status = anyio.run(main)
    assert not status.available
    warning = next(w for w in status.warnings if "WITHOUT the sandbox" in w)
    assert warning.startswith("⚠") and "sandbox: required" in warning and "install bubblewrap" in warning.lower()
    logged = [r for r in caplog.records if r.levelname == "WARNING" and "WITHOUT the sandbox" in r.getMessage()]
    assert logged, "the warning must reach the log, not only the summary"


@pytest.mark.parametrize("preset", sorted(set(list_presets())))
def test_every_shipped_preset_requires_the_sandbox(preset: str, tmp_path: Path) -> None:
    extra = load_policy_stack([PolicyLayer("preset", preset=preset)]).permission_context(tmp_path).extra
    assert extra.get("sandbox") == "required"
    assert sandbox_settings(extra, environ={}).required
