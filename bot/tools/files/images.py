"""Images for Read: PNG, JPEG, GIF and WebP as base64 ``image`` blocks, downscaled when large.

The API refuses images over 5 MB and scales down anything with a long edge beyond ~1,568 px
anyway; sending a 6,000 px screenshot only costs bytes. An image that fits both limits is sent
as it is; a larger one is resized (aspect ratio kept) with Pillow and re-encoded, and as a last
resort turned into a smaller JPEG. The format is told by the file's bytes, not its name.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.errors import ToolInputError
from bot.interface.messages import ContentBlock

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

#: Longest edge sent (Claude Code's Read uses 2,000 × 2,000).
MAX_IMAGE_DIMENSION = 2_000
#: The API's per-image limit, on the decoded bytes.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
#: Decoding larger images is refused (a decompression bomb costs memory, not just time).
MAX_IMAGE_PIXELS = 100_000_000

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


@dataclass(frozen=True, slots=True)
class EncodedImage:
    data: bytes
    media_type: str
    width: int
    height: int
    original_width: int
    original_height: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)


def sniff_media_type(raw: bytes) -> str | None:
    """The image type from the magic bytes, or ``None``."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def prepare_image(raw: bytes, name: str) -> EncodedImage:
    """The image as the API should get it. Raises :class:`ToolInputError` for what is not one."""
    media_type = sniff_media_type(raw)
    if media_type is None:
        raise ToolInputError(f"{name} is not a PNG, JPEG, GIF or WebP image")
    # Pillow is imported here, by the one call that decodes an image: the tool pool (and every
    # command that lists or checks tools) loads this module, and Pillow is most of its import time.
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(raw)) as img:
            width, height = img.size
            if width * height > MAX_IMAGE_PIXELS:
                raise ToolInputError(
                    f"{name} is {width}×{height} pixels; images over {MAX_IMAGE_PIXELS:,} pixels are not read"
                )
            if max(width, height) <= MAX_IMAGE_DIMENSION and len(raw) <= MAX_IMAGE_BYTES:
                return EncodedImage(raw, media_type, width, height, width, height)
            return _downscale(img, media_type, width, height, name)
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ToolInputError(f"{name} could not be decoded as an image: {exc}") from None


def image_block(image: EncodedImage) -> ContentBlock:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": image.media_type,
            "data": base64.b64encode(image.data).decode("ascii"),
        },
    }


def _downscale(img: PILImage, media_type: str, width: int, height: int, name: str) -> EncodedImage:
    from PIL import Image

    scale = min(1.0, MAX_IMAGE_DIMENSION / max(width, height))
    if media_type == "image/jpeg":
        # decode at a reduced size directly (DCT scaling): far faster on large photos
        img.draft("RGB", (max(1, int(width * scale)), max(1, int(height * scale))))
    frame = img.convert("RGBA" if _has_alpha(img) else "RGB")
    target = (max(1, round(width * scale)), max(1, round(height * scale)))
    if frame.size != target:
        frame = frame.resize(target, Image.Resampling.LANCZOS)
    # keep the format where Pillow writes it well; GIF (palette, often animated) becomes PNG
    fmt, out_type = {"image/jpeg": ("JPEG", "image/jpeg"), "image/webp": ("WEBP", "image/webp")}.get(
        media_type, ("PNG", "image/png")
    )
    data = _encode(frame, fmt)
    # still too large: JPEG at falling quality, then smaller
    quality = 85
    while len(data) > MAX_IMAGE_BYTES:
        if quality > 40:
            quality -= 15
        else:
            frame = frame.resize(
                (max(1, frame.width * 3 // 4), max(1, frame.height * 3 // 4)), Image.Resampling.LANCZOS
            )
        data = _encode(frame.convert("RGB"), "JPEG", quality=quality)
        out_type = "image/jpeg"
        if frame.width <= 16:
            raise ToolInputError(f"{name} could not be made small enough to send")
    return EncodedImage(data, out_type, frame.width, frame.height, width, height)


def _has_alpha(img: PILImage) -> bool:
    return img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info)


def _encode(img: PILImage, fmt: str, quality: int = 85) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        img.convert("RGB").save(buffer, fmt, quality=quality, optimize=True)
    elif fmt == "WEBP":
        img.save(buffer, fmt, quality=quality)
    else:
        img.save(buffer, fmt)  # PNG's optimize=True costs seconds on large images for ~10%
    return buffer.getvalue()
