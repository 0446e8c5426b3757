"""The loop on recorded cassettes: the real SDK parses real SSE bytes; tools run for real."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from bot.agent.cache import prompt_units, shares_cached_prefix
from bot.agent.events import TodosChanged, ToolFinished, ToolStarted, TurnFinished
from bot.agent.limits import RunLimits
from bot.agent.transcript import read_transcript
from tests.agent.conftest import Harness
from tests.cassettes.scripts import CALC_BUGGY, TEST_CALC, TEST_COMMAND

pytestmark = pytest.mark.anyio

FIX_RULES = ("Read", "Edit", f"Bash({TEST_COMMAND})")


async def test_a_multi_turn_fix_reads_in_parallel_edits_and_runs_the_test(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    outcome, cassette = await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    assert outcome.stop.reason == "completed"
    assert (harness.workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert outcome.final_text.startswith("Fixed `add` in calc.py")
    assert cassette.all_played
    calls = [(c.turn, c.record.tool_name, c.record.is_error) for c in outcome.tool_calls]
    assert calls == [
        (1, "TodoWrite", False),
        (1, "Read", False),
        (1, "Read", False),
        (2, "Edit", False),
        (3, "Bash", False),
    ]
    bash_result = outcome.messages[6]["content"][0]
    assert bash_result["type"] == "tool_result" and "1 passed" in json.dumps(bash_result["content"])
    todos = harness.events.of(TodosChanged)
    assert [t.status for t in todos[0].todos] == ["in_progress", "pending", "pending"]


async def test_the_two_reads_of_one_response_go_back_in_one_message_in_the_models_order(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    outcome, _ = await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    tool_uses = [b for b in outcome.messages[1]["content"] if b["type"] == "tool_use"]
    results = outcome.messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in tool_uses]
    assert "return a - b" in results[1]["content"] and "def test_add" in results[2]["content"]


async def test_every_request_starts_with_the_previous_requests_cached_prefix(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    bodies = [harness.request(i) for i in range(4)]
    for previous, current in pairwise(bodies):
        assert shares_cached_prefix(previous, current)
        units, last_marker = prompt_units(current)
        assert last_marker == len(units) - 1  # the breakpoint moved to the newest block
    # The tools and the system prompt are the same bytes in every request.
    assert len({json.dumps(b["tools"]) for b in bodies}) == 1
    assert len({json.dumps(b["system"]) for b in bodies}) == 1
    markers = [json.dumps(b).count('"cache_control"') for b in bodies]
    assert markers == [3, 3, 3, 3]


async def test_usage_and_cost_are_summed_per_turn_from_the_stream(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    outcome, _ = await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    assert [t.usage.cache_read_input_tokens for t in outcome.turns] == [0, 5_120, 5_760, 5_970]
    assert outcome.usage.output_tokens == 240 + 120 + 60 + 45
    assert outcome.usage.cache_write_tokens == 5_120 + 640 + 210 + 95
    # Sonnet 5.5: $2 input, $10 output, $2.50 5-minute writes, $0.10 reads per million.
    first = (12 * 2 + 240 * 10 + 5_120 * 2.5) / 1e6
    assert outcome.turns[0].cost_usd == pytest.approx(first)
    assert outcome.cost_usd == pytest.approx(sum(e.cost_usd for e in harness.events.of(TurnFinished)))
    assert outcome.turns[0].request_id is not None and outcome.turns[0].request_id.startswith("req_")


async def test_the_transcript_has_every_message_as_a_json_line(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    outcome, _ = await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    assert outcome.transcript_path is not None
    lines = read_transcript(outcome.transcript_path)
    assert [line["type"] for line in lines] == ["user", "assistant"] * 4
    assert lines[1]["message"]["usage"]["cache_write_5m_tokens"] == 5_120
    assert lines[1]["parentUuid"] == lines[0]["uuid"]


async def test_max_turns_stops_after_the_last_allowed_turns_tools_ran(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    outcome, cassette = await harness.run(
        "multi_turn_fix", harness.session(allow=FIX_RULES, limits=RunLimits(max_turns=2))
    )

    assert outcome.stop.reason == "max_turns"
    assert cassette.play_count == 2
    assert "return a + b" in (harness.workspace / "calc.py").read_text()  # the edit of turn 2 is kept
    assert outcome.messages[-1]["role"] == "user"  # its result is in the conversation too


async def test_a_budget_exhausted_mid_run_stops_before_the_next_turn_and_keeps_the_work(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)

    outcome, cassette = await harness.run(
        "budget", harness.session(allow=FIX_RULES, limits=RunLimits(max_budget_usd=0.10))
    )

    assert outcome.stop.reason == "budget"
    assert "of the $0.10 budget" in outcome.stop.detail
    assert cassette.play_count == 2  # the third turn was never requested
    assert (harness.workspace / "calc.py").read_text().endswith("return a + b\n")
    assert outcome.cost_usd == pytest.approx(2 * (30_000 * 2 + 600 * 10) / 1e6)


async def test_a_denied_call_is_reported_and_the_model_works_around_it(harness: Harness) -> None:
    harness.write("build/out.txt", "stale")

    outcome, _ = await harness.run("denial", harness.session(allow=("Glob",), deny=("Bash(rm:*)",)))

    assert outcome.stop.reason == "completed"
    assert (harness.workspace / "build/out.txt").exists()
    [denial] = outcome.denials
    assert denial.record.tool_name == "Bash"
    assert denial.denial_text() is not None and "Bash(rm:*)" in denial.denial_text()  # type: ignore[operator]
    denied_result = outcome.messages[2]["content"][0]
    assert denied_result["is_error"] is True and "Permission to use Bash was denied" in denied_result["content"]
    assert "build/out.txt" in json.dumps(outcome.messages[4]["content"])
    finished = [e for e in harness.events.of(ToolFinished) if e.denied]
    assert finished and finished[0].denial is not None and "policy.yaml" in finished[0].denial


async def test_a_tool_call_cut_by_max_tokens_does_not_run_and_the_model_is_told(harness: Harness) -> None:
    outcome, _ = await harness.run("max_tokens_cut", harness.session(allow=("Write",)))

    assert outcome.stop.reason == "completed"
    assert (harness.workspace / "NOTES.md").read_text() == "# Notes\n"  # only the second, complete call ran
    cut = outcome.messages[2]["content"][0]
    assert cut["is_error"] is True and "cut off by the output token limit" in cut["content"]
    assert [c.record.tool_name for c in outcome.tool_calls] == ["Write"]


async def test_tool_events_say_when_each_call_started_and_finished(harness: Harness) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)

    await harness.run("multi_turn_fix", harness.session(allow=FIX_RULES))

    started = [e.tool_name for e in harness.events.of(ToolStarted)]
    finished = [(e.tool_name, e.is_error) for e in harness.events.of(ToolFinished)]
    assert sorted(started) == sorted(["TodoWrite", "Read", "Read", "Edit", "Bash"])
    assert all(not is_error for _, is_error in finished)


async def test_repeated_denials_add_guidance_so_the_model_stops_retrying(harness: Harness) -> None:
    harness.write("build/out.txt", "stale")

    outcome, _ = await harness.run("repeated_denial", harness.session(allow=("Glob",), deny=("Bash(rm:*)",)))

    assert len(outcome.denials) == 2
    first_results = json.dumps(outcome.messages[2]["content"])
    second_results = json.dumps(outcome.messages[4]["content"])
    assert "system-reminder" not in first_results  # one denial is just a denial
    assert "has now been denied 2 times" in second_results
    assert "Bash(rm:*)" in second_results
