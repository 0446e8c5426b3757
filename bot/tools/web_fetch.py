"""WebFetch: a web page as Markdown (seeds 4.3, 4.8).

Deny-by-default like every tool: only URLs whose host a ``WebFetch(domain:…)`` allow rule names
are fetched (the permission chain decides the call; the subject is the URL). Inside the call:
``http://`` is upgraded to ``https://``; redirects are followed by hand, each target re-judged by
the policy engine; connections go only to public addresses, checked after DNS resolution
(:mod:`bot.tools.web.guard`); a timeout bounds the whole fetch. HTML becomes Markdown; other
text types pass as they are; anything else (images, PDFs, archives) is refused with a clear
error. Pages over 100,000 characters are reduced to the parts the ``prompt`` is about, and the
result goes through the result persistence (``max_result_chars``), so a long page lands on disk
with a preview rather than in the context whole.

The seeds' tool summarises the page with a small model; here the model reads the page itself.

Test-only settings, in ``context.permission.extra`` (never read from the environment):
``webfetch_allow_private`` lets the fetch reach loopback/private addresses, and
``webfetch_allow_plain_http`` keeps ``http://`` (a loopback test server has no certificate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import Field

from bot.core.guard import guard_of
from bot.errors import ToolExecutionError, ToolInputError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.chain import PermissionRequest
from bot.permissions.decision import Allow
from bot.permissions.engine import PolicyEngine
from bot.tools.web.markdown import MAX_MARKDOWN_CHARS, html_to_markdown, select_for_prompt

if TYPE_CHECKING:
    from bot.tools.web.fetch import FetchedPage

#: Claude Code's WebFetch refuses longer URLs.
MAX_URL_LENGTH = 2_000
ALLOW_PRIVATE_SETTING = "webfetch_allow_private"
ALLOW_PLAIN_HTTP_SETTING = "webfetch_allow_plain_http"

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/rss+xml",
        "application/atom+xml",
        "application/graphql",
        "application/sql",
    }
)


class WebFetchInput(ToolInput):
    url: str = Field(description="The URL to fetch (http is upgraded to https)")
    prompt: str = Field(
        description="What you are looking for on the page; on long pages it picks the parts that are returned"
    )


class WebFetchTool(Tool[WebFetchInput, dict[str, Any]]):
    """Fetches a web page and returns its content as Markdown (HTML converted; JSON, XML and plain
    text as they are). Only domains the policy allows can be fetched. On pages longer than
    100,000 characters, the parts matching the prompt are returned. Redirects to other domains are
    followed only when the policy allows them too."""

    name = "WebFetch"
    aliases = ("WebFetchTool",)
    search_hint = "fetch url web page http download documentation"
    max_result_chars = MAX_MARKDOWN_CHARS  # seeds 4.8: 100,000 (the persistence clamps it at 50,000)
    input_model = WebFetchInput

    def is_concurrency_safe(self, input: WebFetchInput) -> bool:
        return True  # a GET; nothing local changes

    def is_read_only(self, input: WebFetchInput) -> bool:
        return True

    def is_destructive(self, input: WebFetchInput) -> bool:
        return False

    def permission_subject(self, input: WebFetchInput) -> str:
        return input.url

    async def validate_input(self, input: WebFetchInput, context: ToolUseContext) -> ValidationResult:
        problem = url_problem(input.url)
        return VALID if problem is None else ValidationReject(problem, code=1)

    async def call(
        self, input: WebFetchInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[dict[str, Any]]:
        problem = url_problem(input.url)
        if problem is not None:
            raise ToolInputError(problem)
        # The HTTP client and the address guard load with the first fetch, not with the tool pool.
        from bot.tools.web.fetch import FetchSettings, fetch_page

        extra = context.permission.extra
        settings = FetchSettings(
            allow_private=extra.get(ALLOW_PRIVATE_SETTING) is True,
            allow_plain_http=extra.get(ALLOW_PLAIN_HTTP_SETTING) is True,
        )

        # A canary in a URL about to be requested stops the run: the URL would carry it off. The
        # pipeline saw the model's input; this sees what is really requested (a hook may have
        # rewritten the input) and every redirect target.
        canaries = guard_of(context.services).canaries
        canaries.check(input.url, "a URL WebFetch was about to request")

        def check(url: str) -> str | None:
            canaries.check(url, "a redirect WebFetch was about to follow")
            return self.redirect_refusal(url, input, context)

        progress("fetching", url=input.url)
        page = await fetch_page(input.url.strip(), check, settings)
        if page.status >= 400:
            raise ToolExecutionError(f"{page.url} answered HTTP {page.status} {page.reason}".rstrip())
        text, title = page_text(page)
        selection = select_for_prompt(text, input.prompt)
        return ToolResult(
            {
                "url": page.url,
                "requestedUrl": page.requested_url,
                "redirects": list(page.redirects),
                "status": page.status,
                "contentType": page.content_type,
                "bytes": len(page.body),
                "title": title,
                "content": selection.text,
                "reduced": selection.reduced,
                "originalChars": selection.original_chars,
            }
        )

    def redirect_refusal(self, url: str, input: WebFetchInput, context: ToolUseContext) -> str | None:
        """The policy's judgement of a redirect target, as for a call: ``None`` when allowed."""
        problem = url_problem(url)
        if problem is not None:
            return problem
        request = PermissionRequest(
            tool_name=self.name,
            input={"url": url, "prompt": input.prompt},
            workspace=context.workspace,
            aliases=self.aliases,
            subject=url,
            cwd=context.working_directory,
            read_only=True,
        )
        decision = PolicyEngine().decide(request, context.permission)
        if isinstance(decision, Allow):
            return None
        rule = f" (rule {decision.rule.describe()})" if decision.rule is not None else ""
        return f"{decision.reason}{rule}"

    def map_result(self, output: dict[str, Any]) -> str:
        lines = [f"URL: {output['url']}"]
        if output["redirects"]:
            lines.append(f"Redirected from: {output['requestedUrl']}")
        kind = output["contentType"] or "unknown type"
        lines.append(f"Status: {output['status']} · {kind} · {output['bytes']:,} bytes")
        if output.get("title"):
            lines.append(f"Title: {output['title']}")
        if output["reduced"]:
            lines.append(
                f"The page has {output['originalChars']:,} characters; shown are the parts that match the "
                "prompt (ask again with another prompt for other parts)."
            )
        return "\n".join(lines) + "\n\n" + (output["content"] or "(the page has no text)")

    def summarize_input(self, input: WebFetchInput) -> str:
        return input.url


def url_problem(url: str) -> str | None:
    """Why this URL cannot be fetched at all (before any rule is consulted), or ``None``."""
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        return f"The URL is longer than {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"Invalid URL {url!r}: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"Invalid URL {url!r}: only http and https URLs can be fetched"
    if not parts.hostname:
        return f"Invalid URL {url!r}: it has no host"
    if parts.username is not None or parts.password is not None:
        return "URLs with a user name or password are not fetched"
    if port == 0:
        return f"Invalid URL {url!r}: port 0"
    return None


def page_text(page: FetchedPage) -> tuple[str, str | None]:
    """The body as text (HTML as Markdown), and the HTML title. Refuses what is not text."""
    media = page.content_type
    if media in _HTML_TYPES:
        return html_to_markdown(_decode(page), base_url=page.url)
    if media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml")):
        return _decode(page), None
    if not media and b"\x00" not in page.body[:1024]:
        try:
            return page.body.decode("utf-8"), None
        except UnicodeDecodeError:
            pass
    raise ToolInputError(
        f"{page.url} is not a text page ({media or 'no content type'}, {len(page.body):,} bytes); WebFetch "
        "returns HTML, Markdown, JSON, XML and plain text only"
    )


def _decode(page: FetchedPage) -> str:
    try:
        return page.body.decode(page.charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return page.body.decode("utf-8", errors="replace")
