"""The Bash tool: schema, output, timeouts, the persistent directory, secrets, and the sandbox choice."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ProgressEvent, ToolUseBlock
from bot.interface.tool import InputSchemaError, ToolResult
from bot.permissions.chain import RuleEngine
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Allow, Deny
from bot.permissions.engine import PolicyEngine
from bot.permissions.rules import make_rule
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.shell.api import interpret_exit_code
from bot.shell.sandbox.status import SERVICE_KEY, SandboxStatus, probe_bwrap
from bot.tools.bash import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, BashInput, BashOutput, BashTool, timeout_ms
from bot.tools.read import ReadTool

TOKEN = "ghs_" + "T0kenValue" * 4


def bash_context(tmp_path: Path, **extra: object) -> ToolUseContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    extra.setdefault("sandbox", "off")
    return make_context(ws, scratch_dir=tmp_path / "scratch", permission=PermissionContext(extra=dict(extra)))


def call(
    context: ToolUseContext,
    raw: dict[str, Any],
    events: list[ProgressEvent] | None = None,
    tool: BashTool | None = None,
) -> tuple[ToolResult[BashOutput], Any]:
    tool = tool or BashTool()
    sink = events.append if events is not None else (lambda event: None)

    async def main() -> ToolResult[BashOutput]:
        return await tool.call(tool.parse_input(raw), context, Progress("toolu_1", "Bash", sink))

    result = anyio.run(main)
    return result, tool.map_result(result.data)


def bwrap_works() -> bool:
    probe = anyio.run(probe_bwrap)
    if not probe.works:
        print(f"sandboxed Bash test skipped: {probe.reason}")
    return probe.works


# ----- schema ----------------------------------------------------------------------------------------


def test_the_schema_has_the_seeds_fields_and_nothing_internal() -> None:
    schema = BashTool(background_tasks=True).input_json_schema()
    assert set(schema["properties"]) == {
        "command",
        "timeout",
        "description",
        "run_in_background",
        "dangerouslyDisableSandbox",
    }
    assert schema["required"] == ["command"]
    assert schema["additionalProperties"] is False


def test_run_in_background_disappears_when_background_tasks_are_disabled() -> None:
    tool = BashTool(background_tasks=False)
    assert "run_in_background" not in tool.input_json_schema()["properties"]
    assert "run_in_background" in BashTool(background_tasks=True).input_json_schema()["properties"]
    with pytest.raises(InputSchemaError, match="unexpected parameter `run_in_background`"):
        tool.parse_input({"command": "ls", "run_in_background": True})


def test_model_inputs_are_coerced_and_unknown_fields_refused() -> None:
    parsed = BashTool().parse_input({"command": "ls", "timeout": "5000", "run_in_background": "false"})
    assert parsed == BashInput(command="ls", timeout=5000, run_in_background=False)
    # The seeds' semantic numbers: a decimal string or number is a number, not a schema error.
    for raw in ("4.2", 4.2):
        parsed = BashTool().parse_input({"command": "ls", "timeout": raw})
        assert parsed.timeout == 4.2 and timeout_ms(parsed.timeout, {}) == 5
    with pytest.raises(InputSchemaError):
        BashTool().parse_input({"command": "ls", "timeout": "soon"})
    with pytest.raises(InputSchemaError, match="_simulatedSedEdit"):
        BashTool().parse_input({"command": "ls", "_simulatedSedEdit": {"file": "x"}})


@pytest.mark.parametrize(
    ("description", "requested", "environ", "expected"),
    [
        ("nothing asked: the default", None, {}, DEFAULT_TIMEOUT_MS),
        ("a shorter timeout", 5_000, {}, 5_000),
        ("over the maximum: the maximum", 3_600_000, {}, MAX_TIMEOUT_MS),
        ("the operator's default", None, {"BASH_DEFAULT_TIMEOUT_MS": "60000"}, 60_000),
        ("the operator's maximum", 900_000, {"BASH_MAX_TIMEOUT_MS": "800000"}, 800_000),
    ],
)
def test_the_timeout_has_a_default_and_a_maximum(
    description: str, requested: int | None, environ: dict[str, str], expected: int
) -> None:
    assert timeout_ms(requested, environ) == expected


# ----- running ---------------------------------------------------------------------------------------


def test_stdout_and_stderr_come_back_and_stream_as_progress(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    result, text = call(bash_context(tmp_path), {"command": "echo out; echo err >&2"}, events)
    assert text == "out\nerr"
    assert not result.is_error
    assert result.data.exitCode == 0 and not result.data.sandboxed
    assert sorted((e.kind, e.data["line"]) for e in events) == [("stderr", "err"), ("stdout", "out")]


@pytest.mark.parametrize(
    ("description", "command", "code"),
    [
        ("a failing command", "exit 3", 3),
        ("grep without a match", "grep needle /dev/null", 1),
        ("diff with differences", "diff <(echo a) <(echo b) > /dev/null", 1),
    ],
)
def test_the_exit_code_is_judged_by_the_command_semantics(
    tmp_path: Path, description: str, command: str, code: int
) -> None:
    result, text = call(bash_context(tmp_path), {"command": command})
    meaning = interpret_exit_code(command, code, "", "")
    assert result.data.exitCode == code
    assert result.is_error is meaning.is_error
    assert (meaning.message or f"Exit code {code}") in text


def _run_in_pipeline(context: ToolUseContext, command: str) -> ToolCallOutcome:
    permission = PermissionContext(allow=(make_rule("Bash", "allow", "session"),), extra=dict(context.permission.extra))
    context = context.with_(permission=permission)

    async def main() -> ToolCallOutcome:
        runner = ToolRunner(ToolPool([BashTool(), ReadTool()]), RuleEngine())
        return await runner.run(ToolUseBlock("toolu_big", "Bash", {"command": command}), context)

    return anyio.run(main)


def test_a_large_output_is_cut_once_and_kept_whole_where_the_model_can_read_it(tmp_path: Path) -> None:
    # The case: 108,894 characters were cut to 30,033, then persisted as a 2,304-character
    # preview of those; everything after the first 30,000 characters was lost.
    context = bash_context(tmp_path)
    outcome = _run_in_pipeline(context, "seq 1 20000")
    text = outcome.result.text
    assert text.startswith("<persisted-output>") and "lines truncated" not in text
    assert "Output too large (108,893 characters)" in text
    saved = Path(text.split("Full output saved to: ")[1].split()[0])
    assert saved.read_text() == "\n".join(str(i) for i in range(1, 20_001))

    async def read_back() -> ToolCallOutcome:
        runner = ToolRunner(ToolPool([ReadTool()]), PolicyEngine())
        raw = {"file_path": str(saved), "offset": 19_999, "limit": 2}
        return await runner.run(ToolUseBlock("toolu_read", "Read", raw), context)

    read = anyio.run(read_back)
    assert not read.result.is_error, read.result.text
    assert read.result.text == " 19999\t19999\n 20000\t20000"


def test_bash_max_output_length_sets_where_output_is_persisted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASH_MAX_OUTPUT_LENGTH", "1000")
    outcome = _run_in_pipeline(bash_context(tmp_path), "seq 1 400")  # 1,491 characters
    assert outcome.result.text.startswith("<persisted-output>")
    monkeypatch.setenv("BASH_MAX_OUTPUT_LENGTH", "2000")
    assert _run_in_pipeline(bash_context(tmp_path), "seq 1 400").result.text.startswith("1\n2\n")


def test_the_tool_itself_no_longer_cuts_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASH_MAX_OUTPUT_LENGTH", "1000")
    _, text = call(bash_context(tmp_path), {"command": "seq 1 100000"})
    assert text.startswith("1\n2\n3\n") and text.endswith("\n100000")
    assert "truncated" not in text


def test_binary_output_does_not_crash_the_tool(tmp_path: Path) -> None:
    result, text = call(bash_context(tmp_path), {"command": "head -c 2000 /dev/urandom"})
    assert isinstance(text, str)
    assert result.data.exitCode == 0


def test_an_image_printed_as_a_data_url_comes_back_as_an_image(tmp_path: Path) -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    result, content = call(bash_context(tmp_path), {"command": f"printf 'data:image/png;base64,{png}'"})
    assert result.data.isImage
    assert content == [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]


def test_a_timeout_stops_the_command_and_is_an_error(tmp_path: Path) -> None:
    result, text = call(bash_context(tmp_path), {"command": "echo before; sleep 60", "timeout": 300})
    assert result.is_error
    assert result.data.timedOut and result.data.interrupted
    assert text.startswith("before\n")
    assert "timed out" in text


def test_an_aborted_run_stops_the_command(tmp_path: Path) -> None:
    context = bash_context(tmp_path)
    context.abort.abort("the run was cancelled")
    result, text = call(context, {"command": "sleep 60"})
    assert result.is_error and result.data.interrupted and not result.data.timedOut
    assert "aborted" in text


# ----- the persistent working directory --------------------------------------------------------------


def test_a_cd_inside_the_workspace_carries_over_to_the_next_command(tmp_path: Path) -> None:
    context = bash_context(tmp_path)
    (context.workspace / "sub").mkdir()
    result, _ = call(context, {"command": "cd sub"})
    assert result.context_modifier is not None
    moved = result.context_modifier(context)
    assert moved.cwd == context.workspace / "sub"
    _, text = call(moved, {"command": "pwd"})
    assert text == str(context.workspace / "sub")


def test_a_cd_outside_the_workspace_does_not_carry_over(tmp_path: Path) -> None:
    context = bash_context(tmp_path)
    result, text = call(context, {"command": "cd / && pwd"})
    assert result.context_modifier is None
    assert text.startswith("/\n")
    assert f"working directory stays {context.workspace}" in text


def test_a_directory_that_was_removed_resets_to_the_workspace(tmp_path: Path) -> None:
    context = bash_context(tmp_path)
    gone = context.workspace / "gone"
    context = context.with_(cwd=gone)
    _, text = call(context, {"command": "pwd"})
    assert text.splitlines() == [str(context.workspace), f"Shell cwd was reset to {context.workspace}"]


# ----- secrets ---------------------------------------------------------------------------------------


def test_known_secrets_are_redacted_from_output_and_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    events: list[ProgressEvent] = []
    secret_file = tmp_path / "ws" / "leak.txt"
    (tmp_path / "ws").mkdir()
    secret_file.write_text(f"token={TOKEN}\n")
    _, text = call(bash_context(tmp_path), {"command": "cat leak.txt"}, events)
    assert text == "token=[REDACTED:GITHUB_TOKEN]"
    assert events[0].data["line"] == "token=[REDACTED:GITHUB_TOKEN]"


def test_printenv_through_the_pipeline_shows_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("BOT_TEST_PLAIN_CANARY", "plain-canary-value")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/repo")
    context = bash_context(tmp_path)
    permission = PermissionContext(
        allow=(make_rule("Bash(printenv)", "allow", "session"),), extra=dict(context.permission.extra)
    )
    context = context.with_(permission=permission)

    async def main() -> ToolCallOutcome:
        runner = ToolRunner(ToolPool([BashTool()]), RuleEngine())
        return await runner.run(ToolUseBlock("toolu_1", "Bash", {"command": "printenv"}), context)

    outcome = anyio.run(main)
    assert isinstance(outcome.record.decision, Allow), outcome.result.text
    assert "GITHUB_REPOSITORY=octo/repo" in outcome.result.text
    for leaked in (TOKEN, "plain-canary-value", "GITHUB_TOKEN", "BOT_TEST_PLAIN_CANARY"):
        assert leaked not in outcome.result.text


def test_the_policy_env_reaches_the_command(tmp_path: Path) -> None:
    _, text = call(bash_context(tmp_path, env={"NODE_ENV": "test"}), {"command": "echo $NODE_ENV"})
    assert text == "test"


# ----- permissions and flags: delegated to the analysis ------------------------------------------------


def test_the_tool_declares_what_the_pipeline_needs() -> None:
    tool = BashTool()
    assert tool.matches_own_rule_content and tool.aborts_siblings_on_error
    assert tool.max_result_chars == 30_000
    assert tool.permission_subject(BashInput(command="ls -la")) == "ls -la"


def test_a_deny_rule_stops_the_command_before_it_runs(tmp_path: Path) -> None:
    context = bash_context(tmp_path)
    permission = PermissionContext(
        deny=(make_rule("Bash(touch:*)", "deny", "policySettings"),),
        allow=(make_rule("Bash", "allow", "policySettings"),),
        extra={"sandbox": "off"},
    )

    async def main() -> ToolCallOutcome:
        runner = ToolRunner(ToolPool([BashTool()]), RuleEngine())
        return await runner.run(
            ToolUseBlock("toolu_1", "Bash", {"command": "touch made"}), context.with_(permission=permission)
        )

    outcome = anyio.run(main)
    assert isinstance(outcome.record.decision, Deny)
    assert not (context.workspace / "made").exists()


# ----- the sandbox choice ------------------------------------------------------------------------------


def test_required_without_a_sandbox_refuses_every_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap here
    context = bash_context(tmp_path, sandbox="required")
    with pytest.raises(ToolExecutionError, match=r"requires the sandbox.*bwrap is not installed"):
        call(context, {"command": "true"})
    status = context.services[SERVICE_KEY]
    assert isinstance(status, SandboxStatus) and not status.available
    assert any("refused" in w for w in status.warnings)


def test_commands_run_in_the_sandbox_when_required(tmp_path: Path) -> None:
    if not bwrap_works():
        pytest.skip("bwrap cannot run here (reason printed above)")
    result, text = call(
        bash_context(tmp_path, sandbox="required"),
        {"command": "echo hi > f && cat f && touch /usr/x 2>/dev/null || echo refused"},
    )
    assert result.data.sandboxed
    assert text == "hi\nrefused"


@pytest.mark.parametrize(
    ("description", "extra", "raw", "sandboxed", "note"),
    [
        (
            "the model asks, the policy does not allow it",
            {},
            {"dangerouslyDisableSandbox": True},
            True,
            "dangerouslyDisableSandbox was ignored",
        ),
        (
            "the model asks, the policy allows it",
            {"allow_unsandboxed": True},
            {"dangerouslyDisableSandbox": True},
            False,
            None,
        ),
        ("an excluded command", {"excluded_commands": ["id *"]}, {}, False, None),
    ],
)
def test_leaving_the_sandbox_takes_the_policy(
    tmp_path: Path,
    description: str,
    extra: dict[str, object],
    raw: dict[str, object],
    sandboxed: bool,
    note: str | None,
) -> None:
    if not bwrap_works():
        pytest.skip("bwrap cannot run here (reason printed above)")
    result, text = call(bash_context(tmp_path, sandbox="required", **extra), {"command": "id -u", **raw})
    assert result.data.sandboxed is sandboxed
    assert (note in text) if note else text == str(os.getuid())


def test_run_in_background_without_a_task_service_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ToolExecutionError, match="Background tasks are not available"):
        call(bash_context(tmp_path), {"command": "sleep 1", "run_in_background": True})
