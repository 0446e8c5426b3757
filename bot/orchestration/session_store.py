"""Where sessions are kept between runs: one git ref per issue or pull request, on the repository.

``refs/bot/sessions/<number>`` (issues and pull requests share one number space) points at a
parentless commit holding ``session.json`` (:class:`~bot.agent.saved_session.SavedSession`). An
issue's run that opens a pull request stores it under both numbers, so a follow-up on either finds
it. Local runs keep theirs under ``refs/bot/sessions/local/<id>`` in the local repository, pushed
nowhere. ``docs/sessions.md`` is the user-facing account.

Trust model:

- Written only by the run itself, after the work is pushed, with the bot's hardened git and the
  job's token (:mod:`bot.orchestration.git`). Pushing a ref takes write access: someone who can only
  open a pull request from a fork cannot write one, nor can the model (its sandbox has no token).
- Readable by whoever can read the repository (a fetch of the ref), like the branch itself; the
  content is redacted before it is written (every string through the run's redactor and egress).
- Read before the model runs; its content is data: bounded (size, depth, every field's type), and
  a malformed one is reported and ignored (:class:`~bot.agent.saved_session.SessionError`).
- Bounded in size (:data:`~bot.agent.saved_session.MAX_SESSION_BYTES`); one commit per ref, no
  history: a new session replaces the old one, whose objects git collects in time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

from bot.agent.saved_session import MAX_SESSION_BYTES, SavedSession, session_from_json
from bot.errors import GitError

SESSION_REF_PREFIX = "refs/bot/sessions/"
LOCAL_PREFIX = "local/"
SESSION_FILE = "session.json"
#: Local sessions kept in a repository; older ones are deleted as new ones are stored.
MAX_LOCAL_SESSIONS = 20
_KEY = re.compile(r"^(?:[0-9]{1,12}|local/[A-Za-z0-9][A-Za-z0-9._-]{0,99})$")


class RefGit(Protocol):
    """The git operations a store needs (:class:`~bot.orchestration.git.GitWorkspace` has them)."""

    def has_remote(self) -> bool: ...

    def fetch_ref(self, ref: str) -> str | None: ...

    def local_ref(self, ref: str) -> str | None: ...

    def read_blob(self, rev: str, path: str, max_bytes: int) -> bytes | None: ...

    def write_snapshot(self, files: Mapping[str, bytes], message: str) -> str: ...

    def set_ref(self, ref: str, commit: str | None) -> None: ...

    def push_refs(self, updates: Mapping[str, str | None]) -> None: ...

    def list_refs(self, prefix: str) -> list[tuple[str, str, int]]: ...


def session_ref(key: str) -> str:
    """The ref of a session key (a thread number, or ``local/<id>``); a malformed key is refused."""
    if not _KEY.match(key):
        raise ValueError(f"not a session key: {key!r}")
    return SESSION_REF_PREFIX + key


def thread_key(number: int) -> str:
    return str(number)


class SessionStore:
    """Sessions in refs of ``git``'s repository; with ``push`` (GitHub), on its remote too."""

    def __init__(self, git: RefGit, *, push: bool) -> None:
        self.git = git
        self.push = push and git.has_remote()

    def load(self, key: str) -> SavedSession | None:
        """The session stored under ``key``, fetched from the remote first; ``None`` when there is
        none. Raises :class:`~bot.agent.saved_session.SessionError` for a malformed one."""
        ref = session_ref(key)
        commit = self.git.fetch_ref(ref) if self.push else self.git.local_ref(ref)
        if commit is None:
            return None
        raw = self.git.read_blob(commit, SESSION_FILE, MAX_SESSION_BYTES)
        if raw is None:
            return None
        return session_from_json(raw, f"{ref} ({commit[:12]})")

    def save(self, session: SavedSession, keys: Iterable[str]) -> str:
        """Store ``session`` (already redacted) under every key; returns the commit."""
        refs = [session_ref(k) for k in dict.fromkeys(keys)]
        if not refs:
            raise ValueError("a session is stored under at least one key")
        where = ", ".join(refs)
        commit = self.git.write_snapshot({SESSION_FILE: session.to_json()}, f"bot session for {where}\n")
        for ref in refs:
            self.git.set_ref(ref, commit)
        if self.push:
            self.git.push_refs(dict.fromkeys(refs, commit))
        else:
            self._prune_local(keep=refs)
        return commit

    def _prune_local(self, keep: list[str]) -> None:
        """Only the newest :data:`MAX_LOCAL_SESSIONS` local sessions stay (a laptop runs many)."""
        refs = sorted(self.git.list_refs(SESSION_REF_PREFIX + LOCAL_PREFIX), key=lambda r: r[2], reverse=True)
        for ref, _, _ in refs[MAX_LOCAL_SESSIONS:]:
            if ref not in keep:
                self.git.set_ref(ref, None)

    def forget(self, keys: Iterable[str]) -> None:
        """Delete the sessions under ``keys`` (``start over``), here and on the remote."""
        refs = [session_ref(k) for k in dict.fromkeys(keys)]
        for ref in refs:
            self.git.set_ref(ref, None)
        if self.push:
            for ref in refs:
                try:
                    self.git.push_refs({ref: None})
                except GitError as error:  # nothing there to delete is what was wanted
                    if "does not exist" not in str(error) and "not found" not in str(error).lower():
                        raise

    def latest_local(self) -> str | None:
        """The key of the most recent local session (``--continue``)."""
        refs = self.git.list_refs(SESSION_REF_PREFIX + LOCAL_PREFIX)
        if not refs:
            return None
        ref, _, _ = max(refs, key=lambda r: r[2])
        return ref[len(SESSION_REF_PREFIX) :]


__all__ = ["SESSION_FILE", "SESSION_REF_PREFIX", "RefGit", "SessionStore", "session_ref", "thread_key"]
