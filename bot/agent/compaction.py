"""Shrinking a conversation that is outgrowing the context window, cheapest first.

1. **Clearing old tool results** (:class:`ToolResultClearing`): the oldest results are replaced by
   a stub that says what was there and how to get it again (read the file again, the persisted
   large-result file, run the search again). The last :data:`KEEP_RECENT_RESULTS` results stay, and
   so does every result the model has not answered yet. Clearing is done in one batch, down to a
   target well under the trigger, so the cached prompt prefix is rewritten once, not every turn.
2. **Compaction** (:func:`summary_request`, :func:`compacted_conversation`): the model writes a
   structured summary of the work so far; the run continues from a new conversation made of the
   same system prompt and tools, the task, the summary, the current todo list and the files it read
   most recently, re-read from disk. That first message is the new cache prefix: from the next turn
   on every request reads it from the cache again.

Server-side context management. The Messages API has it as a beta (``anthropic-beta:
context-management-2025-06-27``): a ``context_management={"edits": [...]}`` request parameter with
``clear_tool_uses_20250919`` (trigger, ``keep``, ``clear_at_least``, ``exclude_tools``) and, later,
``compact_20260112`` (server-written summaries returned as ``compaction`` blocks). The SDK in this
environment (anthropic 2.15) types both only on ``client.beta.messages``; the non-beta stream the
client uses passes them through ``extra_headers``/``extra_body`` unparsed. :class:`ServerClearing`
sends ``clear_tool_uses`` that way behind the same interface as ours (opt-in: it is a beta, Bedrock
and Vertex may not have it, and its cleared results say only that they were cleared, not how to get
them back). Compaction stays ours everywhere: a ``compaction`` block would have to be parsed,
stored and sent back by the client, and our summary carries the todo list and re-read files, which
a server-side summary cannot.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from bot.agent.context_window import CHARS_PER_TOKEN, ContextBudget, estimate_tokens
from bot.agent.model import Block, Message, ModelClient, ModelError, ModelRequest, StreamFinished, StreamStarted
from bot.agent.usage import Usage
from bot.interface.abort import AbortSignal
from bot.interface.context import ToolUseContext

#: Results kept whatever their age (Claude Code's microcompact keeps a handful too): the model is
#: usually still working with the last few.
KEEP_RECENT_RESULTS = 3
#: A result smaller than this (estimated tokens) is kept: its stub would save next to nothing.
MIN_CLEARABLE_TOKENS = 130
#: Files re-read into a compacted conversation (Claude Code restores five).
RESTORED_FILES = 5
#: Share of the usable window the re-read files may take together; one file at most this many characters.
RESTORED_FILES_SHARE = 0.15
MAX_RESTORED_FILE_CHARS = 40_000
#: Output tokens for the summary: enough for a thorough one, small next to any window.
SUMMARY_MAX_TOKENS = 8_000
#: How much of each result the model had not seen yet is carried into the compacted conversation.
MAX_PENDING_RESULT_CHARS = 4_000
CLEARED_PREFIX = "[Old tool result cleared to save context:"

SUMMARY_INSTRUCTIONS = """\
The conversation is about to be compacted: it is close to the model's context window. Write a \
summary that lets you continue the task from a fresh conversation that holds only the task, this \
summary, the todo list and the files you read most recently. Do not call any tools. Use exactly \
these sections:

## Task
What was asked, in your own words, with every requirement and constraint still in force.
## Decisions
What you decided and why (approaches chosen and rejected).
## Files changed
Each file you created, edited or deleted, and what changed in it.
## Open items
What is still to do, in order; what you were doing when this summary was requested.
## What failed
Commands, tests or approaches that failed, with the error, so they are not retried blindly.
## Key facts
Anything else you would need: names, paths, commands that work, test results.
"""

CompactionKind = Literal["cleared_tool_results", "summary"]


@dataclass(frozen=True, slots=True)
class Compaction:
    """One shrink of the conversation: for the transcript, the events and the comment."""

    kind: CompactionKind
    #: The turn whose request was shrunk (the shrink happened just before it was sent).
    turn: int
    #: Seconds since the run started.
    at_s: float
    tokens_before: int
    tokens_after: int
    #: Tool results cleared, or messages summarised.
    items: int
    agent_id: str | None = None
    #: The API cleared the results (server-side context management): the figures are its own.
    server_side: bool = False

    @property
    def tokens_saved(self) -> int:
        return max(0, self.tokens_before - self.tokens_after)

    def describe(self) -> str:
        what = (
            f"{self.items} old tool result{'s' if self.items != 1 else ''} cleared"
            if self.kind == "cleared_tool_results"
            else f"{self.items} messages compacted into a summary"
        )
        return (
            f"turn {self.turn} ({self.at_s:.0f} s): {what}, {self.tokens_before:,} → {self.tokens_after:,} tokens "
            f"(saved {self.tokens_saved:,})"
        )


# ----- 1. clearing old tool results -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cleared:
    messages: list[Message]
    count: int
    tokens_saved: int


class ToolResultClearing(Protocol):
    """Stage 1, by us or by the API. ``request_params`` go into every request; ``clear`` rewrites
    the stored conversation (or returns ``None`` when nothing is cleared on our side)."""

    server_side: bool

    def request_params(self, budget: ContextBudget) -> Mapping[str, Any]: ...

    def clear(self, messages: Sequence[Message], size: int, budget: ContextBudget) -> Cleared | None: ...


class ClientClearing:
    """Ours: stubs that say how to get each result back."""

    server_side = False

    def __init__(self, keep_last: int = KEEP_RECENT_RESULTS) -> None:
        self.keep_last = keep_last

    def request_params(self, budget: ContextBudget) -> Mapping[str, Any]:
        return {}

    def clear(self, messages: Sequence[Message], size: int, budget: ContextBudget) -> Cleared | None:
        cleared = clear_old_tool_results(messages, size=size, target=budget.clear_down_to, keep_last=self.keep_last)
        return cleared if cleared.count else None


class ServerClearing:
    """The API's ``clear_tool_uses_20250919`` edit, sent with every request (see the module docstring)."""

    server_side = True
    BETA = "context-management-2025-06-27"

    def __init__(self, keep_last: int = KEEP_RECENT_RESULTS) -> None:
        self.keep_last = keep_last

    def request_params(self, budget: ContextBudget) -> Mapping[str, Any]:
        edit = {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": budget.clear_at},
            "keep": {"type": "tool_uses", "value": self.keep_last},
            "clear_at_least": {"type": "input_tokens", "value": budget.clear_at - budget.clear_down_to},
        }
        return {"extra_headers": {"anthropic-beta": self.BETA}, "extra_body": {"context_management": {"edits": [edit]}}}

    def clear(self, messages: Sequence[Message], size: int, budget: ContextBudget) -> Cleared | None:
        return None


def clear_old_tool_results(
    messages: Sequence[Message], *, size: int, target: int, keep_last: int = KEEP_RECENT_RESULTS
) -> Cleared:
    """Replace the oldest tool results by stubs until the estimate (``size`` now) is under
    ``target``. Never clears the last ``keep_last`` results, results the model has not answered
    yet (after the last assistant message), errors, or results too small to matter. Returns new
    message lists; the given ones are not changed."""
    calls = _tool_uses(messages)
    last_assistant = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    positions = [
        (i, j)
        for i, m in enumerate(messages)
        if m["role"] == "user" and i < last_assistant
        for j, b in enumerate(_blocks(m))
        if b.get("type") == "tool_result"
    ]
    answered_recent = {p for p in positions[len(positions) - keep_last :]} if keep_last else set()
    out = [dict(m) for m in messages]
    count = saved = 0
    for i, j in positions:
        if size - saved <= target:
            break
        if (i, j) in answered_recent:
            continue
        content = list(_blocks(out[i]))
        block = content[j]
        text = _result_text(block.get("content"))
        if block.get("is_error") or estimate_tokens(block) < MIN_CLEARABLE_TOKENS or text.startswith(CLEARED_PREFIX):
            continue
        stub = {
            "type": "tool_result",
            "tool_use_id": block["tool_use_id"],
            "content": cleared_stub(calls.get(block["tool_use_id"]), text, _attachments(block.get("content"))),
        }
        saved += estimate_tokens(block) - estimate_tokens(stub)
        content[j] = stub
        out[i] = {**out[i], "content": content}
        count += 1
    return Cleared(out, count, saved)


_PERSISTED = re.compile(r"Full output saved to: (\S+)")


def cleared_stub(call: Block | None, text: str, attachments: int = 0) -> str:
    """What a cleared result says: what was there, and how to get it again."""
    name = str(call.get("name", "a tool")) if call else "a tool"
    args: Mapping[str, Any] = (call.get("input") or {}) if call else {}
    persisted = _PERSISTED.search(text)
    if persisted:
        again = f"the full output is still saved in {persisted.group(1)}: Read it if you need it"
    elif name in ("Read", "Write", "Edit", "NotebookEdit") and args.get("file_path"):
        again = f"Read {args['file_path']} again if you need its current content"
    elif name in ("Grep", "Glob") and args.get("pattern"):
        again = f"run {name} for {str(args['pattern'])[:120]!r} again if you need the matches"
    elif name == "Bash" and args.get("command"):
        again = f"run `{_one_line(str(args['command']))}` again if you need its output and it is safe to repeat"
    else:
        again = f"call {name} again if you need it"
    size = f"{len(text):,} characters" + (
        f", {attachments} image{'s' if attachments != 1 else ''} or document{'s' if attachments != 1 else ''}"
        if attachments
        else ""
    )
    what = f"{name} result ({size})"
    if name in ("Read", "Write", "Edit") and args.get("file_path"):
        what = f"{name} of {args['file_path']} ({size})"
    return f"{CLEARED_PREFIX} {what}. To see it again, {again}.]"


def _one_line(command: str, limit: int = 120) -> str:
    line = " ".join(command.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _tool_uses(messages: Sequence[Message]) -> dict[str, Block]:
    return {
        b["id"]: b
        for m in messages
        if m["role"] == "assistant"
        for b in _blocks(m)
        if b.get("type") == "tool_use" and "id" in b
    }


def _blocks(message: Message) -> list[Block]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _attachments(content: Any) -> int:
    return (
        sum(1 for b in content if isinstance(b, Mapping) and b.get("type") in ("image", "document"))
        if isinstance(content, list)
        else 0
    )


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return ""


# ----- 2. compaction ----------------------------------------------------------------------------


def summary_request(
    messages: Sequence[Message], with_breakpoint: Callable[[Sequence[Message]], list[Message]]
) -> list[Message]:
    """The conversation with the summary instructions appended (a copy). The cache breakpoint
    stays on the conversation itself, so the summary request reads it from the cache."""
    out = with_breakpoint(messages)
    ask: Block = {"type": "text", "text": SUMMARY_INSTRUCTIONS}
    if out and out[-1]["role"] == "user":
        out[-1] = {**out[-1], "content": [*_blocks(out[-1]), ask]}
    else:
        out.append({"role": "user", "content": [ask]})
    return out


def summary_text(content: Sequence[Block]) -> str:
    return "\n".join(str(b.get("text", "")) for b in content if b.get("type") == "text").strip()


@dataclass(frozen=True, slots=True)
class RestoredFile:
    path: Path
    text: str
    truncated: bool


def recently_read(messages: Sequence[Message], limit: int = RESTORED_FILES) -> list[str]:
    """The ``file_path`` of the last ``limit`` distinct files read successfully, newest first."""
    failed = {
        b.get("tool_use_id")
        for m in messages
        if m["role"] == "user"
        for b in _blocks(m)
        if b.get("type") == "tool_result" and b.get("is_error")
    }
    seen: list[str] = []
    for message in reversed(messages):
        if message["role"] != "assistant":
            continue
        for block in reversed(_blocks(message)):
            path = (block.get("input") or {}).get("file_path") if block.get("type") == "tool_use" else None
            if (
                block.get("name") == "Read"
                and isinstance(path, str)
                and block.get("id") not in failed
                and path not in seen
            ):
                seen.append(path)
    return seen[:limit]


def reread_files(
    paths: Sequence[str], *, workspace: Path, cwd: Path, budget_chars: int, redact: Callable[[str], str]
) -> list[RestoredFile]:
    """The files as they are on disk now, inside the workspace only (symlinks resolved first: the
    workspace may have been rewritten since they were read), text only, within ``budget_chars``."""
    root = workspace.resolve()
    out: list[RestoredFile] = []
    left = budget_chars
    for raw in paths:
        if left <= 0:
            break
        path = Path(os.path.expanduser(raw))
        path = (path if path.is_absolute() else cwd / path).resolve()
        if root not in path.parents or ".git" in path.relative_to(root).parts or not path.is_file():
            continue
        try:
            data = path.read_bytes()[: MAX_RESTORED_FILE_CHARS * 4]
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", errors="replace")
        cap = min(left, MAX_RESTORED_FILE_CHARS)
        out.append(RestoredFile(path, redact(text[:cap]), truncated=len(text) > cap))
        left -= min(len(text), cap)
    return out


def restored_files_budget(budget: ContextBudget) -> int:
    return int(budget.usable * RESTORED_FILES_SHARE * CHARS_PER_TOKEN)


def pending_results(
    messages: Sequence[Message],
    restored: Sequence[RestoredFile],
    *,
    workspace: Path,
    cwd: Path,
    limit_chars: int = MAX_PENDING_RESULT_CHARS,
) -> list[str]:
    """The results the model has not seen yet (the conversation ends with them), as text for the
    compacted conversation — except Reads of files that are re-read anyway."""
    if not messages or messages[-1]["role"] != "user":
        return []
    calls = _tool_uses(messages)
    restored_paths = {f.path for f in restored}
    out: list[str] = []
    for block in _blocks(messages[-1]):
        if block.get("type") != "tool_result":
            continue
        call = calls.get(block.get("tool_use_id", ""), {})
        path = (call.get("input") or {}).get("file_path")
        if call.get("name") == "Read" and isinstance(path, str):
            resolved = Path(os.path.expanduser(path))
            if (resolved if resolved.is_absolute() else cwd / resolved).resolve() in restored_paths:
                continue
        text = _result_text(block.get("content"))
        cut = "\n(truncated)" if len(text) > limit_chars else ""
        label = "error" if block.get("is_error") else "result"
        out.append(f"{call.get('name', 'a tool')} {label}:\n{text[:limit_chars]}{cut}")
    return out


def compacted_conversation(
    first: Message,
    summary: str,
    todos: Sequence[tuple[str, str]],
    files: Sequence[RestoredFile],
    *,
    workspace: Path,
    summarised: int,
    pending: Sequence[str] = (),
) -> list[Message]:
    """The new conversation: the first user message as it was (the task, and what hooks added to
    it), then the summary, the todo list, the results of the last calls the model has not seen
    and the re-read files, in one more block each."""
    blocks: list[Block] = [dict(b) for b in _blocks(first)]
    blocks.append(
        {
            "type": "text",
            "text": (
                "<conversation-summary>\nThis run continues from an earlier conversation that outgrew the context "
                f"window; its {summarised} messages were replaced by the summary you wrote:\n\n{summary}\n"
                "</conversation-summary>\nContinue the task from where it stopped, without repeating finished steps. "
                "Results of earlier tool calls are gone: read files again when you need their content."
            ),
        }
    )
    if todos:
        lines = "\n".join(f"- [{status}] {content}" for content, status in todos)
        blocks.append({"type": "text", "text": f"<todo-list>\nYour current todo list:\n{lines}\n</todo-list>"})
    if pending:
        blocks.append(
            {
                "type": "text",
                "text": "<last-tool-results>\nThe results of your last tool calls, which "
                "arrived as the conversation was compacted:\n\n" + "\n\n".join(pending) + "\n</last-tool-results>",
            }
        )
    for f in files:
        shown = f.path.relative_to(workspace.resolve()) if workspace.resolve() in f.path.parents else f.path
        cut = "\n(truncated: Read the file for the rest)" if f.truncated else ""
        blocks.append(
            {"type": "text", "text": f'<file path="{shown}" reread-after-compaction="true">\n{f.text}{cut}\n</file>'}
        )
    return [{"role": "user", "content": blocks}]


def rebuild_conversation(
    messages: Sequence[Message],
    first: Message,
    summary: str,
    todos: Sequence[tuple[str, str]],
    context: ToolUseContext,
    budget: ContextBudget,
    measure: Callable[[list[Message]], int],
    redact: Callable[[str], str],
) -> list[Message]:
    """The compacted conversation for ``messages``: the files read last are re-read (and may be
    edited again without a Read), unless they would leave the conversation above the compaction
    threshold, in which case the model reads them again when it needs them."""
    workspace, cwd = context.workspace, context.working_directory
    files = reread_files(
        recently_read(messages), workspace=workspace, cwd=cwd, budget_chars=restored_files_budget(budget), redact=redact
    )
    pending = pending_results(messages, files, workspace=workspace, cwd=cwd)
    new = compacted_conversation(
        first, summary, todos, files, workspace=workspace, summarised=len(messages), pending=pending
    )
    if files and measure(new) >= budget.compact_at:
        files = []
        new = compacted_conversation(
            first, summary, todos, (), workspace=workspace, summarised=len(messages), pending=pending
        )
    for restored in files:
        if not restored.truncated:  # the model has seen the whole file again
            raw = restored.path.read_bytes()
            context.read_file_state.record(restored.path, raw, restored.path.stat().st_mtime_ns)
    return new


async def stream_summary(
    client: ModelClient, request: ModelRequest, abort: AbortSignal, bill: Callable[[Usage, str | None], None]
) -> StreamFinished | None:
    """One attempt at the summary, its stream read to the end (the request forbids tool calls).
    ``None`` when the run was aborted meanwhile; raises :class:`ModelError` (an empty summary is a
    retryable one). ``bill`` receives what the attempt cost, failed or not."""
    if abort.aborted:
        return None
    finished: StreamFinished | None = None
    usage, request_id = Usage(), None
    failure: ModelError | None = None
    async with anyio.create_task_group() as tg:

        async def watch_abort() -> None:
            await abort.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(watch_abort)
        try:
            async with aclosing(client.stream(request)) as stream:
                async for event in stream:
                    if isinstance(event, StreamStarted):
                        usage, request_id = event.usage, event.request_id
                    elif isinstance(event, StreamFinished):
                        finished, usage = event, event.usage
        except ModelError as exc:
            failure = exc
        finally:
            tg.cancel_scope.cancel()
    bill(usage, request_id)
    if failure is not None:
        raise failure
    if finished is not None and not summary_text(finished.content):
        raise ModelError("other", "the summary came back empty", retryable=True, request_id=finished.request_id)
    return finished


def prompt_too_long(error: ModelError) -> bool:
    """The API refused the request for its size (400 ``prompt is too long``, 413 request too large)."""
    text = error.message.lower()
    return error.kind == "invalid_request" and (
        "prompt is too long" in text or error.status == 413 or "too large" in text
    )


__all__ = [
    "CLEARED_PREFIX",
    "KEEP_RECENT_RESULTS",
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_MAX_TOKENS",
    "ClientClearing",
    "Compaction",
    "ServerClearing",
    "ToolResultClearing",
    "clear_old_tool_results",
    "cleared_stub",
    "compacted_conversation",
    "pending_results",
    "prompt_too_long",
    "rebuild_conversation",
    "recently_read",
    "reread_files",
    "stream_summary",
    "summary_request",
    "summary_text",
]
