"""PDFs for Read: the text of chosen pages, extracted with pypdf.

As in the seeds (8.2.2): a PDF is read by ``pages``, and a large one *must* name them, so a
400-page manual never lands in the context whole. Pages are 1-based: ``"3"``, ``"1-5"``,
``"10-"`` (to the end, within the per-read cap), or a comma list ``"1-3,7"``.
"""

from __future__ import annotations

import io
import logging
import re

from bot.errors import ToolInputError

#: Pages one Read may return (Claude Code's ``PDF_MAX_PAGES_PER_READ``).
PDF_MAX_PAGES_PER_READ = 20
#: A PDF with more pages than this must be read with ``pages`` (Claude Code's inline threshold).
PDF_PAGES_REQUIRED_ABOVE = 10
#: Larger files are not parsed (the API's own limit for a PDF document is 32 MB).
MAX_PDF_BYTES = 32 * 1024 * 1024

_PART = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$")


def parse_pages(spec: str, total: int) -> list[int]:
    """1-based page numbers named by ``spec``, in order, without repeats. Raises
    :class:`ToolInputError` with the accepted syntax when ``spec`` is malformed or out of range."""
    pages: list[int] = []
    for part in spec.split(","):
        m = _PART.match(part)
        if m is None:
            raise ToolInputError(
                f'Invalid pages value {spec!r}: use a page ("3"), a range ("1-5"), '
                'an open range ("10-") or a comma list ("1-3,7")'
            )
        first = int(m.group(1))
        last = (
            first
            if m.group(2) is None
            else int(m.group(3))
            if m.group(3)
            else min(total, first + PDF_MAX_PAGES_PER_READ - 1)
        )
        if first < 1 or last < first:
            raise ToolInputError(f"Invalid page range {part.strip()!r}: pages start at 1 and ranges go up")
        if first > total:
            raise ToolInputError(f"Page {first} is past the end of the PDF ({total} pages)")
        pages.extend(p for p in range(first, min(last, total) + 1) if p not in pages)
    if len(pages) > PDF_MAX_PAGES_PER_READ:
        raise ToolInputError(
            f"{len(pages)} pages requested; at most {PDF_MAX_PAGES_PER_READ} pages per "
            "Read. Read the PDF in several calls."
        )
    return pages


def read_pdf(raw: bytes, name: str, pages: str | None) -> tuple[str, int]:
    """The text of the chosen pages, each headed by its number, and the PDF's page count."""
    if len(raw) > MAX_PDF_BYTES:
        raise ToolInputError(
            f"{name} is {len(raw) / 1_048_576:.1f} MB; PDFs over {MAX_PDF_BYTES // 1_048_576} MB are not read"
        )
    # pypdf is imported by the call that reads a PDF, not with the Read tool (it costs ~0.2 s).
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed-but-readable files warn loudly
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ToolInputError(f"{name} is an encrypted PDF")
        total = len(reader.pages)
        if pages is None:
            if total > PDF_PAGES_REQUIRED_ABOVE:
                raise ToolInputError(
                    f"This PDF has {total} pages, which is too many to read at once. Use the pages "
                    f'parameter to read specific page ranges (e.g. pages: "1-5"). At most '
                    f"{PDF_MAX_PAGES_PER_READ} pages per request."
                )
            chosen = list(range(1, total + 1))
        else:
            chosen = parse_pages(pages, total)
        parts = []
        for number in chosen:
            text = reader.pages[number - 1].extract_text() or ""
            parts.append(f"--- Page {number} of {total} ---\n{text.strip() or '(no text on this page)'}")
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise ToolInputError(f"{name} could not be parsed as a PDF: {exc}") from None
    return "\n\n".join(parts), total
