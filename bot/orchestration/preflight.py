"""What can be checked before the run touches the repository, checked first: :func:`preflight`.

A bad policy, a broken MCP config, a missing model key or a missing cassette would otherwise be
found after the branch exists and the workspace was set up (a missing cassette after six retries
of a request vcrpy refuses). Each problem is one line naming the file (and line) to fix; all of
them are reported at once, so one run shows everything that is wrong.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from bot.agent.client import ProviderConfig
from bot.core.bounded import load_json
from bot.core.secrets import secret
from bot.errors import BotError, ConfigError
from bot.orchestration.session import RunConfig, TrustedFiles, policy_layers
from bot.permissions.stack import EffectivePolicy, load_policy_stack


def preflight(config: RunConfig, trusted: TrustedFiles, *, replay: Path | None = None) -> list[str]:
    """Every problem found, one line each; empty when the run can start. Nothing is started (no
    MCP server, no model client) and nothing is written."""
    problems: list[str] = []
    policy: EffectivePolicy | None = None
    try:
        layers, _ = policy_layers(config, trusted)
        policy = load_policy_stack(layers, allow=config.allow, deny=config.deny)
    except BotError as exc:
        problems.append(str(exc))
    problems += _mcp_problems(config, trusted, policy)
    if replay is not None:
        if not replay.is_file():
            problems.append(f"{replay}: no such cassette (--replay needs a recorded cassette file)")
    else:
        problems += credential_problems(config.provider)
    return problems


def credential_problems(provider: ProviderConfig) -> list[str]:
    """That the provider's credentials (or the package it needs) are there, without importing the
    model SDK: the same conditions :func:`bot.agent.client.make_model_client` refuses on."""
    match provider.provider:
        case "anthropic":
            if not (provider.api_key or secret("ANTHROPIC_API_KEY") or secret("ANTHROPIC_AUTH_TOKEN")):
                return ["no model API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"]
        case "bedrock":
            if importlib.util.find_spec("botocore") is None:
                return [
                    "the Bedrock provider needs the `anthropic[bedrock]` extra (pip install 'headless-bot[bedrock]')"
                ]
        case "vertex":
            if not provider.vertex_region:
                return ["the Vertex provider needs a region (CLOUD_ML_REGION)"]
            if not provider.vertex_access_token and importlib.util.find_spec("google.auth") is None:
                return ["the Vertex provider needs google-auth (pip install 'headless-bot[vertex]') or an access token"]
    return []


def _mcp_problems(config: RunConfig, trusted: TrustedFiles, policy: EffectivePolicy | None) -> list[str]:
    """The MCP servers as :func:`bot.orchestration.session.prepare_run` will read them, parsed only."""
    from bot.mcp import config_from_policy, parse_mcp_config

    problems: list[str] = []
    if config.mcp_config:
        text = trusted.read(config.mcp_config)
        if text is None:
            problems.append(str(ConfigError(f"not found in {trusted.label}", path=config.mcp_config)))
        else:
            try:
                data = load_json(text, source=config.mcp_config)
                parse_mcp_config(data, source=config.mcp_config, environ=config.environ, text=text)
            except BotError as exc:
                problems.append(str(exc))
    if policy is not None and policy.mcp_servers:
        try:
            config_from_policy(policy.mcp_servers, environ=config.environ)
        except BotError as exc:
            problems.append(str(exc))
    return problems


__all__ = ["credential_problems", "preflight"]
