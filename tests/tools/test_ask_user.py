"""AskUserQuestion: one question recorded for the requester, within the task's limit."""

from __future__ import annotations

import anyio
import pytest

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import InputSchemaError
from bot.tools.ask_user import (
    QUESTION_SERVICE,
    WAITING_RESULT,
    AskUserQuestionTool,
    QuestionBox,
    render_question,
)

TOOL = AskUserQuestionTool()


def ask(context: ToolUseContext, raw: dict[str, object]) -> str:
    async def main() -> str:
        result = await TOOL.call(TOOL.parse_input(raw), context, Progress("t", TOOL.name))
        return str(TOOL.map_result(result.data))

    return anyio.run(main)


def test_a_question_is_recorded_and_the_result_says_the_run_waits(context: ToolUseContext) -> None:
    box = QuestionBox(limit=2, requester="alice")
    context.services[QUESTION_SERVICE] = box
    text = ask(context, {"question": "Round half up or to even?", "choices": ["up", " even ", ""]})
    assert text == WAITING_RESULT
    assert box.pending is not None
    assert box.pending.question == "Round half up or to even?"
    assert box.pending.choices == ("up", "even")
    assert box.asked == 1


def test_a_second_question_in_the_same_run_is_an_error_the_model_sees(context: ToolUseContext) -> None:
    context.services[QUESTION_SERVICE] = QuestionBox(limit=5)
    ask(context, {"question": "one?"})
    with pytest.raises(ToolExecutionError, match="one question at a time"):
        ask(context, {"question": "two?"})


def test_the_task_limit_counts_earlier_runs_questions(context: ToolUseContext) -> None:
    context.services[QUESTION_SERVICE] = QuestionBox(limit=2, asked_before=2)
    with pytest.raises(ToolExecutionError, match="used its 2 question"):
        ask(context, {"question": "three?"})


def test_without_a_question_box_nobody_can_answer(context: ToolUseContext) -> None:
    with pytest.raises(ToolExecutionError, match="Nobody can answer"):
        ask(context, {"question": "anyone?"})


def test_a_sub_agent_cannot_ask(context: ToolUseContext) -> None:
    context.services[QUESTION_SERVICE] = QuestionBox(limit=2)
    with pytest.raises(ToolExecutionError, match="Only the main agent"):
        ask(context.with_(agent_id="a1"), {"question": "may I?"})


@pytest.mark.parametrize(
    ("description", "raw"),
    [
        ("an empty question", {"question": ""}),
        ("seven choices", {"question": "q", "choices": list("abcdefg")}),
        ("an unknown key", {"question": "q", "header": "x"}),
    ],
)
def test_malformed_input_is_an_error_the_model_can_correct(description: str, raw: dict[str, object]) -> None:
    with pytest.raises(InputSchemaError):
        TOOL.parse_input(raw)


def test_the_comment_addresses_the_requester_and_numbers_the_choices() -> None:
    box = QuestionBox(limit=1)
    text = render_question(box.ask("Which one?\nReally.", ("first", "second")), "alice", "@bot")
    assert text.startswith("@alice I have a question")
    assert "> Which one?\n> Really." in text
    assert "1. first\n2. second" in text
    assert "@bot start over" in text


def test_a_sub_agent_is_not_offered_the_tool() -> None:
    from bot.tools.agent_definitions import BUILTIN_AGENTS
    from bot.tools.registry import all_base_tools

    pool = [*all_base_tools(), AskUserQuestionTool()]
    for definition in BUILTIN_AGENTS:
        assert "AskUserQuestion" not in {t.name for t in definition.filter_tools(pool)}
