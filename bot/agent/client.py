"""The Anthropic model client: with :mod:`bot.agent.first_request` (a client's first request,
sent before the SDK has loaded), the only module in the package that imports ``anthropic``.

It turns one streamed Messages API response into our :mod:`bot.agent.model` events and translates
every SDK and transport failure into a :class:`~bot.agent.model.ModelError` that says whether a
retry can help. The SDK's own retries are off (``max_retries=0``): the loop has the one retry
policy (:mod:`bot.agent.retry`), so a 529 is never retried twice over.

Providers: the Anthropic API (``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL`` for proxies), Amazon
Bedrock (needs ``anthropic[bedrock]``) and Google Vertex, through the SDK's clients, chosen by
:class:`ProviderConfig`.
"""

from __future__ import annotations

import email.utils
import html
import importlib.util
import json
import os
import re
import threading
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from bot.agent.first_request import EarlyStream, FirstRequest, sdk_loaded, sendable
from bot.agent.model import (
    Block,
    ModelError,
    ModelErrorKind,
    ModelRequest,
    StreamEvent,
    StreamFinished,
    StreamStarted,
    TextChunk,
    ToolUseReady,
)
from bot.agent.providers import provider_model_id
from bot.agent.thinking import ThinkingPolicy
from bot.agent.usage import Usage
from bot.core.bounded import json_nesting_problem
from bot.core.secrets import full_environ, secret
from bot.errors import ConfigError
from bot.interface.messages import ToolUseBlock

if TYPE_CHECKING:
    import anthropic
    import httpx2


Provider = Literal["anthropic", "bedrock", "vertex"]
PROVIDERS: tuple[Provider, ...] = ("anthropic", "bedrock", "vertex")

#: Read timeout of one streamed response. Streams send a ``ping`` every few seconds, so a long
#: silence means a dead connection; the SDK's default is 10 minutes.
DEFAULT_TIMEOUT_S = 600.0
#: A ``retry-after`` longer than this is not honoured as is (a misbehaving proxy could say a day).
MAX_HONOURED_RETRY_AFTER_S = 300.0


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """Which provider, and how to reach it. Empty fields fall back to the SDK's environment variables."""

    provider: Provider = "anthropic"
    api_key: str | None = None
    base_url: str | None = None
    aws_region: str | None = None
    aws_profile: str | None = None
    vertex_region: str | None = None
    vertex_project_id: str | None = None
    vertex_access_token: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    #: Server-side deferred tool loading (``defer_loading`` + ``tool_reference``). ``None``: on for
    #: the Anthropic API, off for Bedrock and Vertex (seeds 4.10: not every provider supports it).
    tool_search: bool | None = None

    @property
    def supports_tool_search(self) -> bool:
        if self.tool_search is not None:
            return self.tool_search
        return self.provider == "anthropic"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ProviderConfig:
        """``BOT_MODEL_PROVIDER`` (or Claude Code's ``CLAUDE_CODE_USE_BEDROCK`` / ``_VERTEX``)."""
        env = full_environ() if env is None else env
        raw = env.get("BOT_MODEL_PROVIDER", "").strip().lower()
        if not raw:
            if env.get("CLAUDE_CODE_USE_BEDROCK", "") in ("1", "true"):
                raw = "bedrock"
            elif env.get("CLAUDE_CODE_USE_VERTEX", "") in ("1", "true"):
                raw = "vertex"
            else:
                raw = "anthropic"
        if raw not in PROVIDERS:
            raise ConfigError(f"BOT_MODEL_PROVIDER={raw!r} is not one of {', '.join(PROVIDERS)}")
        provider: Provider = raw
        return cls(
            provider=provider,
            aws_region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION"),
            vertex_region=env.get("CLOUD_ML_REGION"),
            vertex_project_id=env.get("ANTHROPIC_VERTEX_PROJECT_ID"),
        )


def make_model_client(
    config: ProviderConfig, *, http_client: httpx2.AsyncClient | None = None, thinking: ThinkingPolicy | None = None
) -> AnthropicModel:
    """The SDK client for a provider, with the SDK's retries off. ``http_client`` lets tests and
    benchmarks plug in a transport (vcrpy's, or a paced replay); ``thinking`` is the run's extended
    thinking setting, applied per request for the request's model.

    For the Anthropic API the SDK is imported while the first request is under way, not here
    (:mod:`bot.agent.first_request`): importing it takes most of a second, and most commands
    (``bot --help``, ``bot tools``, ``bot policy``) never talk to a model. Bedrock and Vertex build
    their SDK client here."""
    options: dict[str, Any] = {
        "provider": config.provider,
        "supports_tool_search": config.supports_tool_search,
        "thinking": thinking,
    }
    if config.provider == "anthropic":
        # The key comes from the secret store (bot.core.secrets): it is no longer in os.environ,
        # where the SDK would look for it.
        api_key = config.api_key or secret("ANTHROPIC_API_KEY")
        auth_token = None if api_key else secret("ANTHROPIC_AUTH_TOKEN")
        if not (api_key or auth_token):
            raise ConfigError("no model API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)")

        def build() -> Any:
            import anthropic

            return anthropic.AsyncAnthropic(
                api_key=api_key,
                auth_token=auth_token,
                base_url=config.base_url,
                max_retries=0,
                timeout=config.timeout_s,
                http_client=http_client,
            )

        # The SDK reads ANTHROPIC_BASE_URL and ANTHROPIC_CUSTOM_HEADERS from os.environ; so does
        # the first request, to go where the SDK's requests go.
        first = FirstRequest.for_api(
            api_key=api_key,
            auth_token=auth_token,
            base_url=config.base_url,
            timeout_s=config.timeout_s,
            environ=os.environ,
            http_client=http_client,
        )
        return AnthropicModel(make_sdk=build, first=first, **options)
    import anthropic

    sdk: Any
    match config.provider:
        case "bedrock":
            from anthropic.lib.bedrock import AsyncAnthropicBedrock

            if not _installed("botocore"):
                raise ConfigError(
                    "the Bedrock provider needs the `anthropic[bedrock]` extra (pip install 'headless-bot[bedrock]')"
                )
            sdk = AsyncAnthropicBedrock(
                aws_region=config.aws_region,
                aws_profile=config.aws_profile,
                aws_access_key=secret("AWS_ACCESS_KEY_ID"),
                aws_secret_key=secret("AWS_SECRET_ACCESS_KEY"),
                aws_session_token=secret("AWS_SESSION_TOKEN"),
                api_key=config.api_key,
                base_url=config.base_url,
                max_retries=0,
                timeout=config.timeout_s,
                http_client=http_client,
            )
        case "vertex":
            from anthropic.lib.vertex import AsyncAnthropicVertex

            if not config.vertex_region:
                raise ConfigError("the Vertex provider needs a region (CLOUD_ML_REGION)")
            if not config.vertex_access_token and not _installed("google.auth"):
                raise ConfigError(
                    "the Vertex provider needs google-auth to sign in (pip install 'headless-bot[vertex]'), "
                    "or an access token"
                )
            sdk = AsyncAnthropicVertex(
                region=config.vertex_region,
                project_id=config.vertex_project_id or anthropic.NOT_GIVEN,
                access_token=config.vertex_access_token,
                base_url=config.base_url,
                max_retries=0,
                timeout=config.timeout_s,
                http_client=http_client,
            )
    return AnthropicModel(sdk, region=config.aws_region, **options)


def _installed(module: str) -> bool:
    """Is an optional dependency importable? (Checked when the client is built, so a missing extra
    is one line before the first model call, not an ImportError in the middle of a turn.)"""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing (``google`` for ``google.auth``)
        return False


class AnthropicModel:
    """:class:`bot.agent.model.ModelClient` over an SDK client."""

    def __init__(
        self,
        sdk: Any = None,
        *,
        make_sdk: Callable[[], Any] | None = None,
        first: FirstRequest | None = None,
        provider: str = "anthropic",
        supports_tool_search: bool = True,
        region: str | None = None,
        thinking: ThinkingPolicy | None = None,
    ) -> None:
        if sdk is None and make_sdk is None:
            raise TypeError("AnthropicModel needs an SDK client or a way to build one")
        self._sdk = sdk
        self._make_sdk = make_sdk
        #: How the first request goes out while the SDK is still loading (None: through the SDK).
        self._first = first
        self._lock = threading.Lock()
        self.provider = provider
        self.supports_tool_search = supports_tool_search
        self._region = region
        self._thinking = thinking

    def _client(self) -> Any:
        """The SDK client, built on first use: in a worker thread when the first request is on its
        way; the lock keeps a sub-agent's concurrent request from building a second one."""
        with self._lock:
            if self._sdk is None:
                assert self._make_sdk is not None
                self._sdk = self._make_sdk()
            return self._sdk

    async def aclose(self) -> None:
        if self._sdk is not None:
            await self._sdk.close()

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        params: dict[str, Any] = {
            # The Anthropic id as this provider spells it (bot.agent.providers).
            "model": provider_model_id(self.provider, request.model, self._region),
            "max_tokens": request.max_tokens,
            "system": list(request.system),
            "messages": list(request.messages),
            **dict(request.extra),
        }
        if request.tools:
            params["tools"] = list(request.tools)
        if self._thinking is not None and "thinking" not in params:  # a request's own setting wins
            for key, value in self._thinking.request_params(request.model, request.max_tokens).items():
                current = params.get(key)
                params[key] = {**current, **value} if isinstance(current, Mapping) else value
        first, self._first = self._first, None
        request_id: str | None = None
        finished = False
        opened = False
        try:
            if first is not None and self._sdk is None and not sdk_loaded() and sendable(params):
                opening: Any = EarlyStream(first, params, self._client)
            else:
                opening = self._client().messages.stream(**params)
            async with opening as stream:
                opened = True
                request_id = stream.request_id
                parser = _StreamParser(request_id)
                async for event in stream:
                    for ours in parser.feed(event):
                        finished = finished or isinstance(ours, StreamFinished)
                        yield ours
        except Exception as exc:
            translated = _translated(exc, request_id, opened)
            if translated is None:
                raise
            raise translated from exc
        if not finished:
            raise ModelError(
                "stream_cut", "the stream ended before message_stop", retryable=True, request_id=request_id
            )


def _translated(exc: Exception, request_id: str | None, opened: bool) -> ModelError | None:
    """An SDK or transport failure as a :class:`ModelError` that says whether a retry can help;
    None for anything else (our own errors, bugs), which propagates as it is.

    ``opened``: the response had begun (status and headers read). A transport failure after that is
    a cut or stalled stream, whichever way it arrives: SDK 2.16 lets httpx2's error through from the
    body, SDK 2.17 wraps it in ``APIConnectionError``/``APITimeoutError`` as it does a failure to
    connect."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc)
    if opened and isinstance(exc, anthropic.APIConnectionError):
        if isinstance(exc, anthropic.APITimeoutError):
            reason = f"the stream stalled: {type(exc.__cause__ or exc).__name__}"
            return ModelError("timeout", reason, retryable=True, request_id=request_id)
        reason = f"the connection broke mid-stream: {exc.__cause__ or exc}"
        return ModelError("stream_cut", reason, retryable=True, request_id=request_id)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelError("timeout", "the request timed out", retryable=True, request_id=request_id)
    if isinstance(exc, anthropic.APIConnectionError):
        reason = f"connection error: {exc.__cause__ or exc}"
        return ModelError("connection", reason, retryable=True, request_id=request_id)
    if isinstance(exc, httpx2.TimeoutException):
        reason = f"the stream stalled: {type(exc).__name__}"
        return ModelError("timeout", reason, retryable=True, request_id=request_id)
    if isinstance(exc, httpx2.TransportError):
        reason = f"the connection broke mid-stream: {exc}"
        return ModelError("stream_cut", reason, retryable=True, request_id=request_id)
    if isinstance(exc, anthropic.AnthropicError):
        return ModelError("other", f"{type(exc).__name__}: {exc}", retryable=False, request_id=request_id)
    if isinstance(exc, json.JSONDecodeError):  # an event's data cut short: the connection broke mid-event
        reason = f"a stream event was cut short: {exc}"
        return ModelError("stream_cut", reason, retryable=True, request_id=request_id)
    if isinstance(exc, ValueError) and "tool parameter JSON" in str(exc):
        # The SDK could not parse the model's tool JSON: the model's output, not our request.
        return ModelError("server", str(exc)[:300], retryable=True, request_id=request_id)
    return None


class _StreamParser:
    """SDK stream events → ours. Keeps the raw ``input_json_delta`` text of each tool block so a
    block's JSON can be checked strictly at its ``content_block_stop``."""

    def __init__(self, request_id: str | None) -> None:
        self._request_id = request_id
        self._json: dict[int, list[str]] = {}
        self._message_id = ""
        self._model = ""

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = event.type
        if kind == "message_start":
            message = event.message
            self._message_id, self._model = message.id, message.model
            return [StreamStarted(message.id, message.model, _usage(message.usage), self._request_id)]
        if kind == "content_block_start":
            if event.content_block.type == "tool_use":
                self._json[event.index] = []
            return []
        if kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return [TextChunk(event.index, delta.text)]
            if delta.type == "input_json_delta" and event.index in self._json:
                self._json[event.index].append(delta.partial_json)
            return []
        if kind == "content_block_stop":
            block = event.content_block
            if block.type != "tool_use" or event.index not in self._json:
                return []
            raw = "".join(self._json.pop(event.index))
            if json_nesting_problem(raw) is not None:  # json.loads recurses: never hand it a bomb
                return [ToolUseReady(ToolUseBlock(block.id, block.name, {}), False)]
            try:
                parsed = json.loads(raw) if raw.strip() else {}
                complete = True
            except (json.JSONDecodeError, RecursionError):
                parsed, complete = block.input, False
            return [ToolUseReady(ToolUseBlock(block.id, block.name, parsed), complete)]
        if kind == "message_stop":
            message = event.message
            content = tuple(_block_param(b) for b in message.content)
            return [
                StreamFinished(
                    message.id, message.model, content, message.stop_reason, _usage(message.usage), self._request_id
                )
            ]
        return []


def _usage(usage: Any) -> Usage:
    return Usage.from_api(usage.model_dump(mode="json", exclude_none=True))


def _block_param(block: Any) -> Block:
    """A response block as the request param that sends it back (stable, minimal keys)."""
    match block.type:
        case "text":
            out: Block = {"type": "text", "text": block.text}
            if getattr(block, "citations", None):
                out["citations"] = [c.to_dict() for c in block.citations]
            return out
        case "tool_use":
            return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
        case "thinking":
            return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
        case "redacted_thinking":
            return {"type": "redacted_thinking", "data": block.data}
        case _:
            data: Block = block.to_dict(exclude_none=True)
            data.pop("parsed_output", None)
            return data


# ----- error translation -------------------------------------------------------------------------

_STATUS_KINDS: dict[int, tuple[ModelErrorKind, bool]] = {
    400: ("invalid_request", False),
    401: ("auth", False),
    403: ("auth", False),
    404: ("invalid_request", False),
    408: ("timeout", True),
    409: ("conflict", True),
    413: ("invalid_request", False),
    422: ("invalid_request", False),
    429: ("rate_limit", True),
    529: ("overloaded", True),
}

#: An ``event: error`` inside a 200 stream carries only the error type.
_STREAM_ERROR_KINDS: dict[str, tuple[ModelErrorKind, bool]] = {
    "overloaded_error": ("overloaded", True),
    "api_error": ("server", True),
    "rate_limit_error": ("rate_limit", True),
    "timeout_error": ("timeout", True),
    "invalid_request_error": ("invalid_request", False),
    "authentication_error": ("auth", False),
    "permission_error": ("auth", False),
    "request_too_large": ("invalid_request", False),
}


def _status_error(exc: anthropic.APIStatusError) -> ModelError:
    status = exc.status_code
    error_type = exc.type if isinstance(exc.type, str) else None
    if status == 200:
        kind, retryable = _STREAM_ERROR_KINDS.get(error_type or "", ("other", False))
    elif status in _STATUS_KINDS:
        kind, retryable = _STATUS_KINDS[status]
    elif status >= 500:
        kind, retryable = "server", True
    else:
        kind, retryable = "other", False
    if error_type == "overloaded_error":
        kind, retryable = "overloaded", True
    headers = exc.response.headers
    should_retry = headers.get("x-should-retry")
    if should_retry in ("true", "false"):
        retryable = should_retry == "true"  # the server knows best (the SDK obeys this header too)
    message = error_reason(exc.body, exc.response.text, headers) if not isinstance(exc.body, dict) else None
    message = message or _one_line(exc.api_message or str(exc), MAX_REASON_CHARS)
    return ModelError(
        kind,
        message,
        retryable=retryable,
        status=None if status == 200 else status,
        retry_after_s=parse_retry_after(headers) if status != 200 else None,
        request_id=exc.request_id,
    )


#: An error's reason is one line of at most this many characters (it becomes a comment's heading).
MAX_REASON_CHARS = 300
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def error_reason(body: object, text: str, headers: Mapping[str, str]) -> str | None:
    """The reason of an error response that is not the API's JSON error, in one line: a proxy's or
    CDN's HTML page becomes its title (or first heading) and who sent it, never the page itself."""
    raw = text.strip()
    if not raw:
        return "an empty response body"
    server = headers.get("server")
    by = f" from {_one_line(server, 40)}" if server else ""
    if "html" in headers.get("content-type", "").lower() or raw.startswith("<"):
        found = _TITLE.search(raw) or _HEADING.search(raw)
        title = _one_line(html.unescape(_TAG.sub(" ", found.group(1))), 120) if found else ""
        return f"an HTML error page{by}, not the API" + (f": {title}" if title else "")
    first = next((line for line in raw.splitlines() if line.strip()), raw)
    return f"a non-JSON error body{by}: {_one_line(first, 200)}"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """``retry-after-ms`` (Anthropic's, precise), then ``retry-after`` as seconds or an HTTP date."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, min(float(raw_ms) / 1000, MAX_HONOURED_RETRY_AFTER_S))
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, min(float(raw), MAX_HONOURED_RETRY_AFTER_S))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(raw)
    if parsed is None:
        return None
    seconds = email.utils.mktime_tz(parsed) - (time.time() if now is None else now)
    return max(0.0, min(seconds, MAX_HONOURED_RETRY_AFTER_S))
