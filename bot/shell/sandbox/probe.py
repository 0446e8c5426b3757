"""Can ``bwrap`` run here, and if not, why and what fixes it.

The diagnosis is a pure function of bwrap's own error and a few kernel settings read from
``/proc`` (:func:`diagnose`), so each cause is table-tested with the message bwrap really prints.
The causes met on real runners:

* ``bwrap`` is not installed;
* Ubuntu ≥ 23.10 (GitHub's ``ubuntu-24.04``): ``kernel.apparmor_restrict_unprivileged_userns=1``
  lets only processes whose AppArmor profile grants ``userns`` create user namespaces, so an
  unconfined bwrap fails with ``setting up uid map: Permission denied`` (containers/bubblewrap#632);
* no unprivileged user namespaces: ``user.max_user_namespaces=0``, Debian's
  ``kernel.unprivileged_userns_clone=0``, or a container without the privilege;
* a seccomp filter (Docker's and Podman's default profiles) that refuses ``clone``/``unshare`` of
  namespaces;
* a container that masks parts of ``/proc``, so a fresh ``/proc`` cannot be mounted
  (containers/bubblewrap#505, #284).

bwrap's error is shown as it printed it, bounded (:data:`MAX_BWRAP_ERROR_CHARS`) and redacted: it
echoes paths and arguments, and the run's log and comment are public.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.core.redact import redact
from bot.core.secrets import process_secrets
from bot.shell.execute.process import run_process
from bot.shell.sandbox.root import system_root

#: How long the availability probe may take.
PROBE_TIMEOUT_S = 10.0
#: bwrap's own error as shown in the log and the comment: one or two lines is all it prints;
#: more is a path or an argument list echoed back, not diagnosis.
MAX_BWRAP_ERROR_CHARS = 400

Cause = Literal["bwrap-missing", "not-linux", "apparmor", "no-userns", "seccomp", "proc-masked", "unknown"]

#: Where each reading comes from (``seccomp`` is the ``Seccomp:`` line of ``/proc/self/status``,
#: ``container`` the engine whose marker file exists).
PROC_FILES: dict[str, str] = {
    "apparmor_restrict_unprivileged_userns": "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    "max_user_namespaces": "/proc/sys/user/max_user_namespaces",
    "unprivileged_userns_clone": "/proc/sys/kernel/unprivileged_userns_clone",
}
CONTAINER_MARKERS: dict[str, str] = {"docker": "/.dockerenv", "podman": "/run/.containerenv"}

#: The fixes, worded for the person who reads the run's log.
FIX_INSTALL = (
    "install bubblewrap (`sudo apt-get install bubblewrap`, `dnf install bubblewrap`); the action "
    "installs it on Ubuntu runners"
)
FIX_APPARMOR = (
    "load an AppArmor profile that grants `userns` to /usr/bin/bwrap only — the action does this "
    "(Ubuntu's `bwrap-userns-restrict` from the `apparmor-profiles` package, or the one-line profile "
    "`abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap flags=(unconfined) "
    "{ userns, }` in /etc/apparmor.d/bwrap loaded with `sudo apparmor_parser -r`); as a last resort "
    "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`"
)
FIX_CONTAINER = (
    "this runs in a container that may not create namespaces: run it with `--security-opt "
    "seccomp=unconfined --security-opt apparmor=unconfined` (or `--privileged`), or use a VM runner "
    "(GitHub-hosted ubuntu-22.04/24.04)"
)
FIX_SECCOMP = (
    "a seccomp filter refuses namespace creation (the container runtime's default profile): run the "
    "container with `--security-opt seccomp=unconfined` (or a profile that allows clone/unshare "
    "of namespaces), or use a VM runner"
)
FIX_PROC = (
    "the container masks /proc, so the sandbox cannot mount its own: run it with `--security-opt "
    "systempaths=unconfined` (Docker) or `--security-opt unmask=ALL` (Podman), or use a VM runner"
)
FIX_UNKNOWN = (
    "run `bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 "
    "/lib64 --proc /proc --dev /dev --unshare-all -- /usr/bin/true` on the runner to see what it needs"
)


@dataclass(frozen=True, slots=True)
class Diagnosis:
    cause: Cause
    #: What is wrong, in a sentence.
    summary: str
    fix: str
    #: bwrap's own error, bounded and redacted ("" when it did not run).
    bwrap_error: str = ""

    def describe(self) -> str:
        said = f" (bwrap said: {self.bwrap_error})" if self.bwrap_error else ""
        return f"{self.summary}{said}. Fix: {self.fix}"


def diagnose(
    stderr: str, readings: Mapping[str, str], *, found: bool = True, secrets: Mapping[str, str] | None = None
) -> Diagnosis:
    """Why bwrap failed. Pure: ``stderr`` is what it printed, ``readings`` the kernel settings
    (:func:`read_proc_readings`; a missing key was not readable), ``secrets`` what to redact
    besides the well-known token shapes."""
    if not found:
        return Diagnosis("bwrap-missing", "bwrap is not installed", FIX_INSTALL)
    error = _bounded(redact(stderr.strip(), secrets or {}))
    text = stderr.lower()
    in_container = bool(readings.get("container"))

    def made(cause: Cause, summary: str, fix: str) -> Diagnosis:
        return Diagnosis(cause, summary, fix, error)

    userns_failure = any(
        s in text
        for s in (
            "uid map",
            "gid map",
            "rtm_new",
            "loopback",
            "namespace",
            "permission denied",
            "operation not permitted",
        )
    )
    if readings.get("apparmor_restrict_unprivileged_userns") == "1" and userns_failure:
        return made(
            "apparmor",
            "AppArmor refuses unprivileged user namespaces here "
            "(kernel.apparmor_restrict_unprivileged_userns=1) and bwrap has no profile that grants them",
            FIX_APPARMOR,
        )
    if readings.get("max_user_namespaces") == "0" or "max_*_namespaces" in text or "no space left" in text:
        return made(
            "no-userns",
            "user namespaces are disabled (user.max_user_namespaces=0)",
            "allow them: `sudo sysctl -w user.max_user_namespaces=15000`"
            + (f"; {FIX_CONTAINER}" if in_container else ""),
        )
    if readings.get("unprivileged_userns_clone") == "0":
        return made(
            "no-userns",
            "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)",
            "allow them: `sudo sysctl -w kernel.unprivileged_userns_clone=1`"
            + (f"; {FIX_CONTAINER}" if in_container else ""),
        )
    if "does not support user namespaces" in text:
        return made(
            "no-userns",
            "this kernel has no user namespaces",
            "use a kernel built with user namespaces (CONFIG_USER_NS), or a VM runner",
        )
    if "mount proc" in text:
        return made("proc-masked", "the sandbox cannot mount its own /proc here", FIX_PROC)
    refused = "no permissions to creat" in text or "creating new namespace failed: operation not permitted" in text
    if refused and readings.get("seccomp") == "2":
        return made("seccomp", "a seccomp filter refuses to create namespaces", FIX_SECCOMP)
    if refused:
        return made(
            "no-userns",
            "this process may not create user namespaces",
            FIX_CONTAINER
            if in_container
            else "allow unprivileged user namespaces (`sudo sysctl -w kernel.unprivileged_userns_clone=1` "
            "on Debian, `user.max_user_namespaces` elsewhere)",
        )
    return made("unknown", "bwrap cannot set up the sandbox here", FIX_UNKNOWN)


def _bounded(text: str) -> str:
    text = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    if len(text) <= MAX_BWRAP_ERROR_CHARS:
        return text
    return text[: MAX_BWRAP_ERROR_CHARS - 1] + "…"


def read_proc_readings(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The kernel settings :func:`diagnose` reads; an unreadable one is left out."""
    readings: dict[str, str] = {}
    for name, path in PROC_FILES.items():
        try:
            readings[name] = Path(path).read_text().strip()
        except OSError:
            continue
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Seccomp:"):
                readings["seccomp"] = line.split(":", 1)[1].strip()
    except OSError:
        pass
    for engine, marker in CONTAINER_MARKERS.items():
        if os.path.exists(marker):
            readings["container"] = engine
            break
    else:
        engine_name = (os.environ if environ is None else environ).get("container", "")
        if engine_name:
            readings["container"] = engine_name
    return readings


@dataclass(frozen=True, slots=True)
class BwrapProbe:
    path: str | None
    works: bool
    reason: str
    diagnosis: Diagnosis | None = None


_probe_cache: dict[str, BwrapProbe] = {}


async def probe_bwrap(environ: Mapping[str, str] | None = None) -> BwrapProbe:
    """Can ``bwrap`` create the namespaces we need here? Cached per binary for the process."""
    if not sys.platform.startswith("linux"):
        diagnosis = Diagnosis(
            "not-linux",
            "the bubblewrap sandbox is Linux-only",
            "run on a Linux runner, or set `sandbox: off` to run commands unsandboxed",
        )
        return BwrapProbe(None, False, diagnosis.describe(), diagnosis)
    environ = os.environ if environ is None else environ
    path = shutil.which("bwrap", path=environ.get("PATH"))
    if path is None:
        diagnosis = diagnose("", {}, found=False)
        return BwrapProbe(None, False, diagnosis.describe(), diagnosis)
    if path in _probe_cache:
        return _probe_cache[path]
    true = shutil.which("true") or "/usr/bin/true"
    argv = [path]
    for mount in system_root():
        argv += mount.bwrap_args()
    argv += [
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--",
        true,
    ]
    try:
        # The probe's environment: PATH only, so bwrap finds nothing else to act on.
        result = await run_process(
            argv, cwd=Path("/"), env={"PATH": environ.get("PATH", "/usr/bin:/bin")}, timeout_s=PROBE_TIMEOUT_S
        )
    except OSError as exc:
        diagnosis = diagnose(f"bwrap cannot start: {exc}", read_proc_readings(environ), secrets=process_secrets())
        probe = BwrapProbe(path, False, diagnosis.describe(), diagnosis)
    else:
        if result.exit_code == 0:
            probe = BwrapProbe(path, True, f"{path} can create PID, network and mount namespaces")
        else:
            stderr = result.stderr.text() or f"exit code {result.exit_code}"
            diagnosis = diagnose(stderr, read_proc_readings(environ), secrets=process_secrets())
            probe = BwrapProbe(path, False, f"bwrap cannot create namespaces here: {diagnosis.describe()}", diagnosis)
    _probe_cache[path] = probe
    return probe


__all__ = [
    "MAX_BWRAP_ERROR_CHARS",
    "PROBE_TIMEOUT_S",
    "BwrapProbe",
    "Cause",
    "Diagnosis",
    "diagnose",
    "probe_bwrap",
    "read_proc_readings",
]
