"""Secret redaction: known secret values and well-known secret shapes removed from text.

Pure and general: the Bash tool redacts command output with it before the model sees it, and the
GitHub layer redacts everything it posts with it. Two sources of secrets:

* **known values** — the values of the bot's own secret variables (:func:`secrets_from_environ`:
  the GitHub token, the model key, ``ACTIONS_*``, cloud credentials, action inputs named like
  secrets), plus the forms they commonly leak in (base64, and the ``x-access-token:<token>``
  basic-auth header ``actions/checkout`` writes into ``.git/config``);
* **shapes** — tokens recognisable without knowing them: GitHub (``ghp_``, ``ghs_``, ``github_pat_``
  …), Anthropic (``sk-ant-``), AWS (access key ids, secret keys next to their name), JWTs (the
  runner's ``ACTIONS_RUNTIME_TOKEN`` is one), PEM private keys, ``Authorization:`` header values.

Redaction is a backstop, not the defence: secrets are kept out of the shell's environment in the
first place (:mod:`bot.shell.env`).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

#: Values shorter than this are not redacted by value: a 3-character "secret" would blank out
#: ordinary words everywhere (GitHub Actions' own masker has the same kind of floor).
MIN_SECRET_LENGTH = 8

#: Words that make a variable a secret wherever they appear in its name (``PGPASSWORD``).
_SECRET_NAME_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "API_KEY",
                      "PRIVATE_KEY", "ACCESS_KEY")
#: Short words that make a variable a secret only as a whole part of its name (``MYSQL_PWD``, not ``PWD``).
_SECRET_NAME_PARTS = frozenset({"KEY", "KEYS", "PAT", "AUTH", "PWD", "PASS", "COOKIE", "CREDS", "PRIVATE",
                                "SIGNATURE"})
#: The shell's own variables that merely look like secrets.
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})
#: Whole-name prefixes of secrets: the runner's internals and cloud credential families.
_SECRET_NAME_PREFIXES = ("ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN_REQUEST_", "ACTIONS_CACHE_", "ACTIONS_RESULTS_",
                         "AWS_SECRET", "AWS_SESSION", "AZURE_CLIENT_SECRET", "GOOGLE_CREDENTIALS")


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Does this environment variable's name say it holds a secret (``GITHUB_TOKEN``,
    ``ANTHROPIC_API_KEY``, ``INPUT_GITHUB-TOKEN``, ``ACTIONS_RUNTIME_TOKEN``, ``PGPASSWORD``)?"""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    if upper.startswith(_SECRET_NAME_PREFIXES) or any(word in upper for word in _SECRET_NAME_WORDS):
        return True
    return bool(set(re.split(r"[_\-.]", upper)) & _SECRET_NAME_PARTS)


def secrets_from_environ(environ: Mapping[str, str], extra_names: Iterable[str] = ()) -> dict[str, str]:
    """The secret values of an environment: variables named like secrets, plus ``extra_names`` (what
    a policy marks secret). Values shorter than :data:`MIN_SECRET_LENGTH` are left out."""
    wanted = {n.upper() for n in extra_names}
    out: dict[str, str] = {}
    for name, value in environ.items():
        if (is_secret_name(name) or name.upper() in wanted) and len(value.strip()) >= MIN_SECRET_LENGTH:
            out[name] = value.strip()
    return out


@dataclass(frozen=True, slots=True)
class Shape:
    """A secret recognisable by its form. ``group`` is the part replaced (0 = the whole match)."""

    kind: str
    pattern: re.Pattern[str]
    group: int = 0


SHAPES: tuple[Shape, ...] = (
    Shape("private-key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)")),
    # GitHub: classic, OAuth, user-to-server, server-to-server (installation), refresh; fine-grained.
    Shape("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    Shape("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    Shape("aws-access-key-id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    Shape("aws-secret", re.compile(
        r"(?i)(?:aws_secret_access_key|aws_session_token|secretaccesskey|sessiontoken)[\"']?\s*[=:]\s*[\"']?"
        r"([A-Za-z0-9/+=]{40,})"), group=1),
    Shape("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    Shape("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    Shape("authorization", re.compile(
        r"(?i)\bauthorization\s*[:=]\s*(?:basic|bearer|token)\s+([A-Za-z0-9+/=._\-]{8,})"), group=1),
    Shape("url-credentials", re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:([^/\s@]{8,})@"), group=1),
)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def leak_forms(value: str) -> tuple[str, ...]:
    """The value and the encodings it commonly leaks in: base64 of itself and of the
    ``x-access-token:<value>`` basic-auth pair (``actions/checkout``'s persisted credential)."""
    forms = [value]
    for raw in (value, f"x-access-token:{value}"):
        encoded = base64.b64encode(raw.encode()).decode()
        forms.append(encoded)
        forms.append(encoded.rstrip("="))
    return tuple(dict.fromkeys(f for f in forms if len(f) >= MIN_SECRET_LENGTH))


class Redactor:
    """Compiled once for a set of known secrets; call it on text (``redactor(text)``)."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[str] = (), *, shapes: Iterable[Shape] = SHAPES) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else {f"secret-{i}": v for i, v in enumerate(secrets)}
        self._labels: dict[str, str] = {}
        for name, value in named.items():
            if len(value) < MIN_SECRET_LENGTH:
                continue
            for form in leak_forms(value):
                self._labels.setdefault(form, name)
        # Longest first, so a value that contains another is replaced whole.
        alternatives = sorted(self._labels, key=len, reverse=True)
        self._known = re.compile("|".join(map(re.escape, alternatives))) if alternatives else None
        self._shapes = tuple(shapes)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        if self._known is not None:
            text = self._known.sub(lambda m: marker(self._labels[m.group(0)]), text)
        for shape in self._shapes:
            text = shape.pattern.sub(_replacer(shape), text)
        return text


def _replacer(shape: Shape) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if shape.group == 0:
            return marker(shape.kind)
        start, end = match.span(shape.group)
        whole_start = match.start(0)
        whole = match.group(0)
        return whole[: start - whole_start] + marker(shape.kind) + whole[end - whole_start:]

    return replace


def redact(text: str, secrets: Mapping[str, str] | Iterable[str] = ()) -> str:
    """Redact ``text`` for these known secrets (name → value, or bare values) and every shape."""
    return Redactor(secrets)(text)


__all__ = ["MIN_SECRET_LENGTH", "SHAPES", "Redactor", "Shape", "is_secret_name", "leak_forms", "redact",
           "secrets_from_environ"]
