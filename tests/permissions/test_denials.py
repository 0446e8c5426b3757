"""Denial tracking (seeds 4f): the log, and guidance once the model keeps retrying."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Deny, RuleRef
from bot.permissions.denials import DenialTracker, denial_pattern

ENV_RULE = RuleRef("Read(.env)", "preset", "policies/fix.json", 40)
BY_RULE = Deny("a deny rule forbids this Read call", source="rule", rule=ENV_RULE)
BY_DEFAULT = Deny("no allow rule covers this Bash call", source="default", suggestions=("Bash(make)",))


@pytest.mark.parametrize(
    ("description", "calls", "guided"),
    [
        ("one denial needs no guidance", [("Read", ".env", BY_RULE)], [False]),
        ("the same rule twice gets guidance", [("Read", ".env", BY_RULE), ("Read", "a/.env", BY_RULE)], [False, True]),
        (
            "different patterns of one tool, three times",
            [
                ("Bash", "make", BY_DEFAULT),
                ("Bash", "ls", Deny("x", suggestions=("Bash(ls)",))),
                ("Bash", "pwd", Deny("y", suggestions=("Bash(pwd)",))),
            ],
            [False, False, True],
        ),
        (
            "three denials in a row of different tools",
            [("Read", ".env", BY_RULE), ("Bash", "make", BY_DEFAULT), ("WebFetch", "x", Deny("z"))],
            [False, False, True],
        ),
    ],
)
def test_guidance_comes_when_the_model_keeps_retrying(
    description: str, calls: list[tuple[str, str, Deny]], guided: list[bool]
) -> None:
    tracker = DenialTracker()
    got = [tracker.record_denial(tool, summary, deny) is not None for tool, summary, deny in calls]
    assert got == guided, description


def test_an_allowed_call_ends_the_streak_but_not_the_log() -> None:
    tracker = DenialTracker()
    tracker.record_denial("Read", ".env", BY_RULE)
    tracker.record_denial("Bash", "make", BY_DEFAULT)
    tracker.record_allowed("Glob")
    assert tracker.record_denial("WebFetch", "u", Deny("z")) is None
    assert tracker.total == 3 and tracker.consecutive == 1


def test_the_guidance_names_the_rule_and_its_source() -> None:
    tracker = DenialTracker()
    tracker.record_denial("Read", ".env", BY_RULE)
    text = tracker.record_denial("Read", ".env", BY_RULE)
    assert text is not None and text.startswith("<system-reminder>")
    assert "`Read(.env)` from preset (policies/fix.json:40)" in text and "2 times" in text


def test_the_log_keeps_tool_input_rule_and_source_for_the_summary() -> None:
    tracker = DenialTracker()
    tracker.record_denial("Read", ".env", BY_RULE)
    assert tracker.to_json() == [
        {
            "tool": "Read",
            "input": ".env",
            "reason": BY_RULE.reason,
            "rule": "Read(.env)",
            "source": "preset",
            "where": "policies/fix.json:40",
            "was_ask": False,
            "decided_by": "rule",
        }
    ]


@pytest.mark.parametrize(
    ("description", "deny", "pattern"),
    [
        ("the rule that decided", BY_RULE, "Read(.env)"),
        ("the security check that fired", Deny("x", check_id=7), "Bash (security check 7)"),
        ("the rule a maintainer would add", BY_DEFAULT, "Bash(make)"),
        ("else the input", Deny("x"), "Bash(make all)"),
    ],
)
def test_what_counts_as_the_same_pattern(description: str, deny: Deny, pattern: str) -> None:
    summary = "make all"
    assert denial_pattern("Bash", summary, deny) == pattern, description
