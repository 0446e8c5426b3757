"""The sandbox's root holds only what commands need: the system's programs and libraries, ``/etc``
without its secrets, the toolchains on ``PATH``, a read-only view of ``HOME``, the workspace. No
host UNIX socket is reachable, and nothing of the host's ``/var``, ``/run``, ``/srv`` or ``/mnt``."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.shell.sandbox.root import Bind, Link, system_root, toolchain_roots
from tests.shell.sandbox_support import bwrap_works, prepare

__all__ = ["bwrap_works"]

CONNECT = (
    "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
    'print("CONNECTED")\' {path} 2>/dev/null || echo unreachable'
)


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A host directory outside /tmp and /run that the old ``--ro-bind / /`` showed (``/var/tmp``)."""
    base = Path("/var/tmp")
    if not (base.is_dir() and os.access(base, os.W_OK)):
        pytest.skip("/var/tmp is not writable here")
    path = base / f"bot-sandbox-test-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    return listener


@pytest.mark.usefixtures("bwrap_works")
def test_a_listening_unix_socket_in_a_host_directory_outside_tmp_and_run_is_unreachable(
    tmp_path: Path, outside_tmp: Path
) -> None:
    if shutil.which("python3") is None:
        pytest.skip("python3 is needed inside to try the connection")
    socket_path = outside_tmp / "daemon.sock"
    ws = tmp_path / "ws"
    ws.mkdir()
    with _listen(socket_path):
        box = prepare(ws, tmp_path / "scratch")
        assert box.out(CONNECT.format(path=socket_path)).strip() == "unreachable"


@pytest.mark.usefixtures("bwrap_works")
def test_home_is_a_read_only_view_without_credentials_sockets_or_the_runners_other_checkouts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE")
    (home / ".netrc").write_text("machine github.com password x")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: x")
    (home / ".config" / "tool.toml").write_text("kept = true\n")
    (home / ".bashrc").write_text("# rc\n")
    (home / "work" / "other-repo").mkdir(parents=True)
    (home / "work" / "other-repo" / "secret.txt").write_text("another checkout")
    ws = home / "work" / "repo"
    ws.mkdir()
    with _listen(home / "agent.sock"):
        box = prepare(ws, tmp_path / "scratch", environ={**os.environ, "HOME": str(home)})
        listing = box.out(
            f"ls -A {home}; ls -A {home}/.config; echo ---; cat {home}/work/other-repo/secret.txt; "
            f"cat {home}/.config/gh/hosts.yml; touch {home}/new 2>/dev/null || echo read-only"
        )
    names, _, rest = listing.partition("---")
    assert ".bashrc" in names.split() and "tool.toml" in names.split() and "work" in names.split()
    for hidden in (".ssh", ".netrc", "agent.sock"):
        assert hidden not in names.split()
    assert rest.split() == ["read-only"]


@pytest.mark.usefixtures("bwrap_works")
def test_host_directories_commands_do_not_need_are_absent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = prepare(ws, tmp_path / "scratch")
    probes = " ".join(
        f"{p}" for p in ("/var/lib", "/var/run", "/run/systemd", "/srv", "/mnt", "/media", "/home", "/boot")
    )
    result = box.out(
        f'for p in {probes}; do [ -e $p ] && [ -n "$(ls -A $p 2>/dev/null)" ] && echo "seen $p"; done; echo done'
    )
    assert result.split() == ["done"]


@pytest.mark.usefixtures("bwrap_works")
def test_etc_is_readable_but_its_secrets_are_not(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = prepare(ws, tmp_path / "scratch")
    result = box.out(
        "grep -c . /etc/passwd >/dev/null && echo passwd; wc -c < /etc/shadow 2>/dev/null; "
        "ls -A /etc/sudoers.d 2>/dev/null | wc -l; ls /etc/ssh 2>/dev/null | grep -v '\\.pub$' "
        "| grep '_key$' | while read k; do wc -c < /etc/ssh/$k; done; echo end"
    )
    words = result.split()
    assert words[0] == "passwd" and words[-1] == "end"
    if Path("/etc/shadow").exists():
        assert words[1] == "0"
    assert set(words[1:-1]) <= {"0"}


@pytest.mark.usefixtures("bwrap_works")
def test_programs_and_toolchains_on_path_still_run(tmp_path: Path, outside_tmp: Path) -> None:
    tool = outside_tmp / "toolchain"
    (tool / "bin").mkdir(parents=True)
    (tool / "lib").mkdir()
    (tool / "lib" / "data.txt").write_text("from the toolchain's lib\n")
    script = tool / "bin" / "hello-tool"
    script.write_text(f"#!/bin/sh\ncat {tool}/lib/data.txt\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (outside_tmp / "unrelated.txt").write_text("not a toolchain")
    ws = tmp_path / "ws"
    ws.mkdir()
    environ = {**os.environ, "PATH": f"{tool / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    box = prepare(ws, tmp_path / "scratch", environ=environ)
    box.env["PATH"] = environ["PATH"]

    result = box.out(
        f"hello-tool; sh -c 'echo shell'; env true && echo env; cat {outside_tmp}/unrelated.txt "
        "2>/dev/null || echo unrelated-hidden"
    )

    assert result.splitlines() == ["from the toolchain's lib", "shell", "env", "unrelated-hidden"]


def test_merged_usr_links_are_recreated_as_links_and_real_directories_bound() -> None:
    mounts = system_root()
    by_path = {m.path: m for m in mounts}
    for name in ("bin", "sbin", "lib", "lib64"):
        host = Path("/") / name
        if host.is_symlink():
            assert by_path[host] == Link(host, os.readlink(host))
        elif host.is_dir():
            assert by_path[host] == Bind(host)
    assert by_path[Path("/usr")] == Bind(Path("/usr"))
    assert Path("/") not in by_path and Path("/var") not in by_path and Path("/run") not in by_path


def test_toolchain_roots_bring_a_bin_directorys_parent_and_never_what_holds_the_run(outside_tmp: Path) -> None:
    for rel in ("tool/bin", "other/shims", "plain", "holder/bin", "secret/tool/bin"):
        (outside_tmp / rel).mkdir(parents=True)
    workspace = outside_tmp / "holder" / "ws"
    workspace.mkdir()
    mounts = system_root()
    entries = [
        str(outside_tmp / rel)
        for rel in ("tool/bin", "other/shims", "plain", "holder/bin", "secret/tool/bin", "missing/bin")
    ]
    entries += ["relative/bin", "/usr/local/bin", ""]

    roots = toolchain_roots(entries, mounts, keep_out=[workspace], hidden=[outside_tmp / "secret"])

    assert roots == [outside_tmp / "tool", outside_tmp / "other", outside_tmp / "plain", outside_tmp / "holder" / "bin"]


def test_top_level_files_holding_a_credential_are_found_but_not_a_tracked_example(tmp_path: Path) -> None:
    import subprocess

    from bot.shell.sandbox.credentials import workspace_credentials

    example = "ghp_" + "x" * 36
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text(f"Set GH_TOKEN, e.g. {example}\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "README.md"], check=True)
    (root / "left-by-a-step.json").write_text(f'{{"token": "{example}"}}\n')
    (root / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n")
    (root / "plain.txt").write_text("nothing here\n")
    assert sorted(p.name for p in workspace_credentials(root)) == ["key.pem", "left-by-a-step.json"]
