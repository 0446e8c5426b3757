"""A run's session as it is kept between runs (:class:`SavedSession`): what a follow-up resumes.

Kept: the conversation (as the run ended it: compacted when it outgrew the window), the todo
list, the summary (the model's last message), the branch and the commit the run pushed, the hash
of the policy it ran under, who asked, and a question the model is waiting on. Every string is
redacted before it is kept (:func:`prepared_for_storage`), and the whole is bounded
(:data:`MAX_SESSION_BYTES`): old tool results are cut first, then the conversation is dropped and
only the summary is kept. Where it is kept is :mod:`bot.orchestration.session_store`'s business.

Reading one back is reading untrusted-shaped data (anyone with push access can write the ref):
:func:`session_from_json` checks size, depth and every field's type, and a malformed session is a
:class:`SessionError` the caller reports and runs without.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from bot.core.bounded import load_json
from bot.errors import BotError

SESSION_VERSION = 1
#: The stored JSON at most. A 200k-token window is ~600 kB of conversation; the bound keeps a
#: session one git object of modest size, fetched in well under a second.
MAX_SESSION_BYTES = 1_500_000
#: Tool results longer than this are cut when the session would not fit otherwise: the model read
#: them once; it can run the tool again.
STORED_RESULT_CHARS = 2_000
#: Nesting of a stored conversation: message → content → block → tool input (a tool's own JSON).
MAX_SESSION_DEPTH = 64
MAX_SUMMARY_CHARS = 20_000
MAX_TODOS = 200

Message = dict[str, Any]


class SessionError(BotError):
    """A stored session cannot be used (malformed, too large, an unknown version): says why."""


@dataclass(frozen=True, slots=True)
class PendingQuestion:
    """The question the run ended on (AskUserQuestion): its answer becomes that call's result."""

    tool_use_id: str
    question: str
    choices: tuple[str, ...] = ()
    #: The requester's login: the question is addressed to them.
    asked_of: str | None = None
    #: The comment that asked it (replies come after it).
    comment_id: int | None = None


@dataclass(frozen=True, slots=True)
class SavedSession:
    #: Issue and pull-request numbers (one number space on GitHub) the session is found under.
    threads: tuple[int, ...]
    branch: str | None
    #: The branch's commit after the run's push: a later head that does not descend from it was
    #: force-pushed.
    head: str | None
    policy_hash: str
    requester: str | None
    stop_reason: str
    summary: str
    todos: tuple[tuple[str, str], ...] = ()
    #: ``None``: not kept (too large, or the run never had one); the summary stands for it.
    messages: tuple[Message, ...] | None = None
    pending_question: PendingQuestion | None = None
    #: Questions asked over the whole task (every resumed run adds its own).
    questions_asked: int = 0
    #: The highest comment id on the thread when the session was stored: later ones are new.
    last_comment_id: int | None = None
    saved_at: str = ""
    run_url: str | None = None
    #: Why the conversation was not kept (when ``messages`` is ``None``).
    dropped: str | None = None
    version: int = SESSION_VERSION

    def to_json(self) -> bytes:
        data = asdict(self)
        data["todos"] = [list(t) for t in self.todos]
        data["messages"] = None if self.messages is None else list(self.messages)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def session_from_json(raw: bytes, source: str) -> SavedSession:
    """A stored session, checked field by field; :class:`SessionError` names ``source`` and the problem."""
    if len(raw) > MAX_SESSION_BYTES:
        raise SessionError(f"{source}: the stored session is {len(raw):,} bytes, more than {MAX_SESSION_BYTES:,}")
    try:
        data = load_json(raw.decode("utf-8"), source=source, max_bytes=MAX_SESSION_BYTES, max_depth=MAX_SESSION_DEPTH)
    except (UnicodeDecodeError, BotError) as exc:
        raise SessionError(f"{source}: not a stored session ({exc})") from None
    if not isinstance(data, dict):
        raise SessionError(f"{source}: a stored session is a JSON object")
    read = _Reader(data, source)
    version = read.integer("version")
    if version != SESSION_VERSION:
        raise SessionError(f"{source}: session version {version} is not {SESSION_VERSION}, the one this bot reads")
    messages = read.optional(
        "messages", lambda v: isinstance(v, list) and all(_is_message(m) for m in v), "a list of messages"
    )
    question = read.optional("pending_question", lambda v: isinstance(v, dict), "an object")
    todos = read.value("todos", _is_todos, "a list of [content, status] pairs")
    return SavedSession(
        threads=tuple(read.value("threads", _is_ints, "a list of numbers")),
        branch=read.optional("branch", _is_branch, "a branch name"),
        head=read.optional("head", _is_sha, "a commit id (hex)"),
        policy_hash=read.text("policy_hash") or "",
        requester=read.text("requester", optional=True),
        stop_reason=read.text("stop_reason") or "",
        summary=(read.text("summary") or "")[:MAX_SUMMARY_CHARS],
        todos=tuple((str(c), str(s)) for c, s in todos[:MAX_TODOS]),
        messages=None if messages is None else tuple(messages),
        pending_question=None if question is None else _question(question, source),
        questions_asked=read.integer("questions_asked"),
        last_comment_id=read.optional("last_comment_id", _is_int, "a number"),
        saved_at=read.text("saved_at") or "",
        run_url=read.text("run_url", optional=True),
        dropped=read.text("dropped", optional=True),
    )


def prepared_for_storage(session: SavedSession, redact: Callable[[str], str]) -> SavedSession:
    """``session`` redacted in every string, without prompt-cache markers, within the size bound:
    long tool results cut first, then the conversation dropped (the summary stays)."""
    clean = replace(
        session,
        summary=redact(session.summary)[:MAX_SUMMARY_CHARS],
        todos=tuple((redact(c), s) for c, s in session.todos[:MAX_TODOS]),
        messages=None if session.messages is None else tuple(_clean(m, redact) for m in session.messages),
        pending_question=None
        if session.pending_question is None
        else replace(
            session.pending_question,
            question=redact(session.pending_question.question),
            choices=tuple(redact(c) for c in session.pending_question.choices),
        ),
    )
    if _fits(clean):
        return clean
    if clean.messages is not None:
        cut = replace(clean, messages=tuple(_cut_results(m) for m in clean.messages))
        if _fits(cut):
            return cut
    dropped = replace(
        clean,
        messages=None,
        dropped=f"the conversation was larger than the {MAX_SESSION_BYTES:,} bytes a stored session may hold",
    )
    if not _fits(dropped):  # only a summary and todos of absurd size get here
        dropped = replace(dropped, summary=dropped.summary[:2_000], todos=dropped.todos[:20])
    return dropped


# ----- internals ----------------------------------------------------------------------------------


def _fits(session: SavedSession) -> bool:
    return len(session.to_json()) <= MAX_SESSION_BYTES


def _clean(value: Any, redact: Callable[[str], str], depth: int = 0) -> Any:
    """Every string redacted, every ``cache_control`` dropped (the next run lays out its own cache)."""
    if isinstance(value, str):
        return redact(value)
    if depth > MAX_SESSION_DEPTH:
        return None
    if isinstance(value, Mapping):
        if value.get("type") in ("thinking", "redacted_thinking"):
            return _clean_thinking(value, redact)
        return {k: _clean(v, redact, depth + 1) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list | tuple):
        return [_clean(v, redact, depth + 1) for v in value]
    return value


def _clean_thinking(block: Mapping[str, Any], redact: Callable[[str], str]) -> Any:
    """A thinking block is sent back as it was or not at all: its signature (and a redacted block's
    opaque ``data``) covers the text, so a redaction would make the API refuse it. One that held a
    secret is replaced by a note."""
    text = block.get("thinking")
    if block.get("type") == "thinking" and isinstance(text, str) and redact(text) != text:
        return {"type": "text", "text": "[earlier reasoning not kept: it quoted a secret]"}
    return {k: v for k, v in block.items() if k != "cache_control"}


def _cut_results(message: Message) -> Message:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    blocks: list[Any] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            text = _result_text(block.get("content"))
            if len(text) > STORED_RESULT_CHARS:
                block = {
                    **block,
                    "content": text[:STORED_RESULT_CHARS]
                    + f"\n[… {len(text) - STORED_RESULT_CHARS:,} more characters not kept between runs]",
                }
        blocks.append(block)
    return {**message, "content": blocks}


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ("user", "assistant")
        and isinstance(value.get("content"), str | list)
        and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in _blocks(value))
    )


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _is_sha(value: Any) -> bool:
    """A full commit id: the stored value reaches git's command line, where ``--output=…`` would be
    an option."""
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", value) is not None


def _is_branch(value: Any) -> bool:
    return (
        isinstance(value, str)
        and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}", value) is not None
        and ".." not in value
        and not value.endswith((".lock", "/", "."))
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_ints(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _is_todos(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(t, list) and len(t) == 2 and all(isinstance(x, str) for x in t) for t in value
    )


def _question(data: Mapping[str, Any], source: str) -> PendingQuestion:
    read = _Reader(data, f"{source} (pending_question)")
    return PendingQuestion(
        tool_use_id=read.text("tool_use_id") or "",
        question=read.text("question") or "",
        choices=tuple(
            read.value(
                "choices", lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v), "a list of strings"
            )
        ),
        asked_of=read.text("asked_of", optional=True),
        comment_id=read.optional("comment_id", _is_int, "a number"),
    )


@dataclass(slots=True)
class _Reader:
    data: Mapping[str, Any]
    source: str

    def value(self, key: str, ok: Callable[[Any], bool], what: str) -> Any:
        value = self.data.get(key)
        if not ok(value):
            raise SessionError(f"{self.source}: {key!r} must be {what}")
        return value

    def optional(self, key: str, ok: Callable[[Any], bool], what: str) -> Any:
        value = self.data.get(key)
        return None if value is None else self.value(key, ok, what)

    def text(self, key: str, *, optional: bool = False) -> str | None:
        if optional:
            return self.optional(key, lambda v: isinstance(v, str), "a string")  # type: ignore[no-any-return]
        return self.value(key, lambda v: isinstance(v, str), "a string")  # type: ignore[no-any-return]

    def integer(self, key: str) -> int:
        return self.value(key, _is_int, "a whole number")  # type: ignore[no-any-return]


def blocks_of(message: Mapping[str, Any]) -> Sequence[Any]:
    """A message's content blocks (a string content is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


__all__ = [
    "MAX_SESSION_BYTES",
    "SESSION_VERSION",
    "PendingQuestion",
    "SavedSession",
    "SessionError",
    "blocks_of",
    "prepared_for_storage",
    "session_from_json",
]
