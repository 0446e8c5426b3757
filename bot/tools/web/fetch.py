"""One guarded HTTP GET for WebFetch: HTTPS upgrade, redirects followed by hand and each target
re-checked against the policy, a size cap, a timeout, and text content only.

Redirects are not left to the HTTP client: a page on an allowed domain could otherwise redirect
the fetch to a domain the policy never allowed. Each ``Location`` is upgraded to HTTPS, then
judged by the same permission engine as the call itself (deny rules first, deny by default), and
only then requested; the guarded transport (:mod:`.guard`) refuses non-public addresses on every
hop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import anyio
import httpx2

from bot.errors import ToolExecutionError, ToolInputError
from bot.tools.web.guard import BlockedAddressError, GuardedTransport

#: Redirects followed before giving up (browsers stop around 20; real sites need 1–3).
MAX_REDIRECTS = 10
#: Bodies larger than this are refused (Claude Code's ``MAX_HTTP_CONTENT_LENGTH``: 10 MB).
MAX_CONTENT_BYTES = 10 * 1024 * 1024
#: The whole fetch, redirects included.
FETCH_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 30.0
USER_AGENT = "headless-bot-webfetch/0.1"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

#: Given a URL about to be requested (a redirect target), the reason it is refused, or ``None``.
UrlCheck = Callable[[str], str | None]


@dataclass(frozen=True, slots=True)
class FetchSettings:
    allow_private: bool = False
    #: Keep ``http://`` as given (tests with a plain loopback server); never the default.
    allow_plain_http: bool = False
    timeout_s: float = FETCH_TIMEOUT_S
    max_bytes: int = MAX_CONTENT_BYTES


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str
    requested_url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    redirects: tuple[str, ...]


def upgrade_to_https(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme.lower() != "http":
        return url
    netloc = parts.netloc
    if parts.port == 80:
        netloc = netloc.rsplit(":", 1)[0]
    return urlunsplit(("https", netloc, parts.path, parts.query, parts.fragment))


async def fetch_page(url: str, check: UrlCheck, settings: FetchSettings) -> FetchedPage:
    """GET ``url`` (upgraded), following allowed redirects. Raises ``ToolInputError`` for what the
    model can fix (a refused redirect, non-text) and ``ToolExecutionError`` for the rest."""
    requested = url if settings.allow_plain_http else upgrade_to_https(url)
    timeout = httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html, text/markdown;q=0.9, text/*;q=0.8, */*;q=0.5"}
    current = requested
    redirects: list[str] = []
    try:
        with anyio.fail_after(settings.timeout_s):
            async with httpx2.AsyncClient(
                transport=GuardedTransport(allow_private=settings.allow_private),
                timeout=timeout,
                follow_redirects=False,
                trust_env=False,
                headers=headers,
            ) as client:
                while True:
                    async with client.stream("GET", current) as response:
                        location = response.headers.get("location")
                        if response.status_code in _REDIRECTS and location:
                            target = urljoin(current, location)
                            if not settings.allow_plain_http:
                                target = upgrade_to_https(target)
                            _check_redirect(current, target, check, len(redirects))
                            redirects.append(target)
                            current = target
                            continue
                        body = await _read_capped(response, settings.max_bytes, current)
                        return FetchedPage(
                            url=current,
                            requested_url=requested,
                            status=response.status_code,
                            reason=response.reason_phrase,
                            content_type=_media_type(response),
                            charset=response.charset_encoding,
                            body=body,
                            redirects=tuple(redirects),
                        )
    except TimeoutError:
        raise ToolExecutionError(f"Fetching {current} timed out after {settings.timeout_s:g} seconds") from None
    except BlockedAddressError as exc:
        raise ToolInputError(f"Refused to fetch {current}: {exc}") from None
    except httpx2.TimeoutException:
        raise ToolExecutionError(f"Fetching {current} timed out") from None
    except httpx2.HTTPError as exc:
        raise ToolExecutionError(f"Fetching {current} failed: {type(exc).__name__}: {exc}") from None


def _check_redirect(current: str, target: str, check: UrlCheck, hops: int) -> None:
    if hops >= MAX_REDIRECTS:
        raise ToolExecutionError(f"Too many redirects (more than {MAX_REDIRECTS}) starting from {current}")
    scheme = urlsplit(target).scheme.lower()
    if scheme not in ("http", "https"):
        raise ToolInputError(f"{current} redirects to {target}, which is not an http(s) URL")
    reason = check(target)
    if reason is not None:
        raise ToolInputError(
            f"{current} redirects to {target}, which the policy does not allow: {reason}. The redirect was "
            "not followed. If that page is what you need and the policy allows its domain, fetch it directly."
        )


async def _read_capped(response: httpx2.Response, limit: int, url: str) -> bytes:
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ToolInputError(f"{url} is {int(declared):,} bytes; WebFetch reads at most {limit:,} bytes")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > limit:
            raise ToolInputError(f"{url} is larger than {limit:,} bytes; WebFetch reads at most {limit:,} bytes")
    return bytes(body)


def _media_type(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
