"""The MCP layer's named limits, and their environment overrides.

Each number lives here once, with where it comes from. ``McpLimits.from_env`` reads the overrides
(``McpManager`` calls it when it is given no limits); the rest of the layer takes an ``McpLimits``
value and never reads ``os.environ`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

#: Seeds 4.8/4.9: MCP output above this many tokens is truncated in place
#: (``DEFAULT_MAX_MCP_OUTPUT_TOKENS``); ``BOT_MAX_MCP_OUTPUT_TOKENS`` overrides it, else the seeds'
#: ``MAX_MCP_OUTPUT_TOKENS`` (so a workflow written for Claude Code means the same here).
DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000
#: A server that has not answered ``initialize`` + ``tools/list`` by then is marked failed
#: (Claude Code's ``MCP_TIMEOUT`` default is 30 s); ``BOT_MCP_CONNECT_TIMEOUT`` overrides it.
DEFAULT_CONNECT_TIMEOUT_S = 30.0
#: One ``tools/call`` (or resource read). Below the pipeline's 900 s backstop so the model gets an
#: MCP-specific message; ``BOT_MCP_TOOL_TIMEOUT`` or a server's ``toolTimeoutSec`` overrides it.
DEFAULT_TOOL_TIMEOUT_S = 300.0
#: Claude Code cuts MCP tool descriptions at 2,048 characters (``MAX_MCP_DESCRIPTION_LENGTH``):
#: a server must not be able to fill the prompt with one description.
MAX_MCP_DESCRIPTION_CHARS = 2_048
#: ``tools/list`` pages followed before giving up: a paginator that never ends cannot hang a run.
MAX_LIST_PAGES = 100

ENV_MAX_OUTPUT_TOKENS = "BOT_MAX_MCP_OUTPUT_TOKENS"
SEEDS_ENV_MAX_OUTPUT_TOKENS = "MAX_MCP_OUTPUT_TOKENS"
ENV_CONNECT_TIMEOUT = "BOT_MCP_CONNECT_TIMEOUT"
ENV_TOOL_TIMEOUT = "BOT_MCP_TOOL_TIMEOUT"


@dataclass(frozen=True, slots=True)
class McpLimits:
    max_output_tokens: int = DEFAULT_MAX_MCP_OUTPUT_TOKENS
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    tool_timeout_s: float = DEFAULT_TOOL_TIMEOUT_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> McpLimits:
        """The defaults with the ``BOT_*`` overrides applied. An unparsable or non-positive value
        is ignored (the default stays): a typo in a CI variable must not disable a limit."""
        env = os.environ if environ is None else environ
        tokens = _positive(env.get(ENV_MAX_OUTPUT_TOKENS))
        if tokens is None:
            tokens = _positive(env.get(SEEDS_ENV_MAX_OUTPUT_TOKENS))
        connect = _positive(env.get(ENV_CONNECT_TIMEOUT))
        tool = _positive(env.get(ENV_TOOL_TIMEOUT))
        return cls(
            max_output_tokens=int(tokens) if tokens is not None else DEFAULT_MAX_MCP_OUTPUT_TOKENS,
            connect_timeout_s=connect if connect is not None else DEFAULT_CONNECT_TIMEOUT_S,
            tool_timeout_s=tool if tool is not None else DEFAULT_TOOL_TIMEOUT_S,
        )


def _positive(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if value > 0 and value != float("inf") else None
