"""Local runs that did not go smoothly at the model API: the retries are counted in
``outcome.json`` and shown on the terminal; a context window that fills up is a limit, not "Done",
and the work so far is kept."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from bot.testing.cassettes import HttpError, ScriptItem, Text, Turn, write_cassette
from tests.local.demo import ROOT, run_demo


def _demo_script() -> list[ScriptItem]:
    spec = importlib.util.spec_from_file_location("make_demo_cassette", ROOT / "examples" / "make_demo_cassette.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.SCRIPT)


def test_retries_are_counted_in_the_outcome_and_shown_on_the_terminal(tmp_path: Path) -> None:
    waits = [HttpError(529, retry_after=0), HttpError(429, "rate_limit_error", "rate limited", retry_after=0)]
    cassette = write_cassette(tmp_path / "overloaded.yaml", [*waits, *_demo_script()], seed="demo")
    out = tmp_path / "out"

    result = run_demo(out, cassette=cassette)

    assert result.exit_code == 0, result.output
    outcome = json.loads((out / "outcome.json").read_text())
    assert outcome["conclusion"] == "success" and outcome["model_retries"] == 2
    assert "↻ the model API failed: overloaded (HTTP 529)" in result.output
    assert "↻ the model API failed: rate_limit (HTTP 429)" in result.output
    assert "· 2 model API retries</sub>" in (out / "comment.md").read_text().replace("<br>", "</sub>")


def test_a_full_context_window_is_reported_as_a_limit_with_the_work_kept(tmp_path: Path) -> None:
    full = Turn([Text("Fixed `median()`; the tests")], stop_reason="model_context_window_exceeded")
    summary = Turn([Text("## Summary\nFixed median() in stats.py; the tests pass.")])
    script = [*_demo_script()[:-1], full, summary, full]
    cassette = write_cassette(tmp_path / "full.yaml", script, seed="demo")
    out = tmp_path / "out"

    result = run_demo(out, cassette=cassette)

    outcome = json.loads((out / "outcome.json").read_text())
    assert outcome["stop_reason"] == "context_window", result.output
    assert "model_context_window_exceeded" in outcome["stop_detail"]
    assert [f["path"] for f in outcome["files"]] == ["stats.py"]  # the fix is kept
    comment = (out / "comment.md").read_text()
    assert "✅ Done" not in comment and "context window" in comment
