"""Resuming a stored session: what the first request of a follow-up run holds. Pure.

A follow-up on the same issue or pull request starts from the earlier conversation, then the new
request, told what changed since (commits people pushed to the branch, comments on the thread):
:func:`plan_resume` decides how much of the earlier session is taken, :func:`resumed_task` frames
the new request, :func:`opening_messages` joins them into the conversation the loop starts from.

The earlier conversation is taken whole only when it still describes the situation: the same
policy (a conversation held under a looser policy would show the model calls it may no longer
make, and a stricter one's denials that no longer apply) and a branch that still contains what the
run pushed (a force-push by someone else rewrote the history the conversation talks about). Else
the follow-up gets the summary only, and is told why.

A question the run ended on (AskUserQuestion) is answered in its own ``tool_result``, so the model
continues exactly where it asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from bot.agent.prompts import AgentTask, QuotedData, render_task
from bot.agent.saved_session import Message, SavedSession, blocks_of
from bot.tools.ask_user import WAITING_RESULT

#: New comments and commits told to the model, at most (the most recent ones).
MAX_NEW_COMMENTS = 20
MAX_NEW_COMMITS = 50
MAX_COMMENT_CHARS = 4_000

Block = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CommitNote:
    sha: str
    author: str
    subject: str


@dataclass(frozen=True, slots=True)
class CommentNote:
    author: str
    body: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class SinceThen:
    """What happened between the stored session and this run."""

    #: Commits on the branch after the stored head, not the bot's own.
    commits: tuple[CommitNote, ...] = ()
    #: Comments on the thread after the stored session, not the bot's own nor the new request.
    comments: tuple[CommentNote, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """The requester's reply to the pending question."""

    text: str
    author: str


@dataclass(frozen=True, slots=True)
class ResumePlan:
    session: SavedSession
    #: The earlier conversation is taken whole; else only its summary.
    full: bool
    #: Why only the summary (said to the model and in the comment).
    why_summary: str | None
    since: SinceThen
    answer: Answer | None = None

    def describe(self) -> str:
        """One line for the comment: what this run continued from."""
        when = f" of {self.session.saved_at}" if self.session.saved_at else ""
        if self.full:
            what = f"Continued the earlier session{when} ({len(self.session.messages or ())} messages)"
        else:
            what = f"Continued from the summary of the earlier session{when}: {self.why_summary}"
        if self.answer is not None:
            what += f"; @{self.answer.author} answered its question"
        return what + "."


def plan_resume(
    session: SavedSession,
    *,
    policy_hash: str,
    head_descends: bool,
    since: SinceThen = SinceThen(),
    answer: Answer | None = None,
) -> ResumePlan:
    """How to continue ``session``. ``head_descends``: the branch's head now contains the commit
    the session's run pushed (False after a force-push that dropped it)."""
    reasons: list[str] = []
    if session.policy_hash != policy_hash:
        reasons.append("the policy changed since that run, so its conversation no longer describes what is allowed")
    if not head_descends:
        reasons.append(
            f"the branch `{session.branch}` was force-pushed since that run "
            f"(it no longer contains {str(session.head)[:12]}, the commit the run pushed)"
        )
    if not reasons and session.messages is None:
        reasons.append(session.dropped or "its conversation was not kept")
    if not reasons and not _well_formed(session.messages or ()):
        reasons.append("its stored conversation is not one the model API accepts")
    return ResumePlan(session, not reasons, "; ".join(reasons) or None, since, answer)


def earlier_messages(plan: ResumePlan) -> list[Message]:
    """The conversation the new request is added to: the stored one (its pending question
    answered), or nothing when only the summary is taken (:func:`resumed_task` carries it)."""
    if not plan.full or plan.session.messages is None:
        return []
    messages = [dict(m) for m in plan.session.messages]
    question = plan.session.pending_question
    pending = _unanswered_calls(messages)
    if not pending:
        return messages
    results: list[Block] = []
    for call_id in pending:
        if question is not None and call_id == question.tool_use_id:
            results.append({"type": "tool_result", "tool_use_id": call_id, "content": _answer_text(plan)})
        else:
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": "This call's result was not kept between runs; run it again if you need it.",
                    "is_error": True,
                }
            )
    last = messages[-1]
    if last["role"] == "user":
        # The run stored its placeholder result for the question: replace it with the answer.
        kept = [b for b in blocks_of(last) if not (b.get("type") == "tool_result" and b.get("tool_use_id") in pending)]
        messages[-1] = {"role": "user", "content": [*results, *kept]}
    else:
        messages.append({"role": "user", "content": results})
    return messages


def resumed_task(task: AgentTask, plan: ResumePlan) -> AgentTask:
    """The new request, framed as a continuation: what changed since, and (summary-only) the
    earlier run's summary and todo list, quoted as data (the model wrote them; a follow-up must not
    take them for instructions)."""
    session = plan.session
    lines: list[str] = []
    quoted: list[QuotedData] = []
    if plan.full:
        lines.append("This is a follow-up: the conversation above is an earlier run on this task.")
    else:
        lines.append(
            "This is a follow-up on a task an earlier run worked on. Its conversation is not shown because "
            f"{plan.why_summary}. What it reported is quoted below; check the files rather than trusting it."
        )
        if session.summary:
            quoted.append(QuotedData("summary of the earlier run", session.summary, author="the bot (earlier run)"))
        if session.todos:
            todo = "\n".join(f"- [{status}] {content}" for content, status in session.todos)
            quoted.append(QuotedData("todo list of the earlier run", todo, author="the bot (earlier run)"))
        question = session.pending_question
        if question is not None and plan.answer is not None:
            quoted.append(QuotedData("question the earlier run asked", question.question, author="the bot"))
            quoted.append(QuotedData("answer", plan.answer.text, author=plan.answer.author))
    if session.branch and session.head:
        lines.append(f"The earlier run left the branch `{session.branch}` at {session.head[:12]}.")
    commits = plan.since.commits[-MAX_NEW_COMMITS:]
    if commits:
        listing = "\n".join(f"- {c.sha[:12]} by {c.author}: {c.subject[:200]}" for c in commits)
        lines.append(f"Since then, people pushed {len(plan.since.commits)} commit(s) to the branch:\n{listing}")
    elif session.head:
        lines.append("Nobody pushed to the branch since.")
    comments = plan.since.comments[-MAX_NEW_COMMENTS:]
    if comments:
        lines.append(f"{len(plan.since.comments)} new comment(s) on the thread since then are quoted below.")
        quoted += [
            QuotedData("comment since the earlier run", c.body[:MAX_COMMENT_CHARS], author=c.author, source=c.url)
            for c in comments
        ]
    if plan.answer is not None and plan.full:
        lines.append("The answer to your question is the result of your AskUserQuestion call above.")
    return replace(task, prompt="\n\n".join([*lines, task.prompt]), quoted=(*quoted, *task.quoted))


def opening_messages(earlier: Sequence[Message], first: list[Block]) -> list[Message]:
    """The conversation the loop starts from: ``earlier`` then the new request (merged into the
    last message when that is the user's own, as the API wants roles to alternate)."""
    if not earlier:
        return [{"role": "user", "content": first}]
    out = [dict(m) for m in earlier]
    if out[-1]["role"] == "user":
        out[-1] = {"role": "user", "content": [*blocks_of(out[-1]), *first]}
    else:
        out.append({"role": "user", "content": first})
    return out


# ----- internals ----------------------------------------------------------------------------------


def _answer_text(plan: ResumePlan) -> str:
    if plan.answer is None:
        return (
            "The question was not answered: the requester sent a new request instead (below). "
            "Decide from it whether the question still matters."
        )
    quoted = AgentTask(
        f"@{plan.answer.author} answered your question in a comment on the thread (quoted as data below).",
        quoted=(QuotedData("answer", plan.answer.text, author=plan.answer.author),),
    )
    return render_task(quoted)


def _unanswered_calls(messages: Sequence[Message]) -> list[str]:
    """Tool calls of the last assistant message that have no result after it."""
    last_assistant = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
    if last_assistant is None:
        return []
    calls = [b["id"] for b in blocks_of(messages[last_assistant]) if b.get("type") == "tool_use" and b.get("id")]
    answered = {
        b.get("tool_use_id")
        for m in messages[last_assistant + 1 :]
        for b in blocks_of(m)
        if b.get("type") == "tool_result"
    }
    # The question's placeholder result counts as unanswered: the answer replaces it.
    return [c for c in calls if c not in answered or _is_placeholder(messages[last_assistant + 1 :], c)]


def _is_placeholder(after: Sequence[Message], call_id: str) -> bool:
    for message in after:
        for block in blocks_of(message):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                content = block.get("content")
                text = content if isinstance(content, str) else str(content)
                return WAITING_RESULT in text
    return False


def _well_formed(messages: Sequence[Message]) -> bool:
    """Starts with the user, alternates roles, and every result answers a call just before it."""
    if not messages or messages[0]["role"] != "user":
        return False
    for before, after in pairwise(messages):
        if before["role"] == after["role"]:
            return False
    for i, message in enumerate(messages):
        if message["role"] != "user":
            continue
        results = {b.get("tool_use_id") for b in blocks_of(message) if b.get("type") == "tool_result"}
        calls = {b.get("id") for b in blocks_of(messages[i - 1]) if b.get("type") == "tool_use"} if i else set()
        if not results <= calls:
            return False
    return True


__all__ = [
    "Answer",
    "CommentNote",
    "CommitNote",
    "ResumePlan",
    "SinceThen",
    "earlier_messages",
    "opening_messages",
    "plan_resume",
    "resumed_task",
]
