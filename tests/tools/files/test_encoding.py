"""Encodings and line endings are detected losslessly and written back as found."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.tools.files.encoding import decode_text, detect_line_ending, encode_text, looks_binary, with_line_ending


@pytest.mark.parametrize(
    ("description", "raw", "encoding"),
    [
        ("plain UTF-8", "héllo\n".encode(), "utf-8"),
        ("UTF-8 with a BOM", b"\xef\xbb\xbfh\xc3\xa9llo\n", "utf-8-sig"),
        ("UTF-16 little-endian with its BOM", b"\xff\xfe" + "héllo\n".encode("utf-16-le"), "utf-16-le"),
        ("UTF-16 big-endian with its BOM", b"\xfe\xff" + "héllo\n".encode("utf-16-be"), "utf-16-be"),
        ("not UTF-8: Latin-1, every byte kept", b"caf\xe9 \xff\n", "latin-1"),
    ],
)
def test_decoding_then_encoding_gives_back_the_same_bytes(description: str, raw: bytes, encoding: str) -> None:
    decoded = decode_text(raw)
    assert decoded.encoding == encoding
    assert encode_text(decoded.text, decoded.encoding) == raw


@pytest.mark.parametrize(
    ("description", "text", "ending"),
    [
        ("LF only", "a\nb\n", "\n"),
        ("CRLF only", "a\r\nb\r\n", "\r\n"),
        ("mostly CRLF", "a\r\nb\r\nc\n", "\r\n"),
        ("mostly LF", "a\nb\nc\r\n", "\n"),
        ("no line break", "abc", "\n"),
    ],
)
def test_the_dominant_line_ending_is_detected(description: str, text: str, ending: str) -> None:
    assert detect_line_ending(text) == ending


def test_model_text_is_converted_to_crlf_without_doubling_existing_crs() -> None:
    assert with_line_ending("a\nb\r\nc", "\r\n") == "a\r\nb\r\nc"
    assert with_line_ending("a\nb", "\n") == "a\nb"


@pytest.mark.parametrize(
    ("description", "raw", "name", "binary"),
    [
        ("a NUL byte", b"ab\x00cd", "x.dat", True),
        ("plain text", b"hello", "x.txt", False),
        ("UTF-16 text has NULs but a BOM", b"\xff\xfeh\x00i\x00", "x.txt", False),
        ("a known binary extension", b"hello", "x.zip", True),
        ("empty", b"", "x.txt", False),
    ],
)
def test_binary_files_are_recognised(description: str, raw: bytes, name: str, binary: bool) -> None:
    assert looks_binary(raw, Path(name)) is binary


def test_a_latin1_file_refuses_characters_it_cannot_hold() -> None:
    with pytest.raises(UnicodeEncodeError):
        encode_text("snowman ☃", "latin-1")
