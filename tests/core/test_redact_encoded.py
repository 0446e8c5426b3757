"""Encoded forms of a known secret are redacted: reversed, hex, base64 at every alignment, URL-encoded,
with invisible characters inside — each an attack form that passed the redactor before."""

from __future__ import annotations

import base64
import sys
import unicodedata
from urllib.parse import quote

import pytest

from bot.core.redact import MIN_SECRET_LENGTH, Redactor, leak_forms

NAME = "MY_DEPLOY_SECRET"
SECRET = "s3cr3t-Value_42xyzQ"
MARK = f"[REDACTED:{NAME}]"


def b64(data: bytes, *, urlsafe: bool = False, padded: bool = True) -> str:
    text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()
    return text if padded else text.rstrip("=")


def core(blob: str, prefix_len: int, value_len: int) -> str:
    """The part of a base64 blob that depends only on the value's bytes (shrunk by one character
    at each end so the test does not restate the redactor's arithmetic)."""
    start = -(-8 * prefix_len // 6) + 1
    end = (8 * (prefix_len + value_len)) // 6 - 1
    return blob[start:end]


def redacted(text: str, secret: str = SECRET) -> str:
    return Redactor({NAME: secret})(text)


@pytest.mark.parametrize(
    ("description", "attack"),
    [
        ("reversed", SECRET[::-1]),
        ("hex, lower case", SECRET.encode().hex()),
        ("hex, upper case", SECRET.encode().hex().upper()),
        ("hex, mixed case", "".join(c.upper() if i % 3 else c for i, c in enumerate(SECRET.encode().hex()))),
        ("base64, padded", b64(SECRET.encode())),
        ("base64, unpadded", b64(SECRET.encode(), padded=False)),
        ("URL-safe base64", b64(SECRET.encode(), urlsafe=True)),
        ("base64 of the basic-auth pair", b64(f"x-access-token:{SECRET}".encode())),
        (
            "URL-safe base64 of the basic-auth pair, unpadded",
            b64(f"x-access-token:{SECRET}".encode(), urlsafe=True, padded=False),
        ),
        ("URL-encoded, every character", "".join(f"%{b:02X}" for b in SECRET.encode())),
        ("URL-encoded, lower-case escapes", "".join(f"%{b:02x}" for b in SECRET.encode())),
        ("URL-encoded, every other character", "".join(f"%{ord(c):02X}" if i % 2 else c for i, c in enumerate(SECRET))),
        ("a zero-width space inside", SECRET[:5] + "\u200b" + SECRET[5:]),
        ("zero-width characters between every character", "\u200d".join(SECRET)),
        ("a soft hyphen and a BOM inside", SECRET[:3] + "\u00ad" + SECRET[3:9] + "\ufeff" + SECRET[9:]),
        ("a word joiner and an invisible plus", SECRET[:4] + "\u2060\u2064" + SECRET[4:]),
        ("a left-to-right mark", SECRET[:10] + "\u200e" + SECRET[10:]),
        ("URL-encoded with a zero-width space", quote(SECRET[:6], safe="") + "\u200b" + quote(SECRET[6:], safe="")),
        ("reversed, with zero-width characters", "\u200c".join(SECRET[::-1])),
        ("Markdown backslash escapes, as GitHub shows them", SECRET.replace("-", "\\-").replace("_", "\\_")),
        ("decimal character references", "".join(f"&#{ord(c)};" for c in SECRET[:6]) + SECRET[6:]),
        ("hexadecimal character references", SECRET[:6] + "".join(f"&#x{ord(c):X};" for c in SECRET[6:])),
        ("named character references", SECRET.replace("_", "&lowbar;").replace("3", "&#51;")),
        ("an HTML comment inside", SECRET[:8] + "<!-- x -->" + SECRET[8:]),
        ("empty tags inside", SECRET[:4] + "<b></b>" + SECRET[4:9] + '<span class="x"/>' + SECRET[9:]),
    ],
)
def test_an_encoded_form_of_a_known_secret_is_redacted(description: str, attack: str) -> None:
    out = redacted(f"before {attack} after")
    assert out == f"before {MARK} after", description


@pytest.mark.parametrize("prefix_len", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("urlsafe", [False, True])
def test_base64_of_a_secret_embedded_in_a_longer_blob_is_redacted_at_every_alignment(
    prefix_len: int, urlsafe: bool
) -> None:
    prefix = b"\x01\xfe{"[: prefix_len % 3] + b"header: "[: prefix_len - prefix_len % 3]
    blob = b64(prefix + SECRET.encode() + b" and more bytes after it", urlsafe=urlsafe)
    out = redacted(f"data: {blob}")
    assert MARK in out
    assert core(blob, len(prefix), len(SECRET)) not in out


def test_the_persisted_checkout_credential_is_redacted_whole() -> None:
    header = b64(f"x-access-token:{SECRET}".encode())
    text = f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {header}\n'
    out = redacted(text)
    assert header not in out
    assert core(header, len("x-access-token:"), len(SECRET)) not in out


def test_plus_stands_for_a_space_in_a_url_encoded_secret() -> None:
    secret = "correct horse battery"
    assert redacted("q=correct+horse+battery&x=1", secret) == f"q={MARK}&x=1"
    assert redacted("q=correct%20horse+battery", secret) == f"q={MARK}"


def test_a_secret_that_contains_a_percent_sign_is_still_redacted_literally() -> None:
    secret = "abc%41defgh"
    assert redacted(f"x {secret} y", secret) == f"x {MARK} y"


def test_each_line_of_a_multi_line_secret_is_redacted_on_its_own() -> None:
    secret = "first-line-of-it\nsecond-line-of-it"
    out = redacted("log: second-line-of-it", secret)
    assert out == f"log: {MARK}"


def test_every_unicode_format_character_is_skipped_inside_a_secret() -> None:
    format_chars = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    redactor = Redactor({NAME: SECRET})
    missed = [f"U+{ord(c):04X}" for c in format_chars if redactor(SECRET[:7] + c + SECRET[7:]) != MARK]
    assert missed == []


@pytest.mark.parametrize(
    ("description", "text"),
    [
        ("a git sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b"),
        ("ordinary URL-encoded text", "q=hello%20world&lang=en%2Dgb"),
        ("a prefix of the secret shorter than itself", f"{SECRET[:-1]}"),
        ("zero-width characters in ordinary text", "a\u200bb\u200bc is fine"),
        ("markup and references in ordinary text", "<b>a</b> &amp; \\_x\\_ &#65; <!-- c --> &nosuch;"),
    ],
)
def test_text_without_the_secret_is_untouched(description: str, text: str) -> None:
    assert redacted(text) == text, description


def test_short_values_are_still_not_redacted_in_any_form() -> None:
    short = "x" * (MIN_SECRET_LENGTH - 1)
    assert (
        Redactor({NAME: short})(f"{short} {short[::-1]} {short.encode().hex()}")
        == f"{short} {short[::-1]} {short.encode().hex()}"
    )


def test_leak_forms_lists_the_encodings() -> None:
    forms = leak_forms(SECRET)
    assert SECRET in forms and SECRET[::-1] in forms
    assert SECRET.encode().hex() in forms and SECRET.encode().hex().upper() in forms
    assert b64(SECRET.encode()) in forms and b64(SECRET.encode(), urlsafe=True, padded=False) in forms


def test_a_redactor_runs_its_check_on_the_text_before_redacting_it() -> None:
    seen: list[str] = []
    redactor = Redactor({NAME: SECRET}, check=seen.append)
    assert redactor(f"a {SECRET}") == f"a {MARK}"
    assert seen == [f"a {SECRET}"]


def test_a_secret_spelled_with_markup_is_redacted_exactly_where_it_is() -> None:
    text = "before <i>" + SECRET[:5] + "&#x" + format(ord(SECRET[5]), "x") + ";<b></b>" + SECRET[6:] + "</i> after"
    assert redacted(text) == f"before <i>{MARK}</i> after"


@pytest.mark.parametrize(
    ("description", "text"),
    [
        ("a GitHub token with its underscore escaped", "ghp\\_" + "a1B2c3D4e5" * 4),
        ("a GitHub token with an empty tag inside", "ghp_a1B2c3D4<b></b>" + "e5a1B2c3D4" * 3),
        ("an Anthropic key with escaped hyphens", "sk\\-ant\\-api03\\-" + "K" * 30),
        ("a GitHub token spelled with character references", "&#103;&#104;p_" + "a1B2c3D4e5" * 4),
    ],
)
def test_a_token_shape_spelled_with_markup_is_redacted(description: str, text: str) -> None:
    out = Redactor()(f"before {text} after")
    assert out.startswith("before [REDACTED:") and out.endswith("] after"), description


def test_the_values_are_taken_when_the_redactor_is_built_and_compiled_with_the_first_text() -> None:
    """The run's tool guard is built before the first model request and used with the first tool
    result: its pattern (10-20 ms) is compiled then, for the values it was given when built."""
    from bot.core import secret_match

    secret_match._cached_matcher.cache_clear()
    values = {NAME: SECRET}
    redactor = Redactor(values)
    assert secret_match._cached_matcher.cache_info().misses == 0  # nothing compiled yet
    values[NAME] = "another-value-entirely"
    assert redactor(f"x {SECRET} y") == f"x {MARK} y"
    assert redactor("another-value-entirely") == "another-value-entirely"
    assert secret_match._cached_matcher.cache_info().misses == 1
