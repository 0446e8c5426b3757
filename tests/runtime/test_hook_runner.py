"""Hooks end to end: real processes, the documented stdin/exit-code/JSON contract, and the pipeline."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.interface.context import make_context
from bot.interface.messages import ToolUseBlock
from bot.permissions.decision import Allow, Deny
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.runtime.hook_config import HookCommand, parse_hooks
from bot.runtime.hook_exec import MAX_HOOK_OUTPUT_BYTES, run_hook_command
from bot.runtime.hook_runner import CommandHookRunner, condition_matches, hooks_from_policy
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from tests.conftest import FIXTURES
from tests.runtime.fakes import BoomTool, EchoTool

SCRIPTS = Path(__file__).parent / "hook_scripts"
PY_HOOK = f"{sys.executable} {SCRIPTS / 'policy_hook.py'}"
SH_HOOK = str(SCRIPTS / "guard.sh")
BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}


def make_runner(tmp_path: Path, hooks: dict[str, Any], env: dict[str, str] | None = None) -> CommandHookRunner:
    return CommandHookRunner(
        parse_hooks(hooks, "policy.json"),
        session_id="sess-1",
        transcript_path=tmp_path / "transcript.jsonl",
        project_dir=tmp_path,
        env={**BASE_ENV, **(env or {})},
    )


def pre(command: str, matcher: str = "Echo", timeout: float = 10) -> dict[str, Any]:
    return {
        "PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]
    }


def call(
    tmp_path: Path,
    hooks: CommandHookRunner,
    text: str,
    *,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    tool: str = "Echo",
) -> ToolCallOutcome:
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(allow, deny, []))
    runner = ToolRunner(ToolPool([EchoTool(), BoomTool()]), hooks=hooks)
    raw: dict[str, Any] = {"text": text} if tool == "Echo" else {"kind": text}

    async def main() -> ToolCallOutcome:
        return await runner.run(ToolUseBlock("toolu_9", tool, raw), context)

    return anyio.run(main)


@pytest.mark.parametrize(
    ("description", "text", "allow", "deny", "ran", "fragment"),
    [
        (
            "exit 2 blocks and stderr reaches the model",
            "exit2",
            ("Echo",),
            (),
            False,
            "blocked: this text is not allowed",
        ),
        ("exit 1 is a non-blocking error: the rules decide", "exit1", ("Echo",), (), True, "exit1"),
        ("JSON allow lets an unlisted call run", "allow", (), (), True, "allow"),
        ("JSON allow never beats a deny rule", "allow", (), ("Echo",), False, "a deny rule forbids"),
        ("JSON deny blocks an allowed call", "deny", ("Echo",), (), False, "hook says deny"),
        ("JSON ask is a denial headless", "ask", ("Echo",), (), False, "nobody can approve it"),
        ("legacy decision: block", "legacy-block", ("Echo",), (), False, "legacy block"),
        ("garbage stdout is ignored", "garbage", ("Echo",), (), True, "garbage"),
    ],
)
def test_pre_tool_use_contract(
    tmp_path: Path, description: str, text: str, allow: tuple[str, ...], deny: tuple[str, ...], ran: bool, fragment: str
) -> None:
    outcome = call(tmp_path, make_runner(tmp_path, pre(PY_HOOK)), text, allow=allow, deny=deny)
    assert (not outcome.result.is_error) is ran, description
    assert fragment in outcome.result.text


def test_updated_input_and_additional_context(tmp_path: Path) -> None:
    outcome = call(tmp_path, make_runner(tmp_path, pre(PY_HOOK)), "rewrite", allow=("Echo",))
    assert outcome.result.content == "rewritten by hook"
    assert [m["text"] for m in outcome.new_messages] == ["the hook rewrote your input"]


def test_continue_false_stops_the_run(tmp_path: Path) -> None:
    outcome = call(tmp_path, make_runner(tmp_path, pre(PY_HOOK)), "stop", allow=("Echo",))
    assert outcome.stop_reason == "hook wants the run to stop"


def test_a_shell_hook_blocks_by_exit_code(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, pre(SH_HOOK))
    assert call(tmp_path, runner, "rm -rf /", allow=("Echo",)).result.is_error
    assert not call(tmp_path, runner, "ls", allow=("Echo",)).result.is_error


def test_matchers_select_the_hook(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, pre(PY_HOOK, matcher="Bash|Write"))
    assert not call(tmp_path, runner, "exit2", allow=("Echo",)).result.is_error


def test_the_payload_has_the_documented_fields_and_matches_real_payloads(tmp_path: Path) -> None:
    log = tmp_path / "hook.log"
    runner = make_runner(
        tmp_path,
        {
            **pre(PY_HOOK),
            "PostToolUse": [{"hooks": [{"command": PY_HOOK}]}],
            "PostToolUseFailure": [{"hooks": [{"command": PY_HOOK}]}],
        },
        env={"HOOK_LOG": str(log)},
    )
    call(tmp_path, runner, "hello", allow=("Echo", "Boom"))
    call(tmp_path, runner, "runtime", allow=("Echo", "Boom"), tool="Boom")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["hook_event_name"] for e in events] == ["PreToolUse", "PostToolUse", "PostToolUseFailure"]
    by_event = {e["hook_event_name"]: e for e in events}
    real_pre = json.loads(
        (FIXTURES / "hook-inputs" / "PytaichukBohdan__coding-agents-settings__pre_tool_use.json").read_text()
    )[0]
    real_post = json.loads(
        (FIXTURES / "hook-inputs" / "PytaichukBohdan__coding-agents-settings__post_tool_use.json").read_text()
    )[0]
    assert set(real_pre) <= set(by_event["PreToolUse"])
    assert set(real_post) <= set(by_event["PostToolUse"])
    assert by_event["PreToolUse"]["tool_input"] == {"text": "hello", "times": 1, "shout": False}
    assert by_event["PostToolUse"]["tool_response"] == "hello"
    assert by_event["PostToolUseFailure"]["error"].endswith("kaput</tool_use_error>")
    assert by_event["PreToolUse"]["session_id"] == "sess-1"
    assert by_event["PreToolUse"]["transcript_path"] == str(tmp_path / "transcript.jsonl")


def test_hooks_get_the_project_dir_and_only_the_environment_they_are_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_canary_should_never_leak")
    outcome = call(tmp_path, make_runner(tmp_path, pre(PY_HOOK)), "env", allow=("Echo",))
    env = json.loads(outcome.new_messages[0]["text"])
    assert env["CLAUDE_PROJECT_DIR"] == str(tmp_path)
    assert env["BOT_PROJECT_DIR"] == str(tmp_path)
    assert "GITHUB_TOKEN" not in env


def test_several_matching_hooks_run_in_parallel(tmp_path: Path) -> None:
    # Each hook waits for the other's marker file: they can only both finish if they run at once.
    a, b = tmp_path / "a", tmp_path / "b"
    wait_for = "for i in $(seq 1 200); do [ -e {0} ] && exit 0; sleep 0.01; done; exit 1"
    hooks = {
        "PreToolUse": [
            {
                "hooks": [
                    {"command": f"touch {a}; " + wait_for.format(b), "timeout": 10},
                    {"command": f"touch {b}; " + wait_for.format(a), "timeout": 10},
                ]
            }
        ]
    }
    runner = make_runner(tmp_path, hooks)
    call(tmp_path, runner, "x", allow=("Echo",))
    assert [entry.exit_code for entry in runner.log] == [0, 0]


def run_one(command: str, timeout: float = 10, payload: dict[str, Any] | None = None, cwd: Path = Path(".")) -> Any:
    async def main() -> Any:
        return await run_hook_command(HookCommand(command, timeout), payload or {"x": 1}, cwd=cwd, env=BASE_ENV)

    return anyio.run(main)


def process_alive(pid: int) -> bool:
    """Alive and not a zombie (a killed orphan may wait for a reaper that a container lacks)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]


def exits_soon(pid: int) -> bool:
    """Whether ``pid`` ends, waiting on its pidfd (it is not our child): a SIGKILL is delivered at
    once but the process ends a moment later. Bounded against a process that was never killed."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], 30)
    finally:
        os.close(fd)
    return bool(ready) or not process_alive(pid)


def test_a_hanging_hook_is_killed_with_its_children_at_its_timeout(tmp_path: Path) -> None:
    # On a busy machine the shell may not have started its child within the timeout: the hook is
    # then killed before there is a child to check, and runs again with a longer one.
    pidfile = tmp_path / "child.pid"
    timeout = 0.5
    while True:
        pidfile.unlink(missing_ok=True)
        run = run_one(f"sleep 60 & echo $! > {pidfile}; wait", timeout=timeout)
        assert run.timed_out
        written = pidfile.read_text().strip() if pidfile.exists() else ""
        if written.isdigit() or timeout >= 64:
            break
        timeout *= 2
    assert run.exit_code is None
    assert exits_soon(int(written))
    assert f"timed out after {timeout:g} s" in run.describe_failure()


def test_a_timed_out_hook_leaves_nothing_to_finalise_after_its_event_loop() -> None:
    # Its pipes were never read to the end; left open, the loop's transport is finalised after the
    # loop closed and raises "Event loop is closed" from a later garbage collection (which, inside
    # a failing test's report, crashed pytest on CPython 3.11: tests/test_failure_reports.py).
    import gc

    gc.collect()
    unraisable: list[str] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda u: unraisable.append(f"{u.exc_type.__name__}: {u.exc_value}")
    try:
        run = run_one("sleep 60", timeout=0.05)
        gc.collect()
    finally:
        sys.unraisablehook = previous
    assert run.timed_out
    assert unraisable == []


def test_huge_output_is_capped_and_does_not_block(tmp_path: Path) -> None:
    run = run_one("head -c 5000000 /dev/zero | tr '\\0' 'x'; echo done >&2")
    assert run.succeeded
    assert len(run.stdout) == MAX_HOOK_OUTPUT_BYTES
    assert run.stderr.strip() == "done"


def test_a_hook_that_ignores_stdin_or_does_not_exist_is_not_fatal(tmp_path: Path) -> None:
    assert run_one("true", payload={"big": "y" * 1_000_000}).succeeded
    missing = run_one("/nonexistent/hook.sh")
    assert missing.exit_code == 127
    assert not missing.blocked


def test_lifecycle_events(tmp_path: Path) -> None:
    hooks = {
        "SessionStart": [{"hooks": [{"command": "echo 'Repository uses tabs.'"}]}],
        "UserPromptSubmit": [
            {
                "hooks": [
                    {"command": "grep -q forbidden && { echo 'no such tasks' >&2; exit 2; }; echo 'context from hook'"}
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "command": 'python3 -c "import json,sys; e=json.load(sys.stdin); '
                        "print(json.dumps({} if e['stop_hook_active'] else "
                        "{'decision': 'block', 'reason': 'run the tests first'}))\""
                    }
                ]
            }
        ],
    }
    runner = make_runner(tmp_path, hooks)

    async def main() -> None:
        assert await runner.session_start(tmp_path) == ("Repository uses tabs.",)
        ok = await runner.user_prompt_submit("fix the bug", tmp_path)
        assert ok.blocked is None
        assert ok.additional_context == ("context from hook",)
        refused = await runner.user_prompt_submit("do the forbidden thing", tmp_path)
        assert refused.blocked == "no such tasks"
        first = await runner.stop(tmp_path, stop_hook_active=False)
        assert first.continue_with == "run the tests first"
        second = await runner.stop(tmp_path, stop_hook_active=True)
        assert second.continue_with is None

    anyio.run(main)


def test_decisions_of_several_hooks_combine_deny_first(tmp_path: Path) -> None:
    hooks = {
        "PreToolUse": [
            {
                "hooks": [
                    {"command": 'echo \'{"hookSpecificOutput": {"permissionDecision": "allow"}}\''},
                    {
                        "command": 'echo \'{"hookSpecificOutput": {"permissionDecision": "deny", '
                        '"permissionDecisionReason": "second says no"}}\''
                    },
                ]
            }
        ]
    }
    runner = make_runner(tmp_path, hooks)
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")

    async def main() -> Any:
        return await runner.pre_tool_use("Echo", {"text": "x"}, "t", context)

    outcome = anyio.run(main)
    assert isinstance(outcome.decision, Deny)
    assert outcome.decision.reason == "second says no"
    assert not isinstance(outcome.decision, Allow)


POLICY_WITH_HOOK = {
    "permissions": {"allow": ["Read"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Read",
                "hooks": [
                    {
                        "type": "command",
                        "command": "grep -q secret && { echo 'no secrets please' >&2; exit 2; } || exit 0",
                    }
                ],
            }
        ]
    },
}


def test_policy_hooks_run_in_bot_tools_call_and_policy_check(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bot.cli import app

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY_WITH_HOOK))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "secret.txt").write_text("x\n")
    (ws / "a.txt").write_text("hi\n")
    cli = CliRunner()
    denied = json.loads(
        cli.invoke(
            app, ["tools", "call", "Read", '{"file_path": "secret.txt"}', "-w", str(ws), "--policy", str(policy)]
        ).stdout
    )
    assert denied["decision"] == "deny"
    assert "no secrets please" in denied["tool_result"]["content"]
    allowed = json.loads(
        cli.invoke(
            app, ["tools", "call", "Read", '{"file_path": "a.txt"}', "-w", str(ws), "--policy", str(policy)]
        ).stdout
    )
    assert allowed["decision"] == "allow"
    lines = "\n".join(
        json.dumps({"tool": "Read", "input": {"file_path": f}, "policy": str(policy), "workspace": str(ws)})
        for f in ("secret.txt", "a.txt")
    )
    batch = cli.invoke(app, ["policy", "check", "--batch", "-"], input=lines)
    assert [json.loads(line)["decision"] for line in batch.stdout.splitlines()] == ["deny", "allow"]


def test_disable_all_hooks_turns_policy_hooks_off(tmp_path: Path) -> None:
    from bot.permissions.stack import PolicyLayer, load_policy_stack
    from bot.runtime.hook_runner import hooks_from_policy

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({**POLICY_WITH_HOOK, "disableAllHooks": True}))
    merged = load_policy_stack([PolicyLayer("flag", path=str(policy))])
    assert merged.hooks_disabled is not None
    assert not hooks_from_policy(merged.hooks, disabled=merged.hooks_disabled.value)
    assert hooks_from_policy(merged.hooks)


def if_rule(text: str) -> Any:
    config = parse_hooks({"PreToolUse": [{"hooks": [{"command": "x", "if": text}]}]}, "policy.json")
    return config.commands_for("PreToolUse", "Bash")[0].condition


@pytest.mark.parametrize(
    ("description", "rule", "tool", "tool_input", "expected"),
    [
        ("a matching command", "Bash(git commit*)", "Bash", {"command": "git commit -m wip"}, True),
        ("another command", "Bash(git commit*)", "Bash", {"command": "git status"}, False),
        (
            "one part of a compound command",
            "Bash(git commit*)",
            "Bash",
            {"command": "npm test && git commit -m x"},
            True,
        ),
        ("a command under a wrapper", "Bash(git commit*)", "Bash", {"command": "timeout 30 git commit -m x"}, True),
        ("a command inside sh -c", "Bash(git commit*)", "Bash", {"command": "sh -c 'git commit -m x'"}, True),
        ("a program named by its path", "Bash(git commit*)", "Bash", {"command": "/usr/bin/git commit -m x"}, True),
        ("quotes are resolved", "Bash(git commit*)", "Bash", {"command": 'git "commit" -m x'}, True),
        (
            "a command too complex to take apart runs the hook",
            "Bash(git commit*)",
            "Bash",
            {"command": "git status; $(cat cmd)"},
            True,
        ),
        ("a real guard's if", "Bash(rm -rf *)", "Bash", {"command": "rm -rf build"}, True),
        ("a real guard's if, not matching", "Bash(rm -rf *)", "Bash", {"command": "rm build.log"}, False),
        ("a Bash if never matches another tool", "Bash(git *)", "Read", {"file_path": "/x/git"}, False),
        (
            "an escaped rule matches the unescaped command",
            r"Bash(python3 -c print\(1\))",
            "Bash",
            {"command": "python3 -c 'print(1)'"},
            True,
        ),
        ("a path pattern", "Edit(*.ts)", "Edit", {"file_path": "{ws}/src/a.ts"}, True),
        ("a path pattern, other file", "Edit(*.ts)", "Edit", {"file_path": "{ws}/src/a.py"}, False),
        ("an Edit rule covers Write, as rules do", "Edit(*.ts)", "Write", {"file_path": "{ws}/b.ts"}, True),
        ("a workspace path pattern", "Read(./src/**)", "Read", {"file_path": "{ws}/docs/a.md"}, False),
        ("a domain", "WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/a"}, True),
        ("another domain", "WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.org/"}, False),
        ("a whole tool", "Write", "Write", {"file_path": "{ws}/a"}, True),
        ("an MCP server", "mcp__github", "mcp__github__create_issue", {}, True),
    ],
)
def test_an_if_matches_calls_as_permission_rules_do(
    tmp_path: Path, description: str, rule: str, tool: str, tool_input: dict[str, str], expected: bool
) -> None:
    resolved = {k: v.format(ws=tmp_path) for k, v in tool_input.items()}
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")
    assert condition_matches(if_rule(rule), tool, resolved, context.workspace, context) is expected, description


def test_a_hook_with_an_if_runs_only_for_the_calls_it_matches(tmp_path: Path) -> None:
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"command": "echo no commits on Fridays >&2; exit 2", "if": "Bash(git commit*)"}],
            }
        ]
    }
    runner = make_runner(tmp_path, hooks)
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")

    async def pre(command: str) -> Any:
        return await runner.pre_tool_use("Bash", {"command": command}, "toolu_1", context)

    blocked = anyio.run(pre, "git commit -m wip")
    assert isinstance(blocked.decision, Deny) and "no commits on Fridays" in blocked.decision.reason
    assert anyio.run(pre, "git status").decision is None
    assert len(runner.log) == 1


def test_a_real_hook_with_an_if_runs_only_for_matching_commands(tmp_path: Path) -> None:
    path = FIXTURES / "claude-settings" / "bhouvana__Insight.json"
    policy = load_policy_stack([PolicyLayer("repository", path=str(path))])
    runner = CommandHookRunner(
        hooks_from_policy(policy.hooks),
        session_id="s",
        transcript_path=tmp_path / "t",
        project_dir=tmp_path,
        env=BASE_ENV,
    )
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s")

    async def pre(command: str) -> None:
        await runner.pre_tool_use("Bash", {"command": command}, "toolu_1", context)

    anyio.run(pre, "git status")
    assert runner.log == []
    anyio.run(pre, "git commit -m 'x'")  # the script is not in tmp_path: a non-blocking error, logged
    assert [e.command for e in runner.log] == ["bash .claude/hooks/check-sync.sh"]
