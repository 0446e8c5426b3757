"""PDFs: text by page, page ranges, and large PDFs must name pages."""

from __future__ import annotations

import pytest

from bot.errors import ToolInputError
from bot.tools.files.pdf import PDF_MAX_PAGES_PER_READ, parse_pages, read_pdf
from tests.tools.samples import make_pdf


@pytest.mark.parametrize(
    ("description", "spec", "total", "pages"),
    [
        ("one page", "3", 10, [3]),
        ("a range", "2-4", 10, [2, 3, 4]),
        ("an open range stops at the end", "8-", 10, [8, 9, 10]),
        ("a list", "1-2,5", 10, [1, 2, 5]),
        ("repeats are dropped", "1-3,2", 10, [1, 2, 3]),
        ("a range past the end is clipped", "9-20", 10, [9, 10]),
        ("an open range is capped at the per-read maximum", "1-", 100, list(range(1, PDF_MAX_PAGES_PER_READ + 1))),
    ],
)
def test_parse_pages(description: str, spec: str, total: int, pages: list[int]) -> None:
    assert parse_pages(spec, total) == pages


@pytest.mark.parametrize(
    ("description", "spec", "message"),
    [
        ("garbage", "first", "Invalid pages"),
        ("page zero", "0", "pages start at 1"),
        ("a backwards range", "5-2", "ranges go up"),
        ("past the end", "41", "past the end"),
        ("too many pages", "1-10,12-30", "at most 20 pages"),
    ],
)
def test_bad_page_specs_say_what_is_wrong(description: str, spec: str, message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        parse_pages(spec, 40)


def test_the_text_of_each_page_is_extracted() -> None:
    text, total = read_pdf(make_pdf(["Alpha page", "Beta page", "Gamma page"]), "doc.pdf", None)
    assert total == 3
    assert "--- Page 1 of 3 ---\nAlpha page" in text and "Gamma page" in text


def test_a_large_pdf_must_name_its_pages() -> None:
    raw = make_pdf([f"page {i}" for i in range(1, 13)])
    with pytest.raises(ToolInputError, match="12 pages, which is too many"):
        read_pdf(raw, "big.pdf", None)
    text, _ = read_pdf(raw, "big.pdf", "11-12")
    assert "page 11" in text and "page 12" in text and "page 10" not in text


def test_a_corrupt_pdf_is_a_clear_error() -> None:
    with pytest.raises(ToolInputError, match="could not be parsed"):
        read_pdf(b"%PDF-1.4\nnot really", "bad.pdf", None)
