"""MCP content → tool_result blocks: text, images, resources, links, structuredContent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import types

from bot.mcp.content import NO_CONTENT, map_call_result, map_item
from tests.mcp.servers import b64, png_bytes

PNG = b64(png_bytes(4, 4))


@pytest.mark.parametrize(
    ("description", "item", "expected"),
    [
        ("text", types.TextContent(type="text", text="hi"), [{"type": "text", "text": "hi"}]),
        (
            "a PNG image",
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}],
        ),
        (
            "an image type the API refuses becomes a note",
            types.ImageContent(type="image", data=PNG, mime_type="image/svg+xml"),
            [
                {
                    "type": "text",
                    "text": "[image/svg+xml image omitted: the model accepts JPEG, PNG, GIF and WebP images]",
                }
            ],
        ),
        (
            "invalid base64 never reaches the API",
            types.ImageContent(type="image", data="not base64!", mime_type="image/png"),
            [{"type": "text", "text": "[image/png image omitted: its data is not valid base64]"}],
        ),
        (
            "audio becomes a note",
            types.AudioContent(type="audio", data=b64(b"RIFF0000"), mime_type="audio/wav"),
            [{"type": "text", "text": "[audio/wav audio omitted (8 bytes): audio cannot be passed to the model]"}],
        ),
        (
            "an embedded text resource is prefixed with its server and URI",
            types.EmbeddedResource(type="resource", resource=types.TextResourceContents(uri="memo://a", text="body")),
            [{"type": "text", "text": "[Resource from srv at memo://a] body"}],
        ),
        (
            "an embedded image blob keeps the image",
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(uri="memo://p.png", blob=PNG, mime_type="image/png"),
            ),
            [
                {"type": "text", "text": "[Resource from srv at memo://p.png]"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ],
        ),
        (
            "another blob is described, not dumped",
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="memo://x.gz", blob=b64(b"0123456789"), mime_type="application/gzip"
                ),
            ),
            [{"type": "text", "text": "[Resource from srv at memo://x.gz] application/gzip data, 10 bytes, not shown"}],
        ),
        (
            "a resource link",
            types.ResourceLink(
                type="resource_link", name="r1", uri="memo://r1", mime_type="text/plain", description="first"
            ),
            [{"type": "text", "text": "[Resource link: r1] memo://r1 (text/plain)\nfirst"}],
        ),
    ],
)
def test_each_content_type_maps_to_api_blocks(description: str, item: Any, expected: list[dict[str, Any]]) -> None:
    assert map_item(item, "srv") == expected


def test_structured_content_is_shown_when_the_server_sent_no_text() -> None:
    result = types.CallToolResult(content=[], structured_content={"t": 21})
    assert map_call_result(result, "s") == [{"type": "text", "text": json.dumps({"t": 21}, indent=2)}]
    with_text = types.CallToolResult(
        content=[types.TextContent(type="text", text='{"t":21}')], structured_content={"t": 21}
    )
    assert map_call_result(with_text, "s") == [{"type": "text", "text": '{"t":21}'}]


def test_an_empty_result_says_so() -> None:
    assert map_call_result(types.CallToolResult(content=[]), "s") == [{"type": "text", "text": NO_CONTENT}]
