"""Replaying a recorded model session (``bot run --replay CASSETTE``): the model's side of a run
comes from a vcrpy cassette in the provider's real streaming format; every tool runs for real.

A product feature (the bundled demo, a maintainer trying a policy against a recorded session), so
it lives with the model client, not in ``bot.testing``. vcrpy is imported when a replay starts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any


def use_cassette(
    path: str | Path, *, by_model: bool = False, model_hosts: Sequence[str] | None = None, **kwargs: Any
) -> AbstractContextManager[Any]:
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
    options: dict[str, Any] = {"record_mode": "none", "match_on": match_on, "allow_playback_repeats": False, **kwargs}
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


__all__ = ["use_cassette"]
