"""A local run that the model API made wait: the retries are counted in ``outcome.json`` and
shown on the terminal."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from typer.testing import CliRunner

from bot.cli import app
from bot.testing.cassettes import HttpError, ScriptItem, write_cassette

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-repo"


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

    result = CliRunner().invoke(
        app,
        [
            "run",
            "--local",
            "--repo",
            str(DEMO),
            "--prompt",
            "Fix the failing test",
            "--replay",
            str(cassette),
            "-o",
            str(out),
        ],
    )

    assert result.exit_code == 0, result.output
    outcome = json.loads((out / "outcome.json").read_text())
    assert outcome["conclusion"] == "success" and outcome["model_retries"] == 2
    assert "↻ the model API failed: overloaded (HTTP 529)" in result.output
    assert "↻ the model API failed: rate_limit (HTTP 429)" in result.output
