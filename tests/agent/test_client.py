"""The model client: SSE → our events, SDK and transport failures → ModelError, providers."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable

import httpx2
import pytest

from bot.agent.client import ProviderConfig, make_model_client, parse_retry_after
from bot.agent.first_request import CHECKED_SDK_VERSION, installed_sdk_version, sdk_matches
from bot.agent.model import (
    ModelError,
    ModelRequest,
    StreamEvent,
    StreamFinished,
    StreamStarted,
    TextChunk,
    ToolUseReady,
)
from bot.errors import ConfigError
from bot.testing.cassettes import HttpError, Text, ToolCall, Turn, Usage, script_responses
from bot.testing.model import TEST_API_KEY, model_client
from bot.testing.replay import PacedReplay

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["through the SDK", "sent before the SDK loaded"], autouse=True)
def request_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here both ways: a client's first request goes out before the SDK has loaded
    (bot.agent.first_request) in a fresh process, and through the SDK once it is loaded, as it is
    in this test process. Events and errors must be the same either way."""
    if request.param.startswith("sent before"):
        if not sdk_matches():
            pytest.skip(f"the installed SDK {installed_sdk_version()} is not {CHECKED_SDK_VERSION}: no early request")
        monkeypatch.setattr("bot.agent.client.sdk_loaded", lambda: False)
    return str(request.param)


REQUEST = ModelRequest(
    model="claude-sonnet-5-5",
    max_tokens=1024,
    system=[{"type": "text", "text": "sys"}],
    messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
)


async def collect(transport: httpx2.AsyncBaseTransport) -> list[StreamEvent]:
    client = model_client(transport)
    return [event async for event in client.stream(REQUEST)]


def body_of(turn: Turn) -> bytes:
    return script_responses([turn])[0].body


def raw_transport(status: int, body: bytes, headers: dict[str, str] | None = None) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers={"request-id": "req_test", **(headers or {})}, content=body)

    return httpx2.MockTransport(handle)


async def test_a_stream_becomes_started_text_tool_and_finished_events() -> None:
    turn = Turn(
        [Text("Reading it now."), ToolCall("Read", {"file_path": 'a "quoted" name\n.py', "limit": 20})],
        usage=Usage(input_tokens=10, output_tokens=33, cache_read_input_tokens=500),
        first_token_s=0,
    )

    events = await collect(PacedReplay.from_script([turn]).transport())

    assert isinstance(events[0], StreamStarted) and events[0].usage.cache_read_input_tokens == 500
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert text == "Reading it now."
    [ready] = [e for e in events if isinstance(e, ToolUseReady)]
    assert ready.complete and ready.block.input == {"file_path": 'a "quoted" name\n.py', "limit": 20}
    finished = events[-1]
    assert isinstance(finished, StreamFinished) and finished.stop_reason == "tool_use"
    assert finished.usage.output_tokens == 33 and finished.request_id is not None
    assert finished.content == (
        {"type": "text", "text": "Reading it now."},
        {"type": "tool_use", "id": ready.block.id, "name": "Read", "input": ready.block.input},
    )


async def test_a_tool_input_cut_by_max_tokens_is_marked_incomplete() -> None:
    turn = Turn(
        [ToolCall("Write", {"file_path": "x", "content": "0123456789" * 5}, cut_json=30)],
        stop_reason="max_tokens",
        first_token_s=0,
    )

    events = await collect(PacedReplay.from_script([turn]).transport())

    [ready] = [e for e in events if isinstance(e, ToolUseReady)]
    assert not ready.complete


@pytest.mark.parametrize(
    ("case", "transport", "kind", "retryable"),
    [
        (
            "a 529",
            lambda: raw_transport(529, b'{"type":"error","error":{"type":"overloaded_error","message":"O"}}'),
            "overloaded",
            True,
        ),
        (
            "a 429",
            lambda: raw_transport(429, b'{"type":"error","error":{"type":"rate_limit_error","message":"R"}}'),
            "rate_limit",
            True,
        ),
        ("a 503", lambda: raw_transport(503, b"upstream connect error"), "server", True),
        (
            "a 401",
            lambda: raw_transport(401, b'{"type":"error","error":{"type":"authentication_error","message":"k"}}'),
            "auth",
            False,
        ),
        (
            "a 400",
            lambda: raw_transport(400, b'{"type":"error","error":{"type":"invalid_request_error","message":"x"}}'),
            "invalid_request",
            False,
        ),
        (
            "a 400 the server says to retry",
            lambda: raw_transport(400, b"{}", {"x-should-retry": "true"}),
            "invalid_request",
            True,
        ),
        (
            "an overloaded_error event mid-stream",
            lambda: raw_transport(200, body_of(Turn([Text("a b c"), Text("d")], error_after_block=0))),
            "overloaded",
            True,
        ),
        (
            "an api_error event mid-stream",
            lambda: raw_transport(
                200,
                body_of(Turn([Text("a")])).replace(
                    b"event: message_stop",
                    b'event: error\ndata: {"type":"error","error":'
                    b'{"type":"api_error","message":"boom"}}\n\n'
                    b"event: message_stop",
                ),
            ),
            "server",
            True,
        ),
        (
            "a stream cut between events",
            lambda: raw_transport(
                200, body_of(Turn([Text("a"), ToolCall("Read", {"file_path": "x"})], cut_after_block=0))
            ),
            "stream_cut",
            True,
        ),
        (
            "a refused connection",
            lambda: httpx2.MockTransport(_raise(httpx2.ConnectError("refused"))),
            "connection",
            True,
        ),
        ("a read timeout", lambda: httpx2.MockTransport(_raise(httpx2.ReadTimeout("slow"))), "timeout", True),
    ],
)
async def test_failures_are_translated_and_classified(
    case: str, transport: Callable[[], httpx2.AsyncBaseTransport], kind: str, retryable: bool
) -> None:
    with pytest.raises(ModelError) as info:
        await collect(transport())
    assert (info.value.kind, info.value.retryable) == (kind, retryable), case


def _raise(exc: Exception) -> Callable[[httpx2.Request], httpx2.Response]:
    def handle(request: httpx2.Request) -> httpx2.Response:
        raise exc

    return handle


@pytest.mark.parametrize(
    ("failure", "kind", "reason"),
    [
        (
            httpx2.RemoteProtocolError("peer closed connection without sending complete message body"),
            "stream_cut",
            "the connection broke mid-stream",
        ),
        (httpx2.ReadTimeout("no bytes for 600 s"), "timeout", "the stream stalled"),
    ],
    ids=["broken", "stalled"],
)
async def test_a_body_that_fails_after_the_first_bytes_is_a_cut_or_stalled_stream(
    failure: Exception, kind: str, reason: str
) -> None:
    """SDK 2.16 let httpx2's error out of the body; SDK 2.17 wraps it as it wraps a failure to connect.
    Either way the response had begun: a retry starts the turn over, and the reason says so."""

    class Breaking(httpx2.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            yield body_of(Turn([Text("a b")], cut_after_block=-1))
            raise failure

    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, stream=Breaking()))
    with pytest.raises(ModelError) as info:
        await collect(transport)
    assert (info.value.kind, info.value.retryable) == (kind, True)
    assert info.value.message.startswith(reason), info.value.message


async def test_the_429_retry_after_header_reaches_the_error() -> None:
    headers, body = {"retry-after": "12"}, b'{"type":"error","error":{"type":"rate_limit_error","message":"R"}}'
    with pytest.raises(ModelError) as info:
        await collect(raw_transport(429, body, headers))
    assert info.value.retry_after_s == 12.0 and info.value.request_id == "req_test"


@pytest.mark.parametrize(
    ("case", "headers", "seconds"),
    [
        ("milliseconds win", {"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ("seconds", {"retry-after": "3"}, 3.0),
        ("an HTTP date", {"retry-after": "Mon, 30 Nov 2026 09:00:10 GMT"}, 10.0),
        ("garbage", {"retry-after": "soon"}, None),
        ("absent", {}, None),
        ("capped", {"retry-after": "86400"}, 300.0),
    ],
)
def test_retry_after_parsing(case: str, headers: dict[str, str], seconds: float | None) -> None:
    now = 1_796_029_200.0  # Mon, 30 Nov 2026 09:00:00 GMT
    assert parse_retry_after(headers, now=now) == seconds, case


# ----- providers -----------------------------------------------------------------------------------


def capture_requests() -> tuple[list[httpx2.Request], httpx2.AsyncClient]:
    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "x"}})

    return seen, httpx2.AsyncClient(transport=httpx2.MockTransport(handle))


async def test_vertex_requests_go_to_the_publisher_model_path_with_the_access_token() -> None:
    seen, http = capture_requests()
    client = make_model_client(
        ProviderConfig(
            provider="vertex", vertex_region="us-east5", vertex_project_id="proj", vertex_access_token="ya29.token"
        ),
        http_client=http,
    )
    with pytest.raises(ModelError):
        _ = [e async for e in client.stream(REQUEST)]
    [request] = seen
    assert request.url.path.endswith(
        "/projects/proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    )
    assert request.headers["authorization"] == "Bearer ya29.token"
    assert not client.supports_tool_search and client.provider == "vertex"


async def test_the_anthropic_base_url_can_point_at_a_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://llm-proxy.internal.example")
    seen, http = capture_requests()
    client = make_model_client(ProviderConfig(api_key=TEST_API_KEY), http_client=http)
    with pytest.raises(ModelError):
        _ = [e async for e in client.stream(REQUEST)]
    assert seen[0].url.host == "llm-proxy.internal.example"
    assert json.loads(seen[0].content)["stream"] is True


def test_the_anthropic_provider_without_a_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        make_model_client(ProviderConfig())


@pytest.mark.skipif(importlib.util.find_spec("botocore") is not None, reason="botocore is installed here")
def test_bedrock_without_its_extra_says_which_extra_to_install() -> None:
    with pytest.raises(ConfigError, match=r"anthropic\[bedrock\]"):
        make_model_client(ProviderConfig(provider="bedrock", aws_region="us-east-1"))


@pytest.mark.parametrize(
    ("case", "env", "provider"),
    [
        ("the default", {}, "anthropic"),
        ("ours", {"BOT_MODEL_PROVIDER": "vertex"}, "vertex"),
        ("Claude Code's Bedrock switch", {"CLAUDE_CODE_USE_BEDROCK": "1"}, "bedrock"),
        ("Claude Code's Vertex switch", {"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "global"}, "vertex"),
    ],
)
def test_the_provider_is_chosen_by_configuration(case: str, env: dict[str, str], provider: str) -> None:
    assert ProviderConfig.from_env(env).provider == provider, case


def test_an_unknown_provider_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="BOT_MODEL_PROVIDER"):
        ProviderConfig.from_env({"BOT_MODEL_PROVIDER": "openai"})


def test_error_responses_of_the_authoring_helper_parse_as_api_errors() -> None:
    [response] = script_responses([HttpError(429, "rate_limit_error", "slow down", retry_after=3)])
    assert json.loads(response.body)["error"]["type"] == "rate_limit_error"
    assert response.headers["retry-after"] == ["3"]


@pytest.mark.parametrize(
    ("case", "text", "headers", "reason"),
    [
        (
            "a CDN page is its title and sender",
            "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>",
            {"content-type": "text/html", "server": "cloudflare"},
            "an HTML error page from cloudflare, not the API: 502 Bad Gateway",
        ),
        (
            "a page without a title falls back to its heading, entities decoded",
            "<!DOCTYPE html><body><h1>Service &amp; gateway\n  down</h1></body>",
            {"content-type": "text/html; charset=utf-8"},
            "an HTML error page, not the API: Service & gateway down",
        ),
        (
            "plain text is its first line",
            "upstream connect error or disconnect/reset before headers\nreset reason: overflow",
            {"content-type": "text/plain", "server": "envoy"},
            "a non-JSON error body from envoy: upstream connect error or disconnect/reset before headers",
        ),
        ("an empty body says so", "  ", {}, "an empty response body"),
    ],
)
def test_an_error_body_that_is_not_the_apis_json_becomes_one_line(
    case: str, text: str, headers: dict[str, str], reason: str
) -> None:
    from bot.agent.client import error_reason

    assert error_reason(text, text, headers) == reason, case
