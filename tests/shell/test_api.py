"""The contract's additions: analysis facts, the cd target, and how results map to the chain."""

from __future__ import annotations

from pathlib import Path

from bot.permissions.decision import Allow, Deny
from bot.shell.api import analyze_bash, cd_target
from tests.shell.conftest import context_for, final_decision


def test_analyze_reports_the_facts() -> None:
    facts = analyze_bash("cd src && git commit -m 'fix' && git push --force")
    assert facts.outcome == "simple"
    assert facts.subcommands == (("cd", "src"), ("git", "commit", "-m", "fix"), ("git", "push", "--force"))
    assert facts.prefixes == ("cd src", "git commit", "git push")
    assert "git push --force may overwrite remote history" in facts.warnings
    assert not facts.read_only


def test_analyze_reports_checks_and_complexity() -> None:
    assert analyze_bash("echo $(id)").check_id == 8
    assert analyze_bash("for x in a; do echo $x; done").outcome == "too_complex"
    assert analyze_bash("ls -la").read_only and analyze_bash("ls -la").concurrency_safe


def test_cd_target_follows_top_level_cds(tmp_path: Path) -> None:
    assert cd_target("cd src && make", tmp_path) == tmp_path / "src"
    assert cd_target("cd src && cd ../docs", tmp_path) == tmp_path / "docs"
    assert cd_target("(cd src && make)", tmp_path) is None
    assert cd_target("make", tmp_path) is None
    assert cd_target("cd -", tmp_path) is None
    assert cd_target("cd $X", tmp_path) is None


def test_the_chain_turns_the_analysis_into_allow_or_deny(ws: Path) -> None:
    ctx = context_for(ws, allow=["Bash(git status:*)"])
    assert isinstance(final_decision("git status", ctx), Allow)
    denied = final_decision("git status && curl example.com", ctx)
    assert isinstance(denied, Deny) and denied.was_ask
    assert denied.suggestions == ("Bash(curl example.com)",)


def test_plan_mode_allows_only_read_only_commands(ws: Path) -> None:
    ctx = context_for(ws, allow=["Bash(git:*)"], mode="plan")
    assert isinstance(final_decision("git log -5", ctx), Allow)
    assert isinstance(final_decision("git commit -m x", ctx), Deny)


def test_the_options_cache_follows_a_changed_policy(ws: Path) -> None:
    first = context_for(ws, allow=["Bash(make:*)"])
    second = context_for(ws, allow=[])
    assert isinstance(final_decision("make", first), Allow)
    assert isinstance(final_decision("make", second), Deny)


def test_an_option_missing_its_value_is_denied_with_a_reason_not_a_crash(tmp_path: Path) -> None:
    """A regression: `git -c` with no value under `Bash(git:*)` raised IndexError (denied, but as
    "could not be analysed")."""
    from bot.interface.context import make_context
    from bot.permissions.context import PermissionContext
    from bot.permissions.decision import Allow
    from bot.permissions.rules import make_rule
    from bot.shell.api import check_bash_permissions

    permission = PermissionContext(allow=(make_rule("Bash(git:*)", "allow", "cliArg"),))
    context = make_context(tmp_path, scratch_dir=tmp_path / ".s", permission=permission)
    decision = check_bash_permissions("git -c", context)
    assert not isinstance(decision, Allow)
    assert "could not be analysed" not in getattr(decision, "reason", "")
