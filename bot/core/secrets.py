"""The bot's secrets, held in one object instead of the process environment.

Trust model. The runner hands the bot its credentials as environment variables: the GitHub token,
the model key, ``ACTIONS_RUNTIME_TOKEN``/``ACTIONS_ID_TOKEN_REQUEST_*``, cloud keys, secret action
inputs. Left in ``os.environ`` they reach every process started without an explicit environment
(a library's ``subprocess`` call, GitPython's default) and every ``os.environ`` dump. So at start-up
(:func:`capture_process_secrets`, called by the CLI before anything else) every variable whose name
says it is a secret leaves ``os.environ`` and lives here; the code that needs one asks for it by
name (:func:`secret`), or for the full view (:func:`full_environ`) when it resolves configuration
such as ``${GITHUB_TOKEN}`` in a trusted ``.mcp.json``. Redactors read :func:`process_secrets`.

``/proc/<pid>/environ`` still shows the environment the process was started with; the bot makes
itself non-dumpable so that its children cannot read it (``bot.shell.execute.env.protect_own_environ``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, MutableMapping

from bot.core.redact import secrets_from_environ

#: Named like secrets but holding a path that a library reads from the environment itself (Google's
#: auth library for Vertex). The path is no secret; it still never reaches a child (allowlists).
KEEP_IN_ENVIRON = frozenset({"GOOGLE_APPLICATION_CREDENTIALS"})

_lock = threading.Lock()
_captured: dict[str, str] = {}


def capture_process_secrets(
    environ: MutableMapping[str, str] | None = None, extra_names: Iterable[str] = ()
) -> dict[str, str]:
    """Move every secret-named variable (and ``extra_names``) out of ``environ`` (``os.environ``)
    into the store; returns what this call moved. Safe to call more than once: later calls merge."""
    environ = os.environ if environ is None else environ
    found = {k: v for k, v in secrets_from_environ(environ, extra_names).items() if k not in KEEP_IN_ENVIRON}
    with _lock:
        for name in found:
            # The raw value, not the stripped one: a consumer gets exactly what the runner set.
            _captured[name] = environ.pop(name, found[name])
    return dict(found)


def secret(name: str) -> str | None:
    """A secret by name: captured, else still in the environment (library use without the CLI)."""
    with _lock:
        value = _captured.get(name)
    return value if value is not None else os.environ.get(name)


def process_secrets(extra_names: Iterable[str] = ()) -> dict[str, str]:
    """Every secret this process knows: the captured ones and any secret-named variable still in
    ``os.environ`` (set after start-up, or when the CLI did not capture)."""
    with _lock:
        known = dict(_captured)
    known.update(secrets_from_environ(os.environ, extra_names))
    return known


def full_environ() -> dict[str, str]:
    """``os.environ`` with the captured secrets put back: the view trusted configuration is resolved
    against. Never hand this to a subprocess; build its environment from an allowlist."""
    with _lock:
        return {**os.environ, **_captured}


def forget_captured() -> None:
    """Empty the store (tests: one test's secrets must not be another's)."""
    with _lock:
        _captured.clear()


__all__ = ["capture_process_secrets", "forget_captured", "full_environ", "process_secrets", "secret"]
