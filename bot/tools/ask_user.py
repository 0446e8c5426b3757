"""AskUserQuestion, headless: the model asks the person who requested the task one question.

Nobody is at a terminal, so the question cannot be answered during the run. The call records the
question in the run's :class:`QuestionBox` and returns at once; the loop ends the run after that
turn with the ``needs_input`` stop, the GitHub layer commits and pushes the work as a checkpoint,
posts the question to the requester and stores the session. The reply resumes the session with the
answer as this call's result (:mod:`bot.agent.resume`), replacing :data:`WAITING_RESULT`.

The tool is in the pool only where someone can answer: comment triggers, not scheduled or
dispatched runs; the policy's ``bot.limits.max_questions`` (0: never) caps questions per task,
counting the ones earlier runs of the same task asked. Sub-agents cannot ask (their results go to
the main agent, which can). It touches nothing but the run's memory: allowed without a rule (a
deny rule still removes it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from bot.core.services import ServiceKey
from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.decision import Allow, PermissionResult

ASK_USER_TOOL_NAME = "AskUserQuestion"
QUESTION_SERVICE: ServiceKey[QuestionBox] = ServiceKey("questions")
#: Questions per task when the policy does not say (an agent that asks more is not working).
DEFAULT_MAX_QUESTIONS = 3
MAX_QUESTION_CHARS = 2_000
MAX_CHOICES = 6
MAX_CHOICE_CHARS = 200
#: The call's result while the answer is awaited; a resumed session replaces it with the answer.
WAITING_RESULT = "The question was posted to the requester; this run ends now and resumes with their answer."


class AskUserQuestionInput(ToolInput):
    question: str = Field(
        min_length=1, max_length=MAX_QUESTION_CHARS, description="One clear question, answerable in a short reply"
    )
    choices: list[str] | None = Field(
        default=None,
        max_length=MAX_CHOICES,
        description="Optional answers to pick from (2-6 short options); the requester may still answer freely",
    )


@dataclass(frozen=True, slots=True)
class AskedQuestion:
    question: str
    choices: tuple[str, ...]


class QuestionBox:
    """The run's question, if the model asked one; and how many the task may still ask."""

    def __init__(self, *, limit: int, asked_before: int = 0, requester: str | None = None) -> None:
        self.limit = limit
        self.asked_before = asked_before
        self.requester = requester
        self.pending: AskedQuestion | None = None

    @property
    def asked(self) -> int:
        """Questions of the whole task, this run's included."""
        return self.asked_before + (self.pending is not None)

    def ask(self, question: str, choices: tuple[str, ...]) -> AskedQuestion:
        if self.pending is not None:
            raise ToolExecutionError("A question is already waiting for an answer; ask one question at a time.")
        if self.asked_before >= self.limit:
            raise ToolExecutionError(
                f"This task has used its {self.limit} question(s): decide yourself, say in your final "
                "summary what you assumed, and carry on."
            )
        self.pending = AskedQuestion(question, choices)
        return self.pending


def render_question(
    question: AskedQuestion, requester: str | None, phrase: str, *, reply_hint: str | None = None
) -> str:
    """The comment that asks: addressed to the requester, with the choices numbered, and how to
    answer (``reply_hint``; by default: a comment on the thread)."""
    who = f"@{requester} " if requester else ""
    lines = [f"{who}I have a question before I go on:", "", *(f"> {line}" for line in question.question.splitlines())]
    if question.choices:
        lines += ["", *(f"{i}. {choice}" for i, choice in enumerate(question.choices, 1))]
    hint = reply_hint or (
        "Reply in a comment (a choice's number is enough; no need to mention "
        f"{phrase}). The work so far is pushed as a checkpoint; `{phrase} start over` drops this session."
    )
    lines += ["", hint]
    return "\n".join(lines)


class AskUserQuestionTool(Tool[AskUserQuestionInput, AskedQuestion]):
    """Ask the person who requested this task one question, and stop until they answer. Use it only
    when the request is ambiguous in a way that changes the result (which of two behaviours they
    want, whether a breaking change is acceptable) and the repository cannot tell you; not for
    permission, not to report progress. Give choices when the answer is one of a few. The run ends
    after this turn and resumes with the answer as this call's result, so finish the turn's other
    calls first and ask last."""

    name = ASK_USER_TOOL_NAME
    search_hint = "ask question clarify requester user input choice"
    input_model = AskUserQuestionInput
    always_load = True

    def is_read_only(self, input: AskUserQuestionInput) -> bool:
        return True  # records a question in the run's memory; the workspace is untouched

    def is_destructive(self, input: AskUserQuestionInput) -> bool:
        return False

    async def check_permissions(self, input: AskUserQuestionInput, context: ToolUseContext) -> PermissionResult:
        return Allow("AskUserQuestion only records a question for the requester", source="tool")

    async def call(
        self, input: AskUserQuestionInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[AskedQuestion]:
        if context.agent_id is not None:
            raise ToolExecutionError("Only the main agent can ask the requester; report the question in your result.")
        box = context.services.get(QUESTION_SERVICE)
        if box is None:
            raise ToolExecutionError(
                "Nobody can answer questions in this run: decide yourself and say what you assumed."
            )
        choices = tuple(c.strip()[:MAX_CHOICE_CHARS] for c in input.choices or () if c.strip())
        return ToolResult(box.ask(input.question.strip(), choices))

    def map_result(self, output: AskedQuestion) -> str:
        return WAITING_RESULT

    def summarize_input(self, input: AskUserQuestionInput) -> str:
        text = input.question.strip().splitlines()[0] if input.question.strip() else ""
        return text[:120]

    def observable_input(self, input: AskUserQuestionInput, context: ToolUseContext) -> dict[str, Any]:
        return input.model_dump(mode="json", exclude_none=True)


__all__ = [
    "ASK_USER_TOOL_NAME",
    "DEFAULT_MAX_QUESTIONS",
    "QUESTION_SERVICE",
    "WAITING_RESULT",
    "AskUserQuestionTool",
    "AskedQuestion",
    "QuestionBox",
    "render_question",
]
