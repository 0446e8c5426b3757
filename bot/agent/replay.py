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


def recorded_prompt(path: str | Path) -> str | None:
    """The task the cassette was recorded for: the text of the first user message of its first
    request, or ``None`` when the recording does not hold one."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        body = data["interactions"][0]["request"]["body"]
        request = json.loads(body if isinstance(body, str) else (body or {}).get("string") or "")
    except (OSError, ValueError, yaml.YAMLError, LookupError, TypeError, AttributeError):
        return None
    messages = request.get("messages") if isinstance(request, dict) else None
    first = messages[0] if isinstance(messages, list) and messages else None
    if not isinstance(first, dict) or first.get("role") != "user":
        return None
    content = first.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def prompt_mismatch(path: str | Path, prompt: str) -> str | None:
    """What to tell the operator when ``--prompt`` is not the task the cassette recorded: the
    replayed model answers the recording, whatever the prompt says. ``None`` when it is (the
    recorded first message contains the prompt) or when the recording holds no prompt."""
    recorded = recorded_prompt(path)
    if recorded is None or " ".join(prompt.split()) in " ".join(recorded.split()):
        return None
    shown = " ".join(recorded.split())
    shown = shown if len(shown) <= MAX_SHOWN_PROMPT else shown[: MAX_SHOWN_PROMPT - 1] + "…"
    return (
        f"--prompt {prompt!r} differs from the task {Path(path).name} was recorded for ({shown!r}): "
        "the replayed model answers the recording, not this prompt"
    )


#: How much of a recorded task a mismatch note quotes: one terminal line.
MAX_SHOWN_PROMPT = 80

__all__ = ["prompt_mismatch", "recorded_prompt", "use_cassette"]
