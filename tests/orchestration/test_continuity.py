"""The pure parts of a run's continuity: the start-over phrase, answers, the policy hash."""

from __future__ import annotations

import pytest

from bot.agent.saved_session import PendingQuestion, SavedSession
from bot.orchestration.continuity import answer_from, policy_hash, start_over


@pytest.mark.parametrize(
    ("description", "request_text", "expected"),
    [
        ("the phrase alone", "start over", (True, "")),
        ("the phrase and a request", "Start  over, fix only the parser", (True, "fix only the parser")),
        ("another request", "fix it, then start over", (False, "fix it, then start over")),
        ("a longer word", "start overall tests", (False, "start overall tests")),
    ],
)
def test_start_over_is_the_request_s_first_words(
    description: str, request_text: str, expected: tuple[bool, str]
) -> None:
    assert start_over(request_text) == expected


def waiting(choices: tuple[str, ...] = ("raise", "return 0")) -> SavedSession:
    return SavedSession(
        threads=(1,),
        branch=None,
        head=None,
        policy_hash="",
        requester="alice",
        stop_reason="needs_input",
        summary="",
        pending_question=PendingQuestion("t", "Which?", choices),
    )


@pytest.mark.parametrize(
    ("description", "body", "text"),
    [
        ("a choice's number", " 2 ", "2. return 0"),
        ("a number with a dot", "1.", "1. raise"),
        ("a number past the choices", "3", "3"),
        ("words", "neither, log it", "neither, log it"),
    ],
)
def test_a_reply_answers_with_the_choice_it_names(description: str, body: str, text: str) -> None:
    answer = answer_from(waiting(), body, "bob")
    assert answer is not None and answer.text == text and answer.author == "bob"


def test_no_answer_without_a_question_or_without_words() -> None:
    assert answer_from(waiting(), "   ", "bob") is None
    no_question = SavedSession((1,), None, None, "", None, "completed", "")
    assert answer_from(no_question, "2", "bob") is None


def test_the_policy_hash_changes_with_any_file_and_not_with_their_order() -> None:
    a, b = ("repository", "allow: [Read]"), ("preset:fix", "{}")
    assert policy_hash([a, b]) == policy_hash([b, a])
    assert policy_hash([a, b]) != policy_hash([a, ("preset:fix", "{ }")])
