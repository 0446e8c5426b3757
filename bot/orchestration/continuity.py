"""A run's place in a longer task: the session it resumes and the session it leaves.

Mode-independent glue between the store (:mod:`bot.orchestration.session_store`), the resume
decision (:mod:`bot.agent.resume`) and a run: at the start, :func:`load_session` finds the earlier
session and :func:`plan_for_checkout` decides how to resume it from what the checkout shows (is the
session's commit still in the branch; which commits since are not the bot's); :func:`apply_plan`
puts it into the agent's session and task. At the end, :func:`session_after` describes what the run
leaves (with the question it ended on), redacted and bounded, for :meth:`SessionStore.save`.

``start over`` (:data:`START_OVER_PHRASE`) drops the stored session before the run: it starts from
nothing, as the first run did.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from bot.agent.events import RunEvent, TodosChanged
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.agent.resume import Answer, CommentNote, CommitNote, ResumePlan, SinceThen, earlier_messages, plan_resume
from bot.agent.resume import resumed_task as frame_task
from bot.agent.saved_session import PendingQuestion, SavedSession, SessionError, blocks_of, prepared_for_storage
from bot.agent.session import AgentSession
from bot.errors import GitError
from bot.orchestration.egress import Egress
from bot.orchestration.git import GitWorkspace
from bot.orchestration.session import PreparedRun, RunConfig
from bot.orchestration.session_store import SessionStore, session_ref, thread_key
from bot.tools.ask_user import ASK_USER_TOOL_NAME, QUESTION_SERVICE, AskedQuestion, QuestionBox

#: The words after the trigger phrase that drop the stored session (``@bot start over``).
START_OVER_PHRASE = "start over"
_START_OVER = re.compile(r"^\s*start\s+over\b[\s,.:;!-]*", re.IGNORECASE)


def start_over(request: str) -> tuple[bool, str]:
    """Whether the request (the comment without the trigger phrase) starts with ``start over``, and
    the rest of it (what to do from scratch; may be empty)."""
    match = _START_OVER.match(request)
    return (True, request[match.end() :].strip()) if match else (False, request)


def policy_hash(sources: Sequence[tuple[str, str]]) -> str:
    """One hash over the policy files that took part (label and text): a session held under
    another policy is resumed as its summary only."""
    digest = hashlib.sha256()
    for label, text in sorted(sources):
        digest.update(label.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Loaded:
    session: SavedSession | None
    #: Why an existing session could not be read (reported; the run starts fresh).
    problem: str | None = None


def load_session(store: SessionStore, key: str) -> Loaded:
    try:
        return Loaded(store.load(key))
    except (SessionError, GitError) as exc:
        return Loaded(None, f"The stored session could not be used, so this run started fresh: {exc}")


def plan_for_checkout(
    saved: SavedSession,
    git: GitWorkspace,
    *,
    policy: str,
    comments: Sequence[CommentNote] = (),
    answer: Answer | None = None,
) -> ResumePlan:
    """How to resume ``saved`` on the branch as checked out now: its commit must still be in the
    branch (else someone force-pushed); commits since that are not the bot's are told."""
    descends = True
    commits: list[CommitNote] = []
    if saved.head:
        # The branch as the remote has it (just fetched): a checkout left from an earlier job may
        # still hold the old history locally.
        tip = "HEAD"
        if saved.branch and git.has_remote() and git.local_ref(f"refs/remotes/{git.remote}/{saved.branch}"):
            tip = git.ref_for(saved.branch)
        descends = git.local_ref(saved.head) is not None and git.is_ancestor(saved.head, tip)
        if descends:
            try:
                listed = git.commits_since(saved.head, tip)
            except GitError:
                listed = []
            commits = [
                CommitNote(sha, f"{name} <{email}>", subject)
                for sha, name, email, subject in reversed(listed)
                if email != git.identity.email
            ]
    return plan_resume(
        saved,
        policy_hash=policy,
        head_descends=descends,
        since=SinceThen(tuple(commits), tuple(comments)),
        answer=answer,
    )


def apply_plan(plan: ResumePlan, session: AgentSession, task: AgentTask) -> AgentTask:
    """The agent starts from the earlier conversation (when taken whole); the task is framed as a follow-up."""
    session.resumed = tuple(earlier_messages(plan))
    return frame_task(task, plan)


class TodoTracker:
    """An event sink keeping the main agent's last todo list (what the stored session keeps)."""

    def __init__(self) -> None:
        self.todos: tuple[tuple[str, str], ...] = ()

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TodosChanged) and event.agent_id is None:
            self.todos = tuple((t.content, t.status) for t in event.todos)


def question_box(session: AgentSession) -> QuestionBox | None:
    return session.context.services.get(QUESTION_SERVICE)


def session_after(
    outcome: AgentOutcome,
    *,
    threads: Sequence[int],
    branch: str | None,
    head: str | None,
    policy: str,
    requester: str | None,
    todos: Sequence[tuple[str, str]],
    box: QuestionBox | None,
    redact: Callable[[str], str],
    question_comment_id: int | None = None,
    last_comment_id: int | None = None,
    run_url: str | None = None,
    previous: SavedSession | None = None,
) -> SavedSession:
    """The session this run leaves: its conversation, todo list, summary, where the branch is, and
    the question it ended on; redacted and within bounds."""
    pending = None
    if outcome.stop.reason == "needs_input" and box is not None and box.pending is not None:
        call_id = _question_call(outcome.messages)
        if call_id is not None:
            pending = PendingQuestion(
                call_id, box.pending.question, box.pending.choices, requester, question_comment_id
            )
    asked = box.asked if box is not None else (previous.questions_asked if previous else 0)
    summary = outcome.final_text or (previous.summary if previous else "")
    session = SavedSession(
        threads=tuple(dict.fromkeys([*threads, *(previous.threads if previous else ())])),
        branch=branch,
        head=head,
        policy_hash=policy,
        requester=requester,
        stop_reason=outcome.stop.reason,
        summary=summary,
        todos=tuple(todos),
        messages=tuple(outcome.messages) if outcome.messages else None,
        pending_question=pending,
        questions_asked=asked,
        last_comment_id=last_comment_id,
        saved_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        run_url=run_url,
    )
    return prepared_for_storage(session, redact)


@dataclass(slots=True)
class SessionSlot:
    """A run's place in its task, as the mode's adapter found it before the model ran: where the
    session is kept, the one it resumes, and how a question reaches the requester."""

    store: SessionStore
    #: Where this run's session is stored (thread numbers, or ``local/<id>``).
    keys: tuple[str, ...]
    threads: tuple[int, ...]
    requester: str | None
    loaded: Loaded
    #: The reply to the session's pending question, when this run was started by one.
    answer: Answer | None = None
    #: Comments on the thread since the stored session (not the bot's, not the new request).
    comments: tuple[CommentNote, ...] = ()
    #: The thread's newest comment when the run started (later ones are news to the next run).
    last_comment_id: int | None = None
    run_url: str | None = None
    #: Someone can answer a question (a comment trigger, a local terminal).
    can_ask: bool = False
    #: Posts the question to the requester; returns the comment's id (``None`` when it has none).
    ask: Callable[[AskedQuestion, str | None], int | None] | None = None
    notes: tuple[str, ...] = ()
    #: Set at the start of the agent stage (what the stored session will say).
    policy: str = ""
    todos: TodoTracker = field(default_factory=lambda: TodoTracker())

    @property
    def saved(self) -> SavedSession | None:
        return self.loaded.session


def run_config_for(slot: SessionSlot | None, config: RunConfig) -> RunConfig:
    """The run's configuration with who may be asked, and how many questions the task has used."""
    if slot is None:
        return config
    asked = slot.saved.questions_asked if slot.saved is not None else 0
    return replace(config, ask_requester=slot.requester if slot.can_ask else None, questions_asked=asked)


def resume_into(
    slot: SessionSlot | None, prepared: PreparedRun, git: GitWorkspace, task: AgentTask
) -> tuple[AgentTask, list[str]]:
    """Before the agent starts: the earlier session into its conversation and task; the notes the
    comment shows (what it continued from, or why the stored session was not usable)."""
    if slot is None:
        return task, []
    slot.policy = policy_hash(prepared.policy_sources)
    notes = list(slot.notes)
    if slot.loaded.problem:
        notes.append(slot.loaded.problem)
    if slot.saved is None:
        return task, notes
    plan = plan_for_checkout(slot.saved, git, policy=slot.policy, comments=slot.comments, answer=slot.answer)
    notes.append(plan.describe())
    return apply_plan(plan, prepared.session, task), notes


def keep_session(
    slot: SessionSlot | None,
    outcome: AgentOutcome | None,
    session: AgentSession | None,
    *,
    branch: str,
    head: str,
    pr_number: int | None,
    egress: Egress,
) -> list[str]:
    """After the work is published: the question posted (when the run ended on one), then the
    session stored under every thread it belongs to. Notes for the comment; a failure to store is
    one of them, never the run's failure. A canary in what would be stored raises."""
    if slot is None or outcome is None:
        return []
    box = question_box(session) if session is not None else None
    notes: list[str] = []
    comment_id = None
    if outcome.stop.reason == "needs_input" and box is not None and box.pending is not None and slot.ask is not None:
        comment_id = slot.ask(box.pending, slot.requester)
    threads = [*slot.threads, *([pr_number] if pr_number is not None else [])]
    newest = max((i for i in (slot.last_comment_id, comment_id) if i is not None), default=None)
    stored = session_after(
        outcome,
        threads=threads,
        branch=branch,
        head=head,
        policy=slot.policy,
        requester=slot.requester,
        todos=slot.todos.todos,
        box=box,
        redact=egress.redactor,
        question_comment_id=comment_id,
        last_comment_id=newest,
        run_url=slot.run_url,
        previous=slot.saved,
    )
    egress.canaries.check(stored.to_json().decode("utf-8"), "the session about to be stored")
    try:
        # Under every thread of the task (an issue and its PR): a follow-up on either finds the latest.
        keys = [*slot.keys, *(thread_key(t) for t in stored.threads)]
        slot.store.save(stored, keys)
    except (GitError, ValueError) as exc:
        notes.append(f"The session could not be stored, so a follow-up starts fresh: {exc}")
        return notes
    where = ", ".join(f"`{session_ref(k)}`" for k in dict.fromkeys(keys))
    kept = "its summary" if stored.messages is None else "the conversation"
    notes.append(f"Session kept ({kept}) in {where}; a follow-up continues it, `start over` drops it.")
    return notes


def _question_call(messages: Sequence[dict[str, object]]) -> str | None:
    """The AskUserQuestion call of the last assistant message (the one the run ended on)."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        for block in blocks_of(message):
            if block.get("type") == "tool_use" and block.get("name") == ASK_USER_TOOL_NAME:
                return str(block.get("id"))
        return None
    return None


__all__ = [
    "START_OVER_PHRASE",
    "Loaded",
    "SessionSlot",
    "TodoTracker",
    "answer_from",
    "apply_plan",
    "keep_session",
    "load_session",
    "plan_for_checkout",
    "policy_hash",
    "question_box",
    "resume_into",
    "run_config_for",
    "session_after",
    "start_over",
]


def answer_from(saved: SavedSession, body: str, author: str) -> Answer | None:
    """A reply to the session's pending question (``None`` when nothing is pending or the reply is
    empty). A bare choice number answers with that choice. Who may answer is checked by the caller
    (the requester, or someone with write access)."""
    question = saved.pending_question
    text = body.strip()
    if question is None or not text:
        return None
    number = re.fullmatch(r"#?(\d{1,2})[.)]?", text)
    if number and question.choices and 1 <= int(number.group(1)) <= len(question.choices):
        text = f"{number.group(1)}. {question.choices[int(number.group(1)) - 1]}"
    return Answer(text, author)
