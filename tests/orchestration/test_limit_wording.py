"""What a run that stopped at a limit says: the limit by name, amounts with the digits they have,
and a summary of what was done instead of the model's last fragment."""

from __future__ import annotations

import pytest

from bot.agent.limits import RunLimits, format_usd, limit_before_turn
from bot.agent.outcome import AgentOutcome, Stop, ToolCallEntry
from bot.orchestration.git_records import DiffStats, FileChange
from bot.orchestration.report import RunFacts, build_report, headline
from bot.runtime.pipeline import ToolCallRecord


@pytest.mark.parametrize(
    ("description", "amount", "shown"),
    [
        ("cents stay two digits", 1.5, "$1.50"),
        ("a budget below a cent keeps its digits", 0.012, "$0.012"),
        ("a tenth of a cent", 0.0005, "$0.0005"),
        ("whole dollars", 5.0, "$5.00"),
    ],
)
def test_amounts_print_with_the_digits_they_have(description: str, amount: float, shown: str) -> None:
    assert format_usd(amount) == shown


def test_a_budget_of_a_little_over_a_cent_reads_as_itself() -> None:
    hit = limit_before_turn(RunLimits(max_budget_usd=0.012), turns_done=1, cost_usd=0.0131, elapsed_s=0)
    assert hit is not None
    assert "$0.012 budget" in hit.detail


def test_a_wall_time_stop_says_it_hit_the_time_limit_not_that_it_was_cancelled() -> None:
    # The deadline aborts the run's signal, so the run looks cancelled too: the limit is what happened.
    outcome = AgentOutcome(Stop("wall_time", "61.0 s elapsed, the limit is 60 s"), "Reading.")
    text = headline(outcome, RunFacts(branch="bot/x", cancelled=True))
    assert "cancelled" not in text
    assert text.startswith("Stopped at the time limit (61.0 s elapsed, the limit is 60 s).")


def _todo_call(todos: list[dict[str, str]]) -> ToolCallEntry:
    return ToolCallEntry(1, ToolCallRecord("t1", "TodoWrite", {"todos": todos}))


def test_the_summary_after_a_limit_is_what_was_done_not_the_last_fragment() -> None:
    todos = [
        {"content": "Find the median bug", "status": "completed", "activeForm": "Finding"},
        {"content": "Fix even-length lists", "status": "in_progress", "activeForm": "Fixing"},
        {"content": "Add a test", "status": "pending", "activeForm": "Adding"},
    ]
    outcome = AgentOutcome(Stop("max_turns", "5 of 5 turns used"), "Reading.", tool_calls=[_todo_call(todos)])
    diff = DiffStats((FileChange("stats.py", "modified", 2, 1, False, "@@ patch"),))
    report = build_report(outcome, diff, RunFacts(branch="bot/x"))
    assert "Reading." not in report.summary
    assert "- [x] Find the median bug" in report.summary
    assert "- [ ] Fix even-length lists (in progress)" in report.summary
    assert "- [ ] Add a test" in report.summary
    assert "`stats.py` (+2 −1)" in report.summary


def test_without_a_todo_list_or_changes_the_summary_says_so() -> None:
    outcome = AgentOutcome(Stop("budget", "spent"), "Let me look")
    report = build_report(outcome, None, RunFacts())
    assert "Let me look" not in report.summary
    assert "no todo list" in report.summary and "No files changed." in report.summary


def test_a_finished_run_keeps_the_models_own_summary() -> None:
    outcome = AgentOutcome(Stop("completed"), "Fixed the median for even lengths.")
    assert build_report(outcome, None, RunFacts()).summary == "Fixed the median for even lengths."
