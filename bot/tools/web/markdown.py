"""Page text for the model: HTML → Markdown (markdownify on BeautifulSoup), and for pages over
the cap, the parts that matter to the prompt.

The seeds' WebFetch hands the page to a small model with the prompt. Here the page itself is the
result — the model reads it directly — and the prompt is used only when the page is longer than
``MAX_MARKDOWN_CHARS``: instead of cutting blindly at the cap, the sections that mention the
prompt's words are kept (in page order, with markers where text was left out).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin

#: Seeds 4.8: WebFetch's ``maxResultSizeChars``; longer pages are reduced to this.
MAX_MARKDOWN_CHARS = 100_000
#: Elements whose content is never page text.
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "head")
_BLANK_RUNS = re.compile(r"\n{3,}")
_WORD = re.compile(r"[a-z0-9][a-z0-9_\-]{2,}")
_HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)
_STOPWORDS_TEXT = (
    "the and for with that this what which from into about does are was were how why when where who can "
    "you your any all not but use using used page site web text content find show tell list get give "
    "please there their them they its it's has have had more most some such than then these those"
)
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def html_to_markdown(html: str, base_url: str | None = None) -> tuple[str, str | None]:
    """The page as Markdown, and its ``<title>``. Links are made absolute against ``base_url`` so
    the model can fetch them."""
    # Imported by the call that converts a page, not with the WebFetch tool (~0.3 s together).
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for dropped in soup.find_all(_DROPPED_TAGS):
        dropped.decompose()
    if base_url:
        for name, attr in (("a", "href"), ("img", "src")):
            for element in soup.find_all(name):
                value = element.get(attr)
                if isinstance(value, str) and value and not value.startswith(("#", "javascript:", "data:")):
                    element[attr] = urljoin(base_url, value)
    text = MarkdownConverter(
        heading_style="ATX", bullets="-", escape_underscores=False, escape_asterisks=False
    ).convert_soup(soup)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return _BLANK_RUNS.sub("\n\n", text).strip(), title or None


@dataclass(frozen=True, slots=True)
class Selection:
    text: str
    #: True when parts of the page were left out.
    reduced: bool
    original_chars: int


def select_for_prompt(text: str, prompt: str, budget: int = MAX_MARKDOWN_CHARS) -> Selection:
    """The whole text when it fits ``budget``; else the chunks that best match the prompt's words."""
    if len(text) <= budget:
        return Selection(text, False, len(text))
    chunks = _chunks(text, max_chunk=max(budget // 8, 1_000))
    terms = prompt_terms(prompt)
    scores = [_score(chunk.lower(), terms) for chunk in chunks]
    if not any(scores):
        return Selection(_cut(text, budget), True, len(text))
    # always keep the opening chunk (title, summary); then by score, earlier first on ties
    order = sorted(range(len(chunks)), key=lambda i: (i != 0, -scores[i], i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        if i != 0 and scores[i] == 0:
            break
        cost = len(chunks[i]) + 60
        if used + cost > budget:
            continue
        chosen.add(i)
        used += cost
    return Selection(_assemble(chunks, sorted(chosen)), True, len(text))


def prompt_terms(prompt: str) -> list[str]:
    return sorted({w for w in _WORD.findall(prompt.lower()) if w not in _STOPWORDS})


def _score(chunk: str, terms: Sequence[str]) -> int:
    # capped per term, so one repeated word in a long chunk does not outweigh several words
    return sum(min(chunk.count(term), 5) for term in terms)


def _chunks(text: str, max_chunk: int) -> list[str]:
    """Sections (at headings), each split further at blank lines when longer than ``max_chunk``."""
    starts = [m.start() for m in _HEADING.finditer(text)]
    bounds = [0, *[s for s in starts if s > 0], len(text)]
    out: list[str] = []
    for a, b in itertools.pairwise(bounds):
        section = text[a:b].strip("\n")
        if not section:
            continue
        if len(section) <= max_chunk:
            out.append(section)
            continue
        current = ""
        for para in section.split("\n\n"):
            if current and len(current) + len(para) + 2 > max_chunk:
                out.append(current)
                current = ""
            current = f"{current}\n\n{para}" if current else para
            while len(current) > max_chunk:
                out.append(current[:max_chunk])
                current = current[max_chunk:]
        if current:
            out.append(current)
    return out


def _assemble(chunks: Sequence[str], chosen: Sequence[int]) -> str:
    parts: list[str] = []
    previous = -1
    for i in chosen:
        skipped = sum(len(c) for c in chunks[previous + 1 : i])
        if skipped:
            parts.append(f"[… {skipped:,} characters of the page left out …]")
        parts.append(chunks[i])
        previous = i
    rest = sum(len(c) for c in chunks[previous + 1 :])
    if rest:
        parts.append(f"[… {rest:,} characters of the page left out …]")
    return "\n\n".join(parts)


def _cut(text: str, budget: int) -> str:
    cut = text.rfind("\n", 0, budget)
    cut = cut if cut > budget // 2 else budget
    return text[:cut] + f"\n\n[… {len(text) - cut:,} more characters of the page left out …]"
