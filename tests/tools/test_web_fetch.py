"""WebFetch against a loopback server: deny by default, domain rules, redirects re-checked,
private addresses refused, HTTPS upgrade, Markdown, non-text refused, long pages, persistence."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import pytest

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.tools.web.fetch import FetchSettings, fetch_page, upgrade_to_https
from bot.tools.web_fetch import ALLOW_PLAIN_HTTP_SETTING, ALLOW_PRIVATE_SETTING, url_problem
from tests.tools.helpers import context_for, run_tool
from tests.tools.web.server import Reply, serve

LOOPBACK = {ALLOW_PRIVATE_SETTING: True, ALLOW_PLAIN_HTTP_SETTING: True}

PAGE = b"""<html><head><title>Release notes</title><style>body{color:red}</style></head>
<body><h1>Version 2</h1><p>See <a href="/docs/install">the install guide</a>.</p>
<script>var tracking = 1;</script><ul><li>faster</li><li>smaller</li></ul></body></html>"""


def long_page() -> bytes:
    chapters = [f"<h2>Chapter {i}</h2><p>{'Lorem ipsum dolor sit amet. ' * 120}</p>" for i in range(40)]
    chapters.insert(20, "<h2>Configuring proxies</h2><p>Set HTTPS_PROXY to route traffic through the proxy.</p>")
    return f"<html><body>{''.join(chapters)}</body></html>".encode()


ROUTES = {
    "/page": Reply(body=PAGE, headers={"Content-Type": "text/html; charset=utf-8"}),
    "/data.json": Reply(body=json.dumps({"ok": True}).encode(), headers={"Content-Type": "application/json"}),
    "/logo.png": Reply(body=b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, headers={"Content-Type": "image/png"}),
    "/missing": Reply(404, b"gone", {"Content-Type": "text/plain"}),
    "/huge": Reply(body=b"x", headers={"Content-Type": "text/plain", "Content-Length": str(50 * 1024 * 1024)}),
    "/long": Reply(body=long_page(), headers={"Content-Type": "text/html"}),
    "/medium": Reply(body=("Lorem ipsum dolor sit amet.\n" * 2_500).encode(), headers={"Content-Type": "text/plain"}),
    "/latin1": Reply(body="café".encode("latin-1"), headers={"Content-Type": "text/plain; charset=iso-8859-1"}),
}


def with_redirects(port: int) -> dict[str, Reply]:
    return ROUTES | {
        "/hop": Reply(302, headers={"Location": "/page"}),
        "/away": Reply(301, headers={"Location": f"http://localhost:{port}/page"}),
        "/loop": Reply(302, headers={"Location": "/loop"}),
        "/to-ftp": Reply(302, headers={"Location": "ftp://example.org/file"}),
    }


@pytest.fixture
def server() -> object:
    routes: dict[str, Reply] = {}
    with serve(routes) as (port, seen):  # type: ignore[arg-type]
        routes.update(with_redirects(port))
        yield port, seen


def ctx(
    workspace: Path,
    tmp_path: Path,
    allow: tuple[str, ...] = ("WebFetch(domain:127.0.0.1)",),
    deny: tuple[str, ...] = (),
    **extra: object,
) -> ToolUseContext:
    return context_for(workspace, tmp_path / "scratch", allow=allow, deny=deny, **(LOOPBACK | extra))


def fetch(context: ToolUseContext, url: str, prompt: str = "what is new") -> tuple[bool, str]:
    outcome = run_tool(context, "WebFetch", {"url": url, "prompt": prompt})
    return outcome.result.is_error, outcome.result.text


def test_without_an_allow_rule_nothing_is_fetched(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    error, text = fetch(ctx(workspace, tmp_path, allow=()), f"http://127.0.0.1:{port}/page")
    assert error and "no allow rule covers this WebFetch call" in text
    assert seen == []


def test_an_allowed_page_comes_back_as_markdown(server: tuple[int, list[str]], workspace: Path, tmp_path: Path) -> None:
    port, _ = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}/page")
    assert not error, text
    assert "Title: Release notes" in text and "# Version 2" in text and "- faster" in text
    assert f"[the install guide](http://127.0.0.1:{port}/docs/install)" in text
    assert "tracking" not in text and "color:red" not in text


@pytest.mark.parametrize(
    ("description", "path", "expected"),
    [
        ("JSON passes as text", "/data.json", '{"ok": true}'),
        ("a declared charset is honoured", "/latin1", "café"),
    ],
)
def test_text_types_pass_as_they_are(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path, description: str, path: str, expected: str
) -> None:
    port, _ = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}{path}")
    assert not error and expected in text


@pytest.mark.parametrize(
    ("description", "path", "message"),
    [
        ("an image is not text", "/logo.png", "is not a text page (image/png"),
        ("an HTTP error is an error", "/missing", "answered HTTP 404"),
        ("a body over the cap is refused before it is read", "/huge", "WebFetch reads at most"),
        ("a redirect loop ends", "/loop", "Too many redirects"),
        ("a redirect to another scheme is refused", "/to-ftp", "not an http(s) URL"),
    ],
)
def test_clear_errors(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path, description: str, path: str, message: str
) -> None:
    port, _ = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}{path}")
    assert error and message in text


def test_a_redirect_on_the_same_domain_is_followed(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}/hop")
    assert not error and "# Version 2" in text and f"Redirected from: http://127.0.0.1:{port}/hop" in text
    assert [s.split()[1] for s in seen] == ["/hop", "/page"]


def test_a_redirect_to_a_domain_the_rules_do_not_allow_is_not_followed(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}/away")
    assert error and f"redirects to http://localhost:{port}/page, which the policy does not allow" in text
    assert [s.split()[1] for s in seen] == ["/away"]


def test_a_redirect_to_another_allowed_domain_is_followed(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    context = ctx(workspace, tmp_path, allow=("WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"))
    error, text = fetch(context, f"http://127.0.0.1:{port}/away")
    assert not error and "# Version 2" in text
    assert seen[-1].endswith(f"host=localhost:{port}")


def test_a_deny_rule_beats_an_allow_rule_on_a_redirect(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, _ = server
    context = ctx(
        workspace,
        tmp_path,
        allow=("WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"),
        deny=("WebFetch(domain:localhost)",),
    )
    error, text = fetch(context, f"http://127.0.0.1:{port}/away")
    assert error and "a deny rule forbids" in text


def test_loopback_is_refused_without_the_test_setting(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    context = ctx(workspace, tmp_path, **{ALLOW_PRIVATE_SETTING: False})
    error, text = fetch(context, f"http://127.0.0.1:{port}/page")
    assert error and "127.0.0.1 resolves to 127.0.0.1, a private, loopback" in text
    assert seen == []


def test_a_name_resolving_to_loopback_is_refused_after_resolution(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, seen = server
    context = ctx(workspace, tmp_path, allow=("WebFetch(domain:localhost)",), **{ALLOW_PRIVATE_SETTING: False})
    error, text = fetch(context, f"http://localhost:{port}/page")
    assert error and "localhost resolves to" in text and "non-public address" in text
    assert seen == []


def test_http_is_upgraded_to_https_by_default(server: tuple[int, list[str]], workspace: Path, tmp_path: Path) -> None:
    port, _ = server
    context = ctx(workspace, tmp_path, **{ALLOW_PLAIN_HTTP_SETTING: False})
    error, text = fetch(context, f"http://127.0.0.1:{port}/page")
    # the plain-HTTP test server cannot speak TLS: the request went out as https
    assert error and f"https://127.0.0.1:{port}/page" in text


def test_a_page_over_the_persistence_threshold_is_persisted_whole(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, _ = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}/medium")
    assert not error and text.startswith("<persisted-output>") and "Release notes" not in text[:20]
    saved = (tmp_path / "scratch" / "tool-results" / "toolu_1.txt").read_text()
    assert saved.count("Lorem ipsum") == 2_500 and "left out" not in saved


def test_a_page_over_the_cap_keeps_the_parts_the_prompt_is_about(
    server: tuple[int, list[str]], workspace: Path, tmp_path: Path
) -> None:
    port, _ = server
    error, text = fetch(ctx(workspace, tmp_path), f"http://127.0.0.1:{port}/long", "how to configure the proxy")
    assert not error
    assert "characters; shown are the parts that match the prompt" in text
    assert "Set HTTPS_PROXY to route traffic through the proxy." in text
    assert "characters of the page left out" in text and len(text) <= 101_000


def test_a_server_that_never_answers_times_out() -> None:
    hold = threading.Event()
    with serve({"/slow": Reply(body=b"late", hold=hold)}) as (port, _):
        settings = FetchSettings(allow_private=True, allow_plain_http=True, timeout_s=0.1)

        async def main() -> None:
            await fetch_page(f"http://127.0.0.1:{port}/slow", lambda url: None, settings)

        with pytest.raises(ToolExecutionError, match=r"timed out after 0\.1 seconds"):
            anyio.run(main)
        hold.set()


@pytest.mark.parametrize(
    ("description", "url", "problem"),
    [
        ("an ordinary URL", "https://docs.python.org/3/", None),
        ("another scheme", "ftp://example.org/x", "only http and https"),
        ("a file URL", "file:///etc/passwd", "only http and https"),
        ("no host", "https:///path", "has no host"),
        ("credentials", "https://user:pw@example.org/", "user name or password"),
        ("too long", "https://example.org/" + "a" * 2_100, "longer than 2000"),
        ("a bad port", "https://example.org:99999/", "Invalid URL"),
    ],
)
def test_url_problems(description: str, url: str, problem: str | None) -> None:
    found = url_problem(url)
    assert (found is None) if problem is None else (found is not None and problem in found)


@pytest.mark.parametrize(
    ("description", "url", "upgraded"),
    [
        ("http becomes https", "http://example.org/a?b=1#c", "https://example.org/a?b=1#c"),
        ("the default port is dropped", "http://example.org:80/a", "https://example.org/a"),
        ("another port is kept", "http://example.org:8080/a", "https://example.org:8080/a"),
        ("https stays", "https://example.org/", "https://example.org/"),
    ],
)
def test_upgrade_to_https(description: str, url: str, upgraded: str) -> None:
    assert upgrade_to_https(url) == upgraded
