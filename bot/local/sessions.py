"""Local sessions (``bot run --local --resume ID`` / ``--continue``): kept in the local repository
under ``refs/bot/sessions/local/<id>``, pushed nowhere (docs/sessions.md)."""

from __future__ import annotations

import secrets
from typing import TextIO

from bot.errors import ConfigError
from bot.orchestration.continuity import Loaded, SessionSlot, answer_from, load_session
from bot.orchestration.git import GitWorkspace
from bot.orchestration.session_store import LOCAL_PREFIX, SessionStore
from bot.tools.ask_user import AskedQuestion, render_question

LOCAL_REQUESTER = "local"


def local_slot(git: GitWorkspace, prompt: str, *, resume: str | None, continue_last: bool, out: TextIO) -> SessionSlot:
    """The session a local run continues (``resume``: its id; ``continue_last``: the newest) or a
    new one. Asking for a session that is not there is a :class:`ConfigError`, before anything changes."""
    store = SessionStore(git, push=False)
    key: str | None = None
    if resume is not None:
        key = resume if resume.startswith(LOCAL_PREFIX) else LOCAL_PREFIX + resume
    elif continue_last:
        key = store.latest_local()
        if key is None:
            raise ConfigError(
                "--continue: this repository has no local session yet; run without it first", path=git.root
            )
    loaded = Loaded(None)
    if key is not None:
        try:
            loaded = load_session(store, key)
        except ValueError as exc:  # a malformed id
            raise ConfigError(f"--resume: {exc}", path=git.root) from None
        if loaded.session is None and loaded.problem is None:
            raise ConfigError(f"--resume: there is no local session {key!r} in this repository", path=git.root)
    saved = loaded.session
    answer = answer_from(saved, prompt, LOCAL_REQUESTER) if saved is not None else None

    def ask(question: AskedQuestion, requester: str | None) -> int | None:
        print("", file=out)
        hint = 'Answer with: bot run --local --continue --prompt "<your answer>" (a choice\'s number is enough).'
        print(render_question(question, None, "bot", reply_hint=hint), file=out)
        return None

    return SessionSlot(
        store=store,
        keys=(key or LOCAL_PREFIX + secrets.token_hex(6),),
        threads=(),
        requester=LOCAL_REQUESTER,
        loaded=loaded,
        answer=answer,
        can_ask=True,
        ask=ask,
    )


__all__ = ["LOCAL_REQUESTER", "local_slot"]
