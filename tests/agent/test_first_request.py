"""The first request sent before the SDK has loaded: the same request the SDK sends, the SDK's own
parsing of the answer, the SDK built once, and only with the SDK release it was checked against."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from bot.agent import first_request
from bot.agent.client import ProviderConfig, make_model_client
from bot.agent.first_request import CHECKED_SDK_VERSION, FirstRequest, installed_sdk_version, sendable
from bot.agent.model import ModelRequest, StreamFinished
from bot.testing.cassettes import Text, Turn, script_responses
from bot.testing.messages_api import FakeMessagesApi
from tests.git_helpers import GIT_ENV

pytestmark = pytest.mark.anyio

SDK_IS_CHECKED = installed_sdk_version() == CHECKED_SDK_VERSION
needs_checked_sdk = pytest.mark.skipif(
    not SDK_IS_CHECKED,
    reason=f"the installed SDK {installed_sdk_version()} is not {CHECKED_SDK_VERSION}, whose wire format "
    "bot.agent.first_request reproduces: its first request waits for the SDK (see the test below)",
)

PARAMS = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "héllo"}]}],
    "tools": [{"name": "Read", "description": "r", "input_schema": {"type": "object"}}],
    "thinking": {"type": "enabled", "budget_tokens": 2048},
}
#: Set by httpx or by the SDK's telemetry, not part of what the API is asked.
TRANSPORT_HEADERS = {"host", "accept-encoding", "connection", "content-length"}


async def _sdk_request(kwargs: dict[str, object], params: dict[str, object]) -> httpx2.Request:
    import anthropic

    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "x"}})

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handle))
    sdk = anthropic.AsyncAnthropic(max_retries=0, http_client=http, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(anthropic.BadRequestError):
        async with sdk.messages.stream(**params):  # type: ignore[arg-type]
            pass
    return seen[0]


def _api_headers(request: httpx2.Request) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if k not in TRANSPORT_HEADERS and not k.startswith("x-stainless")}


@needs_checked_sdk
@pytest.mark.parametrize(
    ("case", "kwargs", "env", "params"),
    [
        ("an API key, the public API", {"api_key": "sk-ant-test"}, {}, PARAMS),
        ("an auth token", {"auth_token": "tok-test"}, {}, PARAMS),
        ("a base URL with a path", {"api_key": "k", "base_url": "http://proxy.internal:8080/anthropic/"}, {}, PARAMS),
        ("ANTHROPIC_BASE_URL", {"api_key": "k"}, {"ANTHROPIC_BASE_URL": "https://llm.example.com"}, PARAMS),
        (
            "ANTHROPIC_CUSTOM_HEADERS",
            {"api_key": "k"},
            {"ANTHROPIC_CUSTOM_HEADERS": "X-Team: infra\nX-Cost-Center:  42 "},
            PARAMS,
        ),
        (
            "context editing (extra_headers and extra_body)",
            {"api_key": "k"},
            {},
            {
                **PARAMS,
                "extra_headers": {"anthropic-beta": "context-management-2025-06-27"},
                "extra_body": {"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}},
            },
        ),
    ],
)
async def test_the_first_request_is_the_request_the_sdk_sends(
    case: str, kwargs: dict[str, str], env: dict[str, str], params: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    theirs = await _sdk_request(kwargs, params)
    first = FirstRequest.for_api(
        api_key=kwargs.get("api_key"),
        auth_token=kwargs.get("auth_token"),
        base_url=kwargs.get("base_url"),
        timeout_s=600.0,
        environ=os.environ,
    )
    assert first is not None and sendable(params), case
    ours = first.request(httpx2.AsyncClient(), params)
    assert (ours.method, str(ours.url)) == (theirs.method, str(theirs.url)), case
    assert json.loads(ours.content) == json.loads(theirs.content), case
    assert _api_headers(ours) == _api_headers(theirs), case


def test_another_sdk_release_waits_for_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    first_request.sdk_matches.cache_clear()
    monkeypatch.setattr(first_request, "installed_sdk_version", lambda: "2.99.0")
    try:
        assert FirstRequest.for_api(api_key="k", auth_token=None, base_url=None, timeout_s=600.0, environ={}) is None
    finally:
        first_request.sdk_matches.cache_clear()


def test_the_installed_version_is_read_without_importing_the_sdk() -> None:
    code = (
        "import sys; from bot.agent.first_request import installed_sdk_version as v; "
        "print(v()); print('anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "False" and out[0] == installed_sdk_version() and out[0]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (PARAMS, True),
        ({**PARAMS, "extra_body": {"x": 1}, "extra_headers": {"h": "v"}}, True),
        ({**PARAMS, "timeout": 5}, False),  # not a body field: the SDK's way
        ({**PARAMS, "extra_query": {"beta": "true"}}, False),
        ({**PARAMS, "extra_body": "not a mapping"}, False),
    ],
)
def test_only_plain_body_fields_are_sent_ahead(params: dict[str, object], expected: bool) -> None:
    assert sendable(params) is expected


def _turn_body(text: str) -> bytes:
    return script_responses([Turn([Text(text)], first_token_s=0)])[0].body


@needs_checked_sdk
async def test_the_first_request_goes_ahead_and_the_next_through_the_one_sdk_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.agent.client.sdk_loaded", lambda: False)  # as in a fresh process
    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        body = _turn_body(f"answer {len(seen)}")
        return httpx2.Response(200, headers={"content-type": "text/event-stream", "request-id": "req_1"}, content=body)

    client = make_model_client(
        ProviderConfig(api_key="k"), http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle))
    )
    request = ModelRequest(model="claude-sonnet-5-5", max_tokens=64, system=[], messages=PARAMS["messages"])  # type: ignore[arg-type]
    for _ in range(2):
        events = [e async for e in client.stream(request)]
        assert isinstance(events[-1], StreamFinished) and events[-1].request_id == "req_1"
    assert "x-stainless-lang" not in seen[0].headers  # sent by bot.agent.first_request
    assert seen[1].headers["x-stainless-lang"] == "python"  # by the SDK client built meanwhile
    assert client._sdk is not None and client._first is None
    await client.aclose()


# ----- in a fresh process ---------------------------------------------------------------------------


@needs_checked_sdk
def test_a_local_run_sends_its_first_request_before_the_sdk_loads(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("hello\n")
    git_env = {**GIT_ENV, "HOME": str(tmp_path)}
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=git_env, check=True)
    command = [sys.executable, "-c", "from bot.cli import main; main()", "run", "--local", "--repo", str(repo)]
    command += ["--prompt", "say done", "--policy", "read-only", "--output-dir", str(tmp_path / "out")]
    with FakeMessagesApi(_turn_body("done.")) as api:
        env = {**git_env, "ANTHROPIC_API_KEY": "sk-ant-test-" + "x" * 24, "ANTHROPIC_BASE_URL": api.url}
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    seen = api.headers
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(seen) == 1 and "x-stainless-lang" not in seen[0]
    assert seen[0]["authorization"].startswith("Bearer sk-ant-test-")


def test_the_first_requests_tls_context_is_httpx2s_default_built_once_per_ca_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up thread builds it ahead (bot.cli.warm_up); it must be what ``AsyncClient()``
    would have built: the same CA certificates, verification on, and ``SSL_CERT_FILE`` honoured."""
    import ssl

    monkeypatch.setattr(first_request, "_tls_contexts", {})
    for name in first_request.TLS_ENV:
        monkeypatch.delenv(name, raising=False)
    context = first_request.tls_context()
    default = httpx2.create_ssl_context()
    assert first_request.tls_context() is context
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats() == default.cert_store_stats()

    loaded = default.get_ca_certs(binary_form=True)
    if not loaded:  # the system's CAs come from a directory, read lazily: no certificate to copy
        pytest.skip("no CA certificate file on this machine")
    one_ca = tmp_path / "ca.pem"
    one_ca.write_text(ssl.DER_cert_to_PEM_cert(loaded[0]))
    monkeypatch.setenv("SSL_CERT_FILE", str(one_ca))
    assert first_request.tls_context().cert_store_stats()["x509_ca"] == 1
