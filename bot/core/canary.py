"""Secret canaries: decoy credentials planted where a leak would reach them, and the tripwire that
sees them wherever they turn up.

Trust model. A canary grants nothing, but it looks exactly like the real thing (a ``ghp_`` token
with its checksum, an ``AKIA`` key id with its 40-character secret) and sits where real ones sit: in
the bot's own environment under secret-sounding names (:meth:`Canaries.plant_environ`) and in the
credential files of the ``HOME`` the bot's host-side processes get (:meth:`Canaries.decoy_home`).
Anything that dumps that environment or reads those files and passes on what it found — into a tool
result, a tool's input, a fetched URL, a comment — carries a canary with it. Seeing one proves a leak
path exists, so the run stops at once (:class:`~bot.errors.CanaryTripped`), pushing and posting
nothing more.

Where they are looked for: the pipeline scans every tool's input and output (``bot.core.guard``),
WebFetch every URL it is about to request, the egress boundary (``bot.orchestration.egress``) everything
that leaves the process. :meth:`Canaries.scan` sees the encoded forms of
:mod:`bot.core.secret_match` too (reversed, hex, base64, URL-encoded, zero-width characters).

Values are generated per run with :mod:`secrets` and never logged; a canary is reported by its
label ("decoy GitHub token in GH_DEPLOY_TOKEN"), never by its value.
"""

from __future__ import annotations

import os
import secrets
import string
import threading
import zlib
from collections.abc import Collection, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.secret_match import SecretMatcher, secret_matcher
from bot.core.secrets import process_secrets
from bot.errors import CanaryTripped

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_ALNUM = string.ascii_letters + string.digits
#: AWS access key ids are base32 after their prefix.
_BASE32 = string.ascii_uppercase + "234567"
_AWS_SECRET_ALPHABET = _ALNUM + "/+"

#: The decoy variables, each with the kind of credential it holds. Names no tool or SDK reads on its
#: own (not ``GH_TOKEN``, ``NPM_TOKEN``, ``AWS_ACCESS_KEY_ID``): a decoy must never be *used* by the
#: bot or a library in it, only found by something that dumps the environment. All are secret-named
#: (:func:`bot.core.redact.is_secret_name`), so the allowlisted environments of the bot's children
#: never carry them.
DECOY_ENV_NAMES: tuple[str, ...] = (
    "GH_DEPLOY_TOKEN",
    "NPM_PUBLISH_TOKEN",
    "DEPLOY_AWS_ACCESS_KEY_ID",
    "DEPLOY_AWS_SECRET_ACCESS_KEY",
)
#: The hosts of the decoy ``.netrc``: plausible, and none the run talks to — curl (git over https)
#: and requests send a matching ``.netrc`` entry on their own, and a decoy must never be sent.
DECOY_NETRC_HOSTS: tuple[str, ...] = ("registry.npmjs.org", "ghcr.io")
#: Credential files are private to their owner, as the real tools write them.
DECOY_FILE_MODE = 0o600


@dataclass(frozen=True, slots=True)
class Canary:
    """One decoy: what it imitates, where it was planted, and its value (never shown)."""

    kind: str
    planted_as: str
    value: str = field(repr=False)

    @property
    def label(self) -> str:
        return f"decoy {self.kind} in {self.planted_as}"


def github_token(prefix: str = "ghp_") -> str:
    """A GitHub token in the real format: 30 random base62 characters and a 6-character base62
    CRC32 checksum of them (what secret scanners verify)."""
    body = "".join(secrets.choice(_ALNUM) for _ in range(30))
    return prefix + body + _base62(zlib.crc32(body.encode()), 6)


def npm_token() -> str:
    """An npm automation token (``npm_`` and the same checksummed 36 characters as GitHub's)."""
    return github_token("npm_")


def aws_key_pair() -> tuple[str, str]:
    """An access key id (``AKIA`` and 16 base32 characters) and its 40-character secret key."""
    key_id = "AKIA" + "".join(secrets.choice(_BASE32) for _ in range(16))
    secret = "".join(secrets.choice(_AWS_SECRET_ALPHABET) for _ in range(40))
    return key_id, secret


class Canaries:
    """The run's canaries. Empty until planted; planting adds to it, so an object built from it
    before planting (the egress boundary) sees every canary planted later."""

    def __init__(self, canaries: Sequence[Canary] = ()) -> None:
        self._lock = threading.Lock()
        self._canaries: list[Canary] = list(canaries)
        self._matcher: SecretMatcher | None = None
        self._tripped: CanaryTripped | None = None

    def __len__(self) -> int:
        return len(self._canaries)

    def __iter__(self) -> Iterator[Canary]:
        with self._lock:
            return iter(list(self._canaries))

    # ----- planting -------------------------------------------------------------------------------

    def plant_environ(
        self, environ: MutableMapping[str, str] | None = None, *, taken: Collection[str] | None = None
    ) -> list[str]:
        """Put decoy variables into ``environ`` (``os.environ``), each only where no variable of that
        name is set and no captured secret has it (``taken``: by default the names of
        :func:`bot.core.secrets.process_secrets`, which the start-up capture took out of the
        environment). Returns the names planted. Call it after the capture, so the decoys stay in
        the environment where a dump finds them."""
        environ = os.environ if environ is None else environ
        if taken is None:
            taken = set(process_secrets())
        key_id, secret_key = aws_key_pair()
        values = dict(zip(DECOY_ENV_NAMES, (github_token(), npm_token(), key_id, secret_key), strict=True))
        kinds = dict(
            zip(DECOY_ENV_NAMES, ("GitHub token", "npm token", "AWS access key id", "AWS secret key"), strict=True)
        )
        taken_upper = {n.upper() for n in taken}
        planted: list[str] = []
        for name, value in values.items():
            if name in environ or name.upper() in taken_upper:
                continue
            environ[name] = value
            self._add(Canary(kinds[name], name, value))
            planted.append(name)
        return planted

    def decoy_home(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Write decoy credential files into ``directory``, the ``HOME`` the bot's host-side child
        processes get (never the bot's own ``HOME``: its own libraries read ``~/.netrc`` and
        ``~/.aws``): ``.git-credentials``, ``.netrc``, ``.config/gh/hosts.yml``, ``.aws/credentials``
        and ``.npmrc``. An existing file is never overwritten. Returns the files written."""
        home = Path(directory)
        git_token, gh_token, npm = github_token(), github_token("gho_"), npm_token()
        netrc_passwords = (npm_token(), github_token())
        key_id, secret_key = aws_key_pair()
        netrc = "".join(
            f"machine {host}\n  login deploy-bot\n  password {value}\n"
            for host, value in zip(DECOY_NETRC_HOSTS, netrc_passwords, strict=True)
        )
        files: list[tuple[str, str, list[Canary]]] = [
            (
                ".git-credentials",
                f"https://x-access-token:{git_token}@github.com\n",
                [Canary("GitHub token", "~/.git-credentials", git_token)],
            ),
            (".netrc", netrc, [Canary("registry password", "~/.netrc", value) for value in netrc_passwords]),
            (
                ".config/gh/hosts.yml",
                f"github.com:\n    oauth_token: {gh_token}\n    user: deploy-bot\n    git_protocol: https\n",
                [Canary("GitHub OAuth token", "~/.config/gh/hosts.yml", gh_token)],
            ),
            (
                ".aws/credentials",
                f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret_key}\n",
                [
                    Canary("AWS access key id", "~/.aws/credentials", key_id),
                    Canary("AWS secret key", "~/.aws/credentials", secret_key),
                ],
            ),
            (".npmrc", f"//registry.npmjs.org/:_authToken={npm}\n", [Canary("npm token", "~/.npmrc", npm)]),
        ]
        written: list[Path] = []
        for relative, text, canaries in files:
            path = home / relative
            if _write_new(path, text):
                for canary in canaries:
                    self._add(canary)
                written.append(path)
        return written

    # ----- seeing them ----------------------------------------------------------------------------

    def scan(self, text: str) -> str | None:
        """The label of the first canary in ``text`` (in any leak form), or ``None``."""
        matcher = self._current_matcher()
        if not matcher or not text:
            return None
        match = matcher.search(text)
        return None if match is None else match.label

    def observe(self, text: str, where: str = "text") -> str | None:
        """Like :meth:`scan`, and a canary found is recorded as the run's trip without raising: for
        places that must not fail mid-way (a line callback, a task's last output). The pipeline
        raises the recorded trip at its next step."""
        label = self.scan(text)
        if label is not None:
            self._trip(label, where)
        return label

    def check(self, text: str, where: str) -> None:
        """Raise :class:`~bot.errors.CanaryTripped` if a canary is in ``text`` (``where`` says what
        the text is, for the message: "the input of a WebFetch call")."""
        label = self.scan(text)
        if label is not None:
            raise self._trip(label, where)

    def as_secrets(self) -> dict[str, str]:
        """label → value of every canary: for a redactor that must also remove them (an artifact
        is scrubbed of canaries as well as reported)."""
        with self._lock:
            return {c.label: c.value for c in self._canaries}

    @property
    def tripped(self) -> CanaryTripped | None:
        """The first trip of the run, if any."""
        return self._tripped

    def raise_if_tripped(self) -> None:
        if self._tripped is not None:
            raise self._tripped

    # ----- internals ------------------------------------------------------------------------------

    def _add(self, canary: Canary) -> None:
        with self._lock:
            self._canaries.append(canary)
            self._matcher = None

    def _current_matcher(self) -> SecretMatcher | None:
        with self._lock:
            if self._matcher is None and self._canaries:
                self._matcher = secret_matcher({c.label: c.value for c in self._canaries})
            return self._matcher

    def _trip(self, label: str, where: str) -> CanaryTripped:
        error = CanaryTripped(label, where)
        with self._lock:
            if self._tripped is None:
                self._tripped = error
        return error


def _write_new(path: Path, text: str) -> bool:
    """Create ``path`` with ``text``, private to its owner; ``False`` if it already exists."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, DECOY_FILE_MODE)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, DECOY_FILE_MODE)  # the umask may have taken bits away; never added any
    return True


def _base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, rest = divmod(number, 62)
        digits = _BASE62[rest] + digits
    return digits.rjust(width, "0")


__all__ = ["DECOY_ENV_NAMES", "DECOY_NETRC_HOSTS", "Canaries", "Canary", "aws_key_pair", "github_token", "npm_token"]
