"""The sandbox's self-test: proof, before the first command, that it holds.

One sandboxed shell tries what a hostile command would, and the host checks what happened:

* a write outside the writable roots fails — in ``/``, ``HOME``, the workspace's parent and the
  run's scratch directory (the transcript's), and nothing appears on the host;
* a connection to a listener on the host's loopback fails (unless the policy allows network);
* no host UNIX socket connects: the well-known daemons' (Docker, containerd, Podman, D-Bus, the
  SSH agent) and one the self-test itself listens on in a host directory outside ``/tmp`` and
  ``/run`` (read-only binds do not stop ``connect``; only not showing the socket does);
* no environment readable inside holds an entry of the bot's own.

When the shell does not even start, bwrap's own error is diagnosed (:func:`bot.shell.sandbox.probe.diagnose`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.core.redact import secrets_from_environ
from bot.core.secrets import process_secrets
from bot.shell.execute.process import find_shell, run_process
from bot.shell.sandbox.probe import PROBE_TIMEOUT_S, diagnose, read_proc_readings
from bot.shell.sandbox.root import SandboxSpec, bwrap_argv

#: Host daemons' sockets a sandboxed command must not reach (``{uid}`` is the bot's).
WELL_KNOWN_SOCKETS: tuple[str, ...] = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/dbus/system_bus_socket",
    "/run/user/{uid}/bus",
    "/run/user/{uid}/docker.sock",
    "/run/user/{uid}/podman/podman.sock",
    "/run/user/{uid}/gnupg/S.gpg-agent",
    "{home}/.docker/run/docker.sock",
)
#: ``sun_path`` holds 108 bytes on Linux; a longer path cannot be listened on.
MAX_SOCKET_PATH = 107

#: Inside: one python3 tries every connection (a python3 per socket cost ~20 ms each on the way to
#: the first model request); without python3, a socket that can be seen counts as reachable.
_CONNECT_ALL = (
    "import socket, sys\n"
    "for p in sys.argv[1:]:\n"
    "    s = socket.socket(socket.AF_UNIX)\n"
    "    try:\n"
    "        s.connect(p)\n"
    "        print('SOCKET-CONNECTED ' + p)\n"
    "    except OSError:\n"
    "        pass\n"
    "    finally:\n"
    "        s.close()\n"
)


def _connect_line(paths: Sequence[Path]) -> str:
    quoted = " ".join(shlex.quote(str(p)) for p in paths)
    return (
        f"if command -v python3 >/dev/null 2>&1; then python3 -c {shlex.quote(_CONNECT_ALL)} {quoted} 2>/dev/null; "
        f'else for p in {quoted}; do [ -S "$p" ] && echo "SOCKET-VISIBLE $p"; done; fi'
    )


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


async def self_test(
    bwrap: str,
    spec: SandboxSpec,
    env: Mapping[str, str],
    *,
    cwd: Path,
    environ: Mapping[str, str] | None = None,
    scratch_dir: Path | None = None,
) -> SelfTestReport:
    """Run the probes in one sandboxed shell (see the module docstring). ``env`` is the commands'
    environment, ``environ`` the bot's, ``scratch_dir`` the run's files the sandbox must not write."""
    environ = os.environ if environ is None else environ
    started = time.perf_counter()
    token = secrets.token_hex(6)
    targets = [t / f".bot-sandbox-probe-{token}" for t in _outside_candidates(spec, environ, scratch_dir)]
    listener = None if spec.network else _listen_tcp()
    own_socket, own_listener = _listen_unix(spec, environ, token)
    sockets = [*_well_known_sockets(environ), *([own_socket] if own_socket else [])]
    lines = [f'( : > {shlex.quote(str(t))} ) 2>/dev/null && echo "WROTE {t}"' for t in targets]
    if listener is not None:
        port = listener.getsockname()[1]
        lines.append(f'( exec 3<>/dev/tcp/127.0.0.1/{port} ) 2>/dev/null && echo "TCP-CONNECTED"')
    if sockets:
        lines.append(_connect_line(sockets))
    lines.append("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null; echo ENVIRON-DONE")
    inner = [find_shell(env), "-c", "\n".join(lines)]
    try:
        # The commands' own environment: the self-test must see what a command would.
        result = await run_process(bwrap_argv(bwrap, spec, inner, cwd=cwd), cwd=cwd, env=env, timeout_s=PROBE_TIMEOUT_S)
        output = result.stdout.text()
        checks = [
            _write_check(targets, output),
            _network_check(listener, output),
            _socket_check(sockets, own_socket, output),
            _environ_check(output, env, environ, result.exit_code, result.stderr.text()),
        ]
    finally:
        for closing in (listener, own_listener):
            if closing is not None:
                closing.close()
        for leftover in (*targets, *([own_socket] if own_socket else [])):
            with contextlib.suppress(OSError):
                leftover.unlink()
    return SelfTestReport(tuple(checks), time.perf_counter() - started)


def _covered(spec: SandboxSpec) -> tuple[Path, ...]:
    return (*spec.writable, *spec.hidden_dirs, Path("/tmp"), Path("/run"), Path("/var/run"))


def _outside_candidates(spec: SandboxSpec, environ: Mapping[str, str], scratch_dir: Path | None) -> list[Path]:
    """Host directories a command could write to without the sandbox, outside its writable roots."""
    covered = _covered(spec)
    out: list[Path] = [Path("/")]
    raw_candidates = [
        environ.get("HOME"),
        str(spec.writable[0].parent) if spec.writable else None,
        str(scratch_dir) if scratch_dir else None,
    ]
    for raw in raw_candidates:
        if not raw:
            continue
        path = Path(raw).resolve()
        if path.is_dir() and not any(path == c or c in path.parents for c in covered) and path not in out:
            out.append(path)
    return out


def _listen_tcp() -> socket.socket | None:
    try:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
    except OSError:
        return None
    return listener


def _listen_unix(spec: SandboxSpec, environ: Mapping[str, str], token: str) -> tuple[Path | None, socket.socket | None]:
    """A listening socket of the self-test's own in a host directory outside /tmp and /run (HOME,
    else the workspace's parent): what any host daemon's socket there would be."""
    covered = _covered(spec)
    candidates = [environ.get("HOME"), str(spec.writable[0].parent) if spec.writable else None]
    for raw in candidates:
        if not raw:
            continue
        directory = Path(raw).resolve()
        path = directory / f".bot-sock-{token}"
        if (
            not directory.is_dir()
            or not os.access(directory, os.W_OK)
            or len(str(path)) > MAX_SOCKET_PATH
            or any(directory == c or c in directory.parents for c in covered)
        ):
            continue
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            listener.listen(1)
            listener.setblocking(False)
        except OSError:
            listener.close()
            continue
        return path, listener
    return None, None


def _well_known_sockets(environ: Mapping[str, str]) -> list[Path]:
    home = environ.get("HOME") or "/nonexistent"
    paths = [Path(p.format(uid=os.getuid(), home=home)) for p in WELL_KNOWN_SOCKETS]
    if environ.get("SSH_AUTH_SOCK", "").startswith("/"):
        paths.append(Path(environ["SSH_AUTH_SOCK"]))
    return [p for p in dict.fromkeys(paths) if p.exists()]


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
    if accepted or "TCP-CONNECTED" in output:
        return Check(name, False, "a connection to the host's loopback succeeded")
    return Check(name, True, "connection to the host's 127.0.0.1 refused (own network namespace)")


def _socket_check(sockets: Sequence[Path], own: Path | None, output: str) -> Check:
    name = "host UNIX sockets are unreachable"
    reached = [str(p) for p in sockets if f"SOCKET-CONNECTED {p}" in output]
    seen = [str(p) for p in sockets if f"SOCKET-VISIBLE {p}" in output]
    if reached or seen:
        what = "; ".join(
            part
            for part in (
                f"connected to {', '.join(reached)}" if reached else "",
                f"visible (no python3 inside to try): {', '.join(seen)}" if seen else "",
            )
            if part
        )
        return Check(name, False, what)
    tried = f"{len(sockets)} tried" + (f", including the self-test's own in {own.parent}" if own else "")
    return Check(name, True, tried)


def _environ_check(
    output: str, env: Mapping[str, str], environ: Mapping[str, str], exit_code: int | None, stderr: str
) -> Check:
    name = "the parent's environ is unreadable"
    if "ENVIRON-DONE" not in output:
        diagnosis = diagnose(
            stderr or f"exit code {exit_code}",
            read_proc_readings(environ),
            secrets={**process_secrets(), **secrets_from_environ(environ)},
        )
        return Check(name, False, f"the probe did not complete (exit code {exit_code}): {diagnosis.describe()}")
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


__all__ = ["WELL_KNOWN_SOCKETS", "Check", "SelfTestReport", "self_test"]
