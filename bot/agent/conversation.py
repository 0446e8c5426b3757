"""The conversation of one agent: the messages sent with every request, kept in the shape the API
accepts, each one logged to the transcript and measured against the context window.

Stored messages are never changed in place (the prompt cache needs a byte-stable prefix, and the
size meter memoises each message): a message that grows is replaced by a copy, and a shrink
(clearing, compaction) replaces the list.

The API's shape rules kept here: every message has content (only a final assistant message may be
empty, and ours never is last when it is sent), and roles alternate. A response without content —
the run continues after it when a Stop hook blocks or a background task reports — is not stored;
the user message that follows joins the last user message instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.agent.compaction import Compaction
from bot.agent.context_window import ContextMeter
from bot.agent.model import Block, Message, StreamFinished
from bot.agent.transcript import Transcript


class Conversation:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.messages: list[Message] = []
        self.meter = ContextMeter()
        #: The task as first sent: every compacted conversation starts with it again.
        self.first_message: Message = {"role": "user", "content": []}
        #: The model's last text (its summary when it finishes), or "".
        self.last_text = ""

    def __len__(self) -> int:
        return len(self.messages)

    def start(self, messages: Sequence[Message]) -> None:
        """The opening: the task (after a resumed session's earlier messages, when there are any)."""
        for message in messages:
            if message["role"] == "user":
                self.add_user(list(message["content"]))
            elif message["content"]:
                self.messages.append(message)
                self.transcript.append(message)
        self.first_message = self.messages[0]

    def add_reply(self, finished: StreamFinished) -> None:
        """A response joins the conversation (unless it is empty); the transcript keeps it either way."""
        message: Message = {"role": "assistant", "content": list(finished.content)}
        if message["content"]:
            self.messages.append(message)
            self.meter.reported(finished.usage, len(self.messages) - 1)
        else:
            # What follows joins the last message (add_user): the meter counts that message as new.
            self.meter.reported(finished.usage, max(0, len(self.messages) - 2))
        text = "".join(b.get("text", "") for b in finished.content if b.get("type") == "text").strip()
        if text:
            self.last_text = text
        self.transcript.append(
            {
                **message,
                "id": finished.message_id,
                "model": finished.model,
                "stop_reason": finished.stop_reason,
                "usage": finished.usage.to_dict(),
            },
            requestId=finished.request_id,
        )

    def add_user(self, content: list[Block]) -> None:
        """A user message; after a user message (an empty response between them) it joins that one."""
        message: Message = {"role": "user", "content": content}
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "user":
            self.messages[-1] = {**last, "content": [*last["content"], *content]}
        else:
            self.messages.append(message)
        self.transcript.append(message)

    def replace(self, messages: list[Message], *, summary: bool = False) -> None:
        """The conversation was cleared or compacted: the last usage no longer describes it. A
        compacted one (``summary``) starts with the summary, which the transcript marks as such."""
        self.messages = messages
        self.meter.rewritten()
        if summary:
            self.transcript.append({**messages[0]}, isCompactSummary=True)

    def mark_compaction(self, record: Compaction) -> None:
        """The transcript's ``compact_boundary`` entry (Claude Code's), where the shrink happened."""
        self.transcript.append(
            {"role": "system", "content": [{"type": "text", "text": record.describe()}]},
            subtype="compact_boundary",
            compactMetadata={
                "trigger": "auto",
                "kind": record.kind,
                "preTokens": record.tokens_before,
                "postTokens": record.tokens_after,
                "turn": record.turn,
            },
        )

    def measure(self, system: Sequence[Block], tools: Sequence[Block]) -> int:
        return self.meter.measure(system, tools, self.messages)


__all__ = ["Conversation"]
