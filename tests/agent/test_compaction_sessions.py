"""Long sessions on cassettes: a conversation whose tool results add up to several times the window
still ends the task, every request staying under the window; a summary that cannot be had ends
the run as a limit, with the work on disk."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.agent.cache import shares_cached_prefix
from bot.agent.compaction import CLEARED_PREFIX, SUMMARY_INSTRUCTIONS
from bot.agent.context_window import estimate_body, estimate_tokens
from bot.agent.events import ContextCompacted
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.agent.retry import RetryPolicy
from bot.agent.transcript import read_transcript
from bot.orchestration.report import RunFacts, conclusion, headline
from tests.agent.conftest import Harness
from tests.cassettes import compaction_scripts as scripts

pytestmark = pytest.mark.anyio


async def _run(harness: Harness, name: str, **kwargs: Any) -> tuple[AgentOutcome, Any]:
    session = harness.session(allow=["Read", "Edit"], limits=RunLimits(context_window=scripts.WINDOW), **kwargs)
    with scripts.use_compaction_cassette(name) as cass:
        outcome = await run_agent(AgentTask("Bump VERSION to 2 everywhere.", nonce="c0ffee00"), session, harness.events)
    return outcome, cass


def _bodies(harness: Harness) -> list[dict[str, Any]]:
    return [harness.request(i) for i in range(len(harness.capture.requests))]


def _is_summary(body: dict[str, Any]) -> bool:
    return scripts.purpose_of(json.dumps(body)) == "compaction"


@pytest.mark.parametrize("name", list(scripts.SCRIPTS))
def test_the_cassettes_match_their_scripts(name: str) -> None:
    assert scripts.cassette_path(name).read_text() == scripts.cassette_text(name), (
        "regenerate with python -m tests.cassettes.compaction_scripts"
    )


async def test_a_sixty_turn_session_several_windows_long_ends_in_success_within_the_window(harness: Harness) -> None:
    for k in range(scripts.MODULES):
        harness.write(scripts.module_name(k), scripts.module_text(k))
    task_turns, _ = scripts.long_session()

    outcome, _ = await _run(harness, "compaction_long_session")

    assert outcome.stop.reason == "completed", outcome.stop
    assert conclusion(outcome, RunFacts()) == "success"
    for k in range(scripts.MODULES):  # the work is done: every module bumped
        assert "VERSION = 2" in (harness.workspace / scripts.module_name(k)).read_text(), k
    assert not [c for c in outcome.tool_calls if c.record.is_error], "no call failed (edits after compaction too)"
    bodies = _bodies(harness)
    new_results = [b for body in bodies for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert sum(estimate_tokens(b) for b in new_results) > 3 * scripts.WINDOW  # the results alone: several windows
    sizes = [estimate_body(b) for b in bodies]
    assert max(sizes) < scripts.WINDOW, sizes
    summaries = [b for b in bodies if _is_summary(b)]
    kinds = [c.kind for c in outcome.compactions]
    assert "cleared_tool_results" in kinds and "summary" in kinds, kinds
    assert len(summaries) == kinds.count("summary")
    assert len(bodies) - len(summaries) == len(task_turns)  # every task turn was played
    assert all(c.tokens_saved > 0 for c in outcome.compactions)
    events = [e for e in harness.events.events if isinstance(e, ContextCompacted)]
    assert [e.kind for e in events] == kinds


async def test_after_a_compaction_the_cached_prefix_is_stable_again_from_the_next_turn(harness: Harness) -> None:
    for k in range(scripts.MODULES):
        harness.write(scripts.module_name(k), scripts.module_text(k))
    outcome, _ = await _run(harness, "compaction_long_session")
    task_bodies = [b for b in _bodies(harness) if not _is_summary(b)]
    breaks = [i for i in range(1, len(task_bodies)) if not shares_cached_prefix(task_bodies[i - 1], task_bodies[i])]
    # Only a shrink breaks the prefix (the request of turn t is task_bodies[t - 1]); from the next
    # request on, the new prefix is read from the cache again.
    assert breaks == sorted({c.turn - 1 for c in outcome.compactions}), breaks
    assert len(breaks) < len(task_bodies) / 3
    first_summary = next(c for c in outcome.compactions if c.kind == "summary")
    first_after = task_bodies[first_summary.turn - 1]
    first_message = first_after["messages"][0]["content"]
    texts = [b.get("text", "") for b in first_message]
    assert texts[0].startswith(harness.request(0)["messages"][0]["content"][0]["text"][:40])
    assert any("<conversation-summary>" in t and "## Files changed" in t for t in texts)
    assert any('reread-after-compaction="true"' in t and "VERSION = " in t for t in texts)


async def test_cleared_results_say_how_to_get_them_again(harness: Harness) -> None:
    for k in range(scripts.MODULES):
        harness.write(scripts.module_name(k), scripts.module_text(k))
    await _run(harness, "compaction_long_session")
    results = [
        b
        for body in _bodies(harness)
        for m in body["messages"]
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    stubs = [b["content"] for b in results if str(b.get("content")).startswith(CLEARED_PREFIX)]
    assert stubs
    assert "Read pkg/mod_00.py again" in stubs[0]


async def test_the_transcript_marks_each_compaction(harness: Harness) -> None:
    for k in range(scripts.MODULES):
        harness.write(scripts.module_name(k), scripts.module_text(k))
    outcome, _ = await _run(harness, "compaction_long_session")
    assert outcome.transcript_path is not None
    boundaries = [e for e in read_transcript(outcome.transcript_path) if e.get("subtype") == "compact_boundary"]
    assert len(boundaries) == len(outcome.compactions)
    meta = boundaries[0]["compactMetadata"]
    assert meta["preTokens"] > meta["postTokens"] and meta["turn"] == outcome.compactions[0].turn


async def test_a_summary_that_fails_once_is_retried_and_the_run_goes_on(harness: Harness) -> None:
    for k in range(scripts.BIG):
        harness.write(scripts.big_name(k), scripts.big_module(k))
    outcome, _ = await _run(harness, "compaction_summary_retried")
    assert outcome.stop.reason == "completed", outcome.stop
    assert all("VERSION = 2" in (harness.workspace / scripts.big_name(k)).read_text() for k in range(scripts.BIG))
    compaction_turns = [t for t in outcome.turns if t.compaction]
    assert compaction_turns and all(t.attempts == 2 for t in compaction_turns)
    assert len(compaction_turns) == [c.kind for c in outcome.compactions].count("summary")
    assert max(estimate_body(b) for b in _bodies(harness)) < scripts.WINDOW


async def test_a_summary_that_keeps_failing_ends_the_run_as_a_limit_with_the_work_kept(harness: Harness) -> None:
    for k in range(scripts.BIG):
        harness.write(scripts.big_name(k), scripts.big_module(k))
    outcome, _ = await _run(harness, "compaction_summary_fails", retry=RetryPolicy(max_attempts=3, sleep=harness.sleep))
    assert outcome.stop.reason == "context_window" and outcome.stop.is_limit, outcome.stop
    assert "summary" in outcome.stop.detail and "529" in outcome.stop.detail
    assert "VERSION = 2" in (harness.workspace / scripts.big_name(0)).read_text()  # done before the stop
    assert conclusion(outcome, RunFacts()) == "partial"
    assert headline(outcome, RunFacts(branch="bot/issue-15")).startswith("Stopped at the context window")
    summary_requests = [b for b in _bodies(harness) if _is_summary(b)]
    assert len(summary_requests) == 3
    assert SUMMARY_INSTRUCTIONS in summary_requests[0]["messages"][-1]["content"][-1]["text"]
    assert summary_requests[0]["tool_choice"] == {"type": "none"}


async def test_a_prompt_the_api_finds_too_long_is_compacted_and_the_turn_run_again(harness: Harness) -> None:
    harness.write(scripts.big_name(0), scripts.big_module(0))
    session = harness.session(allow=["Read", "Edit"])  # the model's own window: our estimate never triggers
    with scripts.use_compaction_cassette("compaction_prompt_too_long"):
        outcome = await run_agent(AgentTask("Bump big_0.", nonce="c0ffee00"), session, harness.events)
    assert outcome.stop.reason == "completed", outcome.stop
    assert [c.kind for c in outcome.compactions] == ["summary"]
    assert "VERSION = 2" in (harness.workspace / scripts.big_name(0)).read_text()  # the re-read file was editable
    after = harness.request(3)  # read, refused, summary, then the turn again from the compacted conversation
    assert len(after["messages"]) == 1 and "<conversation-summary>" in json.dumps(after)
