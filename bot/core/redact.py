"""Secret redaction: known secret values and well-known secret shapes removed from text.

Pure and general: the Bash tool redacts command output with it before the model sees it, and the
GitHub layer redacts everything it posts with it. Two sources of secrets:

* **known values** — the values of the bot's own secret variables (:func:`secrets_from_environ`:
  the GitHub token, the model key, ``ACTIONS_*``, cloud credentials, action inputs named like
  secrets) in every form they commonly leak in: reversed, hex, base64 (at any alignment inside a
  longer blob, and of the ``x-access-token:<token>`` basic-auth pair ``actions/checkout`` writes into
  ``.git/config``), URL-encoded, with invisible characters inside (:mod:`bot.core.secret_match`);
* **shapes** — tokens recognisable without knowing them: GitHub (``ghp_``, ``ghs_``, ``github_pat_``
  …), Anthropic (``sk-ant-``), AWS (access key ids, secret keys next to their name), JWTs (the
  runner's ``ACTIONS_RUNTIME_TOKEN`` is one), PEM private keys, ``Authorization:`` header values.

Redaction is a backstop, not the defence: secrets are kept out of the shell's environment in the
first place (:mod:`bot.shell.execute.env`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from bot.core.secret_match import MIN_SECRET_LENGTH, SecretMatcher, leak_forms, normalised_spans, secret_matcher

#: Words that make a variable a secret wherever they appear in its name (``PGPASSWORD``).
_SECRET_NAME_WORDS = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "APIKEY",
    "API_KEY",
    "PRIVATE_KEY",
    "ACCESS_KEY",
)
#: Short words that make a variable a secret only as a whole part of its name (``MYSQL_PWD``, not ``PWD``).
_SECRET_NAME_PARTS = frozenset({"KEY", "KEYS", "PAT", "AUTH", "PWD", "PASS", "COOKIE", "CREDS", "PRIVATE", "SIGNATURE"})
#: The shell's own variables that merely look like secrets.
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})
#: Whole-name prefixes of secrets: the runner's internals and cloud credential families.
_SECRET_NAME_PREFIXES = (
    "ACTIONS_RUNTIME_",
    "ACTIONS_ID_TOKEN_REQUEST_",
    "ACTIONS_CACHE_",
    "ACTIONS_RESULTS_",
    "AWS_SECRET",
    "AWS_SESSION",
    "AZURE_CLIENT_SECRET",
    "GOOGLE_CREDENTIALS",
)


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


# Every tool result and posted text goes through all of these, so each pattern starts with a literal:
# the regex engine then jumps from one occurrence of it to the next instead of trying every position
# (a leading ``\b`` or character class makes it try each one: ~25 ms per MB and pattern). The word
# boundary the shape needs is checked by a look-behind right after the literal instead.
SHAPES: tuple[Shape, ...] = (
    Shape(
        "private-key",
        re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"),
    ),
    # GitHub: classic, OAuth, user-to-server, server-to-server (installation), refresh; fine-grained.
    Shape(
        "github-token",
        re.compile(r"gh(?<!\wgh)[pousr]_[A-Za-z0-9]{30,255}\b|github_pat_(?<!\wgithub_pat_)[A-Za-z0-9_]{22,255}\b"),
    ),
    Shape("anthropic-key", re.compile(r"sk-ant-(?<!\wsk-ant-)[A-Za-z0-9_\-]{20,}")),
    Shape("aws-access-key-id", re.compile(r"A(?<!\wA)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}\b")),
    # The names end in "ey" or "en": the engine jumps to those two letters, then looks back for the name.
    Shape(
        "aws-secret",
        re.compile(
            r"(?i)(?:ey(?:(?<=aws_secret_access_key)|(?<=secretaccesskey))|en(?:(?<=aws_session_token)|(?<=sessiontoken)))"
            r"[\"']?\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40,})"
        ),
        group=1,
    ),
    Shape("jwt", re.compile(r"eyJ(?<!\weyJ)[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    Shape("slack-token", re.compile(r"xox(?<!\wxox)[abposr]-[A-Za-z0-9\-]{10,}")),
    Shape(
        "authorization",
        re.compile(r"(?i)authorization(?<!\wauthorization)\s*[:=]\s*(?:basic|bearer|token)\s+([A-Za-z0-9+/=._\-]{8,})"),
        group=1,
    ),
    # ``scheme://user:password@``: found from its "://", the scheme's last character looked back at.
    Shape("url-credentials", re.compile(r"(?i)://(?<=[a-z0-9+.\-]://)[^/\s:@]+:([^/\s@]{8,})@"), group=1),
)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


class Redactor:
    """Compiled once for a set of known secrets; call it on text (``redactor(text)``).

    ``check``, when given, sees every text before it is redacted: a canary tripwire
    (:meth:`bot.core.canary.Canaries.observe`) must see the raw text, since redaction would hide a
    decoy that has a secret's shape.

    The values are taken when it is built; their pattern is compiled when the first text comes
    (10-20 ms for a run's secrets: the tool guard's redactor is built before the first model
    request, its first text comes with the first tool result).
    """

    def __init__(
        self,
        secrets: Mapping[str, str] | Iterable[str] = (),
        *,
        shapes: Iterable[Shape] = SHAPES,
        check: Callable[[str], object] | None = None,
    ) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else {f"secret-{i}": v for i, v in enumerate(secrets)}
        self._named = named
        self._matcher: SecretMatcher | None = None
        self._shapes = tuple(shapes)
        self._check = check

    @property
    def _known(self) -> SecretMatcher:
        matcher = self._matcher
        if matcher is None:
            matcher = self._matcher = secret_matcher(self._named)
        return matcher

    def __call__(self, text: str) -> str:
        if not text:
            return text
        if self._check is not None:
            self._check(text)
        text = self._known.sub(text)
        for shape in self._shapes:
            text = shape.pattern.sub(_replacer(shape), text)
        # A token spelled with markup (``ghp\_…``, ``ghp_ab<b></b>cd…``) renders as the token.
        shapes = [(shape.pattern, shape.group, shape.kind) for shape in self._shapes]
        for match in reversed(normalised_spans(text, shapes)):
            text = text[: match.start] + marker(match.label) + text[match.end :]
        return text


def _replacer(shape: Shape) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if shape.group == 0:
            return marker(shape.kind)
        start, end = match.span(shape.group)
        whole_start = match.start(0)
        whole = match.group(0)
        return whole[: start - whole_start] + marker(shape.kind) + whole[end - whole_start :]

    return replace


def redact(text: str, secrets: Mapping[str, str] | Iterable[str] = ()) -> str:
    """Redact ``text`` for these known secrets (name → value, or bare values) and every shape."""
    return Redactor(secrets)(text)


__all__ = [
    "MIN_SECRET_LENGTH",
    "SHAPES",
    "Redactor",
    "Shape",
    "is_secret_name",
    "leak_forms",
    "redact",
    "secrets_from_environ",
]
