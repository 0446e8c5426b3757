"""``action.yml`` makes bwrap work on GitHub-hosted Ubuntu 24.04 with the narrowest change: an
AppArmor profile that grants ``userns`` to bwrap alone, the sysctl only when no profile can load."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ACTION = Path(__file__).resolve().parents[2] / "action.yml"


def _install_step() -> dict[str, Any]:
    action = yaml.safe_load(ACTION.read_text())
    steps = action["runs"]["steps"]
    return next(step for step in steps if step.get("name") == "Install the bot")


def test_the_install_step_loads_an_apparmor_profile_for_bwrap_when_userns_is_restricted() -> None:
    script = _install_step()["run"]
    assert "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" in script
    assert "bwrap-userns-restrict" in script and "apparmor-profiles" in script
    assert "apparmor_parser -r" in script
    for line in ("abi <abi/4.0>,", "include <tunables/global>", "flags=(unconfined)", "userns,"):
        assert line in script


def test_the_sysctl_is_the_last_resort_and_says_so_in_the_log() -> None:
    script = _install_step()["run"]
    sysctl = script.index("sysctl -w kernel.apparmor_restrict_unprivileged_userns=0")
    assert script.index("apparmor_parser -r") < sysctl
    warning = script.rindex("::warning::", 0, sysctl + 400)
    assert abs(warning - sysctl) < 400


def test_the_install_step_ends_with_a_bwrap_check_whose_result_is_printed() -> None:
    script = _install_step()["run"]
    check = script[script.index("bwrap_check() {") : script.index("}", script.index("bwrap_check() {"))]
    assert "--unshare-net" in check and "--unshare-pid" in check
    tail = script[script.rindex("apparmor_parser -r") :]
    assert 'out="$(bwrap_check)"' in tail and "bwrap check: ok" in tail and "::warning::bwrap check failed" in tail


FAKES = {
    # bwrap fails as on ubuntu-24.04 until a profile is loaded or the sysctl is set.
    "bwrap": 'if [ -f "$STATE/profile" ] || [ -f "$STATE/sysctl" ]; then exit 0; fi\n'
    'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1',
    "apparmor_parser": '[ -f "$STATE/parser-fails" ] && exit 1; echo "$@" >> "$STATE/parsed"; touch "$STATE/profile"',
    "sysctl": 'echo "$@" >> "$STATE/sysctl"',
    "apt-get": "exit 0",
    "sudo": 'shift; exec "$@"',
}


def _run_sandbox_part(tmp_path: Path, *, shipped: bool, parser_fails: bool) -> tuple[str, Path]:
    """The install step's sandbox part, run with fakes for bwrap, apparmor_parser, sysctl and apt,
    and the kernel's and AppArmor's paths moved into ``tmp_path``."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    fakes, state, apparmor = tmp_path / "bin", tmp_path / "state", tmp_path / "apparmor.d"
    for directory in (fakes, state, apparmor):
        directory.mkdir()
    for name, body in FAKES.items():
        (fakes / name).write_text(f"#!/bin/sh\n{body}\n")
        (fakes / name).chmod(0o755)
    restrict = tmp_path / "restrict"
    restrict.write_text("1\n")
    extra = tmp_path / "extra-profiles" / "bwrap-userns-restrict"
    if shipped:
        extra.parent.mkdir()
        extra.write_text("profile bwrap /usr/bin/bwrap {}\n")
    if parser_fails:
        (state / "parser-fails").touch()
    script = _install_step()["run"]
    script = script[script.index('if [ "$(uname -s)" = Linux ]') :]
    script = (
        script.replace("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", str(restrict))
        .replace("/usr/share/apparmor/extra-profiles/bwrap-userns-restrict", str(extra))
        .replace("/etc/apparmor.d", str(apparmor))
        .replace("/usr/bin/bwrap", str(fakes / "bwrap"))
    )
    # The fakes first on PATH, STATE for them to record what they were asked; nothing else.
    env = {"PATH": f"{fakes}:/usr/bin:/bin", "STATE": str(state)}
    done = subprocess.run([bash, "-c", script], text=True, capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout, state


def test_ubuntus_profile_is_loaded_when_it_is_shipped(tmp_path: Path) -> None:
    out, state = _run_sandbox_part(tmp_path, shipped=True, parser_fails=False)
    assert "loaded Ubuntu's bwrap-userns-restrict profile" in out and "bwrap check: ok" in out
    assert "bwrap-userns-restrict" in (state / "parsed").read_text() and not (state / "sysctl").exists()


def test_a_minimal_profile_for_bwrap_alone_is_written_when_ubuntus_is_missing(tmp_path: Path) -> None:
    out, state = _run_sandbox_part(tmp_path, shipped=False, parser_fails=False)
    profile = (tmp_path / "apparmor.d" / "bwrap").read_text()
    assert profile.splitlines() == [
        "abi <abi/4.0>,",
        "include <tunables/global>",
        f"profile bwrap {tmp_path / 'bin' / 'bwrap'} flags=(unconfined) {{",
        "  userns,",
        "}",
    ]
    assert "granting userns" in out and "bwrap check: ok" in out and not (state / "sysctl").exists()


def test_the_sysctl_is_set_only_when_no_profile_loads_and_the_log_says_so(tmp_path: Path) -> None:
    out, state = _run_sandbox_part(tmp_path, shipped=True, parser_fails=True)
    assert (state / "sysctl").read_text().split() == ["-w", "kernel.apparmor_restrict_unprivileged_userns=0"]
    assert "::warning::" in out and "apparmor_restrict_unprivileged_userns" in out and "bwrap check: ok" in out


def test_the_install_script_is_valid_bash() -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    script = _install_step()["run"]
    # bash -n parses without running; its environment is empty (it reads nothing).
    checked = subprocess.run(
        [bash, "-n"], input=script, text=True, capture_output=True, env={}, timeout=30, check=False
    )
    assert checked.returncode == 0, checked.stderr


def test_the_rest_of_the_action_is_unchanged_in_shape() -> None:
    action = yaml.safe_load(ACTION.read_text())
    names = [step.get("name") for step in action["runs"]["steps"]]
    # The environment cache's steps (tests/test_workflows.py) come around the install, before the run.
    assert names == [
        "Key the environment",
        "Restore the environment",
        "Install the bot",
        "Save the environment",
        "Run",
        "Keep the transcript and the full diff",
    ]
