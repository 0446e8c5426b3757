"""How big the conversation is, against how big the model's window is.

Two figures are combined (:class:`ContextMeter`): what the API said the last request held (its
usage: uncached input + cache reads + cache writes, plus the output the model then wrote), and an
estimate of what was added since (the tool results about to be sent). The estimate alone is also
taken for the whole request, and the larger figure wins: a test replay (or a proxy) that reports
small usage must not let the conversation outgrow the window unnoticed.

The estimate is characters / :data:`CHARS_PER_TOKEN` over the request's canonical JSON. It is
deliberately pessimistic: source code and JSON tokenize at about 3–3.5 characters a token, English
prose at about 4–4.5, and the JSON framing it counts is partly not tokenized at all. An exact count
needs the ``count_tokens`` endpoint, one more round trip per turn; the thresholds leave enough room
that the estimate does not have to be exact.

Windows come from :data:`MODEL_WINDOWS` (longest matching prefix), else :data:`DEFAULT_WINDOW`;
the policy's ``bot.limits.context_window`` overrides both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.agent.model import Block, Message
from bot.agent.usage import Usage

#: Tokens. Every current Claude model has a 200k window by default (the 1M-token window of some
#: Sonnet models is a beta the request must opt into, so it is not assumed).
DEFAULT_WINDOW = 200_000
MODEL_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude-opus-", 200_000),
    ("claude-sonnet-", 200_000),
    ("claude-haiku-", 200_000),
    ("claude-fable-", 200_000),
    ("claude-mythos-", 200_000),
    ("claude-3", 200_000),
)
#: A pessimistic characters-per-token ratio (see the module docstring).
CHARS_PER_TOKEN = 3.0
#: What an image or a document block counts as (the API bills a ~1 MP image at about 1,600 tokens).
ATTACHMENT_TOKENS = 1_600
#: Shrinking starts here (fraction of the window): old tool results are cleared first.
CLEAR_AT = 0.60
#: Clearing stops when the conversation is back under this: clearing in one batch rewrites the
#: cached prefix once, not every turn.
CLEAR_DOWN_TO = 0.40
#: If clearing did not get under this, the conversation is compacted into a summary.
COMPACT_AT = 0.75
#: The reply written after the request also has to fit: at most this share of the window is kept
#: for it (a 32k ``max_tokens`` in a 20k test window would otherwise leave no room at all).
MAX_OUTPUT_SHARE = 0.15


def window_for(model: str, override: int | None = None) -> int:
    """The model's context window in tokens (the override, when the policy sets one)."""
    if override is not None:
        return override
    best = max((p for p, _ in MODEL_WINDOWS if model.startswith(p)), key=len, default=None)
    return dict(MODEL_WINDOWS)[best] if best is not None else DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """The thresholds for one model and output size, in tokens."""

    window: int
    max_output_tokens: int

    @property
    def output_reserve(self) -> int:
        return min(self.max_output_tokens, int(self.window * MAX_OUTPUT_SHARE))

    @property
    def usable(self) -> int:
        """What the request itself may hold."""
        return self.window - self.output_reserve

    @property
    def clear_at(self) -> int:
        return int(self.usable * CLEAR_AT)

    @property
    def clear_down_to(self) -> int:
        return int(self.usable * CLEAR_DOWN_TO)

    @property
    def compact_at(self) -> int:
        return int(self.usable * COMPACT_AT)


def estimate_tokens(value: Any) -> int:
    """Estimated tokens of a JSON-like value (a block, a message, a list of them)."""
    attachments = 0
    chars = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if item.get("type") in ("image", "document"):
                attachments += 1
                continue
            chars += len(
                json.dumps(
                    {k: v for k, v in item.items() if not isinstance(v, list | dict)},
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
            )
            stack += [v for v in item.values() if isinstance(v, list | dict)]
        elif isinstance(item, list | tuple):
            stack += list(item)
        else:
            chars += len(json.dumps(item, ensure_ascii=False))
    return int(chars / CHARS_PER_TOKEN) + attachments * ATTACHMENT_TOKENS


def estimate_request(system: Sequence[Block], tools: Sequence[Block], messages: Sequence[Message]) -> int:
    # Message by message, as the meter counts them (each estimate is rounded down on its own).
    return estimate_tokens(list(system)) + estimate_tokens(list(tools)) + sum(estimate_tokens(m) for m in messages)


def estimate_body(body: Mapping[str, Any]) -> int:
    """The estimate for a request body as sent on the wire (tests and benchmarks)."""
    system = body.get("system") or []
    return estimate_request(
        [{"type": "text", "text": system}] if isinstance(system, str) else system,
        body.get("tools") or [],
        body.get("messages") or [],
    )


class ContextMeter:
    """The conversation's size as the run goes: the API's usage for what was sent, the estimate
    for what was added since."""

    def __init__(self) -> None:
        self._reported: int | None = None
        self._messages_then = 0
        # Stored messages are never changed in place (a shrink replaces them), so each one is
        # estimated once: the object is kept with its figure, so its id cannot be reused meanwhile.
        self._memo: dict[int, tuple[object, int]] = {}
        self._tools: tuple[tuple[str, ...], int] = ((), 0)

    def reported(self, usage: Usage, messages_sent: int) -> None:
        """A response arrived for a request of ``messages_sent`` messages: what the API counted
        (the prompt, plus the reply that is now part of the conversation)."""
        self._reported = usage.prompt_tokens + usage.output_tokens
        self._messages_then = messages_sent + 1  # the reply is counted in the output tokens

    def rewritten(self) -> None:
        """The conversation was cleared or compacted: the last usage no longer describes it."""
        self._reported = None
        self._messages_then = 0
        self._memo.clear()

    def measure(self, system: Sequence[Block], tools: Sequence[Block], messages: Sequence[Message]) -> int:
        """The size of a request of these parts. ``messages`` should be the stored ones (not
        copies), so that each is estimated once."""
        estimate = self._once(system) + self._tools_tokens(tools) + sum(self._once(m) for m in messages)
        if self._reported is not None:
            estimate = max(estimate, self._reported + sum(self._once(m) for m in messages[self._messages_then :]))
        return estimate

    def _once(self, item: Any) -> int:
        hit = self._memo.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        tokens = estimate_tokens(item)
        self._memo[id(item)] = (item, tokens)
        return tokens

    def _tools_tokens(self, tools: Sequence[Block]) -> int:
        """Tool definitions are rebuilt for every request; they change only when a tool is added."""
        names = tuple(str(t.get("name", "")) for t in tools)
        if names != self._tools[0]:
            self._tools = (names, estimate_tokens(list(tools)))
        return self._tools[1]


__all__ = [
    "DEFAULT_WINDOW",
    "MODEL_WINDOWS",
    "ContextBudget",
    "ContextMeter",
    "estimate_body",
    "estimate_request",
    "estimate_tokens",
    "window_for",
]
