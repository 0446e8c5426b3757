"""The model knows its rules up front: the policy's summary in the system prompt's stable part,
within its size bound, the same bytes on every request of a run."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import anyio
import pytest

from bot.agent.cache import cached_prefix, shares_cached_prefix
from bot.explain.compute import explain_policy
from bot.explain.summary import MAX_SUMMARY_TOKENS, estimated_tokens, render_summary
from bot.permissions.stack import PolicyLayer
from tests.agent.conftest import Harness
from tests.cassettes.scripts import CALC_BUGGY, TEST_CALC, TEST_COMMAND


def _summary(tmp_path: Path, *, preset: str | None = None, allow: tuple[str, ...] = ()) -> str:
    layers = [PolicyLayer("preset", preset=preset)] if preset else []
    explanation = anyio.run(lambda: explain_policy(layers, workspace=tmp_path, allow=list(allow), examples=False))
    return render_summary(explanation)


@pytest.mark.parametrize("preset", ["read-only", "fix", "maintenance"])
def test_each_presets_summary_is_within_its_bound_and_the_same_bytes_every_time(preset: str, tmp_path: Path) -> None:
    first = _summary(tmp_path, preset=preset)
    assert estimated_tokens(first) <= MAX_SUMMARY_TOKENS
    assert _summary(tmp_path, preset=preset) == first
    assert first.startswith("# This run's permission policy\nFixed for the whole run.")


@pytest.mark.parametrize("preset", ["read-only", "fix", "maintenance"])
def test_the_summary_reads_no_option_table_and_says_what_the_full_explanation_would(
    preset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run computes the summary before its first model request: it leaves out the option classes
    (the summary shows none), so the 2 MB option table is not parsed on the way."""
    from bot.explain import bash_rules

    layers = [PolicyLayer("preset", preset=preset)]
    full = anyio.run(lambda: explain_policy(layers, workspace=tmp_path))
    assert any(rule.never for rule in full.bash_rules)  # the full form does read the table

    def no_table() -> dict[str, object]:
        raise AssertionError("the summary's explanation read the option table")

    monkeypatch.setattr(bash_rules, "_table", no_table)
    short = anyio.run(lambda: explain_policy(layers, workspace=tmp_path, examples=False))
    assert all(rule.never == () and rule.table_entry is None for rule in short.bash_rules)
    assert render_summary(short) == render_summary(full)


def test_the_fix_summary_says_what_the_rules_say(tmp_path: Path) -> None:
    text = _summary(tmp_path, preset="fix")
    assert "- Need no rule: Agent, TodoWrite, ToolSearch." in text
    assert "- File writes: Edit, Write, NotebookEdit: anywhere in the workspace." in text
    assert "  - exactly: `pwd`, `make test`, `make lint`" in text
    assert "`git diff`" in text and "`python3 -m pytest`" in text
    assert "never, in any spelling: `Bash(git push *)`" in text
    assert "- Never written: .git/, .github/workflows/." in text


def test_a_policy_with_hundreds_of_rules_is_cut_to_the_bound_and_says_so(tmp_path: Path) -> None:
    rules = tuple(f"Bash(tool-{i:03d} run *)" for i in range(400))
    text = _summary(tmp_path, allow=rules)
    assert estimated_tokens(text) <= MAX_SUMMARY_TOKENS
    assert "more" in text.split("followed by any arguments: ", 1)[1].splitlines()[0]


@pytest.mark.anyio
async def test_the_summary_is_a_system_block_and_the_cached_prefix_is_identical_across_turns(
    harness: Harness,
) -> None:
    harness.write("calc.py", CALC_BUGGY)
    harness.write("test_calc.py", TEST_CALC)
    summary = "# This run's permission policy\nFixed for the whole run.\n- Shell commands, only these: …"
    await harness.run(
        "multi_turn_fix",
        harness.session(allow=("Read", "Edit", f"Bash({TEST_COMMAND})"), policy_summary=summary),
    )
    bodies = [harness.request(i) for i in range(4)]
    systems = [b["system"] for b in bodies]
    assert [block["text"] for block in systems[0]][1] == summary
    assert all(s == systems[0] for s in systems)  # byte-identical system blocks, markers included
    for previous, current in pairwise(bodies):
        assert shares_cached_prefix(previous, current)
    # The summary sits before the per-run environment, inside the first request's cached prefix.
    assert any(json.dumps(summary, ensure_ascii=False)[1:-1] in unit for unit in cached_prefix(bodies[0]))
    assert systems[0][0]["text"].startswith("You are a coding agent")
    assert systems[0][2]["text"].startswith("# Environment")


@pytest.mark.anyio
async def test_a_prepared_run_carries_the_summary_of_the_policy_it_loaded(tmp_path: Path) -> None:
    from bot.interface.abort import AbortSignal
    from bot.orchestration.session import RunConfig, prepare_run, working_tree_files

    workspace = tmp_path / "ws"
    (workspace / ".github").mkdir(parents=True)
    (workspace / ".github" / "bot-policy.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make docs)"]}, "bot": {"sandbox": "off"}})
    )
    config = RunConfig(workspace=workspace, scratch_dir=tmp_path / "scratch", policies=["fix"])
    async with prepare_run(config, working_tree_files(workspace), abort=AbortSignal(), client=object()) as prepared:  # type: ignore[arg-type]
        summary = prepared.session.policy_summary
    assert "`make docs`" in summary and "`git diff`" in summary
    assert estimated_tokens(summary) <= MAX_SUMMARY_TOKENS
