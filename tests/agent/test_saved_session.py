"""A stored session: redacted, bounded, and read back field by field."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.agent.saved_session import (
    MAX_SESSION_BYTES,
    PendingQuestion,
    SavedSession,
    SessionError,
    prepared_for_storage,
    session_from_json,
)
from bot.core.redact import Redactor

TOKEN = "ghs_" + "Sess" * 9


def session(**changes: object) -> SavedSession:
    base = SavedSession(
        threads=(3, 4),
        branch="bot/issue-3-x",
        head="a" * 40,
        policy_hash="p1",
        requester="alice",
        stop_reason="completed",
        summary="Fixed it.",
        todos=(("Fix", "completed"),),
        messages=(
            {"role": "user", "content": [{"type": "text", "text": "task", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        ),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_a_session_round_trips_through_its_json() -> None:
    original = session(pending_question=PendingQuestion("toolu_1", "Which?", ("a", "b"), "alice", 9), questions_asked=1)
    assert session_from_json(original.to_json(), "test") == original


def test_every_string_is_redacted_and_cache_markers_are_dropped() -> None:
    leaky = session(
        summary=f"used {TOKEN}",
        messages=(
            {"role": "user", "content": [{"type": "text", "text": "task", "cache_control": {"type": "ephemeral"}}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": f"echo {TOKEN}"}}],
            },
        ),
        pending_question=PendingQuestion("t", f"is {TOKEN} yours?"),
    )
    stored = prepared_for_storage(leaky, Redactor([TOKEN]))
    raw = stored.to_json().decode()
    assert TOKEN not in raw
    assert "cache_control" not in raw
    assert stored.messages is not None and len(stored.messages) == 2


def test_a_large_conversation_loses_long_tool_results_first_then_itself() -> None:
    result = {"type": "tool_result", "tool_use_id": "t", "content": "x" * 600_000}
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Read", "input": {}}]}
    big = session(messages=({"role": "user", "content": "task"}, call, {"role": "user", "content": [result]}) * 3)
    cut = prepared_for_storage(big, lambda s: s)
    assert len(cut.to_json()) <= MAX_SESSION_BYTES
    assert cut.messages is not None
    assert "more characters not kept between runs" in json.dumps(cut.messages)

    huge = session(messages=tuple({"role": "user", "content": "y" * 100_000} for _ in range(30)))
    dropped = prepared_for_storage(huge, lambda s: s)
    assert dropped.messages is None
    assert dropped.dropped is not None and "larger than" in dropped.dropped
    assert dropped.summary == "Fixed it."


@pytest.mark.parametrize(
    ("description", "raw", "fragment"),
    [
        ("not JSON", b"{oops", "not a stored session"),
        ("not an object", b"[]", "JSON object"),
        ("another version", json.dumps({"version": 99}).encode(), "version 99"),
        (
            "threads not numbers",
            json.dumps({**json.loads(session().to_json()), "threads": ["3"]}).encode(),
            "'threads'",
        ),
        (
            "a message without a role",
            json.dumps({**json.loads(session().to_json()), "messages": [{"content": "x"}]}).encode(),
            "'messages'",
        ),
        ("too large", b" " * (MAX_SESSION_BYTES + 1), "more than"),
        (
            "a head that git would read as an option",
            json.dumps({**json.loads(session().to_json()), "head": "--output=/tmp/pwned"}).encode(),
            "'head' must be a commit id",
        ),
        (
            "a branch that git would read as an option",
            json.dumps({**json.loads(session().to_json()), "branch": "-b"}).encode(),
            "'branch' must be a branch name",
        ),
        ("nested too deep", b'{"a":' * 100 + b"1" + b"}" * 100, "nested"),
    ],
)
def test_a_malformed_session_is_an_error_that_says_why(description: str, raw: bytes, fragment: str) -> None:
    with pytest.raises(SessionError, match="refs/bot/sessions/3") as info:
        session_from_json(raw, "refs/bot/sessions/3")
    assert fragment in str(info.value)


def test_thinking_is_kept_whole_or_not_at_all() -> None:
    signed = {"type": "thinking", "thinking": "plain reasoning", "signature": "c2lnbmF0dXJl" + "A" * 40}
    opaque = {"type": "redacted_thinking", "data": "ghp_" + "x" * 36}  # opaque bytes that look like a token
    leaky = {"type": "thinking", "thinking": f"the token is {TOKEN}", "signature": "sig"}
    stored = prepared_for_storage(
        session(
            messages=(
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": [signed, opaque, leaky, {"type": "text", "text": "done"}]},
            )
        ),
        Redactor([TOKEN]),
    )
    assert stored.messages is not None
    blocks = stored.messages[1]["content"]
    assert blocks[0] == signed and blocks[1] == opaque
    assert blocks[2] == {"type": "text", "text": "[earlier reasoning not kept: it quoted a secret]"}
