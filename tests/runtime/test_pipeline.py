"""The eight stages: every stage's error path becomes an is_error result, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.interface.context import ToolLimits, ToolUseContext, make_context
from bot.interface.messages import ProgressEvent, ToolUseBlock
from bot.interface.tool import AnyTool
from bot.permissions.decision import Allow, Ask, Deny
from bot.runtime.hooks import PostToolHookOutcome, PreToolHookOutcome
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.single_call import flag_permission_context
from tests.runtime.fakes import BoomTool, CdTool, EchoTool, OpinionatedTool, RecordingHooks


def run_call(
    tmp_path: Path,
    name: str,
    raw: Any,
    *,
    allow: tuple[str, ...] = ("Echo", "Boom", "Cd", "Opinionated"),
    deny: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    hooks: RecordingHooks | None = None,
    tools: list[AnyTool] | None = None,
    limits: ToolLimits | None = None,
    abort: bool = False,
) -> tuple[ToolCallOutcome, list[ProgressEvent]]:
    permission = flag_permission_context(allow, deny, ask)
    context = make_context(
        tmp_path, scratch_dir=tmp_path / ".scratch", permission=permission, limits=limits or ToolLimits()
    )
    if abort:
        context.abort.abort("the run was cancelled")
    pool = ToolPool(tools or [EchoTool(), BoomTool(), CdTool(), OpinionatedTool()])
    events: list[ProgressEvent] = []

    async def main() -> ToolCallOutcome:
        return await ToolRunner(pool, hooks=hooks).run(ToolUseBlock("toolu_1", name, raw), context, events.append)

    return anyio.run(main), events


def test_a_call_runs_through_all_stages_and_reports_progress(tmp_path: Path) -> None:
    outcome, events = run_call(tmp_path, "Echo", {"text": "hi", "times": 2})
    assert outcome.result.content == "hi hi"
    assert not outcome.result.is_error
    assert isinstance(outcome.record.decision, Allow)
    assert [e.kind for e in events] == ["echo"]
    assert events[0].tool_use_id == "toolu_1"


@pytest.mark.parametrize(
    ("description", "raw", "expected"),
    [
        ("string number becomes int", {"text": "a", "times": "3"}, "a a a"),
        ("'yes' becomes True", {"text": "a", "shout": "yes"}, "A"),
        ("'1' becomes True", {"text": "a", "shout": "1"}, "A"),
        ("'true' becomes True", {"text": "a", "shout": "true"}, "A"),
        ("'false' stays False", {"text": "a", "shout": "false"}, "a"),
    ],
)
def test_model_inputs_are_coerced_semantically(tmp_path: Path, description: str, raw: Any, expected: str) -> None:
    outcome, _ = run_call(tmp_path, "Echo", raw)
    assert outcome.result.content == expected, description


def test_an_unknown_tool_is_an_error_result_naming_the_available_tools(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Nope", {})
    assert outcome.result.is_error
    assert "No such tool available: Nope" in outcome.result.text
    assert "Echo" in outcome.result.text
    assert outcome.record.failed_stage == "lookup"
    assert outcome.record.error_kind == "UnknownTool"


def test_a_deprecated_alias_works_and_adds_a_notice(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Say", {"text": "hi"})
    assert not outcome.result.is_error
    assert outcome.result.text.startswith("hi")
    assert "`Say` is a deprecated name of the `Echo` tool" in outcome.result.text
    assert outcome.record.called_as == "Say"
    assert outcome.record.tool_name == "Echo"


@pytest.mark.parametrize(
    ("description", "raw", "fragment"),
    [
        ("missing required field", {}, "The required parameter `text` is missing"),
        ("wrong type", {"text": 3}, "The parameter `text` is invalid"),
        ("unknown field (strict object)", {"text": "a", "_internal": 1}, "An unexpected parameter `_internal`"),
        ("not an object at all", ["a"], "must be a JSON object, got an array"),
        ("uncoercible number", {"text": "a", "times": "many"}, "The parameter `times` is invalid"),
    ],
)
def test_schema_errors_are_formatted_inside_tool_use_error(
    tmp_path: Path, description: str, raw: Any, fragment: str
) -> None:
    outcome, _ = run_call(tmp_path, "Echo", raw)
    assert outcome.result.is_error, description
    assert outcome.result.text.startswith("<tool_use_error>InputValidationError:")
    assert fragment in outcome.result.text
    assert outcome.record.failed_stage == "schema"


def test_validate_input_rejection_is_an_error_with_its_code(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "invalid"})
    assert outcome.result.text == "<tool_use_error>text must not be 'invalid'</tool_use_error>"
    assert outcome.record.failed_stage == "validation"
    assert outcome.record.error_kind == "ValidationError:7"


def test_no_allow_rule_means_denied_with_a_suggestion(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "hi"}, allow=())
    assert outcome.result.is_error
    assert "no allow rule covers this Echo call" in outcome.result.text
    assert "`Echo(hi)`" in outcome.result.text
    assert outcome.record.failed_stage == "permission"
    assert isinstance(outcome.record.decision, Deny)


def test_a_denial_names_the_rule_that_decided(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "secret"}, deny=("Echo(secret)",))
    assert "Decided by rule `Echo(secret)` (cliArg)" in outcome.result.text
    decision = outcome.record.decision
    assert isinstance(decision, Deny) and decision.rule is not None and decision.rule.text == "Echo(secret)"


def test_an_ask_rule_is_a_denial_headless(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "hi"}, ask=("Echo",))
    decision = outcome.record.decision
    assert isinstance(decision, Deny) and decision.was_ask
    assert "nobody can approve it" in outcome.result.text


@pytest.mark.parametrize(
    ("description", "hook_decision", "allow", "deny", "expected"),
    [
        ("hook deny wins over an allow rule", Deny("hook says no", source="hook"), ("Echo",), (), "deny"),
        ("hook ask is a denial", Ask("hook asks", source="hook"), ("Echo",), (), "deny"),
        ("hook allow lets an unlisted call run", Allow("hook says yes", source="hook"), (), (), "allow"),
        ("hook allow never overrides a deny rule", Allow("hook says yes", source="hook"), (), ("Echo",), "deny"),
        ("no hook opinion: the rules decide", None, ("Echo",), (), "allow"),
    ],
)
def test_the_hook_decision_comes_first_but_never_beats_a_deny_rule(
    tmp_path: Path, description: str, hook_decision: Any, allow: tuple[str, ...], deny: tuple[str, ...], expected: str
) -> None:
    hooks = RecordingHooks(pre=PreToolHookOutcome(decision=hook_decision))
    outcome, _ = run_call(tmp_path, "Echo", {"text": "hi"}, allow=allow, deny=deny, hooks=hooks)
    assert (not outcome.result.is_error) == (expected == "allow"), description
    if expected == "deny":
        assert ("PermissionDenied", "Echo") in [(e[0], e[1]) for e in hooks.events]


@pytest.mark.parametrize(
    ("description", "verdict", "allow", "expected"),
    [
        ("the tool's own deny wins over an allow rule", "deny", ("Opinionated",), "deny"),
        ("the tool's own ask is a denial", "ask", ("Opinionated",), "deny"),
        ("the tool's own allow is enough", "allow", (), "allow"),
        ("passthrough with no rule is denied", "none", (), "deny"),
        ("passthrough with an allow rule runs", "none", ("Opinionated",), "allow"),
    ],
)
def test_the_tools_own_check_takes_part_in_the_chain(
    tmp_path: Path, description: str, verdict: str, allow: tuple[str, ...], expected: str
) -> None:
    outcome, _ = run_call(tmp_path, "Opinionated", {"verdict": verdict}, allow=allow)
    assert (not outcome.result.is_error) == (expected == "allow"), description


def test_a_hook_can_rewrite_the_input_and_the_rewrite_is_revalidated(tmp_path: Path) -> None:
    hooks = RecordingHooks(pre=PreToolHookOutcome(updated_input={"text": "rewritten"}))
    outcome, _ = run_call(tmp_path, "Echo", {"text": "original"}, hooks=hooks)
    assert outcome.result.content == "rewritten"

    hooks = RecordingHooks(pre=PreToolHookOutcome(updated_input={"text": 5}))
    outcome, _ = run_call(tmp_path, "Echo", {"text": "original"}, hooks=hooks)
    assert outcome.result.is_error
    assert "rewrote the input into an invalid one" in outcome.result.text


def test_a_hook_rewrite_is_checked_against_the_rules_again(tmp_path: Path) -> None:
    hooks = RecordingHooks(pre=PreToolHookOutcome(updated_input={"text": "forbidden"}))
    outcome, _ = run_call(tmp_path, "Echo", {"text": "fine"}, allow=("Echo",), deny=("Echo(forbidden)",), hooks=hooks)
    assert outcome.result.is_error
    assert "Echo(forbidden)" in outcome.result.text


@pytest.mark.parametrize(
    ("description", "kind", "fragment", "error_kind"),
    [
        ("an exception", "runtime", "Error: RuntimeError: kaput", "RuntimeError"),
        ("an OSError gets stable wording", "oserror", "/nope: no such file or directory", "Error:ENOENT"),
        ("a result the tool marks as an error", "reported", "it went wrong", "ToolReportedError"),
    ],
)
def test_execution_failures_are_data_with_a_classified_kind(
    tmp_path: Path, description: str, kind: str, fragment: str, error_kind: str
) -> None:
    hooks = RecordingHooks()
    outcome, _ = run_call(tmp_path, "Boom", {"kind": kind}, hooks=hooks)
    assert outcome.result.is_error, description
    assert fragment in outcome.result.text
    assert outcome.record.error_kind == error_kind
    assert outcome.record.failed_stage == "execution"
    assert [e[0] for e in hooks.events] == ["PreToolUse", "PostToolUseFailure"]


def test_a_call_over_its_timeout_is_cancelled_and_reported(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Boom", {"kind": "hang"}, limits=ToolLimits(call_timeout_s=0.05))
    assert outcome.result.is_error
    assert "timed out after 0.05 seconds" in outcome.result.text
    assert outcome.record.error_kind == "Timeout"


def test_an_aborted_run_does_not_start_the_call(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "hi"}, abort=True)
    assert outcome.result.is_error
    assert "Interrupted: the run was cancelled" in outcome.result.text


def test_abort_during_execution_cancels_the_call(tmp_path: Path) -> None:
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(["Boom"], [], []))
    runner = ToolRunner(ToolPool([BoomTool()]))

    async def main() -> ToolCallOutcome:
        async with anyio.create_task_group() as tg:
            box: list[ToolCallOutcome] = []

            async def go() -> None:
                box.append(await runner.run(ToolUseBlock("t", "Boom", {"kind": "hang"}), context))

            tg.start_soon(go)
            await anyio.wait_all_tasks_blocked()
            context.abort.abort("stop requested")
        return box[0]

    outcome = anyio.run(main)
    assert outcome.result.is_error
    assert "Interrupted: stop requested" in outcome.result.text
    assert outcome.record.error_kind == "Aborted"


def test_post_hooks_see_success_and_their_context_reaches_the_conversation(tmp_path: Path) -> None:
    hooks = RecordingHooks(
        pre=PreToolHookOutcome(additional_context=("pre note",)),
        post=PostToolHookOutcome(additional_context=("post note",), feedback="lint failed"),
    )
    outcome, _ = run_call(tmp_path, "Echo", {"text": "hi"}, hooks=hooks)
    assert [e[0] for e in hooks.events] == ["PreToolUse", "PostToolUse"]
    assert hooks.events[1][2] == "hi"
    assert [m["text"] for m in outcome.new_messages] == ["pre note", "post note", "lint failed"]


def test_hooks_receive_the_observable_input_but_the_model_input_is_untouched(tmp_path: Path) -> None:
    from bot.tools.read import ReadTool

    (tmp_path / "a.txt").write_text("x\n")
    hooks = RecordingHooks()
    raw = {"file_path": "a.txt"}
    outcome, _ = run_call(tmp_path, "Read", raw, allow=("Read",), hooks=hooks, tools=[ReadTool()])
    assert not outcome.result.is_error
    assert hooks.events[0][2]["file_path"] == str(tmp_path.resolve() / "a.txt")
    assert raw == {"file_path": "a.txt"}


def test_a_context_modifier_is_returned_for_the_scheduler_to_apply(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    outcome, _ = run_call(tmp_path, "Cd", {"to": "sub"})
    assert outcome.context_modifier is not None
    ctx: ToolUseContext = make_context(tmp_path, scratch_dir=tmp_path / ".s")
    assert outcome.context_modifier(ctx).working_directory == tmp_path.resolve() / "sub"


def test_a_huge_result_is_persisted_and_the_model_gets_a_preview(tmp_path: Path) -> None:
    outcome, _ = run_call(tmp_path, "Echo", {"text": "y" * 1000, "times": 60})
    text = outcome.result.text
    assert text.startswith("<persisted-output>")
    saved = tmp_path / ".scratch" / "tool-results" / "toolu_1.txt"
    assert saved.is_file() and len(saved.read_text()) == 1000 * 60 + 59
    assert str(saved) in text


def test_decide_runs_stages_one_to_four_without_executing(tmp_path: Path) -> None:
    hooks = RecordingHooks()
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(["Echo"], [], []))
    runner = ToolRunner(ToolPool([EchoTool(), BoomTool()]), hooks=hooks)

    async def main() -> list[Any]:
        return [
            (await runner.decide(ToolUseBlock("a", "Echo", {"text": "invalid"}), context)).decision,
            (await runner.decide(ToolUseBlock("b", "Boom", {}), context)).decision,
            (await runner.decide(ToolUseBlock("c", "Nope", {}), context)).decision,
        ]

    echo, boom, nope = anyio.run(main)
    assert isinstance(echo, Allow)  # validate_input is skipped: a decision, not a run
    assert isinstance(boom, Deny) and isinstance(nope, Deny)
    assert [e[0] for e in hooks.events] == ["PreToolUse", "PreToolUse", "PermissionDenied"]


def test_one_context_serves_several_event_loops(tmp_path: Path) -> None:
    """A regression: the abort signal once bound an event to the first loop that awaited it."""
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=flag_permission_context(["Echo"], [], []))
    runner = ToolRunner(ToolPool([EchoTool()]))

    async def main() -> ToolCallOutcome:
        return await runner.run(ToolUseBlock("t", "Echo", {"text": "hi"}), context)

    for _ in range(3):
        assert anyio.run(main).result.content == "hi"


def test_an_input_nested_ten_thousand_deep_is_an_error_the_model_can_correct(tmp_path: Path) -> None:
    deep: Any = "x"
    for _ in range(10_000):
        deep = {"a": deep}
    outcome, _ = run_call(tmp_path, "Echo", {"text": deep})
    assert outcome.result.is_error
    assert "nested more than" in str(outcome.result.content)
    assert outcome.record.error_kind == "InputValidationError"
