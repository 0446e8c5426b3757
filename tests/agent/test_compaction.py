"""Clearing old tool results and compacting: the pure parts, sub-agents, the API's own clearing,
and what the comment says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.agent.compaction import (
    CLEARED_PREFIX,
    ClientClearing,
    Compaction,
    ServerClearing,
    clear_old_tool_results,
    cleared_stub,
    compacted_conversation,
    pending_results,
    recently_read,
    reread_files,
)
from bot.agent.context_window import ContextBudget, estimate_body, estimate_request
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome, Stop
from bot.agent.prompts import AgentTask
from bot.orchestration.render import render_result
from bot.orchestration.report import RunFacts, build_report, outcome_data
from tests.agent.conftest import Harness
from tests.cassettes import compaction_scripts as scripts

BIG = "x" * 3_000


def _call(i: int, name: str = "Read", **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": input or {"file_path": f"f{i}.py"}}


def _result(i: int, text: str = BIG, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text, **extra}


def _session(n: int) -> list[dict[str, Any]]:
    """task, then n rounds of (assistant: Read f<i>, user: its result); the last result unanswered."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "task"}]}]
    for i in range(n):
        messages.append({"role": "assistant", "content": [_call(i)]})
        messages.append({"role": "user", "content": [_result(i)]})
    return messages


def _cleared(messages: list[dict[str, Any]]) -> list[str]:
    return [
        b["tool_use_id"]
        for m in messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result" and str(b["content"]).startswith(CLEARED_PREFIX)
    ]


def test_the_oldest_results_are_cleared_first_keeping_the_last_ones_and_the_unanswered() -> None:
    messages = _session(8)
    size = estimate_request([], [], messages)
    cleared = clear_old_tool_results(messages, size=size, target=0, keep_last=3)
    # 8 results: the last is unanswered, the three before it are the last N answered ones.
    assert _cleared(cleared.messages) == [f"toolu_{i}" for i in range(4)]
    assert cleared.count == 4 and cleared.tokens_saved > 3_000
    assert not _cleared(messages), "the given conversation is not changed"


def test_clearing_stops_as_soon_as_the_target_is_reached() -> None:
    messages = _session(8)
    size = estimate_request([], [], messages)
    cleared = clear_old_tool_results(messages, size=size, target=size - 1_500, keep_last=3)
    assert _cleared(cleared.messages) == ["toolu_0", "toolu_1"]


def test_errors_and_small_results_are_never_cleared() -> None:
    messages = _session(6)
    messages[2]["content"] = [_result(0, is_error=True)]
    messages[4]["content"] = [_result(1, "short")]
    cleared = clear_old_tool_results(messages, size=10**6, target=0, keep_last=1)
    assert _cleared(cleared.messages) == ["toolu_2", "toolu_3"]


def test_an_image_result_is_cleared_though_it_has_no_text() -> None:
    messages = _session(3)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    messages[2]["content"] = [_result(0, [image])]  # type: ignore[arg-type]
    cleared = clear_old_tool_results(messages, size=10**6, target=0, keep_last=1)
    assert "toolu_0" in _cleared(cleared.messages)
    assert "0 characters, 1 image or document" in str(cleared.messages[2]["content"][0]["content"])


@pytest.mark.parametrize(
    ("case", "call", "text", "says"),
    [
        ("a read says to read the file again", _call(1, "Read", file_path="src/a.py"), BIG, "Read src/a.py again"),
        (
            "a persisted result names its file",
            _call(1, "Bash", command="pytest -q"),
            "<persisted-output>\nOutput too large (90,000 characters). Full output saved to: /s/tool-results/t1.txt\n",
            "still saved in /s/tool-results/t1.txt",
        ),
        ("a search says to search again", _call(1, "Grep", pattern="def main"), BIG, "run Grep for 'def main' again"),
        (
            "a command says to run it again only if safe",
            _call(1, "Bash", command="ls   -la\nsrc"),
            BIG,
            "run `ls -la src` again if you need its output and it is safe to repeat",
        ),
        ("an unknown call", None, BIG, "call a tool again"),
    ],
)
def test_a_stub_says_what_was_there_and_how_to_get_it_again(
    case: str, call: dict[str, Any] | None, text: str, says: str
) -> None:
    stub = cleared_stub(call, text)
    assert stub.startswith(CLEARED_PREFIX) and says in stub, case
    assert f"{len(text):,} characters" in stub


def test_the_files_read_last_are_found_newest_first_without_failed_reads() -> None:
    messages = _session(4)
    messages.append({"role": "assistant", "content": [_call(9, "Read", file_path="f1.py"), _call(10)]})
    messages.append({"role": "user", "content": [_result(9), _result(10, "denied", is_error=True)]})
    assert recently_read(messages, limit=3) == ["f1.py", "f3.py", "f2.py"]


def test_files_are_re_read_only_inside_the_workspace_and_within_budget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("A" * 100)
    (ws / "b.py").write_text("B" * 100)
    (tmp_path / "secret.txt").write_text("outside")
    (ws / "link.txt").symlink_to(tmp_path / "secret.txt")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]")
    paths = ["link.txt", "../secret.txt", ".git/config", "a.py", str(ws / "b.py")]
    files = reread_files(paths, workspace=ws, cwd=ws, budget_chars=150, redact=lambda t: t.replace("B", "*"))
    assert [f.path.name for f in files] == ["a.py", "b.py"]
    assert not files[0].truncated and files[1].truncated and files[1].text == "*" * 50


def test_the_compacted_conversation_starts_with_the_task_and_carries_todos_files_and_unseen_results(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("print(1)\n")
    messages = _session(2)
    messages.append({"role": "assistant", "content": [_call(5, "Bash", command="make test")]})
    messages.append({"role": "user", "content": [_result(5, "2 failed")]})
    files = reread_files(["a.py"], workspace=tmp_path, cwd=tmp_path, budget_chars=1_000, redact=str)
    pending = pending_results(messages, files, workspace=tmp_path, cwd=tmp_path)
    new = compacted_conversation(
        messages[0],
        "## Task\nfix it",
        [("Fix tests", "in_progress")],
        files,
        workspace=tmp_path,
        summarised=len(messages),
        pending=pending,
    )
    assert len(new) == 1 and new[0]["role"] == "user"
    texts = [b["text"] for b in new[0]["content"]]
    assert texts[0] == "task"
    assert "<conversation-summary>" in texts[1] and "## Task\nfix it" in texts[1] and "7 messages" in texts[1]
    assert "- [in_progress] Fix tests" in texts[2]
    assert "Bash result:\n2 failed" in texts[3]
    assert texts[4].startswith('<file path="a.py"') and "print(1)" in texts[4]


def test_the_apis_clearing_is_sent_as_its_beta_parameter() -> None:
    budget = ContextBudget(100_000, 10_000)
    params = ServerClearing(keep_last=4).request_params(budget)
    assert params["extra_headers"] == {"anthropic-beta": "context-management-2025-06-27"}
    edit = params["extra_body"]["context_management"]["edits"][0]
    assert edit["type"] == "clear_tool_uses_20250919" and edit["keep"] == {"type": "tool_uses", "value": 4}
    assert edit["trigger"] == {"type": "input_tokens", "value": budget.clear_at}
    assert ServerClearing().clear(_session(9), 10**6, budget) is None
    assert ClientClearing().request_params(budget) == {}


@pytest.mark.anyio
async def test_with_the_apis_clearing_every_request_carries_it_and_ours_stays_off(harness: Harness) -> None:
    for k in range(scripts.BIG):
        harness.write(scripts.big_name(k), scripts.big_module(k))
    session = harness.session(
        allow=["Read", "Edit"], limits=RunLimits(context_window=scripts.WINDOW), context_clearing=ServerClearing()
    )
    with scripts.use_compaction_cassette("compaction_summary_retried"):
        outcome = await run_agent(AgentTask("Bump.", nonce="c0ffee00"), session, harness.events)
    assert outcome.stop.reason == "completed", outcome.stop
    bodies = [harness.request(i) for i in range(len(harness.capture.requests))]
    assert all(b["context_management"]["edits"][0]["type"] == "clear_tool_uses_20250919" for b in bodies)
    assert "cleared_tool_results" not in [c.kind for c in outcome.compactions]
    assert not any(CLEARED_PREFIX in json.dumps(b) for b in bodies)


@pytest.mark.anyio
async def test_a_sub_agent_compacts_its_own_conversation(harness: Harness) -> None:
    for k in range(scripts.BIG):
        harness.write(scripts.big_name(k), scripts.big_module(k))
    session = harness.session(allow=["Read", "Edit"], limits=RunLimits(context_window=scripts.WINDOW))
    with scripts.use_compaction_cassette("compaction_subagent"):
        outcome = await run_agent(AgentTask("Bump.", nonce="c0ffee00"), session, harness.events)
    assert outcome.stop.reason == "completed", outcome.stop
    assert all("VERSION = 2" in (harness.workspace / scripts.big_name(k)).read_text() for k in range(scripts.BIG))
    sub = [c for c in outcome.compactions if c.agent_id is not None]
    assert sub and "summary" in [c.kind for c in sub]
    assert not [c for c in outcome.compactions if c.agent_id is None]  # the main conversation stayed small
    bodies = [harness.request(i) for i in range(len(harness.capture.requests))]
    assert max(estimate_body(b) for b in bodies) < scripts.WINDOW
    report = render_result(build_report(outcome, None, RunFacts()))
    assert f"sub-agent {sub[0].agent_id}, turn {sub[0].turn}" in report


def test_the_comment_says_when_compaction_happened_and_what_it_saved() -> None:
    outcome = AgentOutcome(
        stop=Stop("completed"),
        final_text="Done.",
        compactions=[
            Compaction("cleared_tool_results", 12, 95.0, 120_000, 80_000, 7),
            Compaction("summary", 30, 410.0, 130_000, 9_000, 58),
        ],
    )
    report = build_report(outcome, None, RunFacts())
    text = render_result(report)
    assert "#### Context window" in text
    assert "shrunk 2 times" in text and "1 summary compaction" in text and "saving 161,000 tokens" in text
    assert "- turn 12 (95 s): 7 old tool results cleared, 120,000 → 80,000 tokens (saved 40,000)" in text
    assert "- turn 30 (410 s): 58 messages compacted into a summary" in text
    assert "Context window" not in render_result(build_report(AgentOutcome(Stop("completed"), ""), None, RunFacts()))
    data = outcome_data(report, outcome)["compactions"]
    assert [(c["kind"], c["turn"], c["tokens_saved"]) for c in data] == [
        ("cleared_tool_results", 12, 40_000),
        ("summary", 30, 121_000),
    ]
