from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.agent.context_window import (
    DEFAULT_WINDOW,
    ContextBudget,
    ContextMeter,
    estimate_request,
    estimate_tokens,
    window_for,
)
from bot.agent.limits import RunLimits
from bot.agent.usage import Usage
from bot.errors import ConfigError
from bot.orchestration.session import RunConfig, run_limits
from bot.permissions.stack import EffectivePolicy, PolicyLayer, load_policy_stack


@pytest.mark.parametrize(
    ("case", "model", "override", "window"),
    [
        ("a known family", "claude-sonnet-5-5", None, 200_000),
        ("a dated model id", "claude-haiku-4-5-20251001", None, 200_000),
        ("an unknown model gets the default", "some-proxy-model", None, DEFAULT_WINDOW),
        ("the policy's override wins", "claude-opus-5-5", 50_000, 50_000),
    ],
)
def test_the_window_comes_from_the_table_or_the_policy(
    case: str, model: str, override: int | None, window: int
) -> None:
    assert window_for(model, override) == window, case


def test_a_window_too_small_to_hold_anything_is_refused() -> None:
    with pytest.raises(ValueError, match="context_window"):
        RunLimits(context_window=1_000)


def test_the_thresholds_leave_room_for_the_reply_and_come_in_order() -> None:
    budget = ContextBudget(window=200_000, max_output_tokens=32_000)
    assert budget.usable == 170_000  # the reply may take 15 % of the window
    assert budget.clear_down_to < budget.clear_at < budget.compact_at < budget.usable
    small = ContextBudget(window=20_000, max_output_tokens=32_000)
    assert small.output_reserve == 3_000  # a share of the window, not the whole max_tokens


def test_the_estimate_counts_text_and_attachments() -> None:
    text = {"type": "text", "text": "x" * 3_000}
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 100_000}}
    assert 1_000 <= estimate_tokens(text) < 1_100
    assert estimate_tokens(image) == 1_600  # not its base64 length


def _conversation(n: int) -> list[dict[str, object]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": "word " * 30}]}
        for i in range(n)
    ]


def test_the_meter_trusts_the_api_usage_when_it_says_more_than_the_estimate() -> None:
    meter = ContextMeter()
    messages = _conversation(3)
    estimate = estimate_request([], [], messages)
    assert meter.measure([], [], messages) == estimate  # nothing reported yet
    meter.reported(Usage(input_tokens=10, cache_read_input_tokens=50_000, output_tokens=500), messages_sent=3)
    messages += _conversation(2)  # the reply, and the next tool results
    added = estimate_tokens(messages[4:])
    assert meter.measure([], [], messages) == 50_510 + added


def test_the_meter_falls_back_to_the_estimate_when_the_usage_is_small_or_stale() -> None:
    meter = ContextMeter()
    messages = _conversation(5)
    meter.reported(Usage(input_tokens=3), messages_sent=4)
    assert meter.measure([], [], messages) == estimate_request([], [], messages)
    meter.reported(Usage(input_tokens=90_000), messages_sent=4)
    meter.rewritten()  # compacted: the old usage describes a conversation that is gone
    assert meter.measure([], [], messages) == estimate_request([], [], messages)


def _policy(limits: dict[str, object]) -> EffectivePolicy:
    text = json.dumps({"bot": {"limits": limits}})
    return load_policy_stack([PolicyLayer("repository", path=".claude/settings.json", text=text)])


def test_the_policy_sets_the_window_the_run_measures_against(tmp_path: Path) -> None:
    config = RunConfig(workspace=tmp_path, scratch_dir=tmp_path / "scratch")
    assert run_limits(config, _policy({"context_window": 50_000})).context_window == 50_000
    assert run_limits(config, _policy({"max_turns": 3})).context_window is None


@pytest.mark.parametrize(
    ("case", "value"),
    [
        ("too small to hold a prompt", 100),
        ("not a whole number", 50_000.5),
        ("a string", "200k"),
    ],
)
def test_a_window_the_policy_cannot_mean_is_an_error_naming_the_key(case: str, value: object) -> None:
    with pytest.raises(ConfigError, match="context_window"):
        _policy({"context_window": value})
