"""The policy's shell knobs reach PermissionContext.extra under the names the shell layer reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.shell.execute.env import policy_env_settings
from bot.shell.sandbox.status import sandbox_settings


def load(tmp_path: Path, bot: dict[str, object]) -> dict[str, object]:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"bot": bot}))
    return load_policy_stack([PolicyLayer("flag", path=str(path))]).permission_context(tmp_path).extra


def test_defaults_are_the_safe_ones(tmp_path: Path) -> None:
    extra = load(tmp_path, {})
    settings = sandbox_settings(extra)
    assert settings.mode == "auto"
    assert settings.network is False
    assert settings.allow_unsandboxed is False
    assert extra["bash_install_scripts"] is True


def test_every_knob_arrives(tmp_path: Path) -> None:
    extra = load(
        tmp_path,
        {
            "sandbox": "required",
            "network": True,
            "allow_unsandboxed": True,
            "excluded_commands": ["docker *"],
            "secret_env": ["MY_TOKEN"],
            "install_scripts": False,
            "env": {"NODE_ENV": "test", "PIP_INDEX_URL": None},
        },
    )
    settings = sandbox_settings(extra)
    assert (settings.mode, settings.network, settings.allow_unsandboxed) == ("required", True, True)
    assert tuple(settings.excluded_commands) == ("docker *",)
    env, passthrough, secret = policy_env_settings(extra)
    assert env == {"NODE_ENV": "test"}
    assert passthrough == ("PIP_INDEX_URL",)
    assert secret == ("MY_TOKEN",)
    assert extra["bash_install_scripts"] is False


def test_a_wrongly_typed_knob_is_an_error_with_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, {"network": "yes please"})
    assert "policy.json" in str(info.value)


def test_a_webfetch_denial_suggests_a_domain_rule(tmp_path: Path) -> None:
    from bot.permissions.chain import PermissionRequest, decide_chain
    from bot.permissions.context import PermissionContext

    request = PermissionRequest(
        tool_name="WebFetch", input={}, workspace=tmp_path, subject="https://docs.example.com/a?b=c"
    )
    decision = decide_chain(request, PermissionContext())
    assert decision.suggestions == ("WebFetch(domain:docs.example.com)",)  # type: ignore[union-attr]
