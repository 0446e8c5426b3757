"""The seam between the loop and a model provider: a request, the events of one streamed response,
and the errors, in our own types. :mod:`bot.agent.client` implements :class:`ModelClient` with the
Anthropic SDK; nothing else in the package knows the SDK exists.

One call of :meth:`ModelClient.stream` is one attempt: it never retries. The loop owns the retry
policy (:mod:`bot.agent.retry`), because a retried stream also has to abort the tools that the
failed attempt had already started.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from bot.agent.usage import Usage
from bot.errors import RunError
from bot.interface.messages import ToolUseBlock

Block = dict[str, Any]
Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One Messages API request, already laid out for the prompt cache (:mod:`bot.agent.cache`)."""

    model: str
    max_tokens: int
    system: Sequence[Block]
    messages: Sequence[Message]
    tools: Sequence[Block] = ()
    #: Other API parameters passed through unchanged (``thinking``, ``metadata``, ...).
    extra: Mapping[str, Any] = field(default_factory=dict)


def merged_params(base: Mapping[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    """Request parameters with ``more`` added; ``extra_headers``/``extra_body`` merged key by key."""
    out = dict(base)
    for key, value in more.items():
        if key in ("extra_headers", "extra_body") and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


# ----- what one streamed response yields, in order ------------------------------------------------


@dataclass(frozen=True, slots=True)
class StreamStarted:
    """``message_start``: the input side is known (and billed) from here on."""

    message_id: str
    model: str
    usage: Usage
    request_id: str | None = None


@dataclass(frozen=True, slots=True)
class TextChunk:
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolUseReady:
    """A ``tool_use`` block is complete (its ``content_block_stop``).

    ``complete`` is False when the block's JSON did not parse strictly: the response was cut by
    ``max_tokens`` in the middle of the input, and running the call would run a truncated input.
    """

    block: ToolUseBlock
    complete: bool = True


@dataclass(frozen=True, slots=True)
class StreamFinished:
    """``message_stop``: the whole assistant message, as API-shaped blocks to send back unchanged."""

    message_id: str
    model: str
    content: tuple[Block, ...]
    stop_reason: str | None
    usage: Usage
    request_id: str | None = None


StreamEvent = StreamStarted | TextChunk | ToolUseReady | StreamFinished


class ModelClient(Protocol):
    """What the loop needs from a provider."""

    #: ``anthropic``, ``bedrock``, ``vertex``: for the run log.
    provider: str
    #: The provider expands ``tool_reference`` blocks and honours ``defer_loading`` (seeds 4.10).
    supports_tool_search: bool

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """One attempt, as an async generator (closed early when the run is aborted). Raises
        :class:`ModelError`; a successful attempt ends with one :class:`StreamFinished`."""
        ...


# ----- errors ------------------------------------------------------------------------------------

ModelErrorKind = Literal[
    "rate_limit",  # 429
    "overloaded",  # 529, or an overloaded_error event mid-stream
    "server",  # other 5xx, api_error mid-stream
    "timeout",  # 408, or a read timeout
    "conflict",  # 409
    "connection",  # could not connect, connection reset
    "stream_cut",  # the stream ended before message_stop
    "auth",  # 401/403: the operator must fix the key or its permissions
    "invalid_request",  # 400/404/413/422: our request is wrong; retrying cannot help
    "other",
]


class ModelError(RunError):
    """A model call failed. ``retryable`` says whether the same request may succeed later."""

    def __init__(
        self,
        kind: ModelErrorKind,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after_s: float | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ModelErrorKind = kind
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s
        self.request_id = request_id

    def describe(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        rid = f" [request-id {self.request_id}]" if self.request_id else ""
        return f"{self.kind}{status}: {self.message}{rid}"


class ModelRetriesExhausted(RunError):
    """Every attempt allowed by the retry policy failed; ``last`` is the final failure."""

    def __init__(self, attempts: int, last: ModelError, gave_up: str | None = None) -> None:
        times = "once" if attempts == 1 else f"{attempts} times"
        why = f"; gave up because {gave_up}" if gave_up else ""
        super().__init__(f"the model API failed {times}; last error: {last.describe()}{why}")
        self.attempts = attempts
        self.last = last
        #: Why the policy stopped before its attempt limit (``None``: the limit was reached).
        self.gave_up = gave_up
