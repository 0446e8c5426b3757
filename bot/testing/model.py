"""Point the real model client at test transports: cassettes (vcrpy) and paced replays.

:func:`use_cassette` is the product's replay (``bot.agent.replay``), re-exported for tests.
"""

from __future__ import annotations

import httpx2

from bot.agent.client import AnthropicModel, ProviderConfig, make_model_client
from bot.agent.replay import use_cassette

#: A placeholder key: cassettes and replays never check it, and it is not a secret shape.
TEST_API_KEY = "test-key-not-a-secret"


def model_client(
    transport: httpx2.AsyncBaseTransport, *, tool_search: bool = True, base_url: str | None = None
) -> AnthropicModel:
    """The real Anthropic client (SDK retries off) over a test transport."""
    config = ProviderConfig(api_key=TEST_API_KEY, base_url=base_url, tool_search=tool_search)
    return make_model_client(config, http_client=httpx2.AsyncClient(transport=transport))


__all__ = ["TEST_API_KEY", "model_client", "use_cassette"]
