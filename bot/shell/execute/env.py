"""The environment of every shell command: built from an allowlist, never copied from the bot's.

Trust model. The bot's own environment holds the GitHub token, the model key, the runner's
``ACTIONS_RUNTIME_TOKEN`` and ``ACTIONS_ID_TOKEN_REQUEST_*``, cloud credentials and the action's
inputs (``INPUT_*``). None of it may reach a command the model wrote. So the child environment
starts empty and receives:

1. :data:`BASE_NAMES` — what programs need to run (``PATH``, ``HOME``, locale, ``TZ``…), copied
   when set;
2. :data:`CI_NAMES` — GitHub Actions' default variables that are not secrets (repository, ref,
   sha, run id…). Deliberately *not*: ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_OUTPUT``,
   ``GITHUB_STATE`` and ``GITHUB_STEP_SUMMARY`` (files through which a command would change the
   environment or outputs of the workflow's *later* steps, which do hold secrets),
   ``GITHUB_EVENT_PATH`` (untrusted text), ``GITHUB_TOKEN`` and every ``ACTIONS_*`` / ``INPUT_*``;
3. :data:`HEADLESS_DEFAULTS` — no pager, no prompt, no editor: nobody is at the terminal;
4. what the policy adds (``PermissionContext.extra``):

   * ``env`` — a mapping ``NAME: value`` of literal variables;
   * ``env_passthrough`` — names copied from the bot's environment when set; a name that looks
     like a secret (:func:`bot.core.redact.is_secret_name`) is refused, and so is any value that
     equals one of the bot's secret values, whatever its name.

A copied environment is not the only way to read the bot's secrets: ``/proc/<pid>/environ`` of
the bot process is. :func:`protect_own_environ` makes the bot process non-dumpable, which makes
its ``/proc`` files unreadable to its children (they run without ``CAP_SYS_PTRACE``; see
:mod:`bot.shell.sandbox.status`).
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.core.redact import is_secret_name, secrets_from_environ

log = logging.getLogger(__name__)

BASE_NAMES: tuple[str, ...] = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_MONETARY",
)

#: GitHub Actions' default environment variables that carry no secret and no write access.
CI_NAMES: tuple[str, ...] = (
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_ACTOR",
    "GITHUB_ACTOR_ID",
    "GITHUB_TRIGGERING_ACTOR",
    "GITHUB_REPOSITORY",
    "GITHUB_REPOSITORY_ID",
    "GITHUB_REPOSITORY_OWNER",
    "GITHUB_REPOSITORY_OWNER_ID",
    "GITHUB_REF",
    "GITHUB_REF_NAME",
    "GITHUB_REF_TYPE",
    "GITHUB_REF_PROTECTED",
    "GITHUB_HEAD_REF",
    "GITHUB_BASE_REF",
    "GITHUB_SHA",
    "GITHUB_EVENT_NAME",
    "GITHUB_JOB",
    "GITHUB_WORKFLOW",
    "GITHUB_WORKFLOW_REF",
    "GITHUB_WORKFLOW_SHA",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_NUMBER",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_RETENTION_DAYS",
    "GITHUB_SERVER_URL",
    "GITHUB_API_URL",
    "GITHUB_GRAPHQL_URL",
    "GITHUB_WORKSPACE",
    "RUNNER_OS",
    "RUNNER_ARCH",
    "RUNNER_NAME",
    "RUNNER_ENVIRONMENT",
    "RUNNER_TOOL_CACHE",
)

#: Never interactive: a pager or an editor would wait forever for a human.
HEADLESS_DEFAULTS: Mapping[str, str] = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "DEBIAN_FRONTEND": "noninteractive",
    "TERM": "dumb",
    # git never runs a repository it merely finds (a bare repository the model wrote, whose config
    # could name a command): only the workspace's own, or one named with --git-dir.
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "safe.bareRepository",
    "GIT_CONFIG_VALUE_0": "explicit",
}

#: Used when the bot's own environment has no PATH.
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True, slots=True)
class ChildEnv:
    env: dict[str, str]
    #: Policy-requested names that were refused, with why (for the run log).
    refused: tuple[str, ...] = field(default=())


def build_child_env(
    parent: Mapping[str, str],
    *,
    policy_env: Mapping[str, str] | None = None,
    passthrough: Iterable[str] = (),
    overrides: Mapping[str, str] | None = None,
    secret_names: Iterable[str] = (),
) -> ChildEnv:
    """The child environment for a command. Pure: ``parent`` is the bot's environment.

    ``overrides`` are the runner's own settings (the sandbox's ``TMPDIR``...), applied last.
    ``secret_names`` are more names whose values count as secrets (what the policy marks secret).
    """
    secret_values = set(secrets_from_environ(parent, secret_names).values())
    env: dict[str, str] = {}
    for name in (*BASE_NAMES, *CI_NAMES):
        value = parent.get(name)
        if value is not None and value not in secret_values:
            env[name] = value
    env.setdefault("PATH", DEFAULT_PATH)
    env.update(HEADLESS_DEFAULTS)
    refused: list[str] = []
    for name in passthrough:
        value = parent.get(name)
        if value is None:
            continue
        if is_secret_name(name):
            refused.append(f"{name}: the name looks like a secret")
        elif value in secret_values:
            refused.append(f"{name}: its value is one of the bot's secrets")
        else:
            env[name] = value
    for name, value in (policy_env or {}).items():
        if value in secret_values:
            refused.append(f"{name}: its value is one of the bot's secrets")
        else:
            env[name] = value
    env.update(overrides or {})
    return ChildEnv(env, tuple(refused))


def policy_env_settings(extra: Mapping[str, object]) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """``(env, env_passthrough, secret_env)`` from a policy's ``extra``, types checked.

    Ill-typed entries are dropped with a warning: they never widen the environment.
    """
    env: dict[str, str] = {}
    raw_env = extra.get("env")
    if isinstance(raw_env, Mapping):
        for name, value in raw_env.items():
            if isinstance(name, str) and isinstance(value, str | int | float) and not isinstance(value, bool):
                env[name] = str(value)
            else:
                log.warning("policy env entry %r ignored: expected NAME: string", name)
    elif raw_env is not None:
        log.warning("policy `env` ignored: expected a mapping of NAME: value")
    return env, _names(extra.get("env_passthrough"), "env_passthrough"), _names(extra.get("secret_env"), "secret_env")


def _names(raw: object, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, list | tuple) and all(isinstance(n, str) for n in raw):
        return tuple(raw)
    log.warning("policy `%s` ignored: expected a list of names", key)
    return ()


_PR_SET_DUMPABLE = 4
_protected = False


def protect_own_environ() -> bool:
    """Make this process non-dumpable (once): its ``/proc/<pid>/environ``, ``mem`` and ``fd`` then
    belong to root and need ``CAP_SYS_PTRACE``, which commands never have. Linux only; returns
    whether the protection is in place. ssh-agent protects its keys the same way."""
    global _protected
    if _protected:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            log.warning("prctl(PR_SET_DUMPABLE, 0) failed: errno %d", ctypes.get_errno())
            return False
    except (OSError, AttributeError) as exc:
        log.warning("cannot make the bot process non-dumpable: %s", exc)
        return False
    _protected = True
    return True
