"""Raw HTML in posted Markdown, and the hosts an image may come from.

The HTML half of :mod:`bot.orchestration.markdown_safety`: a tokenizer that reads tags the way the
HTML standard does (attribute quoting, entities, ``/`` between attributes, ``<image>`` read as
``<img>``), what makes a tag fetch on view (a ``src``, a ``srcset``, CSS ``url()``, a ``poster``…),
and which hosts are allowed to serve it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: Images served by GitHub itself: its own pages (workflow badges, attachments) and its content
#: hosts (``raw.``, ``user-images.``, ``avatars.``, ``camo.``: camo URLs are signed by GitHub).
GITHUB_HOSTS = ("github.com", "*.githubusercontent.com")


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
URLISH = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^\s\"'<>()\[\]{}`]*|(?i:https?):[^\s\"'<>()]+")


WHITESPACE = " \t\n\r\f"


@dataclass(frozen=True, slots=True)
class Hosts:
    exact: frozenset[str]
    suffixes: tuple[str, ...]

    @classmethod
    def of(cls, allowed: Iterable[str]) -> Hosts:
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
    return host_allowed(url, Hosts.of(allowed_hosts))


def host_allowed(url: str, hosts: Hosts) -> bool:
    external, host = _target(url)
    return not external or (bool(_HOST.match(host)) and hosts.allow(host))


def shown_host(url: str) -> str:
    """What the removal note names: the registered domain, never a subdomain (it can carry data)."""
    external, host = _target(url)
    if not external or not _HOST.match(host):
        return "an external host"
    labels = host.split(".")
    return ".".join(labels[-2:]) if len(labels) > 1 else host


def removal_note(what: str, escaped: bool) -> str:
    # Escaped brackets never make a link or an image, whatever follows (``!`` before, ``(`` after).
    return f"\\[{what}\\]" if escaped else f"[{what}]"


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
    while i < n and text[i] not in WHITESPACE + "/>":
        i += 1
    name = text[start + 1 : i].lower()
    attributes: list[tuple[str, str]] = []
    while i < n:
        c = text[i]
        if c in WHITESPACE or c == "/":
            i += 1
            continue
        if c == ">":
            return _Tag(name, tuple(attributes), i + 1, True)
        j = i + 1  # the attribute name; a leading '=' belongs to it
        while j < n and text[j] not in WHITESPACE + "/>=":
            j += 1
        attr = text[i:j].lower()
        while j < n and text[j] in WHITESPACE:
            j += 1
        value = ""
        if j < n and text[j] == "=":
            j += 1
            while j < n and text[j] in WHITESPACE:
                j += 1
            if j < n and text[j] in "\"'":
                close = text.find(text[j], j + 1)
                close = n if close < 0 else close
                value, j = text[j + 1 : close], close + 1
            else:
                k = j
                while k < n and text[k] not in WHITESPACE + ">":
                    k += 1
                value, j = text[j:k], k
        attributes.append((attr, html.unescape(value)))
        i = j
    return _Tag(name, tuple(attributes), n, False)


def _tag_problem(tag: _Tag, raw: str, hosts: Hosts) -> str | None:
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
                host = next((shown_host(u) for u in URLISH.findall(css) if not host_allowed(u, hosts)), "a style")
                return f"external image removed: {host}"
        elif attr in _URL_ATTRIBUTES and not (attr == "href" and name in _CLICK_HREF):
            for url in _url_tokens(value) if attr.endswith("srcset") else [value]:
                if not host_allowed(url, hosts):
                    return f"external image removed: {shown_host(url)}"
    if name in _FETCHING:
        # Belt and braces: any URL in the raw text of a fetching tag, however the attributes parse.
        decoded = html.unescape(raw).replace("\\", "/")
        for url in URLISH.findall(re.sub(r"[\t\n\r]", "", decoded)):
            if not host_allowed(url, hosts):
                return f"external image removed: {shown_host(url)}"
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


def rewrite_html(text: str, hosts: Hosts, escaped: bool) -> str:
    out: list[str] = []
    done = 0
    for start, tag in _html_tags(text):
        if start < done:
            continue  # inside a tag already removed
        problem = _tag_problem(tag, text[start : tag.end], hosts)
        if problem is not None:
            out.append(text[done:start])
            out.append(removal_note(problem, escaped))
            done = tag.end
    out.append(text[done:])
    return "".join(out)


def html_problems(text: str, hosts: Hosts) -> list[str]:
    return [p for start, tag in _html_tags(text) if (p := _tag_problem(tag, text[start : tag.end], hosts))]
