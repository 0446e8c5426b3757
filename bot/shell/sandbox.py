"""The bubblewrap sandbox (seeds 4.6.3): what a command may touch, and whether to use it.

Trust model. A command the model wrote is untrusted. Inside the sandbox (Linux, ``bwrap``):

* the root file system is read-only; the workspace, the run's scratch directory and the policy's
  additional directories are read-write; ``/tmp`` is the run's own directory (private to the run,
  kept across commands); ``/run`` is empty (host daemons' sockets — Docker's among them — stay
  reachable through a read-only bind, so they are hidden, not just made read-only);
* ``.git/hooks``, ``.git/config`` and ``.github/workflows`` are read-only unless the policy allows
  writes there (a hook or a ``core.fsmonitor`` written by a command would run later, *outside*
  the sandbox, in the bot's own git operations);
* the runner's temporary directory (``RUNNER_TEMP``: step scripts with secrets expanded) and
  well-known credential files in ``HOME`` are hidden;
* new PID, IPC, UTS and network namespaces (no network unless the policy allows it), ``/proc`` of
  the sandbox only, no capabilities, ``no_new_privs`` (``sudo`` cannot escalate), killed with its
  parent.

Outside the sandbox (policy ``off``, ``auto`` without a working ``bwrap``, an excluded command, or
``dangerouslyDisableSandbox`` when the policy allows it), commands still run through ``setpriv``
with ``no_new_privs`` and, when the bot runs as root, without the capabilities that would let them
read the bot's ``/proc/<pid>/environ`` (the bot process is made non-dumpable, see
:func:`bot.shell.env.protect_own_environ`).

Policy keys read from ``PermissionContext.extra`` (:func:`sandbox_settings`):

* ``sandbox``: ``"required"`` (no working sandbox → the run refuses to start) | ``"auto"`` (the
  default: unsandboxed with a warning when ``bwrap`` cannot run) | ``"off"``;
* ``network``: ``true`` lets sandboxed commands use the network (default ``false``);
* ``allow_unsandboxed``: ``true`` honours the model's ``dangerouslyDisableSandbox`` (default ``false``);
* ``excluded_commands``: commands that run outside the sandbox (seeds ``excludedCommands``), as
  ``"docker"``, ``"docker:*"``, ``"docker *"`` or a glob; only a simple command can match;
* ``allow_sudo``: ``true`` drops ``no_new_privs`` for unsandboxed commands (default ``false``).
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal, assert_never

import anyio

from bot.errors import ConfigError, RunError
from bot.shell.env import protect_own_environ
from bot.shell.exec import find_shell, run_process
from bot.core.redact import secrets_from_environ
from bot.tools.context import ToolUseContext

log = logging.getLogger(__name__)

SandboxMode = Literal["required", "auto", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("required", "auto", "off")

#: Credential files and directories under ``HOME`` hidden inside the sandbox.
HOME_CREDENTIALS: tuple[str, ...] = (
    ".git-credentials", ".netrc", ".npmrc", ".pypirc", ".ssh", ".gnupg", ".aws", ".azure", ".kube",
    ".docker", ".config/gh", ".config/gcloud", ".config/hub", ".cargo/credentials", ".cargo/credentials.toml",
)
#: Capabilities that read another process's ``/proc/<pid>/environ`` despite non-dumpability
#: (``ptrace_may_access``: CAP_SYS_PTRACE; on recent kernels CAP_SYS_ADMIN and CAP_PERFMON too).
ENVIRON_CAPABILITIES: tuple[str, ...] = ("sys_ptrace", "sys_admin", "perfmon")
#: How long the availability probe may take.
PROBE_TIMEOUT_S = 10.0


class SandboxUnavailable(RunError):
    """The policy requires the sandbox and it cannot run here: the run refuses to start."""


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    mode: SandboxMode = "auto"
    network: bool = False
    allow_unsandboxed: bool = False
    excluded_commands: tuple[str, ...] = ()
    allow_sudo: bool = False


def sandbox_settings(extra: Mapping[str, object]) -> SandboxSettings:
    """The sandbox keys of a policy's ``extra``. A wrong type is a :class:`ConfigError`: a typo must
    never silently weaken the sandbox."""
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
    return SandboxSettings(mode=mode, excluded_commands=tuple(excluded), **flags)


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


def decide_sandbox(settings: SandboxSettings, *, available: bool, unavailable_reason: str = "",
                   disable_requested: bool = False, excluded: bool = False) -> SandboxChoice:
    """Seeds 4.6.3: no sandbox when it is off, when the command is excluded, or when the model asks
    and the policy allows it; otherwise the sandbox, or — when it cannot run — refuse (``required``)
    or run unsandboxed (``auto``)."""
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


# ----- what the sandbox looks like -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    writable: tuple[Path, ...]
    #: Bound at ``/tmp``: the run's private temporary directory.
    tmp_dir: Path
    #: Read-only inside writable roots (``.git/hooks``...).
    read_only: tuple[Path, ...] = ()
    #: Hidden behind an empty tmpfs (directories) or an empty file (files).
    hidden_dirs: tuple[Path, ...] = ()
    hidden_files: tuple[Path, ...] = ()
    #: An empty regular file to bind over hidden files (a bound ``/dev/null`` cannot be opened).
    empty_file: Path | None = None
    network: bool = False
    #: Shown read-only when the network is allowed (the resolver's file lives under ``/run``).
    resolver_dir: Path | None = None


def bwrap_argv(bwrap: str, spec: SandboxSpec, inner: Sequence[str], *, cwd: Path) -> list[str]:
    """The ``bwrap`` command line for ``inner``. Pure. Order matters: later mounts cover earlier
    ones, so hiding comes before the writable binds and protection after them."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--bind", str(spec.tmp_dir), "/tmp", "--tmpfs", "/run"]
    for directory in spec.hidden_dirs:
        argv += ["--tmpfs", str(directory)]
    if spec.empty_file is not None:
        for file in spec.hidden_files:
            argv += ["--ro-bind", str(spec.empty_file), str(file)]
    for path in spec.writable:
        argv += ["--bind", str(path), str(path)]
    for path in spec.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    if spec.network and spec.resolver_dir is not None:
        argv += ["--ro-bind", str(spec.resolver_dir), str(spec.resolver_dir)]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not spec.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", str(cwd), "--", *inner]
    return argv


def _resolver_dir() -> Path | None:
    """``/etc/resolv.conf`` may point into ``/run`` (systemd-resolved), which the sandbox hides."""
    try:
        target = Path("/etc/resolv.conf").resolve(strict=True)
    except OSError:
        return None
    return target.parent if target.parts[:2] == ("/", "run") else None


def build_spec(*, workspace: Path, scratch_dir: Path, additional_directories: Sequence[Path] = (),
               network: bool = False, allow_git_dir_writes: bool = False, allow_workflow_writes: bool = False,
               environ: Mapping[str, str] | None = None) -> SandboxSpec:
    """The spec for a run. Creates what the binds need: the run's ``/tmp``, an empty file, and the
    protected directories (an empty ``.git/hooks`` or ``.github/workflows`` made read-only cannot be
    filled; one left out could be created)."""
    environ = os.environ if environ is None else environ
    base = scratch_dir / "sandbox"
    tmp_dir = base / "tmp"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    empty = base / "empty"
    empty.touch(exist_ok=True)
    writable = tuple(dict.fromkeys(p for p in (workspace, scratch_dir, *additional_directories) if p.is_dir()))
    read_only: list[Path] = []
    repositories = [workspace, *(d for d in additional_directories if (d / ".git").exists())]
    for root in (r for r in repositories if r in writable):
        git = root / ".git"
        if git.is_dir() and not allow_git_dir_writes:
            (git / "hooks").mkdir(exist_ok=True)
            read_only.append(git / "hooks")
            if (git / "config").is_file():
                read_only.append(git / "config")
        if not allow_workflow_writes:
            workflows = root / ".github" / "workflows"
            try:
                workflows.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            read_only.append(workflows)
    hidden_dirs: list[Path] = []
    hidden_files: list[Path] = []
    candidates = [Path("/var/run")]  # a directory of its own on some systems, a link to /run on most
    if environ.get("RUNNER_TEMP"):
        candidates.append(Path(environ["RUNNER_TEMP"]))
    if environ.get("HOME"):
        candidates += [Path(environ["HOME"]) / rel for rel in HOME_CREDENTIALS]
    for candidate in candidates:
        if candidate == Path("/var/run") and candidate.is_symlink():
            continue
        path = candidate.resolve()  # a link is hidden where it points (bwrap mounts on the target)
        if path.is_dir():
            hidden_dirs.append(path)
        elif path.is_file():
            hidden_files.append(path)
    return SandboxSpec(writable=writable, tmp_dir=tmp_dir, read_only=tuple(read_only),
                       hidden_dirs=tuple(dict.fromkeys(hidden_dirs)), hidden_files=tuple(dict.fromkeys(hidden_files)),
                       empty_file=empty, network=network, resolver_dir=_resolver_dir() if network else None)


# ----- outside the sandbox ---------------------------------------------------------------------------


def unsandboxed_argv(inner: Sequence[str], *, setpriv: str | None, euid: int, allow_sudo: bool = False,
                     droppable: Sequence[str] = ENVIRON_CAPABILITIES) -> list[str]:
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
        listed = subprocess.run([setpriv, "--list-caps"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    known = set(listed.stdout.split())
    return tuple(c for c in ENVIRON_CAPABILITIES if c in known)


# ----- availability --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BwrapProbe:
    path: str | None
    works: bool
    reason: str


_probe_cache: dict[str, BwrapProbe] = {}


async def probe_bwrap(environ: Mapping[str, str] | None = None) -> BwrapProbe:
    """Can ``bwrap`` create the namespaces we need here? Cached per binary for the process."""
    if not sys.platform.startswith("linux"):
        return BwrapProbe(None, False, "the bubblewrap sandbox is Linux-only")
    environ = os.environ if environ is None else environ
    path = shutil.which("bwrap", path=environ.get("PATH"))
    if path is None:
        return BwrapProbe(None, False, "bwrap is not installed (Debian/Ubuntu package `bubblewrap`)")
    if path in _probe_cache:
        return _probe_cache[path]
    true = shutil.which("true") or "/bin/true"
    argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL", "--", true]
    try:
        result = await run_process(argv, cwd=Path("/"), env={"PATH": environ.get("PATH", "/usr/bin:/bin")},
                                   timeout_s=PROBE_TIMEOUT_S)
    except OSError as exc:
        probe = BwrapProbe(path, False, f"bwrap cannot start: {exc}")
    else:
        if result.exit_code == 0:
            probe = BwrapProbe(path, True, f"{path} can create PID, network and mount namespaces")
        else:
            lines = result.stderr.text().strip().splitlines() or [f"exit code {result.exit_code}"]
            probe = BwrapProbe(path, False, f"bwrap cannot create namespaces here: {lines[-1]}")
    _probe_cache[path] = probe
    return probe


# ----- the self-test --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    passed: bool
    detail: str


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    """Proof, before the first command, that the sandbox holds. Goes in the run log."""

    checks: tuple[Check, ...]
    duration_s: float = 0.0

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def failures(self) -> str:
        return "; ".join(f"{c.name}: {c.detail}" for c in self.checks if not c.passed)

    def describe(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        lines = [f"sandbox self-test {verdict} in {self.duration_s * 1000:.0f} ms"]
        lines += [f"  [{'ok' if c.passed else 'FAIL'}] {c.name}: {c.detail}" for c in self.checks]
        return "\n".join(lines)


async def self_test(bwrap: str, spec: SandboxSpec, env: Mapping[str, str], *, cwd: Path,
                    environ: Mapping[str, str] | None = None) -> SelfTestReport:
    """Run three probes in one sandboxed shell: a write outside the writable roots fails (and nothing
    appears on the host), a connection to a listener on the host's loopback fails (unless the policy
    allows network), and no environment readable inside holds an entry of the bot's own."""
    environ = os.environ if environ is None else environ
    started = time.perf_counter()
    token = secrets.token_hex(6)
    targets = [t / f".bot-sandbox-probe-{token}" for t in _outside_candidates(spec, environ)]
    listener = None if spec.network else _listen()
    lines = [f'( : > {shlex.quote(str(t))} ) 2>/dev/null && echo "WROTE {t}"' for t in targets]
    if listener is not None:
        port = listener.getsockname()[1]
        lines.append(f'( exec 3<>/dev/tcp/127.0.0.1/{port} ) 2>/dev/null && echo "CONNECTED"')
    lines.append("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null; echo ENVIRON-DONE")
    inner = [find_shell(env), "-c", "\n".join(lines)]
    try:
        result = await run_process(bwrap_argv(bwrap, spec, inner, cwd=cwd), cwd=cwd, env=env, timeout_s=PROBE_TIMEOUT_S)
        output = result.stdout.text()
        checks = [_write_check(targets, output), _network_check(listener, output),
                  _environ_check(output, env, environ, result.exit_code)]
    finally:
        if listener is not None:
            listener.close()
        for target in targets:
            with contextlib.suppress(OSError):
                target.unlink()
    return SelfTestReport(tuple(checks), time.perf_counter() - started)


def _outside_candidates(spec: SandboxSpec, environ: Mapping[str, str]) -> list[Path]:
    """Host directories a command could write to without the sandbox, outside its writable roots."""
    covered = (*spec.writable, *spec.hidden_dirs, Path("/tmp"), Path("/run"), Path("/var/run"))
    out: list[Path] = [Path("/")]
    for raw in (environ.get("HOME"), str(spec.writable[0].parent) if spec.writable else None):
        if not raw:
            continue
        path = Path(raw).resolve()
        if path.is_dir() and not any(path == c or c in path.parents for c in covered) and path not in out:
            out.append(path)
    return out


def _listen() -> socket.socket | None:
    try:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
    except OSError:
        return None
    return listener


def _write_check(targets: Sequence[Path], output: str) -> Check:
    escaped = [str(t) for t in targets if f"WROTE {t}" in output or t.exists()]
    if escaped:
        return Check("write outside the workspace fails", False, f"wrote {', '.join(escaped)}")
    where = ", ".join(str(t.parent) for t in targets)
    return Check("write outside the workspace fails", True, f"refused in {where}")


def _network_check(listener: socket.socket | None, output: str) -> Check:
    name = "network connection fails"
    if listener is None:
        return Check(name, True, "skipped: the policy allows network")
    try:
        connection, _ = listener.accept()
    except (BlockingIOError, OSError):
        accepted = False
    else:
        connection.close()
        accepted = True
    if accepted or "CONNECTED" in output:
        return Check(name, False, "a connection to the host's loopback succeeded")
    return Check(name, True, "connection to the host's 127.0.0.1 refused (own network namespace)")


def _environ_check(output: str, env: Mapping[str, str], environ: Mapping[str, str], exit_code: int | None) -> Check:
    name = "the parent's environ is unreadable"
    if "ENVIRON-DONE" not in output:
        return Check(name, False, f"the probe did not complete (exit code {exit_code})")
    given = {f"{k}={v}" for k, v in env.items()}
    own = _own_environ_entries() - given
    readable = [line for line in output.splitlines() if "=" in line]
    # The shell sets these itself (SHLVL=1 inside may equal the bot's own SHLVL=1).
    leaked = [line for line in readable if line in own and line.split("=", 1)[0] not in _SHELL_SET_NAMES]
    secret_values = [v for v in secrets_from_environ(environ).values() if v not in env.values()]
    if leaked or any(v in output for v in secret_values):
        names = sorted({line.split("=", 1)[0] for line in leaked})
        return Check(name, False, f"bot environment visible inside: {', '.join(names) or 'a secret value'}")
    return Check(name, True, f"{len(readable)} environ entries readable inside, none of the bot's own")


_SHELL_SET_NAMES = frozenset({"PWD", "OLDPWD", "SHLVL", "_"})


def _own_environ_entries() -> set[str]:
    """The bot's exec-time environment, as the kernel shows it to others."""
    try:
        raw = Path("/proc/self/environ").read_bytes()
    except OSError:
        return {f"{k}={v}" for k, v in os.environ.items()}
    return {e.decode("utf-8", errors="replace") for e in raw.split(b"\0") if e}


# ----- the run's sandbox -----------------------------------------------------------------------------

#: Where the run's :class:`SandboxStatus` lives in ``ToolUseContext.services``.
SERVICE_KEY = "sandbox"


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

    def launch_argv(self, choice: SandboxChoice, inner: Sequence[str], *, cwd: Path) -> list[str]:
        match choice:
            case Sandboxed():
                assert self.bwrap is not None and self.spec is not None
                return bwrap_argv(self.bwrap, self.spec, inner, cwd=cwd)
            case Unsandboxed():
                return unsandboxed_argv(inner, setpriv=self.setpriv, euid=os.geteuid(),
                                        allow_sudo=self.settings.allow_sudo, droppable=self.droppable)
            case Refused(reason):
                raise SandboxUnavailable(reason)
            case _:
                assert_never(choice)


async def prepare_sandbox(settings: SandboxSettings, *, workspace: Path, scratch_dir: Path, env: Mapping[str, str],
                          additional_directories: Sequence[Path] = (), allow_git_dir_writes: bool = False,
                          allow_workflow_writes: bool = False, environ: Mapping[str, str] | None = None,
                          raise_if_required: bool = True) -> SandboxStatus:
    """Probe ``bwrap``, build the spec, run the self-test. ``required`` without a working sandbox
    raises :class:`SandboxUnavailable` (the run refuses to start; with ``raise_if_required=False``
    the status says so and every command is refused); ``auto`` returns a status with a warning for
    the summary. ``env`` is the commands' environment (the self-test runs with it)."""
    environ = os.environ if environ is None else environ
    warnings: list[str] = []
    if not protect_own_environ() and sys.platform.startswith("linux"):
        warnings.append("The bot process could not be made non-dumpable: its /proc/<pid>/environ may be "
                        "readable by unsandboxed commands.")
    setpriv = shutil.which("setpriv", path=environ.get("PATH"))
    droppable = setpriv_capabilities(setpriv) if setpriv else ()
    if setpriv is None and sys.platform.startswith("linux"):
        warnings.append("setpriv (util-linux) was not found: unsandboxed commands run without no_new_privs.")

    def unavailable(reason: str) -> SandboxStatus:
        if settings.mode == "required" and raise_if_required:
            raise SandboxUnavailable(
                f"The policy requires the sandbox (`sandbox: required`), and it cannot run here: {reason}. "
                "Install bubblewrap (`apt-get install bubblewrap`) on a runner that allows namespaces, or set "
                "`sandbox: auto` to run unsandboxed with a warning.")
        warnings.append(f"Shell commands ran WITHOUT the sandbox: {reason}." if settings.mode == "auto" else
                        f"Shell commands were refused: the policy requires the sandbox and {reason}.")
        log.warning("sandbox unavailable (mode %s): %s", settings.mode, reason)
        return SandboxStatus(settings, False, reason, setpriv=setpriv, droppable=droppable, warnings=tuple(warnings))

    if settings.mode == "off":
        warnings.append("The policy turns the sandbox off (`sandbox: off`): shell commands ran unsandboxed.")
        return SandboxStatus(settings, False, "the policy turns the sandbox off", setpriv=setpriv,
                             droppable=droppable, warnings=tuple(warnings))
    probe = await probe_bwrap(environ)
    if not probe.works or probe.path is None:
        return unavailable(probe.reason)
    spec = build_spec(workspace=workspace, scratch_dir=scratch_dir, additional_directories=additional_directories,
                      network=settings.network, allow_git_dir_writes=allow_git_dir_writes,
                      allow_workflow_writes=allow_workflow_writes, environ=environ)
    report = await self_test(probe.path, spec, env, cwd=workspace, environ=environ)
    log.info("%s", report.describe())
    if not report.passed:
        return unavailable(f"the sandbox self-test failed ({report.failures()})")
    return SandboxStatus(settings, True, probe.reason, bwrap=probe.path, spec=spec, self_test=report,
                         setpriv=setpriv, droppable=droppable, warnings=tuple(warnings))


async def ensure_sandbox(context: ToolUseContext, env: Mapping[str, str]) -> SandboxStatus:
    """The run's sandbox status, prepared (probe and self-test) before the first command and kept in
    ``context.services["sandbox"]``. The session may prepare it earlier, to refuse a ``required`` run
    before any model call; prepared here, a ``required`` failure refuses every command instead."""
    status = context.services.get(SERVICE_KEY)
    if isinstance(status, SandboxStatus):
        return status
    lock = context.services.setdefault(f"{SERVICE_KEY}.lock", anyio.Lock())
    async with lock:
        status = context.services.get(SERVICE_KEY)
        if isinstance(status, SandboxStatus):
            return status
        permission = context.permission
        status = await prepare_sandbox(
            sandbox_settings(permission.extra), workspace=context.workspace, scratch_dir=context.scratch_dir,
            env=env, additional_directories=permission.additional_directories,
            allow_git_dir_writes=permission.allow_git_dir_writes,
            allow_workflow_writes=permission.allow_workflow_writes, raise_if_required=False)
        context.services[SERVICE_KEY] = status
        return status
