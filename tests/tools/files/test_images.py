"""Images: told by their bytes, sent as they are when small, downscaled when large."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from bot.errors import ToolInputError
from bot.tools.files.images import MAX_IMAGE_DIMENSION, image_block, prepare_image, sniff_media_type
from tests.tools.samples import make_image


@pytest.mark.parametrize(
    ("description", "fmt", "media_type"),
    [
        ("PNG", "PNG", "image/png"),
        ("JPEG", "JPEG", "image/jpeg"),
        ("GIF", "GIF", "image/gif"),
        ("WebP", "WEBP", "image/webp"),
    ],
)
def test_a_small_image_is_sent_unchanged(description: str, fmt: str, media_type: str) -> None:
    raw = make_image(fmt, (40, 30))
    assert sniff_media_type(raw) == media_type
    image = prepare_image(raw, "x")
    assert image.data == raw and image.media_type == media_type and not image.resized
    block = image_block(image)
    assert block["type"] == "image" and base64.b64decode(block["source"]["data"]) == raw


@pytest.mark.parametrize(("description", "fmt"), [("PNG", "PNG"), ("JPEG", "JPEG"), ("GIF", "GIF")])
def test_a_large_image_is_downscaled_keeping_its_aspect_ratio(description: str, fmt: str) -> None:
    image = prepare_image(make_image(fmt, (4_000, 1_000)), "big")
    assert image.resized and (image.width, image.height) == (MAX_IMAGE_DIMENSION, 500)
    with Image.open(io.BytesIO(image.data)) as decoded:
        assert decoded.size == (MAX_IMAGE_DIMENSION, 500)


def test_what_is_not_an_image_is_refused() -> None:
    with pytest.raises(ToolInputError, match="not a PNG"):
        prepare_image(b"just text", "notes.png")


def test_a_truncated_image_is_a_clear_error() -> None:
    raw = make_image("PNG", (3_000, 3_000))[:200]
    with pytest.raises(ToolInputError, match="could not be decoded"):
        prepare_image(raw, "broken.png")
