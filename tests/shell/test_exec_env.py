"""Secrets never reach the shell: the allowlisted environment, and canaries through real commands."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
import pytest

from bot.shell.execute.env import BASE_NAMES, HEADLESS_DEFAULTS, build_child_env, policy_env_settings
from bot.shell.sandbox.status import probe_bwrap

GITHUB_PARENT = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/runner",
    "LANG": "C.UTF-8",
    "CI": "true",
    "GITHUB_REPOSITORY": "octo/repo",
    "GITHUB_SHA": "3f786850e387550fdab836ed7e6dc881de23001b",
    "GITHUB_TOKEN": "ghs_" + "x" * 36,
    "ACTIONS_RUNTIME_TOKEN": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZw",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-request-token-value",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.actions.example/idtoken?x=1",
    "GITHUB_ENV": "/home/runner/work/_temp/_runner_file_commands/set_env_1",
    "GITHUB_OUTPUT": "/home/runner/work/_temp/_runner_file_commands/set_output_1",
    "GITHUB_PATH": "/home/runner/work/_temp/_runner_file_commands/add_path_1",
    "GITHUB_STEP_SUMMARY": "/home/runner/work/_temp/_runner_file_commands/step_summary_1",
    "GITHUB_EVENT_PATH": "/home/runner/work/_temp/_github_workflow/event.json",
    "ANTHROPIC_API_KEY": "sk-ant-api03-" + "k" * 40,
    "INPUT_ANTHROPIC_API_KEY": "sk-ant-api03-" + "k" * 40,
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "SOME_TOOL_SETTING": "on",
    "LD_PRELOAD": "/evil.so",
}


def test_the_child_environment_is_an_allowlist_never_a_copy() -> None:
    env = build_child_env(GITHUB_PARENT).env
    assert set(env) == {"PATH", "HOME", "LANG", "CI", "GITHUB_REPOSITORY", "GITHUB_SHA", *HEADLESS_DEFAULTS}
    assert env["GITHUB_REPOSITORY"] == "octo/repo"
    assert env["PAGER"] == "cat"


@pytest.mark.parametrize(
    ("description", "name"),
    [
        ("the workflow token", "GITHUB_TOKEN"),
        ("the model key", "ANTHROPIC_API_KEY"),
        ("the model key as an action input", "INPUT_ANTHROPIC_API_KEY"),
        ("the runner's token", "ACTIONS_RUNTIME_TOKEN"),
        ("the OIDC token request", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"),
        ("the OIDC token URL", "ACTIONS_ID_TOKEN_REQUEST_URL"),
        ("cloud credentials", "AWS_SECRET_ACCESS_KEY"),
        ("the file that sets later steps' environment", "GITHUB_ENV"),
        ("the file that sets later steps' PATH", "GITHUB_PATH"),
        ("the step outputs file", "GITHUB_OUTPUT"),
        ("the job summary file", "GITHUB_STEP_SUMMARY"),
        ("the untrusted event payload", "GITHUB_EVENT_PATH"),
        ("the ssh agent", "SSH_AUTH_SOCK"),
        ("an unlisted variable", "SOME_TOOL_SETTING"),
        ("a loader variable", "LD_PRELOAD"),
    ],
)
def test_what_is_not_allowlisted_never_reaches_the_child(description: str, name: str) -> None:
    assert name not in build_child_env(GITHUB_PARENT).env


def test_the_policy_can_pass_variables_through_but_never_a_secret() -> None:
    parent = {**GITHUB_PARENT, "MIRROR_OF_TOKEN_VALUE": GITHUB_PARENT["GITHUB_TOKEN"]}
    child = build_child_env(
        parent, passthrough=["SOME_TOOL_SETTING", "GITHUB_TOKEN", "MIRROR_OF_TOKEN_VALUE", "NOT_SET_ANYWHERE"]
    )
    assert child.env["SOME_TOOL_SETTING"] == "on"
    assert "GITHUB_TOKEN" not in child.env
    assert "MIRROR_OF_TOKEN_VALUE" not in child.env
    assert [r.split(":")[0] for r in child.refused] == ["GITHUB_TOKEN", "MIRROR_OF_TOKEN_VALUE"]


def test_the_policy_can_set_literal_variables_and_the_runner_overrides_last() -> None:
    child = build_child_env(
        GITHUB_PARENT, policy_env={"NODE_ENV": "test", "PAGER": "less"}, overrides={"TMPDIR": "/tmp"}
    )
    assert child.env["NODE_ENV"] == "test"
    assert child.env["PAGER"] == "less"
    assert child.env["TMPDIR"] == "/tmp"


def test_a_missing_path_gets_a_default() -> None:
    assert build_child_env({}).env["PATH"].startswith("/usr/local/sbin")
    assert "PATH" in BASE_NAMES


@pytest.mark.parametrize(
    ("description", "extra", "expected"),
    [
        ("nothing configured", {}, ({}, (), ())),
        (
            "all three keys",
            {"env": {"A": "1", "N": 2}, "env_passthrough": ["B"], "secret_env": "C"},
            ({"A": "1", "N": "2"}, ("B",), ("C",)),
        ),
        ("ill-typed entries are dropped", {"env": {"A": ["x"], "B": True}, "env_passthrough": [1]}, ({}, (), ())),
        ("an env that is not a mapping is dropped", {"env": "A=1"}, ({}, (), ())),
    ],
)
def test_policy_env_settings_are_type_checked(
    description: str, extra: dict[str, object], expected: tuple[object, ...]
) -> None:
    assert policy_env_settings(extra) == expected


# ----- canaries through real commands -----------------------------------------------------------------

CANARY_COMMANDS = ["env", "printenv", "cat /proc/self/environ", "cat /proc/$PPID/environ", "cat /proc/1/environ"]

#: Runs in a fresh interpreter whose *exec-time* environment holds the canaries, so that
#: ``/proc/<bot pid>/environ`` really contains them (``os.environ`` changes never show there).
CANARY_SCRIPT = """
import json, os, sys
from pathlib import Path
import anyio
from bot.permissions.context import PermissionContext
from bot.shell.execute.env import build_child_env
from bot.shell.execute.process import run_process, shell_argv
from bot.shell.sandbox.status import Sandboxed, Unsandboxed, ensure_sandbox
from bot.tools.bash import BashTool
from bot.interface.context import make_context
from bot.interface.messages import Progress

async def main(root, modes, commands):
    tool = BashTool()
    for mode in modes:
        ws = root / mode / "ws"
        ws.mkdir(parents=True)
        ctx = make_context(ws, scratch_dir=root / mode / "scratch",
                           permission=PermissionContext(extra={"sandbox": mode}))
        env = build_child_env(os.environ).env
        status = await ensure_sandbox(ctx, env)
        sandboxed = mode == "required" or (mode == "auto" and status.available)
        choice = Sandboxed() if sandboxed else Unsandboxed("canary test")
        for command in commands:
            argv = status.launch_argv(choice, shell_argv(command), cwd=ws)
            raw = await run_process(argv, cwd=ws, env=env, timeout_s=30)
            print(json.dumps({"mode": mode, "layer": "exec", "command": command,
                              "output": raw.stdout.text() + raw.stderr.text()}))
            result = await tool.call(tool.parse_input({"command": command}), ctx, Progress("t", "Bash"))
            print(json.dumps({"mode": mode, "layer": "tool", "command": command,
                              "output": str(tool.map_result(result.data)), "sandboxed": result.data.sandboxed}))

anyio.run(main, Path(sys.argv[1]), sys.argv[2].split(","), json.loads(sys.argv[3]))
"""


def canaries() -> dict[str, str]:
    tag = secrets.token_hex(8)
    return {
        "GITHUB_TOKEN": f"ghs_CANARY{tag}" + "g" * 20,
        "ANTHROPIC_API_KEY": f"sk-ant-api03-CANARY{tag}" + "a" * 20,
        "INPUT_GITHUB_TOKEN": f"CANARY-input-{tag}",
        "ACTIONS_RUNTIME_TOKEN": f"CANARY-runtime-{tag}",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": f"CANARY-oidc-{tag}",
        "ACTIONS_ID_TOKEN_REQUEST_URL": f"https://canary.invalid/CANARY-oidc-url-{tag}",
        "AWS_SECRET_ACCESS_KEY": f"CANARY-aws-{tag}",
        # Named like nothing secret: only the allowlist keeps it out (redaction would not).
        "BOT_TEST_PLAIN_CANARY": f"CANARY-plain-{tag}",
    }


def sandbox_modes() -> list[str]:
    probe = anyio.run(probe_bwrap)
    if probe.works:
        return ["off", "required"]
    # Printed, never silent: the unsandboxed half still runs.
    print(f"canary test: sandboxed half skipped, bwrap cannot run here: {probe.reason}", file=sys.stderr)
    return ["off"]


def run_canary_script(
    root: Path, modes: list[str], planted: dict[str, str], as_user: list[str] | None = None
) -> list[dict[str, object]]:
    repo = Path(__file__).resolve().parents[2]
    argv = [
        *(as_user or []),
        sys.executable,
        "-c",
        CANARY_SCRIPT,
        str(root),
        ",".join(modes),
        json.dumps(CANARY_COMMANDS),
    ]
    # SHLVL=1 as a CI step's shell leaves it: the sandboxed shell sets the same, which is no leak.
    env = {**os.environ, **planted, "SHLVL": "1"}
    if as_user:
        env["HOME"] = str(root)
    proc = subprocess.run(argv, env=env, cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) == len(modes) * len(CANARY_COMMANDS) * 2
    return records


def assert_no_canary(records: list[dict[str, object]], planted: dict[str, str]) -> None:
    for record in records:
        output = str(record["output"])
        where = f"{record['mode']}/{record['layer']}: `{record['command']}`"
        for name, value in planted.items():
            # Only names are printed on failure: the output may hold the container's own environment.
            assert value not in output, f"{name} leaked through {where}"
            assert f"[REDACTED:{name}]" not in output, f"{name} reached {where} (only redaction hid it)"
        assert "CANARY" not in output, f"a canary leaked through {where}"
    by_key = {(r["mode"], r["layer"], r["command"]): str(r["output"]) for r in records}
    for mode in {str(r["mode"]) for r in records}:
        assert "PATH=" in by_key[(mode, "exec", "env")], "the commands must really have run"
    # Unsandboxed, the bot's own environ exists but is refused (non-dumpable, no CAP_SYS_PTRACE).
    assert "Permission denied" in by_key[("off", "exec", "cat /proc/$PPID/environ")]


def test_no_canary_reaches_any_command_sandboxed_or_not(tmp_path: Path) -> None:
    planted = canaries()
    modes = sandbox_modes()
    records = run_canary_script(tmp_path, modes, planted)
    assert_no_canary(records, planted)
    for record in records:
        if record["layer"] == "tool":
            assert record["sandboxed"] is (record["mode"] == "required"), record["mode"]


def test_no_canary_reaches_any_command_when_the_bot_runs_unprivileged() -> None:
    """GitHub's runners run the bot as a normal user: there only the bot's non-dumpability keeps
    its ``/proc/<pid>/environ`` from its commands (as root, the dropped capabilities do too)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip(
            "switching to an unprivileged user needs root and setpriv; as non-root the test above "
            "already runs unprivileged"
        )
    planted = canaries()
    root = Path(tempfile.mkdtemp(prefix="bot-canary-"))
    try:
        root.chmod(0o777)
        records = run_canary_script(
            root, ["off", "auto"], planted, as_user=[setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert_no_canary(records, planted)
