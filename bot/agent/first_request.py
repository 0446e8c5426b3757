"""A client's first model request, sent while the SDK is still loading.

Importing ``anthropic`` takes most of a second (its API types are hundreds of pydantic models); a
local run is ready to ask the model after a fifth of that. So the first request of a client goes out
over httpx2, the SDK's own HTTP stack (a twelfth of the SDK's import), laid out as the SDK lays it
out, while the SDK loads in a worker thread. The response is then handed to the SDK's own stream
classes: events, the message snapshot, status errors and their retry hints are the SDK's, exactly
as on every later request. The model takes longer to start answering than the import takes to
finish, so a run no longer waits for the import before its request leaves.

The wire format (URL, headers, body) is the SDK's, and it moves between SDK releases (this one sends
API keys as ``Authorization: Bearer`` and its own ``anthropic-version``). It was checked against
:data:`CHECKED_SDK_VERSION` by ``tests/agent/test_first_request.py``, which compares our request with
the one that SDK sends for the same parameters; with any other installed version the first request
waits for the SDK like the rest. Only the Anthropic API takes this way (Bedrock and Vertex sign
requests inside the SDK), and only a request whose parameters are plain body fields.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import ssl

    import httpx2

#: The SDK release whose request this module reproduces, and that release's API version header.
CHECKED_SDK_VERSION = "2.17.0"
API_VERSION = "2026-10-21"
DEFAULT_BASE_URL = "https://api.anthropic.com"

#: Parameters the SDK's ``messages.stream`` puts in the JSON body as given (no transformation).
#: Anything else (``timeout``, ``extra_query``, a field a later SDK renames) takes the SDK's way.
BODY_FIELDS = frozenset(
    {
        "model",
        "max_tokens",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "metadata",
        "stop_sequences",
        "temperature",
        "top_k",
        "top_p",
        "service_tier",
        "output_config",
        "cache_control",
        "container",
        "inference_geo",
        "speed",
    }
)
#: Merged as the SDK merges them: headers over the defaults, body keys over the body.
MERGED_FIELDS = frozenset({"extra_headers", "extra_body"})

_VERSION = re.compile(r"""__version__\s*=\s*["']([^"']+)["']""")


def installed_sdk_version() -> str | None:
    """The installed SDK's version, read from its ``_version.py`` without importing the package
    (``find_spec`` of a top-level package runs none of its code)."""
    try:
        spec = importlib.util.find_spec("anthropic")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        text = (Path(next(iter(spec.submodule_search_locations))) / "_version.py").read_text(encoding="utf-8")
    except OSError:
        return None
    found = _VERSION.search(text)
    return found.group(1) if found else None


@cache
def sdk_matches() -> bool:
    """Is the installed SDK the one whose wire format this module reproduces?"""
    return installed_sdk_version() == CHECKED_SDK_VERSION


def sdk_loaded() -> bool:
    """Has ``anthropic`` finished importing (in this thread or another)? A module that is still
    being imported is in ``sys.modules`` already, with ``__spec__._initializing`` set by the import
    system until its code has run."""
    module = sys.modules.get("anthropic")
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


#: The environment variables ``httpx2.create_ssl_context`` reads (trust_env): a context is kept per value.
TLS_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")
_tls_lock = threading.Lock()
_tls_contexts: dict[tuple[str | None, ...], ssl.SSLContext] = {}


def tls_context() -> ssl.SSLContext:
    """The TLS context ``httpx2.AsyncClient()`` builds by default (``create_ssl_context()``: the
    system's CA bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``), built once. Loading the bundle takes
    some 50 ms of CPU and releases the GIL, so the warm-up thread builds it while the main thread
    imports (:mod:`bot.cli.warm_up`); the first request's client then takes it (or waits for the
    thread to finish it, rather than loading the bundle a second time)."""
    key = tuple(os.environ.get(name) for name in TLS_ENV)
    with _tls_lock:
        context = _tls_contexts.get(key)
        if context is None:
            import httpx2

            context = _tls_contexts[key] = httpx2.create_ssl_context()
        return context


def sendable(params: Mapping[str, Any]) -> bool:
    """Can these ``messages.stream`` parameters be sent without the SDK's help?"""
    return all(key in BODY_FIELDS or key in MERGED_FIELDS for key in params) and all(
        isinstance(params.get(key, {}), Mapping) for key in MERGED_FIELDS
    )


@dataclass(frozen=True, slots=True)
class FirstRequest:
    """Where a client's first request goes and how it authenticates: what ``AsyncAnthropic`` would
    resolve from the same arguments and environment."""

    url: str
    headers: tuple[tuple[str, str], ...]
    timeout_s: float
    #: The client's injected transport (a cassette's, a test's), or None for a client of our own.
    http_client: httpx2.AsyncClient | None = None

    @classmethod
    def for_api(
        cls,
        *,
        api_key: str | None,
        auth_token: str | None,
        base_url: str | None,
        timeout_s: float,
        environ: Mapping[str, str],
        http_client: httpx2.AsyncClient | None = None,
    ) -> FirstRequest | None:
        """None where the SDK must send it: another SDK release, or no key to send."""
        token = api_key or auth_token
        if not token or not sdk_matches():
            return None
        # The SDK's precedence: the argument, then ANTHROPIC_BASE_URL, then the public API.
        base = base_url or environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        headers = dict(_custom_headers(environ.get("ANTHROPIC_CUSTOM_HEADERS")))
        headers.update(
            {
                "accept": "application/json",
                "content-type": "application/json",
                "user-agent": f"AsyncAnthropic/Python {CHECKED_SDK_VERSION}",
                "anthropic-version": API_VERSION,
                "authorization": f"Bearer {token}",
                "x-stainless-retry-count": "0",
            }
        )
        return cls(
            url=base.rstrip("/") + "/v1/messages",
            headers=tuple(headers.items()),
            timeout_s=timeout_s,
            http_client=http_client,
        )

    def request(self, client: httpx2.AsyncClient, params: Mapping[str, Any]) -> httpx2.Request:
        """The POST that ``messages.stream(**params)`` sends."""
        import httpx2

        body = {key: value for key, value in params.items() if key in BODY_FIELDS}
        body["stream"] = True
        body.update(params.get("extra_body") or {})
        headers = {**dict(self.headers), **{k.lower(): str(v) for k, v in (params.get("extra_headers") or {}).items()}}
        return client.build_request(
            "POST",
            self.url,
            headers=headers,
            content=json.dumps(body, separators=(",", ":")).encode(),
            timeout=httpx2.Timeout(self.timeout_s),
        )


def _custom_headers(raw: str | None) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS``: ``Name: value`` lines, as the SDK reads them."""
    headers: dict[str, str] = {}
    for line in (raw or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return headers


class EarlyStream:
    """The first request's response as the SDK's ``messages.stream(...)`` context manager.

    ``load_sdk`` imports the SDK and returns its client; it runs in a worker thread while the
    request is on its way. A transport failure becomes the SDK's ``APIConnectionError`` /
    ``APITimeoutError`` and an error status the SDK's ``APIStatusError``, as the SDK raises them,
    so the caller translates one family of errors whichever way the request went.
    """

    def __init__(self, first: FirstRequest, params: Mapping[str, Any], load_sdk: Callable[[], Any]) -> None:
        self._first = first
        self._params = params
        self._load_sdk = load_sdk
        self._own_client: httpx2.AsyncClient | None = None
        self._manager: Any = None

    async def __aenter__(self) -> Any:
        client = self._first.http_client
        if client is None:
            import httpx2

            # Ours for this one request (the environment's proxies apply, as they do to the SDK's
            # client); the SDK's own client, built in the thread, carries every later request.
            self._own_client = client = httpx2.AsyncClient(follow_redirects=True, verify=tls_context())
        try:
            self._manager = await self._send(client)
            return await self._manager.__aenter__()
        except BaseException:
            await self._close_own()
            raise

    async def _send(self, client: httpx2.AsyncClient) -> Any:
        import httpx2

        request = self._first.request(client, self._params)
        sending = asyncio.ensure_future(client.send(request, stream=True))
        try:
            sdk = await asyncio.to_thread(self._load_sdk)
        except BaseException:
            sending.cancel()
            raise
        import anthropic
        from anthropic.lib.streaming import AsyncMessageStreamManager
        from anthropic.types import RawMessageStreamEvent

        try:
            response = await sending
        except httpx2.TimeoutException as exc:
            raise sdk._make_timeout_error(request, exc) from exc
        except httpx2.TransportError as exc:
            raise sdk._make_connection_error(request, exc) from exc
        if not response.is_success:
            await response.aread()
            await response.aclose()
            raise sdk._make_status_error_from_response(response)

        async def opened() -> Any:
            return anthropic.AsyncStream(cast_to=cast(Any, RawMessageStreamEvent), response=response, client=sdk)

        return AsyncMessageStreamManager(opened())

    async def __aexit__(self, *exc_info: Any) -> None:
        try:
            if self._manager is not None:
                await self._manager.__aexit__(*exc_info)
        finally:
            await self._close_own()

    async def _close_own(self) -> None:
        if self._own_client is not None:
            client, self._own_client = self._own_client, None
            await client.aclose()
