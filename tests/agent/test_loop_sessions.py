"""The loop across runs: a question ends the run needs_input; the next run starts from the stored
conversation with the answer as the question's result — over HTTP, through the real SDK."""

from __future__ import annotations

import pytest

from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask, render_task
from bot.agent.resume import Answer, earlier_messages, plan_resume, resumed_task
from bot.agent.saved_session import PendingQuestion, SavedSession
from bot.testing.cassettes import Text, ToolCall, Turn
from bot.testing.replay import PacedReplay
from bot.tools.ask_user import QUESTION_SERVICE, WAITING_RESULT, AskUserQuestionTool, QuestionBox
from tests.agent.conftest import Harness
from tests.agent.test_turn_endings import api_problem

pytestmark = pytest.mark.anyio


def turns(*items: Turn) -> PacedReplay:
    return PacedReplay.from_script([*items])


async def test_a_question_ends_the_run_and_the_answer_resumes_it_as_the_calls_result(harness: Harness) -> None:
    harness.write("stats.py", "def median(xs): ...\n")
    first = turns(
        Turn([ToolCall("Read", {"file_path": "stats.py"})], first_token_s=0),
        Turn(
            [
                Text("Before I change it:"),
                ToolCall(
                    "AskUserQuestion", {"question": "Even counts: mean of the middle two?", "choices": ["yes", "no"]}
                ),
            ],
            first_token_s=0,
        ),
        Turn([Text("never reached")], first_token_s=0),
    )
    session = harness.session(transport=first.transport(), extra_tools=[AskUserQuestionTool()])
    box = QuestionBox(limit=2, requester="alice")
    session.context.services[QUESTION_SERVICE] = box
    outcome = await run_agent(AgentTask("Fix median."), session, harness.events)

    assert outcome.stop.reason == "needs_input"
    assert outcome.stop.detail == "Even counts: mean of the middle two?"
    assert len(first.requests) == 2  # the run stopped right after the question's turn
    assert outcome.messages[-1]["content"][0]["content"] == WAITING_RESULT
    call_id = outcome.messages[-2]["content"][-1]["id"]

    saved = SavedSession(
        threads=(1,),
        branch="b",
        head=None,
        policy_hash="p",
        requester="alice",
        stop_reason="needs_input",
        summary="",
        messages=tuple(outcome.messages),
        pending_question=PendingQuestion(call_id, "Even counts: mean of the middle two?", ("yes", "no"), "alice"),
        questions_asked=box.asked,
    )
    plan = plan_resume(saved, policy_hash="p", head_descends=True, answer=Answer("1. yes", "alice"))
    second = turns(Turn([Text("Done: the mean of the middle two.")], first_token_s=0))
    resumed = harness.session(transport=second.transport(), extra_tools=[AskUserQuestionTool()])
    resumed.resumed = tuple(earlier_messages(plan))
    task = resumed_task(AgentTask("(the reply to the question)", nonce="c0ffee00"), plan)
    outcome2 = await run_agent(task, resumed, harness.events)

    assert outcome2.stop.reason == "completed"
    body = second.request_json(0)
    assert api_problem(body) is None
    sent = body["messages"]
    assert len(sent) == len(outcome.messages)  # the earlier conversation, the answer joining its last turn
    assert sent[0]["content"][0]["text"] == outcome.messages[0]["content"][0]["text"]
    last = sent[-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["tool_use_id"] == call_id
    assert "1. yes" in str(last[0]["content"]) and WAITING_RESULT not in str(last[0]["content"])
    assert any(b.get("type") == "text" and render_task(task) in b["text"] for b in last)


async def test_without_a_question_box_the_call_is_an_error_and_the_run_goes_on(harness: Harness) -> None:
    model = turns(
        Turn([ToolCall("AskUserQuestion", {"question": "Which?"})], first_token_s=0),
        Turn([Text("Assumed the first.")], first_token_s=0),
    )
    outcome = await run_agent(
        AgentTask("Go."), harness.session(transport=model.transport(), extra_tools=[AskUserQuestionTool()])
    )
    assert outcome.stop.reason == "completed"
    result = model.request_json(1)["messages"][-1]["content"][0]
    assert result["is_error"] and "Nobody can answer" in str(result["content"])
