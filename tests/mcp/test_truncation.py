"""MCP output limits: 25,000 tokens by default, cut in place and marked; images fit the rest."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from bot.interface.messages import ContentBlock
from bot.mcp.limits import DEFAULT_MAX_MCP_OUTPUT_TOKENS, McpLimits
from bot.mcp.truncation import (
    MAX_IMAGE_TOKENS,
    estimate_tokens,
    image_size,
    image_tokens_for,
    truncate_content,
)
from tests.mcp.servers import b64, png_bytes


def text(n_chars: int, char: str = "x") -> ContentBlock:
    return {"type": "text", "text": char * n_chars}


def image(width: int, height: int) -> ContentBlock:
    data = b64(png_bytes(width, height))
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def marker(limit: int) -> str:
    return f"[OUTPUT TRUNCATED - exceeded {limit} token limit]"


def test_content_within_the_limit_is_untouched() -> None:
    blocks = [text(400), image(30, 30)]
    assert truncate_content(blocks, 1_000) == (blocks, False)


def test_text_over_the_limit_is_cut_in_place_and_marked() -> None:
    blocks, truncated = truncate_content([text(100, "a"), text(1_000, "b"), text(50, "c")], 100)
    assert truncated
    assert blocks[0]["text"] == "a" * 100
    assert blocks[1]["text"] == "b" * 300  # 400 characters = 100 tokens in all
    assert "c" not in "".join(b["text"] for b in blocks[:-1])
    assert blocks[-1]["text"].startswith(marker(100))


def test_the_default_limit_is_25000_tokens_and_the_env_overrides_it() -> None:
    assert McpLimits.from_env({}).max_output_tokens == DEFAULT_MAX_MCP_OUTPUT_TOKENS == 25_000
    assert McpLimits.from_env({"BOT_MAX_MCP_OUTPUT_TOKENS": "500"}).max_output_tokens == 500
    assert McpLimits.from_env({"BOT_MAX_MCP_OUTPUT_TOKENS": "lots"}).max_output_tokens == 25_000
    assert McpLimits.from_env({"BOT_MAX_MCP_OUTPUT_TOKENS": "-3"}).max_output_tokens == 25_000
    blocks, _ = truncate_content([text(100_001 * 4)], 25_000)
    assert blocks[-1]["text"].startswith(marker(25_000))


@pytest.mark.parametrize(
    ("description", "size", "tokens"),
    [
        ("a small image costs its pixels / 750", (75, 100), 10),
        ("a large one is billed after the API's downscale to 1.15 MP", (4000, 3000), 1_534),
        ("a long strip is capped by its long edge", (3136, 100), 105),
    ],
)
def test_image_cost(description: str, size: tuple[int, int], tokens: int) -> None:
    assert image_tokens_for(*size) == tokens


def test_an_image_that_fits_the_remaining_budget_is_kept_as_is() -> None:
    img = image(150, 100)  # 20 tokens
    blocks, truncated = truncate_content([text(400), img, text(4_000)], 200)
    assert truncated and blocks[1] is img


def test_an_image_over_the_remaining_budget_is_scaled_down_to_fit() -> None:
    big = image(1000, 750)  # 1000 tokens
    blocks, truncated = truncate_content([text(2_000), big], 800)  # 500 tokens of text, 300 left
    assert truncated
    shrunk = blocks[1]
    size = image_size(shrunk)
    assert size is not None and size[0] < 1000
    assert image_tokens_for(*size) <= 300
    decoded = Image.open(io.BytesIO(base64.b64decode(shrunk["source"]["data"])))
    assert decoded.format == "PNG" and shrunk["source"]["media_type"] == "image/png"
    assert estimate_tokens(blocks[:2]) <= 800


def test_an_image_with_no_budget_left_is_dropped_with_a_note() -> None:
    blocks, truncated = truncate_content([text(4_000), image(600, 600)], 100)
    assert truncated
    assert [b["type"] for b in blocks] == ["text", "text", "text"]
    assert "image omitted" in blocks[1]["text"]


def test_an_undecodable_image_counts_as_the_most_expensive() -> None:
    bad: ContentBlock = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    assert estimate_tokens([bad]) == MAX_IMAGE_TOKENS
