"""Point the real model client at test transports: cassettes (vcrpy) and paced replays.

Only :func:`use_cassette` needs a test dependency (vcrpy), imported when called.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx2

from bot.agent.client import AnthropicModel, ProviderConfig, make_model_client

#: A placeholder key: cassettes and replays never check it, and it is not a secret shape.
TEST_API_KEY = "test-key-not-a-secret"


def model_client(transport: httpx2.AsyncBaseTransport, *, tool_search: bool = True,
                 base_url: str | None = None) -> AnthropicModel:
    """The real Anthropic client (SDK retries off) over a test transport."""
    config = ProviderConfig(api_key=TEST_API_KEY, base_url=base_url, tool_search=tool_search)
    return make_model_client(config, http_client=httpx2.AsyncClient(transport=transport))


def use_cassette(path: str | Path, *, by_model: bool = False, model_hosts: Sequence[str] | None = None,
                 **kwargs: Any) -> AbstractContextManager[Any]:
    """Replay a model cassette strictly: requests in order, none unrecorded, never recording.

    ``by_model`` also matches each request's ``model``, so agents running concurrently on different
    models (a background sub-agent) each get their own responses in order. ``model_hosts``, when
    given, limits the replay to those hosts: other traffic (the GitHub API in an end-to-end run)
    passes through untouched.
    """
    import vcr

    recorder = vcr.VCR()
    match_on = ["method", "path"]
    if by_model:
        recorder.register_matcher("model", _same_model)
        match_on.append("model")
    options: dict[str, Any] = {"record_mode": "none", "match_on": match_on, "allow_playback_repeats": False,
                               **kwargs}
    if model_hosts is not None:
        hosts = frozenset(model_hosts)
        options["before_record_request"] = lambda request: request if request.host in hosts else None
    cm: AbstractContextManager[Any] = recorder.use_cassette(str(path), **options)
    return cm


def _same_model(recorded: Any, live: Any) -> None:
    want, got = _model_of(recorded.body), _model_of(live.body)
    if want != got:
        raise AssertionError(f"model {got!r} != recorded {want!r}")


def _model_of(body: Any) -> str | None:
    if not body:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    model = data.get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) else None


__all__ = ["TEST_API_KEY", "model_client", "use_cassette"]
