"""With an event: whether it starts a run, for whom, and on which branch the work would land.

The decision is :func:`bot.github.events.decide_trigger`'s, the one a run makes; the event name
comes from the caller or, like GitHub's own webhook routing, from the payload's shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.github.events import EventError


def infer_event_name(payload: Any) -> str:
    """The event a payload belongs to, from its keys (webhook payloads carry no name of their own)."""
    if not isinstance(payload, dict):
        raise EventError("the event payload is not a JSON object")
    if "comment" in payload:
        if "pull_request" in payload:
            return "pull_request_review_comment"
        return "issue_comment"
    if "review" in payload and "pull_request" in payload:
        return "pull_request_review"
    if "issue" in payload:
        return "issues"
    if "schedule" in payload:
        return "schedule"
    if "inputs" in payload or "workflow" in payload:
        return "workflow_dispatch"
    if "client_payload" in payload:
        return "repository_dispatch"
    if "pull_request" in payload:
        return "pull_request"
    raise EventError("cannot tell which event this payload is: give --event-name")


def explain_trigger(event_path: Path, event_name: str | None, settings: Any) -> dict[str, Any]:
    from bot.github.events import decide_trigger, load_event_text

    try:
        text = event_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EventError(f"{event_path}: no such event file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"{event_path}: cannot be read ({exc})") from None
    payload = load_event_text(text, str(event_path))
    name = event_name or infer_event_name(payload)
    trigger = decide_trigger(name, payload, settings)
    data = trigger.dry_run_json()
    data["event_name"] = name
    data["actor"] = trigger.actor
    return data
