"""The GitHub side of sessions: which thread a run's session belongs to, what was said there since,
a reply that answers a pending question, and the comment that asks one (docs/sessions.md).

Everything read here comes from the API and the session ref, before the model runs; comment text
is untrusted and only ever reaches the model quoted as data (:mod:`bot.agent.resume`).
"""

from __future__ import annotations

from dataclasses import replace

from bot.agent.resume import CommentNote
from bot.core.secrets import process_secrets
from bot.errors import BotError
from bot.github.api import GitHubApi
from bot.github.events import Trigger
from bot.orchestration.continuity import (
    Loaded,
    SessionSlot,
    answer_from,
    load_session,
    start_over,
)
from bot.orchestration.git import GitWorkspace
from bot.orchestration.render import defuse_mentions, finalize
from bot.orchestration.session_store import SessionStore, thread_key
from bot.tools.ask_user import AskedQuestion, render_question

#: Kinds of trigger someone can answer a question on: a person wrote the comment that started it.
ASKING_KINDS = frozenset({"issue_comment", "pr_comment", "review_comment", "review"})


def store_for(git: GitWorkspace) -> SessionStore:
    return SessionStore(git, push=True)


def waiting_question(git: GitWorkspace, trigger: Trigger) -> Loaded:
    """The session a reply (a comment without the phrase) may answer: one with a pending question
    on this thread, asked before this comment. ``Loaded(None)`` otherwise."""
    if trigger.issue is None or not trigger.reply_text:
        return Loaded(None)
    loaded = load_session(store_for(git), thread_key(trigger.issue))
    saved = loaded.session
    question = saved.pending_question if saved is not None else None
    if question is None:
        return Loaded(None)
    if question.comment_id is not None and trigger.comment_id is not None and trigger.comment_id <= question.comment_id:
        return Loaded(None)
    return loaded


def as_reply(trigger: Trigger) -> Trigger:
    """A reply turned into the trigger of the resumed run (its text is the request)."""
    text = trigger.reply_text or ""
    context = {**trigger.context, "comment": text}
    return replace(
        trigger, triggered=True, reason=f"{trigger.actor} answered the bot's question", prompt=text, context=context
    )


def github_slot(
    git: GitWorkspace,
    api: GitHubApi,
    trigger: Trigger,
    *,
    phrase: str,
    bot_login: str | None,
    sticky_id: int | None,
    run_url: str | None,
    reply: Loaded | None = None,
) -> SessionSlot | None:
    """The session slot of a run on an issue or pull request (``None`` for runs on neither)."""
    if trigger.issue is None:
        return None
    store = store_for(git)
    threads = tuple(dict.fromkeys(n for n in (trigger.issue, trigger.pr) if n is not None))
    keys = tuple(thread_key(n) for n in threads)
    notes: list[str] = []
    restart, _ = start_over(trigger.prompt)
    if restart and reply is None:
        store.forget(keys)
        loaded = Loaded(None)
        notes.append("Started over, as asked: the stored session of this thread was deleted.")
    else:
        loaded = reply or load_session(store, thread_key(trigger.issue))
    saved = loaded.session
    # A pending question is answered by the next request on the thread, with the mention or without.
    answered_by = trigger.reply_text if reply is not None else trigger.prompt
    question = saved.pending_question if saved is not None else None
    after_question = question is not None and (
        question.comment_id is None or trigger.comment_id is None or trigger.comment_id > question.comment_id
    )
    answer = (
        answer_from(saved, answered_by or "", trigger.actor or "") if saved is not None and after_question else None
    )
    own = {bot_login.lower()} if bot_login else set()
    comments: list[CommentNote] = []
    newest = trigger.comment_id
    if saved is not None:
        try:
            listed = api.list_issue_comments(trigger.issue, after_id=saved.last_comment_id or 0)
        except BotError as exc:
            listed = []
            notes.append(f"The comments since the earlier run could not be read ({exc}).")
        for c in listed:
            newest = max(newest or 0, c.id)
            if c.id in (trigger.comment_id, sticky_id) or (c.author or "").lower() in own:
                continue
            comments.append(CommentNote(c.author or "someone", c.body, c.html_url or None))

    thread = trigger.pr if trigger.pr is not None else trigger.issue

    def ask(question: AskedQuestion, requester: str | None) -> int | None:
        # The model wrote the question: it pings nobody and fetches nothing when the page is viewed.
        secrets = list(process_secrets().values())
        shown = AskedQuestion(
            finalize(defuse_mentions(question.question), secrets),
            tuple(finalize(defuse_mentions(c), secrets) for c in question.choices),
        )
        text = render_question(shown, requester, phrase)
        try:
            return api.create_issue_comment(thread, text).id
        except BotError:
            return None

    return SessionSlot(
        store=store,
        keys=keys,
        threads=threads,
        requester=saved.requester if answer is not None and saved is not None else trigger.actor,
        loaded=loaded,
        answer=answer,
        comments=tuple(comments),
        last_comment_id=newest,
        run_url=run_url,
        can_ask=trigger.kind in ASKING_KINDS and not trigger.actor_is_bot,
        ask=ask,
        notes=tuple(notes),
    )


__all__ = ["ASKING_KINDS", "as_reply", "github_slot", "store_for", "waiting_question"]
