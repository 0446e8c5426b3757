"""MCP output limits (seeds 4.8, ``truncateMcpContent``): cut in place, keep images within budget.

Content over the limit (25,000 tokens by default; ``BOT_MAX_MCP_OUTPUT_TOKENS`` or the seeds'
``MAX_MCP_OUTPUT_TOKENS``) is truncated in
place, block by block, and ends with ``[OUTPUT TRUNCATED - exceeded N token limit]``. An image
that does not fit the remaining budget is scaled down to fit (the seeds' ``compressImageBlock``)
and dropped — with a one-line note — only when even that fails. Text that survives is still
subject to the pipeline's result persistence (``bot.runtime.results``): there is no separate
"binary blob saved to a file" channel for tool output.

Tokens are estimated, not counted (no model call here): text at ``CHARS_PER_TOKEN`` characters a
token, images by their pixels as the API bills them.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from collections.abc import Sequence

from PIL import Image, UnidentifiedImageError

from bot.interface.context import CHARS_PER_TOKEN
from bot.interface.messages import ContentBlock

#: Anthropic's vision pricing: an image costs about width × height / 750 tokens…
IMAGE_PIXELS_PER_TOKEN = 750
#: …after the API scales it to at most 1568 px on the long edge and about 1.15 megapixels,
MAX_IMAGE_EDGE = 1_568
MAX_IMAGE_PIXELS = 1_150_000
#: …so no image costs more than this. An image whose size cannot be read is assumed to.
MAX_IMAGE_TOKENS = 1_600
#: The API refuses a base64 image over 5 MB.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
#: Below this many pixels on the short edge a scaled-down image is useless: drop it instead.
MIN_IMAGE_EDGE = 16
_SHRINK_ATTEMPTS = 4

TRUNCATION_MARKER = "[OUTPUT TRUNCATED - exceeded {limit} token limit]"
TRUNCATION_HINT = (
    "The tool's output was cut to fit. If the server offers pagination or filtering, call it again asking for less."
)


def truncation_message(limit: int) -> str:
    return f"{TRUNCATION_MARKER.format(limit=limit)}\n{TRUNCATION_HINT}"


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def image_tokens_for(width: int, height: int) -> int:
    """What an image of this size costs once the API has scaled it."""
    if width <= 0 or height <= 0:
        return MAX_IMAGE_TOKENS
    scale = min(1.0, MAX_IMAGE_EDGE / max(width, height), math.sqrt(MAX_IMAGE_PIXELS / (width * height)))
    return min(MAX_IMAGE_TOKENS, max(1, math.ceil(width * scale * height * scale / IMAGE_PIXELS_PER_TOKEN)))


def image_tokens(block: ContentBlock) -> int:
    size = image_size(block)
    return MAX_IMAGE_TOKENS if size is None else image_tokens_for(*size)


def estimate_tokens(blocks: Sequence[ContentBlock]) -> int:
    total = 0
    for block in blocks:
        if block.get("type") == "text":
            total += text_tokens(str(block.get("text", "")))
        elif block.get("type") == "image":
            total += image_tokens(block)
    return total


def truncate_content(blocks: Sequence[ContentBlock], max_tokens: int) -> tuple[list[ContentBlock], bool]:
    """``(blocks, truncated)``: the content within ``max_tokens``; when it was over, cut and marked.
    An image over the API's byte limit is scaled down even when the total fits."""
    over = estimate_tokens(blocks) > max_tokens
    if not over and not any(_too_heavy(b) for b in blocks):
        return list(blocks), False
    budget = max_tokens
    out: list[ContentBlock] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text", ""))
            cost = text_tokens(text)
            if cost <= budget:
                out.append(block)
                budget -= cost
            elif budget > 0:
                out.append({"type": "text", "text": text[: budget * CHARS_PER_TOKEN]})
                budget = 0
        elif kind == "image":
            cost = image_tokens(block)
            if cost <= budget and not _too_heavy(block):
                out.append(block)
                budget -= cost
                continue
            smaller = shrink_image(block, budget)
            if smaller is not None:
                out.append(smaller)
                budget -= image_tokens(smaller)
            else:
                out.append({"type": "text", "text": "[image omitted: it did not fit the remaining output budget]"})
        else:
            out.append(block)
    if over:
        out.append({"type": "text", "text": truncation_message(max_tokens)})
    return out, over


# ----- images -----------------------------------------------------------------------------------


# A bomb (a tiny file declaring billions of pixels) is refused by Pillow, and so by us.
_IMAGE_ERRORS = (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError)


def image_bytes(block: ContentBlock) -> bytes | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return None
    try:
        return base64.b64decode(str(source.get("data", "")), validate=True)
    except (binascii.Error, ValueError):
        return None


def image_size(block: ContentBlock) -> tuple[int, int] | None:
    data = image_bytes(block)
    if data is None:
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except _IMAGE_ERRORS:
        return None


def shrink_image(block: ContentBlock, budget_tokens: int) -> ContentBlock | None:
    """The image scaled down to cost at most ``budget_tokens`` (and weigh under the byte limit),
    re-encoded in its own format where possible; ``None`` when that cannot be done."""
    data = image_bytes(block)
    if data is None or budget_tokens <= 0:
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            width, height = img.size
            fmt = (img.format or "PNG").upper()
            if fmt not in ("PNG", "JPEG", "GIF", "WEBP"):
                fmt = "PNG"
            # Largest scale whose billed pixels fit the budget (never an upscale); smaller again
            # while the encoding is over the API's byte limit.
            scale = min(1.0, math.sqrt(budget_tokens * IMAGE_PIXELS_PER_TOKEN / max(1, width * height)))
            for _ in range(_SHRINK_ATTEMPTS):
                new_w, new_h = int(width * scale), int(height * scale)
                if min(new_w, new_h) < MIN_IMAGE_EDGE:
                    return None
                resized = img.resize((new_w, new_h)) if (new_w, new_h) != (width, height) else img.copy()
                if fmt == "JPEG" and resized.mode not in ("RGB", "L"):
                    resized = resized.convert("RGB")
                out = io.BytesIO()
                resized.save(out, format=fmt)
                encoded = out.getvalue()
                if len(encoded) <= MAX_IMAGE_BYTES:
                    break
                scale *= 0.7
            else:
                return None
    except _IMAGE_ERRORS:
        return None
    media_type = f"image/{fmt.lower()}"
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": base64.b64encode(encoded).decode("ascii")},
    }


def _too_heavy(block: ContentBlock) -> bool:
    if block.get("type") != "image":
        return False
    source = block.get("source")
    data = str(source.get("data", "")) if isinstance(source, dict) else ""
    return len(data) * 3 // 4 > MAX_IMAGE_BYTES
