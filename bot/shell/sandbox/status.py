"""The bubblewrap sandbox (seeds 4.6.3): whether a command runs in it, and the run's sandbox.

Trust model. A command the model wrote is untrusted, and so is everything it leaves in the
workspace. Inside the sandbox (Linux, ``bwrap``; the layout is :mod:`bot.shell.sandbox.root`):

* the root holds only what commands need, read-only: the system's programs and libraries,
  ``/etc`` without its secrets, the toolchains on ``PATH``, a view of ``HOME`` without
  credentials or sockets; no host ``/var``, ``/run``, ``/tmp``, other homes, or UNIX sockets
  (connecting to one needs no write, so a read-only bind would not stop it);
* read-write: the workspace, the policy's additional directories and the sandbox's own
  sub-directory of the scratch directory (``/tmp``, caches); the transcript and every other file
  the bot keeps stay out of reach;
* every git directory is a read-only mount point of its own (:mod:`bot.shell.sandbox.git_dirs`), and
  ``.github/workflows`` is read-only: what the bot's host-side git later reads cannot be changed,
  renamed or redirected;
* new PID, IPC, UTS and network namespaces (no network unless the policy allows it), ``/proc`` of
  the sandbox only, no capabilities, ``no_new_privs`` (``sudo`` cannot escalate), killed with its
  parent. A self-test proves it before the first command (:mod:`bot.shell.sandbox.selftest`); a
  probe says why it cannot run and what fixes it (:mod:`bot.shell.sandbox.probe`).

Outside the sandbox (policy ``off``, ``auto`` without a working ``bwrap`` outside GitHub Actions,
an excluded command, or ``dangerouslyDisableSandbox`` when the policy allows it), commands still
run through ``setpriv`` with ``no_new_privs`` and, when the bot runs as root, without the
capabilities that would let them read the bot's ``/proc/<pid>/environ`` (the bot process is made
non-dumpable, see :func:`bot.shell.execute.env.protect_own_environ`).

Policy keys read from ``PermissionContext.extra`` (:func:`sandbox_settings`):

* ``sandbox``: ``"required"`` (no working sandbox → the run refuses to start) | ``"auto"`` (the
  default: in GitHub Actions the same as ``required``; elsewhere unsandboxed with a loud warning
  when ``bwrap`` cannot run) | ``"off"`` (the only way to run commands unsandboxed in Actions);
* ``network``: ``true`` lets sandboxed commands use the network (default ``false``);
* ``allow_unsandboxed``: ``true`` honours the model's ``dangerouslyDisableSandbox`` (default ``false``);
* ``excluded_commands``: commands that run outside the sandbox (seeds ``excludedCommands``), as
  ``"docker"``, ``"docker:*"``, ``"docker *"`` or a glob; only a simple command can match;
* ``allow_sudo``: ``true`` drops ``no_new_privs`` for unsandboxed commands (default ``false``).
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Literal, assert_never

import anyio

from bot.core.search_path import host_search_path
from bot.core.services import ServiceKey
from bot.errors import ConfigError, RunError
from bot.interface.context import ToolUseContext
from bot.shell.execute.env import protect_own_environ
from bot.shell.sandbox.credentials import HOME_CREDENTIALS
from bot.shell.sandbox.probe import PROBE_TIMEOUT_S, BwrapProbe, Diagnosis, diagnose, probe_bwrap
from bot.shell.sandbox.root import SandboxSpec, build_spec, bwrap_argv, sandbox_scratch
from bot.shell.sandbox.selftest import Check, SelfTestReport, self_test

log = logging.getLogger(__name__)

SandboxMode = Literal["required", "auto", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("required", "auto", "off")

#: Capabilities that read another process's ``/proc/<pid>/environ`` despite non-dumpability
#: (``ptrace_may_access``: CAP_SYS_PTRACE; on recent kernels CAP_SYS_ADMIN and CAP_PERFMON too).
ENVIRON_CAPABILITIES: tuple[str, ...] = ("sys_ptrace", "sys_admin", "perfmon")
#: The bot's variables the sandbox's layout depends on (where HOME, the toolchains, the runner's
#: files are); kept in the status so a sub-agent's worktree gets the same layout.
SPEC_ENV_NAMES: tuple[str, ...] = ("HOME", "PATH", "RUNNER_TEMP", "RUNNER_TOOL_CACHE", "SSH_AUTH_SOCK")
#: What a refused ``auto`` says in GitHub Actions.
ACTIONS_AUTO = (
    "in GitHub Actions, `sandbox: auto` refuses shell commands without a working sandbox "
    "(set `sandbox: off` in the policy to run them unsandboxed)"
)


class SandboxUnavailable(RunError):
    """The policy requires the sandbox and it cannot run here: the run refuses to start."""


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    #: The policy's word. What it means here is :attr:`required`.
    mode: SandboxMode = "auto"
    network: bool = False
    allow_unsandboxed: bool = False
    excluded_commands: tuple[str, ...] = ()
    allow_sudo: bool = False
    #: Running in GitHub Actions, where ``auto`` fails closed: users' runs are where a command
    #: running unsandboxed reaches real secrets and later steps.
    in_actions: bool = False

    @property
    def required(self) -> bool:
        """Must commands be refused when the sandbox cannot run?"""
        return self.mode == "required" or (self.mode == "auto" and self.in_actions)


def sandbox_settings(extra: Mapping[str, object], *, environ: Mapping[str, str] | None = None) -> SandboxSettings:
    """The sandbox keys of a policy's ``extra``. A wrong type is a :class:`ConfigError`: a typo must
    never silently weaken the sandbox. ``environ`` (default ``os.environ``) says whether this is
    GitHub Actions (``GITHUB_ACTIONS=true``)."""
    environ = os.environ if environ is None else environ
    mode = extra.get("sandbox", "auto")
    if mode not in SANDBOX_MODES:
        raise ConfigError(f"policy key `sandbox` must be one of {', '.join(SANDBOX_MODES)}, got {mode!r}")
    excluded = extra.get("excluded_commands", ())
    if isinstance(excluded, str):
        excluded = (excluded,)
    if not isinstance(excluded, list | tuple) or not all(isinstance(p, str) for p in excluded):
        raise ConfigError("policy key `excluded_commands` must be a list of command patterns")
    flags = {}
    for key in ("network", "allow_unsandboxed", "allow_sudo"):
        value = extra.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"policy key `{key}` must be true or false, got {value!r}")
        flags[key] = value
    return SandboxSettings(
        mode=mode, excluded_commands=tuple(excluded), in_actions=environ.get("GITHUB_ACTIONS") == "true", **flags
    )


# ----- the decision (seeds shouldUseSandbox) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sandboxed:
    pass


@dataclass(frozen=True, slots=True)
class Unsandboxed:
    reason: str


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str


SandboxChoice = Sandboxed | Unsandboxed | Refused


def decide_sandbox(
    settings: SandboxSettings,
    *,
    available: bool,
    unavailable_reason: str = "",
    disable_requested: bool = False,
    excluded: bool = False,
) -> SandboxChoice:
    """Seeds 4.6.3: no sandbox when it is off, when the command is excluded, or when the model asks
    and the policy allows it; otherwise the sandbox, or — when it cannot run — refuse (``required``,
    and ``auto`` in GitHub Actions) or run unsandboxed (``auto`` elsewhere)."""
    if settings.mode == "off":
        return Unsandboxed("the policy turns the sandbox off")
    if excluded:
        return Unsandboxed("the command is in the policy's excluded_commands")
    if disable_requested and settings.allow_unsandboxed:
        return Unsandboxed("dangerouslyDisableSandbox, allowed by the policy")
    if available:
        return Sandboxed()
    if settings.mode == "required":
        return Refused(f"the policy requires the sandbox, and it cannot run here: {unavailable_reason}")
    if settings.required:
        return Refused(f"{ACTIONS_AUTO}, and it cannot run here: {unavailable_reason}")
    return Unsandboxed(f"the sandbox cannot run here: {unavailable_reason}")


_SHELL_SYNTAX = re.compile(r"[;&|<>`$(){}\n\\*?\[\]~#]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def is_excluded_command(command: str, patterns: Sequence[str]) -> bool:
    """Does the policy exclude this command from the sandbox? Fail-closed: only a *simple* command
    (no operators, expansions, redirections or globs) can match; leading ``VAR=value`` assignments
    are stripped. Patterns: ``docker`` (exact), ``docker:*`` / ``docker *`` (the word and anything
    after it), or a glob over the whole command."""
    if not patterns or _SHELL_SYNTAX.search(command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False
    text = " ".join(words)
    for raw in patterns:
        pattern = raw.strip()
        for suffix in (":*", " *"):
            if pattern.endswith(suffix):
                prefix = pattern[: -len(suffix)]
                if text == prefix or text.startswith(prefix + " "):
                    return True
                break
        else:
            if text == pattern or ("*" in pattern and fnmatch.fnmatchcase(text, pattern)):
                return True
    return False


# ----- outside the sandbox ---------------------------------------------------------------------------


def unsandboxed_argv(
    inner: Sequence[str],
    *,
    setpriv: str | None,
    euid: int,
    allow_sudo: bool = False,
    droppable: Sequence[str] = ENVIRON_CAPABILITIES,
) -> list[str]:
    """``setpriv`` in front of ``inner``: ``no_new_privs`` unless ``allow_sudo``; as root, without
    the capabilities that read other processes' environments. Pure."""
    if setpriv is None:
        return list(inner)
    options: list[str] = []
    if not allow_sudo:
        options.append("--no-new-privs")
    if euid == 0 and droppable:
        options += [f"--bounding-set=-{',-'.join(droppable)}", "--inh-caps=-all"]
    return [setpriv, *options, *inner] if options else list(inner)


@cache
def setpriv_capabilities(setpriv: str) -> tuple[str, ...]:
    """The capability names this ``setpriv`` knows, among :data:`ENVIRON_CAPABILITIES` (an older
    util-linux does not know ``perfmon`` and would refuse the whole option)."""
    try:
        # An empty environment: setpriv is named by its path and only lists names it knows.
        listed = subprocess.run(
            [setpriv, "--list-caps"], capture_output=True, text=True, timeout=5, check=False, env={}
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    known = set(listed.stdout.split())
    return tuple(c for c in ENVIRON_CAPABILITIES if c in known)


# ----- the run's sandbox -----------------------------------------------------------------------------

#: Where the run's :class:`SandboxStatus` lives in ``ToolUseContext.services``.
SERVICE_KEY: ServiceKey[SandboxStatus] = ServiceKey("sandbox")
#: Where statuses derived for other workspaces (sub-agents' worktrees) are kept, by workspace.
WORKSPACES_KEY: ServiceKey[dict[Path, SandboxStatus]] = ServiceKey("sandbox.workspaces")
_LOCK_KEY: ServiceKey[anyio.Lock] = ServiceKey("sandbox.lock")


@dataclass(frozen=True, slots=True)
class SpecRequest:
    """What a spec was built from, so that the same layout can be built for another workspace."""

    workspace: Path
    scratch_dir: Path
    additional_directories: tuple[Path, ...] = ()
    allow_git_dir_writes: bool = False
    allow_workflow_writes: bool = False
    network: bool = False
    #: The bot's :data:`SPEC_ENV_NAMES` (never a secret: the layout needs only paths).
    environ: tuple[tuple[str, str], ...] = ()
    command_path: str | None = None

    def build(self, workspace: Path | None = None) -> SandboxSpec:
        return build_spec(
            workspace=workspace or self.workspace,
            scratch_dir=self.scratch_dir,
            additional_directories=self.additional_directories,
            network=self.network,
            allow_git_dir_writes=self.allow_git_dir_writes,
            allow_workflow_writes=self.allow_workflow_writes,
            environ=dict(self.environ),
            command_path=self.command_path,
        )


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """What the run knows about its sandbox: stored in ``context.services["sandbox"]``."""

    settings: SandboxSettings
    available: bool
    reason: str
    bwrap: str | None = None
    spec: SandboxSpec | None = None
    self_test: SelfTestReport | None = None
    setpriv: str | None = None
    droppable: tuple[str, ...] = ()
    #: For the run summary (``auto`` without a sandbox, missing ``setpriv``...).
    warnings: tuple[str, ...] = field(default=())
    #: Why bwrap cannot run here, and the fix (``None`` when it can, or was not asked).
    diagnosis: Diagnosis | None = None
    request: SpecRequest | None = None

    def launch_argv(self, choice: SandboxChoice, inner: Sequence[str], *, cwd: Path) -> list[str]:
        """The command line that runs ``inner`` as ``choice`` says: in the sandbox, or
        unsandboxed through ``setpriv``; a :class:`Refused` choice raises :class:`SandboxUnavailable`."""
        match choice:
            case Sandboxed():
                assert self.bwrap is not None and self.spec is not None
                return bwrap_argv(self.bwrap, self.spec, inner, cwd=cwd)
            case Unsandboxed():
                return unsandboxed_argv(
                    inner,
                    setpriv=self.setpriv,
                    euid=os.geteuid(),
                    allow_sudo=self.settings.allow_sudo,
                    droppable=self.droppable,
                )
            case Refused(reason):
                raise SandboxUnavailable(reason)
            case _:
                assert_never(choice)

    def command_env(self, choice: SandboxChoice, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` for a command run as ``choice``: in the sandbox, ``TMPDIR`` is the run's ``/tmp``
        and ``XDG_CACHE_HOME`` the sandbox's own cache (``HOME``'s is read-only there)."""
        out = dict(env)
        if isinstance(choice, Sandboxed) and self.spec is not None:
            out["TMPDIR"] = "/tmp"
            if self.spec.cache_dir is not None:
                out["XDG_CACHE_HOME"] = str(self.spec.cache_dir)
        return out

    def for_workspace(self, workspace: Path) -> SandboxStatus:
        """The same sandbox for another workspace (a sub-agent's worktree): same checks, the
        layout rebuilt around it. Unchanged when it is the same workspace or there is no sandbox."""
        if self.spec is None or self.request is None or self.request.workspace == workspace:
            return self
        request = replace(self.request, workspace=workspace)
        return replace(self, spec=request.build(), request=request)


def _unavailable_message(settings: SandboxSettings, reason: str) -> str:
    if settings.mode == "required":
        return (
            f"The policy requires the sandbox (`sandbox: required`), and it cannot run here: {reason}. "
            "Or set `sandbox: auto` to run unsandboxed with a warning (outside GitHub Actions)."
        )
    return (
        f"In GitHub Actions, `sandbox: auto` refuses to run shell commands without a working sandbox, and it "
        f"cannot run here: {reason}. Or set `sandbox: off` in the policy to run them unsandboxed."
    )


async def prepare_sandbox(
    settings: SandboxSettings,
    *,
    workspace: Path,
    scratch_dir: Path,
    env: Mapping[str, str],
    additional_directories: Sequence[Path] = (),
    allow_git_dir_writes: bool = False,
    allow_workflow_writes: bool = False,
    environ: Mapping[str, str] | None = None,
    raise_if_required: bool = True,
) -> SandboxStatus:
    """Probe ``bwrap``, build the spec, run the self-test. When the sandbox cannot run and the
    settings require it (``required``, or ``auto`` in GitHub Actions) this raises
    :class:`SandboxUnavailable` (the run refuses to start; with ``raise_if_required=False`` the
    status says so and every command is refused); ``auto`` elsewhere returns a status with a loud
    warning. ``env`` is the commands' environment (the self-test runs with it), ``environ`` the
    bot's (default ``os.environ``)."""
    environ = os.environ if environ is None else environ
    # bwrap and setpriv run on the host: found on a PATH the workspace has no part in (a planted
    # `bwrap` in `$GITHUB_WORKSPACE/node_modules/.bin` would be a sandbox that is none).
    host_path = host_search_path(environ.get("PATH"), (workspace, *additional_directories))
    environ = {**environ, "PATH": host_path} if host_path is not None else environ
    warnings: list[str] = []
    if not protect_own_environ() and sys.platform.startswith("linux"):
        warnings.append(
            "The bot process could not be made non-dumpable: its /proc/<pid>/environ may be "
            "readable by unsandboxed commands."
        )
    setpriv = shutil.which("setpriv", path=environ.get("PATH"))
    droppable = setpriv_capabilities(setpriv) if setpriv else ()
    if setpriv is None and sys.platform.startswith("linux"):
        warnings.append("setpriv (util-linux) was not found: unsandboxed commands run without no_new_privs.")

    def unavailable(reason: str, diagnosis: Diagnosis | None) -> SandboxStatus:
        if settings.required and raise_if_required:
            raise SandboxUnavailable(_unavailable_message(settings, reason))
        if settings.required:
            warnings.append(f"Shell commands were refused: {_unavailable_message(settings, reason)}")
            log.error("sandbox unavailable, shell commands are refused: %s", reason)
        else:
            warnings.append(
                f"⚠ Shell commands ran WITHOUT the sandbox: {reason}. Code the model wrote could read "
                "and change everything this user can and reach the network. Set `sandbox: required` "
                "to refuse them instead."
            )
            log.warning(
                "\n%s\n⚠ Shell commands will run WITHOUT the sandbox (`sandbox: auto`): %s\n"
                "⚠ Code the model writes can read and change everything this user can. Set "
                "`sandbox: required` to refuse instead.\n%s",
                "⚠" * 40,
                reason,
                "⚠" * 40,
            )
        return SandboxStatus(
            settings, False, reason, setpriv=setpriv, droppable=droppable, warnings=tuple(warnings), diagnosis=diagnosis
        )

    if settings.mode == "off":
        warnings.append("The policy turns the sandbox off (`sandbox: off`): shell commands ran unsandboxed.")
        return SandboxStatus(
            settings,
            False,
            "the policy turns the sandbox off",
            setpriv=setpriv,
            droppable=droppable,
            warnings=tuple(warnings),
        )
    probe: BwrapProbe = await probe_bwrap(environ)
    if not probe.works or probe.path is None:
        return unavailable(probe.reason, probe.diagnosis)
    request = SpecRequest(
        workspace=workspace,
        scratch_dir=scratch_dir,
        additional_directories=tuple(additional_directories),
        allow_git_dir_writes=allow_git_dir_writes,
        allow_workflow_writes=allow_workflow_writes,
        network=settings.network,
        environ=tuple((k, environ[k]) for k in SPEC_ENV_NAMES if k in environ),
        command_path=env.get("PATH"),
    )
    spec = request.build()
    report = await self_test(probe.path, spec, env, cwd=workspace, environ=environ, scratch_dir=scratch_dir)
    log.info("%s", report.describe())
    if not report.passed:
        return unavailable(f"the sandbox self-test failed ({report.failures()})", None)
    return SandboxStatus(
        settings,
        True,
        probe.reason,
        bwrap=probe.path,
        spec=spec,
        self_test=report,
        setpriv=setpriv,
        droppable=droppable,
        warnings=tuple(warnings),
        request=request,
    )


async def ensure_sandbox(context: ToolUseContext, env: Mapping[str, str]) -> SandboxStatus:
    """The run's sandbox status for ``context.workspace``, prepared (probe and self-test) before
    the first command and kept in ``context.services["sandbox"]``. A run's session prepares it while
    the first model request is out, and ends a ``required`` run that cannot have it before any tool
    runs; prepared here, a ``required`` failure refuses every command instead. A sub-agent in its
    own worktree gets the same sandbox laid out around that worktree."""
    status = context.services.get(SERVICE_KEY)
    if not isinstance(status, SandboxStatus):
        lock = context.services.setdefault(_LOCK_KEY, anyio.Lock())
        async with lock:
            status = context.services.get(SERVICE_KEY)
            if not isinstance(status, SandboxStatus):
                permission = context.permission
                status = await prepare_sandbox(
                    sandbox_settings(permission.extra),
                    workspace=context.workspace,
                    scratch_dir=context.scratch_dir,
                    env=env,
                    additional_directories=permission.additional_directories,
                    allow_git_dir_writes=permission.allow_git_dir_writes,
                    allow_workflow_writes=permission.allow_workflow_writes,
                    raise_if_required=False,
                )
                context.services[SERVICE_KEY] = status
    if status.request is None or status.request.workspace == context.workspace:
        return status
    derived = context.services.setdefault(WORKSPACES_KEY, {})
    if context.workspace not in derived:
        derived[context.workspace] = status.for_workspace(context.workspace)
    found = derived[context.workspace]
    assert isinstance(found, SandboxStatus)
    return found


__all__ = [
    "ENVIRON_CAPABILITIES",
    "HOME_CREDENTIALS",
    "PROBE_TIMEOUT_S",
    "SANDBOX_MODES",
    "SERVICE_KEY",
    "SPEC_ENV_NAMES",
    "BwrapProbe",
    "Check",
    "Diagnosis",
    "Refused",
    "SandboxChoice",
    "SandboxMode",
    "SandboxSettings",
    "SandboxSpec",
    "SandboxStatus",
    "SandboxUnavailable",
    "Sandboxed",
    "SelfTestReport",
    "SpecRequest",
    "Unsandboxed",
    "build_spec",
    "bwrap_argv",
    "decide_sandbox",
    "diagnose",
    "ensure_sandbox",
    "is_excluded_command",
    "prepare_sandbox",
    "probe_bwrap",
    "sandbox_scratch",
    "sandbox_settings",
    "self_test",
    "setpriv_capabilities",
    "unsandboxed_argv",
]
