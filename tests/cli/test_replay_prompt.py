"""A replayed cassette answers what was recorded: `bot run --local --replay` says so when
`--prompt` is not the task the recording was made for, and stays quiet when it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.agent.replay import prompt_mismatch, recorded_prompt
from bot.testing.cassettes import Text, Turn, write_cassette

ROOT = Path(__file__).resolve().parents[2]
DEMO_CASSETTE = ROOT / "examples" / "demo.cassette.yaml"


def test_the_demo_cassette_records_its_task() -> None:
    assert recorded_prompt(DEMO_CASSETTE) == "Fix the failing test"


@pytest.mark.parametrize(
    ("description", "prompt", "differs"),
    [
        ("the recorded task", "Fix the failing test", False),
        ("the recorded task, spaced differently", "Fix  the failing\ntest", False),
        ("another task", "Add a mode() function", True),
    ],
)
def test_a_prompt_other_than_the_recorded_one_is_named(description: str, prompt: str, differs: bool) -> None:
    note = prompt_mismatch(DEMO_CASSETTE, prompt)
    assert (note is not None) is differs, description
    if note is not None:
        assert repr(prompt) in note and "'Fix the failing test'" in note
        assert "answers the recording" in note


def test_a_recorded_request_with_framing_matches_the_prompt_inside_it(tmp_path: Path) -> None:
    # A cassette recorded from real traffic: the first user message is the task's framing with the
    # prompt inside it, as content blocks.
    path = write_cassette(tmp_path / "c.yaml", [Turn([Text("done")])])
    cassette = yaml.safe_load(path.read_text())
    framed = {"role": "user", "content": [{"type": "text", "text": "Repository x.\nTask:\nBump the deps\n"}]}
    cassette["interactions"][0]["request"]["body"] = json.dumps({"model": "m", "stream": True, "messages": [framed]})
    path.write_text(yaml.safe_dump(cassette))
    assert prompt_mismatch(path, "Bump the deps") is None
    assert prompt_mismatch(path, "Something else") is not None


def test_a_cassette_without_a_recorded_task_says_nothing(tmp_path: Path) -> None:
    path = write_cassette(tmp_path / "c.yaml", [Turn([Text("done")])])
    assert recorded_prompt(path) is None
    assert prompt_mismatch(path, "anything") is None
    assert prompt_mismatch(tmp_path / "missing.yaml", "anything") is None
