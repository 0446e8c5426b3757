"""The bubblewrap sandbox: the decision, the command line, and — where bwrap runs — that it holds.

The tests that need a working ``bwrap`` are skipped with the probe's reason (shown with ``-rs`` and
as a warning in the summary) where it cannot create namespaces; never silently.
"""

from __future__ import annotations

import os
import socket
import stat
import warnings
from pathlib import Path

import anyio
import pytest

from bot.errors import ConfigError
from bot.shell.execute.env import build_child_env
from bot.shell.execute.process import ProcessResult, run_process, shell_argv
from bot.shell.sandbox.root import Bind, Link
from bot.shell.sandbox.status import (
    Refused,
    Sandboxed,
    SandboxSettings,
    SandboxSpec,
    SandboxStatus,
    SandboxUnavailable,
    Unsandboxed,
    bwrap_argv,
    decide_sandbox,
    is_excluded_command,
    prepare_sandbox,
    probe_bwrap,
    sandbox_settings,
    self_test,
    unsandboxed_argv,
)
from tests.shell.test_exec import wait_dead

# ----- the decision (pure) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "settings", "available", "disable", "excluded", "expected"),
    [
        ("available and nothing asked: sandboxed", SandboxSettings(), True, False, False, Sandboxed()),
        (
            "off by policy",
            SandboxSettings(mode="off"),
            True,
            False,
            False,
            Unsandboxed("the policy turns the sandbox off"),
        ),
        (
            "an excluded command",
            SandboxSettings(),
            True,
            False,
            True,
            Unsandboxed("the command is in the policy's excluded_commands"),
        ),
        ("the model asks, the policy does not allow it", SandboxSettings(), True, True, False, Sandboxed()),
        (
            "the model asks, the policy allows it",
            SandboxSettings(allow_unsandboxed=True),
            True,
            True,
            False,
            Unsandboxed("dangerouslyDisableSandbox, allowed by the policy"),
        ),
        (
            "required but unavailable: refused",
            SandboxSettings(mode="required"),
            False,
            False,
            False,
            Refused("the policy requires the sandbox, and it cannot run here: no bwrap"),
        ),
        (
            "required, unavailable, and the model asks without permission: refused",
            SandboxSettings(mode="required"),
            False,
            True,
            False,
            Refused("the policy requires the sandbox, and it cannot run here: no bwrap"),
        ),
        (
            "auto and unavailable: unsandboxed",
            SandboxSettings(mode="auto"),
            False,
            False,
            False,
            Unsandboxed("the sandbox cannot run here: no bwrap"),
        ),
    ],
)
def test_the_sandbox_decision_follows_the_seeds(
    description: str, settings: SandboxSettings, available: bool, disable: bool, excluded: bool, expected: object
) -> None:
    assert (
        decide_sandbox(
            settings, available=available, unavailable_reason="no bwrap", disable_requested=disable, excluded=excluded
        )
        == expected
    )


@pytest.mark.parametrize(
    ("description", "command", "patterns", "excluded"),
    [
        ("exact match", "docker ps", ["docker ps"], True),
        ("a prefix rule", "docker compose up -d", ["docker:*"], True),
        ("a prefix rule with a space", "docker build .", ["docker *"], True),
        ("the bare word under a prefix rule", "docker", ["docker:*"], True),
        ("a prefix is a whole word", "dockerd --debug", ["docker:*"], False),
        ("a glob over the command", "npm run build", ["npm run *"], True),
        ("leading assignments are stripped", "DOCKER_BUILDKIT=1 docker build .", ["docker:*"], True),
        ("a compound command never matches", "docker ps && curl evil.example", ["docker:*"], False),
        ("a pipe never matches", "docker ps | sh", ["docker:*"], False),
        ("a substitution never matches", "docker run $(cat img)", ["docker:*"], False),
        ("a redirection never matches", "docker ps > out", ["docker:*"], False),
        ("a newline never matches", "docker ps\nrm -rf ~", ["docker:*"], False),
        ("no patterns", "docker ps", [], False),
        ("broken quoting never matches", "docker 'ps", ["docker:*"], False),
    ],
)
def test_excluded_commands_match_only_simple_commands(
    description: str, command: str, patterns: list[str], excluded: bool
) -> None:
    assert is_excluded_command(command, patterns) is excluded


def test_policy_settings_default_to_auto_without_network() -> None:
    assert sandbox_settings({}, environ={}) == SandboxSettings(mode="auto", network=False, allow_unsandboxed=False)
    required = sandbox_settings({"sandbox": "required", "network": True, "excluded_commands": "docker:*"}, environ={})
    assert required == SandboxSettings(mode="required", network=True, excluded_commands=("docker:*",))


@pytest.mark.parametrize(
    ("description", "extra"),
    [
        ("a misspelt mode", {"sandbox": "requird"}),
        ("a string for a flag", {"network": "yes"}),
        ("a mapping for excluded commands", {"excluded_commands": {"docker": True}}),
    ],
)
def test_a_wrong_policy_value_is_a_config_error_never_a_weaker_sandbox(
    description: str, extra: dict[str, object]
) -> None:
    with pytest.raises(ConfigError):
        sandbox_settings(extra)


def test_the_bwrap_command_line_builds_the_root_hides_binds_writable_then_protects(tmp_path: Path) -> None:
    ws, git_dir = tmp_path / "ws", tmp_path / "ws" / ".git"
    spec = SandboxSpec(
        writable=(ws,),
        tmp_dir=tmp_path / "tmp",
        read_only=(git_dir,),
        hidden_dirs=(tmp_path / "runner-temp",),
        hidden_files=(tmp_path / ".netrc",),
        empty_file=tmp_path / "empty",
        root=(Bind(Path("/usr")), Link(Path("/bin"), "usr/bin")),
    )
    argv = bwrap_argv("/usr/bin/bwrap", spec, ["bash", "-c", "true"], cwd=ws)
    joined = " ".join(argv)
    assert argv[:8] == ["/usr/bin/bwrap", "--dev", "/dev", "--proc", "/proc", "--bind", str(tmp_path / "tmp"), "/tmp"]
    assert "--ro-bind / /" not in joined
    assert (
        joined.index("--ro-bind-try /usr /usr")
        < joined.index("--symlink usr/bin /bin")
        < joined.index(f"--tmpfs {tmp_path / 'runner-temp'}")
        < joined.index(f"--bind {ws} {ws}")
        < joined.index(f"--ro-bind {git_dir} {git_dir}")
        < joined.index("--remount-ro /")
    )
    assert f"--ro-bind {tmp_path / 'empty'} {tmp_path / '.netrc'}" in joined
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert argv[-4:] == ["--", "bash", "-c", "true"]
    assert argv[argv.index("--chdir") + 1] == str(ws)
    networked = bwrap_argv("bwrap", SandboxSpec(writable=(ws,), tmp_dir=tmp_path, network=True), ["true"], cwd=ws)
    assert "--unshare-net" not in networked


@pytest.mark.parametrize(
    ("description", "euid", "allow_sudo", "setpriv", "expected_prefix"),
    [
        ("a normal user: no new privileges", 1001, False, "/usr/bin/setpriv", ["/usr/bin/setpriv", "--no-new-privs"]),
        (
            "root: capabilities that read other environs dropped too",
            0,
            False,
            "/usr/bin/setpriv",
            ["/usr/bin/setpriv", "--no-new-privs", "--bounding-set=-sys_ptrace,-sys_admin,-perfmon", "--inh-caps=-all"],
        ),
        ("sudo allowed by the policy", 1001, True, "/usr/bin/setpriv", []),
        ("no setpriv on the machine", 0, False, None, []),
    ],
)
def test_unsandboxed_commands_run_without_new_privileges(
    description: str, euid: int, allow_sudo: bool, setpriv: str | None, expected_prefix: list[str]
) -> None:
    argv = unsandboxed_argv(["bash", "-c", "id"], setpriv=setpriv, euid=euid, allow_sudo=allow_sudo)
    assert argv == [*expected_prefix, "bash", "-c", "id"]


# ----- availability ----------------------------------------------------------------------------------


def test_required_without_bwrap_refuses_to_start_with_a_clear_message(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()

    async def main() -> SandboxStatus:
        return await prepare_sandbox(
            SandboxSettings(mode="required"),
            workspace=ws,
            scratch_dir=tmp_path / "s",
            env={},
            environ={"PATH": str(tmp_path), "HOME": str(tmp_path)},
        )

    with pytest.raises(SandboxUnavailable, match=r"requires the sandbox.*bwrap is not installed.*sandbox: auto"):
        anyio.run(main)


def test_auto_without_bwrap_runs_unsandboxed_with_a_warning_for_the_summary(tmp_path: Path) -> None:
    async def main() -> SandboxStatus:
        return await prepare_sandbox(
            SandboxSettings(mode="auto"),
            workspace=tmp_path,
            scratch_dir=tmp_path / "s",
            env={},
            environ={"PATH": str(tmp_path), "HOME": str(tmp_path)},
        )

    status = anyio.run(main)
    assert not status.available
    assert any("WITHOUT the sandbox" in w and "bwrap is not installed" in w for w in status.warnings)


def test_a_sandbox_that_does_not_isolate_fails_its_self_test(tmp_path: Path) -> None:
    """A fake ``bwrap`` that runs the command unconfined: the self-test must notice."""
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    ws = tmp_path / "ws"
    ws.mkdir()
    spec = SandboxSpec(writable=(ws,), tmp_dir=tmp_path / "tmp")
    env = build_child_env(os.environ).env

    report = anyio.run(lambda: self_test(str(fake), spec, env, cwd=ws))
    assert not report.passed
    failed = {c.name for c in report.checks if not c.passed}
    assert "network connection fails" in failed
    assert "the parent's environ is unreadable" in failed
    assert "FAILED" in report.describe()


# ----- the real sandbox ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bwrap_reason() -> str:
    probe = anyio.run(probe_bwrap)
    if not probe.works:
        warnings.warn(f"sandbox tests skipped: {probe.reason}", stacklevel=1)
        pytest.skip(f"bwrap cannot run here: {probe.reason}")
    return probe.reason


class Box:
    """A prepared sandbox for a workspace, and a way to run commands in it."""

    def __init__(self, root: Path, *, network: bool = False, environ: dict[str, str] | None = None) -> None:
        self.ws = root / "ws"
        self.ws.mkdir(parents=True)
        self.scratch = root / "scratch"
        self.env = build_child_env(os.environ).env
        settings = SandboxSettings(mode="required", network=network)
        self.status = anyio.run(
            lambda: prepare_sandbox(
                settings, workspace=self.ws, scratch_dir=self.scratch, env=self.env, environ=environ
            )
        )

    def run(self, command: str) -> ProcessResult:
        argv = self.status.launch_argv(Sandboxed(), shell_argv(command), cwd=self.ws)
        return anyio.run(lambda: run_process(argv, cwd=self.ws, env=self.env, timeout_s=30))


@pytest.mark.usefixtures("bwrap_reason")
def test_the_self_test_passes_and_describes_its_four_checks(tmp_path: Path) -> None:
    box = Box(tmp_path)
    report = box.status.self_test
    assert report is not None and report.passed
    assert [c.name for c in report.checks] == [
        "write outside the workspace fails",
        "network connection fails",
        "host UNIX sockets are unreachable",
        "the parent's environ is unreadable",
    ]
    assert "passed" in report.describe()


@pytest.mark.usefixtures("bwrap_reason")
def test_the_workspace_is_writable_and_the_rest_of_the_system_is_not(tmp_path: Path) -> None:
    box = Box(tmp_path)
    result = box.run("echo made > made.txt && touch /usr/bot-probe; echo $?")
    assert (box.ws / "made.txt").read_text() == "made\n"
    assert result.stdout.text().strip() == "1"
    assert "Read-only file system" in result.stderr.text()
    assert not Path("/usr/bot-probe").exists()


@pytest.mark.usefixtures("bwrap_reason")
def test_tmp_is_private_to_the_run_and_kept_across_commands(tmp_path: Path) -> None:
    box = Box(tmp_path)
    marker = f"bot-private-{os.getpid()}-{id(box)}"
    box.run(f"echo kept > /tmp/{marker}")
    assert box.run(f"cat /tmp/{marker}").stdout.text() == "kept\n"
    assert not (Path("/tmp") / marker).exists()


@pytest.mark.usefixtures("bwrap_reason")
def test_the_git_directory_and_workflows_are_read_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git" / "objects").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    box = Box.__new__(Box)
    box.ws, box.scratch, box.env = ws, tmp_path / "scratch", build_child_env(os.environ).env
    box.status = anyio.run(
        lambda: prepare_sandbox(SandboxSettings(mode="required"), workspace=ws, scratch_dir=box.scratch, env=box.env)
    )
    result = box.run(
        "for f in .git/hooks/pre-commit .git/config .github/workflows/x.yml .git/objects/ok; do "
        '(echo x >> $f) 2>/dev/null && echo "wrote $f" || echo "refused $f"; done'
    )
    assert result.stdout.text().splitlines() == [
        "refused .git/hooks/pre-commit",
        "refused .git/config",
        "refused .github/workflows/x.yml",
        "refused .git/objects/ok",
    ]
    assert (ws / ".git" / "config").read_text() == "[core]\n"


@pytest.mark.usefixtures("bwrap_reason")
def test_there_is_no_network_unless_the_policy_allows_it(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        probe = f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo refused"
        closed = Box(tmp_path / "closed")
        assert closed.run(probe).stdout.text().strip() == "refused"
        networked = Box(tmp_path / "open", network=True)
        assert networked.run(probe).stdout.text().strip() == "connected"


@pytest.mark.usefixtures("bwrap_reason")
def test_the_sandbox_sees_only_its_own_processes(tmp_path: Path) -> None:
    box = Box(tmp_path)
    result = box.run("ls /proc | grep -c '^[0-9]'")
    assert int(result.stdout.text()) < 10  # bwrap, the shell, ls, grep: not the host's hundreds


@pytest.mark.usefixtures("bwrap_reason")
def test_credentials_in_home_and_the_runner_temp_directory_are_hidden(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE")
    (home / ".git-credentials").write_text("https://x:token@github.com")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    (runner_temp / "step.sh").write_text("echo secret-expanded")
    box = Box(tmp_path / "box", environ={**os.environ, "HOME": str(home), "RUNNER_TEMP": str(runner_temp)})
    result = box.run(f"ls {home}/.ssh; cat {home}/.git-credentials; ls {runner_temp}; echo done")
    assert result.stdout.text() == "done\n"


def _processes_running(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


@pytest.mark.usefixtures("bwrap_reason")
def test_stopping_a_sandboxed_command_ends_every_process_in_it_even_one_in_its_own_session(tmp_path: Path) -> None:
    box = Box(tmp_path)
    marker = f"6{os.getpid() % 1000}.{id(box) % 10_000}"  # a unique duration to find the sleeps by
    argv = box.status.launch_argv(
        Sandboxed(), shell_argv(f"sleep {marker} & setsid sleep {marker} & echo started; sleep {marker}"), cwd=box.ws
    )

    async def main() -> list[int]:
        seen: list[int] = []
        with anyio.CancelScope() as scope:

            def started(stream: str, line: str) -> None:
                seen.extend(_processes_running(f"sleep {marker}"))
                scope.cancel()

            await run_process(argv, cwd=box.ws, env=box.env, on_line=started)
        return seen

    seen = anyio.run(main)
    assert len(seen) >= 3  # bwrap, the shell, the sleeps (one in a session of its own) as far as forked
    assert all(wait_dead(pid) for pid in {*seen, *_processes_running(f"sleep {marker}")})
