"""policies/README.md shows `bot policy explain` for each preset, exactly as the command prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.explain.readme import BEGIN, END, README, presets_markdown, with_block

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_holds_the_current_explain_output_of_every_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = README.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    assert with_block(text, presets_markdown()) == text, (
        "policies/README.md is out of date: run `python -m bot.explain.readme` from the repository root"
    )
    for preset in ("read-only", "fix", "maintenance"):
        assert f"### `{preset}`" in text


def test_a_stale_block_is_replaced_not_duplicated() -> None:
    once = with_block("# Policies\n", "old")
    twice = with_block(once, "new")
    assert twice.count(BEGIN) == 1
    assert "new" in twice and "old" not in twice.replace("# Policies", "")
