"""MCP content → ``tool_result`` content blocks (the API's shapes), never trusting the server.

* text → a text block;
* an image the API accepts (JPEG, PNG, GIF, WebP, valid base64) → an image block; anything else →
  a one-line note (an invalid image would make the API refuse the whole request);
* audio → a note (the model cannot hear it);
* an embedded resource → its text, prefixed ``[Resource from <server> at <uri>]``; an image blob →
  that prefix and the image; another blob → a note with its type and size;
* a resource link → ``[Resource link: <name>] <uri>``;
* ``structuredContent`` → pretty JSON, when the server sent no text of its own (the spec asks
  servers to send both; many send only one).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from mcp import types

from bot.interface.messages import ContentBlock

#: The image types the Messages API accepts in a tool_result.
SUPPORTED_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
NO_CONTENT = "(no content)"


def text_block(text: str) -> ContentBlock:
    return {"type": "text", "text": text}


def image_block(media_type: str, data: str) -> ContentBlock:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def map_call_result(result: types.CallToolResult, server: str) -> list[ContentBlock]:
    blocks = map_content(result.content, server)
    if result.structured_content is not None and not any(b["type"] == "text" for b in blocks):
        blocks.append(text_block(json.dumps(result.structured_content, ensure_ascii=False, indent=2)))
    return blocks or [text_block(NO_CONTENT)]


def map_content(items: Sequence[types.ContentBlock], server: str) -> list[ContentBlock]:
    out: list[ContentBlock] = []
    for item in items:
        out.extend(map_item(item, server))
    return out


def map_item(item: types.ContentBlock, server: str) -> list[ContentBlock]:
    match item:
        case types.TextContent():
            return [text_block(item.text)]
        case types.ImageContent():
            return [checked_image(item.mime_type, item.data, "image")]
        case types.AudioContent():
            return [
                text_block(
                    f"[{item.mime_type} audio omitted ({_decoded_size(item.data):,} bytes): "
                    "audio cannot be passed to the model]"
                )
            ]
        case types.ResourceLink():
            line = f"[Resource link: {item.name}] {item.uri}"
            if item.mime_type:
                line += f" ({item.mime_type})"
            if item.description:
                line += f"\n{item.description}"
            return [text_block(line)]
        case types.EmbeddedResource():
            return map_resource_contents(item.resource, server)
    return [text_block(f"[unsupported MCP content of type {getattr(item, 'type', '?')!r} omitted]")]


def map_resource_contents(
    contents: types.TextResourceContents | types.BlobResourceContents, server: str
) -> list[ContentBlock]:
    prefix = f"[Resource from {server} at {contents.uri}]"
    if isinstance(contents, types.TextResourceContents):
        return [text_block(f"{prefix} {contents.text}")]
    mime = contents.mime_type or "application/octet-stream"
    if mime in SUPPORTED_IMAGE_TYPES:
        return [text_block(prefix), checked_image(mime, contents.blob, "resource")]
    return [text_block(f"{prefix} {mime} data, {_decoded_size(contents.blob):,} bytes, not shown")]


def checked_image(mime_type: str, data: str, what: str) -> ContentBlock:
    if mime_type not in SUPPORTED_IMAGE_TYPES:
        return text_block(f"[{mime_type} {what} omitted: the model accepts JPEG, PNG, GIF and WebP images]")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return text_block(f"[{mime_type} {what} omitted: its data is not valid base64]")
    return image_block(mime_type, data)


def _decoded_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")
