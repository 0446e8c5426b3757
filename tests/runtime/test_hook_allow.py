"""A PreToolUse hook's allow, in the seeds' order (4.4 stage 4a: before the tool's own check), with
the real Bash analysis and the policy engine: it approves what no rule covers, for Bash as for
Read, and never what a deny rule, an ask rule or a security check stops."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.interface.context import make_context
from bot.interface.messages import ToolUseBlock
from bot.permissions.decision import Allow, Ask, Decision, Deny, Passthrough
from bot.permissions.engine import PolicyEngine
from bot.runtime.hooks import PreToolHookOutcome
from bot.runtime.pipeline import ToolPool, ToolRunner, hook_answers_tool_check
from bot.runtime.single_call import flag_permission_context
from bot.tools.registry import all_base_tools
from tests.runtime.fakes import RecordingHooks

HOOK_ALLOW = Allow("the hook approves", source="hook")


def decide(
    workspace: Path,
    tool: str,
    raw: dict[str, object],
    *,
    hook: Allow | Deny | None = HOOK_ALLOW,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
) -> Decision:
    permission = flag_permission_context(allow, deny, ask)
    context = make_context(workspace, scratch_dir=workspace.parent / "scratch", permission=permission)
    hooks = RecordingHooks(pre=PreToolHookOutcome(decision=hook))
    runner = ToolRunner(ToolPool(all_base_tools()), PolicyEngine(), hooks)

    async def main() -> Decision:
        outcome = await runner.decide(ToolUseBlock("toolu_h", tool, raw), context)
        assert not isinstance(outcome.decision, str)
        return outcome.decision

    return anyio.run(main)


def test_a_hooks_allow_approves_a_bash_command_no_rule_covers(workspace: Path) -> None:
    decision = decide(workspace, "Bash", {"command": "make test"})
    assert isinstance(decision, Allow), decision
    assert decision.source == "hook"


def test_without_the_hook_the_same_command_is_denied(workspace: Path) -> None:
    decision = decide(workspace, "Bash", {"command": "make test"}, hook=None)
    assert isinstance(decision, Deny) and decision.was_ask


def test_a_hooks_allow_approves_a_read_as_before(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x")
    assert isinstance(decide(workspace, "Read", {"file_path": "a.txt"}), Allow)


@pytest.mark.parametrize(
    ("description", "command", "deny", "ask"),
    [
        ("a whole-command deny rule", "rm -rf build", ("Bash(rm *)",), ()),
        ("a deny rule on one part of a compound command", "make test && rm -rf build", ("Bash(rm *)",), ()),
        ("a deny rule hidden behind a newline", "make test\nrm -rf build", ("Bash(rm *)",), ()),
        ("an ask rule", "git push origin main", (), ("Bash(git push *)",)),
        ("an ask rule on one part of a compound command", "make && git push origin main", (), ("Bash(git push *)",)),
        ("a security check: command substitution", "ls $(cat f)", (), ()),
        ("a security check: a /dev/tcp connection", "cat < /dev/tcp/example.com/80", (), ()),
        ("a blanket Bash deny rule", "make test", ("Bash",), ()),
    ],
)
def test_a_hooks_allow_never_overrides_a_deny_or_ask_rule_or_a_security_check(
    workspace: Path, description: str, command: str, deny: tuple[str, ...], ask: tuple[str, ...]
) -> None:
    decision = decide(workspace, "Bash", {"command": command}, deny=deny, ask=ask)
    assert isinstance(decision, Deny), description


def test_a_hooks_allow_does_not_take_a_file_tool_outside_the_workspace(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    assert isinstance(decide(workspace, "Read", {"file_path": str(outside)}), Deny)


@pytest.mark.parametrize(
    ("description", "hook", "check", "answered"),
    [
        ("allow answers 'no rule covers'", HOOK_ALLOW, Ask("no allow rule covers `x`", source="tool"), True),
        ("no hook: the ask stands", None, Ask("no allow rule covers `x`", source="tool"), False),
        ("a hook's deny answers nothing", Deny("no", source="hook"), Ask("no rule", source="tool"), False),
        ("a security check's ask stands", HOOK_ALLOW, Ask("$()", source="safety", check_id=8), False),
        ("a check id alone keeps it", HOOK_ALLOW, Ask("x", source="tool", check_id=3), False),
        ("a tool deny stands", HOOK_ALLOW, Deny("outside", source="tool"), False),
        ("a passthrough stays one", HOOK_ALLOW, Passthrough("nothing"), False),
    ],
)
def test_hook_answers_tool_check(description: str, hook: Allow | Deny | None, check: object, answered: bool) -> None:
    out = hook_answers_tool_check(hook, check)  # type: ignore[arg-type]
    assert (isinstance(out, Passthrough) and out is not check) == answered, description
