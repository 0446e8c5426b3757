"""Why bwrap cannot run here, and what fixes it: a pure function of bwrap's own error and the
kernel's settings, table-tested with the messages bwrap really prints (bubblewrap.c, network.c,
and containers/bubblewrap#632, #505, #284)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.shell.sandbox.probe import MAX_BWRAP_ERROR_CHARS, Diagnosis, diagnose, probe_bwrap, read_proc_readings

APPARMOR_UID_MAP = "bwrap: setting up uid map: Permission denied\n"
APPARMOR_LOOPBACK = "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n"
NO_PERMISSIONS = (
    "bwrap: No permissions to create a new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces. On e.g. debian this can be enabled with "
    "'sysctl kernel.unprivileged_userns_clone=1'.\n"
)
NO_PERMISSIONS_OLD = (
    "bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces. On e.g. debian this can be enabled with "
    "'sysctl kernel.unprivileged_userns_clone=1'.\n"
)
ENOSPC = "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)\n"
ENOSPC_OLD = "bwrap: Creating new namespace failed: No space left on device\n"
EPERM = "bwrap: Creating new namespace failed: Operation not permitted\n"
PROC_MASKED = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n"
NO_USERNS_SUPPORT = (
    "bwrap: Creating new namespace failed, likely because the kernel does not support user "
    "namespaces.  bwrap must be installed setuid on such systems.\n"
)

UBUNTU_2404 = {"apparmor_restrict_unprivileged_userns": "1", "max_user_namespaces": "63936", "seccomp": "0"}
DEBIAN_OLD = {"unprivileged_userns_clone": "0", "max_user_namespaces": "63936", "seccomp": "0"}
DOCKER = {"max_user_namespaces": "63936", "seccomp": "2", "container": "docker"}
DOCKER_UNCONFINED = {"max_user_namespaces": "63936", "seccomp": "0", "container": "docker"}


@pytest.mark.parametrize(
    ("description", "stderr", "readings", "found", "cause", "fix_mentions"),
    [
        (
            "Ubuntu 24.04: AppArmor refuses the uid map",
            APPARMOR_UID_MAP,
            UBUNTU_2404,
            True,
            "apparmor",
            ("AppArmor profile", "userns", "/usr/bin/bwrap"),
        ),
        (
            "Ubuntu 24.04: AppArmor leaves no capability to set up loopback",
            APPARMOR_LOOPBACK,
            UBUNTU_2404,
            True,
            "apparmor",
            ("bwrap-userns-restrict",),
        ),
        (
            "Debian with unprivileged_userns_clone=0",
            NO_PERMISSIONS,
            DEBIAN_OLD,
            True,
            "no-userns",
            ("kernel.unprivileged_userns_clone=1",),
        ),
        (
            "an older bwrap's wording, same cause",
            NO_PERMISSIONS_OLD,
            DEBIAN_OLD,
            True,
            "no-userns",
            ("kernel.unprivileged_userns_clone=1",),
        ),
        (
            "max_user_namespaces=0",
            ENOSPC,
            {"max_user_namespaces": "0", "seccomp": "0"},
            True,
            "no-userns",
            ("user.max_user_namespaces",),
        ),
        (
            "max_user_namespaces=0, an older bwrap",
            ENOSPC_OLD,
            {"max_user_namespaces": "0"},
            True,
            "no-userns",
            ("user.max_user_namespaces",),
        ),
        (
            "Docker's default seccomp profile refuses unshare",
            NO_PERMISSIONS,
            DOCKER,
            True,
            "seccomp",
            ("--security-opt seccomp=", "VM"),
        ),
        (
            "root in a container without the privilege",
            EPERM,
            DOCKER_UNCONFINED,
            True,
            "no-userns",
            ("--security-opt", "VM"),
        ),
        (
            "a container that masks /proc",
            PROC_MASKED,
            DOCKER_UNCONFINED,
            True,
            "proc-masked",
            ("systempaths=unconfined", "unmask"),
        ),
        ("a kernel without user namespaces", NO_USERNS_SUPPORT, {}, True, "no-userns", ("user namespaces",)),
        ("bwrap not installed", "", UBUNTU_2404, False, "bwrap-missing", ("bubblewrap",)),
        (
            "something else: bwrap's words are kept",
            "bwrap: Unexpected capabilities but not setuid, old file caps config?\n",
            {},
            True,
            "unknown",
            ("bwrap --ro-bind",),
        ),
    ],
)
def test_each_cause_is_named_with_its_fix(
    description: str, stderr: str, readings: dict[str, str], found: bool, cause: str, fix_mentions: tuple[str, ...]
) -> None:
    diagnosis = diagnose(stderr, readings, found=found)
    assert diagnosis.cause == cause
    for words in fix_mentions:
        assert words in diagnosis.fix
    if stderr:
        assert diagnosis.bwrap_error == stderr.strip()
        assert stderr.strip() in diagnosis.describe()
    assert diagnosis.fix in diagnosis.describe()


def test_bwraps_error_is_bounded_and_redacted() -> None:
    token = "ghs_" + "S3cretValue" * 4
    stderr = "bwrap: Can't bind mount /x on /newroot/x: " + "y" * 2_000 + f" {token}\n"
    diagnosis = diagnose(stderr, {}, secrets={"GITHUB_TOKEN": token})
    assert len(diagnosis.bwrap_error) <= MAX_BWRAP_ERROR_CHARS
    assert token not in diagnosis.describe()
    shape_only = diagnose(f"bwrap: weird {token}\n", {})
    assert token not in shape_only.bwrap_error


def test_the_readings_come_from_proc(tmp_path: Path) -> None:
    readings = read_proc_readings()
    assert isinstance(readings, dict)
    status = Path("/proc/self/status")
    if status.exists():
        assert readings.get("seccomp") in {"0", "1", "2"}
    if Path("/proc/sys/user/max_user_namespaces").exists():
        assert readings["max_user_namespaces"].isdigit()


def test_a_missing_bwrap_is_diagnosed_with_the_fix(tmp_path: Path) -> None:
    probe = anyio.run(lambda: probe_bwrap({"PATH": str(tmp_path)}))
    assert not probe.works
    assert isinstance(probe.diagnosis, Diagnosis) and probe.diagnosis.cause == "bwrap-missing"
    assert "bubblewrap" in probe.reason


def test_a_bwrap_that_fails_is_diagnosed_from_its_own_error(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\necho '{APPARMOR_UID_MAP.strip()}' >&2\nexit 1\n")
    fake.chmod(0o755)
    probe = anyio.run(lambda: probe_bwrap({"PATH": f"{tmp_path}:/usr/bin:/bin"}))
    assert not probe.works and probe.diagnosis is not None
    assert "setting up uid map: Permission denied" in probe.reason
    assert probe.diagnosis.bwrap_error == APPARMOR_UID_MAP.strip()


def test_one_python3_reports_every_reachable_socket(tmp_path: Path) -> None:
    import socket
    import subprocess

    from bot.shell.sandbox.selftest import _connect_line

    listening = []
    for name in ("a.sock", "b c.sock"):  # a space: the paths are quoted for the shell
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(tmp_path / name))
        server.listen(1)
        listening.append(server)
    dead = tmp_path / "dead.sock"
    closed = socket.socket(socket.AF_UNIX)
    closed.bind(str(dead))
    closed.close()  # a socket file nobody listens on
    try:
        paths = [tmp_path / "a.sock", tmp_path / "b c.sock", dead]
        out = subprocess.run(["sh", "-c", _connect_line(paths)], capture_output=True, text=True, check=False).stdout
    finally:
        for server in listening:
            server.close()
    assert f"SOCKET-CONNECTED {tmp_path / 'a.sock'}" in out and f"SOCKET-CONNECTED {tmp_path / 'b c.sock'}" in out
    assert str(dead) not in out
