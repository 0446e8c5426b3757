"""A comment without the trigger phrase may answer a pending question: the event says what it said."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.github.events import decide_trigger
from tests.conftest import FIXTURES


def comment(body: str, *, action: str = "created", user: str = "alice", user_type: str = "User") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "events" / "issue_comment.created.json").read_text())
    data["action"] = action
    data["comment"]["body"] = body
    data["comment"]["user"] = {"login": user, "type": user_type}
    data["sender"] = {"login": user, "type": user_type}
    if action == "edited":
        data["changes"] = {"body": {"from": "before"}}
    return data


def test_a_new_comment_without_the_mention_carries_its_text_as_a_possible_reply() -> None:
    trigger = decide_trigger("issue_comment", comment("2, <!-- hidden --> to even"))
    assert not trigger.triggered
    assert trigger.reply_text is not None and "hidden" not in trigger.reply_text
    assert trigger.reply_text.startswith("2,") and trigger.reply_text.endswith("to even")
    assert trigger.actor == "alice" and trigger.issue is not None


@pytest.mark.parametrize(
    ("description", "event"),
    [
        ("an edited comment", comment("yes", action="edited")),
        ("the bot's own comment", comment("yes", user="github-actions[bot]", user_type="Bot")),
        ("an unlisted bot", comment("yes", user="renovate[bot]", user_type="Bot")),
        ("an empty comment", comment("   ")),
    ],
)
def test_no_reply_text_where_no_reply_can_be(description: str, event: dict[str, Any]) -> None:
    assert decide_trigger("issue_comment", event).reply_text is None


def test_a_mention_is_a_trigger_not_a_reply() -> None:
    trigger = decide_trigger("issue_comment", comment("@bot yes"))
    assert trigger.triggered and trigger.reply_text is None
