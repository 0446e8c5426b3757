"""Text encodings and line endings, detected on read and kept on write.

Edit must write a file back in the encoding and line-ending style it found (seeds 8.2.3):
a UTF-16 file stays UTF-16, a BOM stays, CRLF stays CRLF. Decoding is always lossless — a file
that is not valid UTF-8 is read as Latin-1, which maps every byte to one character, so the bytes
Edit does not touch are written back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: Bytes sniffed to tell a binary file (a NUL byte in them means binary).
BINARY_SNIFF_BYTES = 8_192

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

#: Extensions that are binary whatever their first bytes say (archives, executables, media).
BINARY_EXTENSIONS = frozenset(
    {
        ".7z",
        ".a",
        ".avi",
        ".bin",
        ".bmp",
        ".bz2",
        ".class",
        ".dat",
        ".db",
        ".dll",
        ".dmg",
        ".dylib",
        ".ear",
        ".eot",
        ".exe",
        ".flac",
        ".gz",
        ".ico",
        ".iso",
        ".jar",
        ".lib",
        ".mkv",
        ".mov",
        ".mp3",
        ".mp4",
        ".o",
        ".obj",
        ".ogg",
        ".otf",
        ".parquet",
        ".pdb",
        ".pyc",
        ".pyd",
        ".pyo",
        ".rar",
        ".so",
        ".sqlite",
        ".sqlite3",
        ".tar",
        ".tgz",
        ".tif",
        ".tiff",
        ".ttf",
        ".war",
        ".wasm",
        ".wav",
        ".webm",
        ".whl",
        ".woff",
        ".woff2",
        ".xz",
        ".zip",
        ".zst",
    }
)

LineEnding = Literal["\n", "\r\n"]


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    #: A Python codec name; ``utf-8-sig``/``utf-16-*`` carry a BOM that :func:`encode_text` restores.
    encoding: str
    line_ending: LineEnding


def bom_encoding(raw: bytes) -> str | None:
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name
    return None


def looks_binary(raw: bytes, path: Path | None = None) -> bool:
    """A NUL byte in the first 8 KB (UTF-16 text, which has NULs, is recognised by its BOM),
    or a known binary extension."""
    if path is not None and path.suffix.lower() in BINARY_EXTENSIONS:
        return True
    if bom_encoding(raw) in ("utf-16-le", "utf-16-be"):
        return False
    return b"\x00" in raw[:BINARY_SNIFF_BYTES]


def decode_text(raw: bytes) -> DecodedText:
    """Lossless decoding: BOM → that encoding; valid UTF-8 → UTF-8; anything else → Latin-1."""
    encoding = bom_encoding(raw)
    if encoding is not None:
        bom_len = 3 if encoding == "utf-8-sig" else 2
        text = raw[bom_len:].decode(encoding.removesuffix("-sig"), errors="surrogatepass")
    else:
        try:
            text = raw.decode("utf-8")
            encoding = "utf-8"
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
            encoding = "latin-1"
    return DecodedText(text, encoding, detect_line_ending(text))


def encode_text(text: str, encoding: str) -> bytes:
    """The inverse of :func:`decode_text`, BOM included. Raises ``UnicodeEncodeError`` when the
    text has characters the file's encoding cannot hold (a Latin-1 file and an emoji)."""
    match encoding:
        case "utf-8-sig":
            return b"\xef\xbb\xbf" + text.encode("utf-8")
        case "utf-16-le":
            return b"\xff\xfe" + text.encode("utf-16-le", errors="surrogatepass")
        case "utf-16-be":
            return b"\xfe\xff" + text.encode("utf-16-be", errors="surrogatepass")
        case _:
            return text.encode(encoding)


def detect_line_ending(text: str, sample_chars: int = 1 << 16) -> LineEnding:
    """CRLF when most line breaks in the first 64 K characters are CRLF (seeds: kept on Edit)."""
    head = text[:sample_chars]
    crlf = head.count("\r\n")
    lf = head.count("\n") - crlf
    return "\r\n" if crlf > lf else "\n"


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def with_line_ending(text: str, ending: LineEnding) -> str:
    """Text written by the model (LF) in the file's line-ending style."""
    if ending == "\n":
        return text
    return to_lf(text).replace("\n", "\r\n")
