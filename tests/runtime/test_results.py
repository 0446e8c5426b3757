"""Large results (seeds 4.8): thresholds, clamp, absolute cap, per-message budget."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bot.interface.messages import ToolResultBlock
from bot.runtime import results
from bot.runtime.results import (
    DEFAULT_MAX_RESULT_SIZE_CHARS,
    MAX_TOOL_RESULT_CHARS,
    MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
    enforce_message_budget,
    limit_result,
    persistence_threshold,
)
from bot.tools.read import ReadTool
from tests.runtime.fakes import EchoTool


class Big(EchoTool):
    max_result_chars = 100_000


class Small(EchoTool):
    max_result_chars = 1_000


class Paging(EchoTool):
    max_result_chars = math.inf


def test_the_named_limits_are_the_seeds_numbers() -> None:
    assert DEFAULT_MAX_RESULT_SIZE_CHARS == 50_000
    assert results.MAX_TOOL_RESULT_TOKENS == 100_000
    assert MAX_TOOL_RESULT_CHARS == 400_000
    assert MAX_TOOL_RESULTS_PER_MESSAGE_CHARS == 200_000


@pytest.mark.parametrize(
    ("description", "tool", "expected"),
    [
        ("a declared threshold above 50,000 is clamped", Big(), 50_000),
        ("a smaller threshold is kept", Small(), 1_000),
        ("the default is 50,000", EchoTool(), 50_000),
        ("Read pages itself: exempt", ReadTool(), math.inf),
    ],
)
def test_persistence_threshold(description: str, tool: EchoTool, expected: float) -> None:
    assert persistence_threshold(tool) == expected, description


@pytest.mark.parametrize(
    ("description", "tool", "size", "persisted"),
    [
        ("exactly at the threshold stays inline", Small(), 1_000, False),
        ("one over the threshold is persisted", Small(), 1_001, True),
        ("clamped tool persists above 50,000", Big(), 50_001, True),
        ("an exempt tool stays inline below the absolute cap", Paging(), 399_999, False),
        ("an exempt tool is persisted above the absolute cap", Paging(), 400_001, True),
    ],
)
def test_limit_result(tmp_path: Path, description: str, tool: EchoTool, size: int, persisted: bool) -> None:
    block = ToolResultBlock("toolu_x", "z" * size)
    out = limit_result(tool, block, tmp_path)
    assert out.text.startswith("<persisted-output>") is persisted, description
    if persisted:
        saved = tmp_path / "tool-results" / "toolu_x.txt"
        assert saved.read_text() == "z" * size
        assert f"Full output saved to: {saved}" in out.text
        assert len(out.text) < 3_000


def test_image_blocks_survive_persistence_of_their_text(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    block = ToolResultBlock("t", [{"type": "text", "text": "q" * 2_000}, image])
    out = limit_result(Small(), block, tmp_path)
    assert isinstance(out.content, list)
    assert out.content[-1] == image
    assert out.content[0]["text"].startswith("<persisted-output>")


def test_a_tool_use_id_cannot_escape_the_results_directory(tmp_path: Path) -> None:
    out = limit_result(Small(), ToolResultBlock("../../evil", "z" * 2_000), tmp_path)
    assert (tmp_path / "tool-results" / ".._.._evil.txt").is_file()
    assert "evil" in out.text


def test_the_message_budget_persists_the_largest_results_first(tmp_path: Path) -> None:
    blocks = [
        ToolResultBlock("a", "a" * 40_000),
        ToolResultBlock("b", "b" * 49_000),
        ToolResultBlock("c", "c" * 45_000),
        ToolResultBlock("d", "d" * 48_000),
        ToolResultBlock("e", "e" * 30_000),
    ]
    out = enforce_message_budget(blocks, tmp_path)
    persisted = [b.tool_use_id for b in out if b.text.startswith("<persisted-output>")]
    assert persisted == ["b"]  # 212,000 → 163,000+preview: one is enough, and it is the largest
    assert [b.tool_use_id for b in out] == ["a", "b", "c", "d", "e"]


def test_the_message_budget_keeps_going_until_it_fits(tmp_path: Path) -> None:
    blocks = [ToolResultBlock(str(i), "x" * 49_000) for i in range(8)]
    out = enforce_message_budget(blocks, tmp_path)
    assert sum(len(b.text) for b in out) <= MAX_TOOL_RESULTS_PER_MESSAGE_CHARS
    # 4 would leave 196,000 + four previews (~2,300 each) > 200,000: a fifth is needed.
    assert sum(b.text.startswith("<persisted-output>") for b in out) == 5


def test_exempt_results_count_but_are_never_chosen(tmp_path: Path) -> None:
    blocks = [ToolResultBlock("read", "r" * 190_000), ToolResultBlock("grep", "g" * 20_000)]
    out = enforce_message_budget(blocks, tmp_path, exempt_ids={"read"})
    assert not out[0].text.startswith("<persisted-output>")
    assert out[1].text.startswith("<persisted-output>")


def test_under_budget_nothing_changes(tmp_path: Path) -> None:
    blocks = [ToolResultBlock("a", "a" * 100_000), ToolResultBlock("b", "b" * 100_000)]
    assert enforce_message_budget(blocks, tmp_path) == blocks
    assert not (tmp_path / "tool-results").exists()
