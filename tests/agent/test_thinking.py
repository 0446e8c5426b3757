"""Extended thinking asked for by policy or workflow input: what each setting sends, per model,
and a run over HTTP whose requests carry it while the thinking blocks go back unchanged."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx2
import pytest

from bot.agent.client import ProviderConfig, make_model_client
from bot.agent.loop import run_agent
from bot.agent.prompts import AgentTask
from bot.agent.thinking import THINKING_ENV, parse_thinking, thinking_for_run, thinking_from
from bot.errors import ConfigError
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.testing.cassettes import Text, Turn, script_responses
from bot.testing.model import TEST_API_KEY
from bot.testing.replay import PacedReplay
from tests.agent.conftest import Harness
from tests.agent.test_turn_endings import BlockOnce
from tests.agent.wire import SIGNATURE, streamed

SONNET, HAIKU, OPUS = "claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-5-5"


@pytest.mark.parametrize(
    ("case", "value", "model", "max_tokens", "sent"),
    [
        ("a budget", 16_000, SONNET, 32_000, {"thinking": {"type": "enabled", "budget_tokens": 16_000}}),
        ("a budget from the workflow input (a string)", "8000", SONNET, 32_000,
         {"thinking": {"type": "enabled", "budget_tokens": 8_000}}),
        ("an effort", "high", SONNET, 32_000, {"thinking": {"type": "adaptive"}, "output_config": {"effort": "high"}}),
        ("adaptive", "adaptive", SONNET, 32_000, {"thinking": {"type": "adaptive"}}),
        ("off is said explicitly", "off", SONNET, 32_000, {"thinking": {"type": "disabled"}}),
        ("a budget over a small max_tokens shrinks to fit", 16_000, SONNET, 8_192,
         {"thinking": {"type": "enabled", "budget_tokens": 8_191}}),
        ("no room for the minimum budget: no thinking", 16_000, SONNET, 1_000, {}),
        ("per model: an alias covers its family", {"default": "medium", "haiku": "off"}, HAIKU, 32_000,
         {"thinking": {"type": "disabled"}}),
        ("per model: the default for the others", {"default": "medium", "haiku": "off"}, SONNET, 32_000,
         {"thinking": {"type": "adaptive"}, "output_config": {"effort": "medium"}}),
        ("per model: an exact id", {"claude-opus-5-5": 20_000}, OPUS, 32_000,
         {"thinking": {"type": "enabled", "budget_tokens": 20_000}}),
        ("per model: a model without a setting gets none", {"claude-opus-5-5": 20_000}, SONNET, 32_000, {}),
    ],
)  # fmt: skip
def test_what_each_setting_sends(case: str, value: Any, model: str, max_tokens: int, sent: dict[str, Any]) -> None:
    assert parse_thinking(value).request_params(model, max_tokens) == sent, case


@pytest.mark.parametrize(
    ("case", "value", "says"),
    [
        ("a budget under the API's minimum", 512, "at least 1,024 tokens"),
        ("a boolean is not a budget", True, "must be a token budget"),
        ("an unknown word", "lots", "'lots' is not a token budget"),
        ("a list", [16_000], "must be a token budget"),
        ("a bad per-model value names its model", {"opus": "x"}, "bot.thinking.opus"),
    ],
)
def test_a_bad_setting_says_what_is_accepted(case: str, value: Any, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_thinking(value)


def test_the_workflow_input_wins_and_a_bad_policy_value_names_its_file_and_line() -> None:
    from_input = thinking_from({THINKING_ENV: "low"}, 16_000, path=".github/bot-policy.yml", line=4)
    assert from_input is not None and from_input.request_params(SONNET, 32_000)["output_config"] == {"effort": "low"}
    assert thinking_from({}, None) is None
    with pytest.raises(ConfigError, match=r"^\.github/bot-policy\.yml:4: bot\.thinking: a thinking budget is at least"):
        thinking_from({}, 100, path=".github/bot-policy.yml", line=4)
    with pytest.raises(ConfigError, match=r"^the workflow's thinking input \(BOT_THINKING\): 'lots' is not a"):
        thinking_from({THINKING_ENV: "lots"}, None)


@pytest.mark.anyio
async def test_a_run_with_thinking_sends_the_setting_and_returns_the_thinking_blocks_unchanged(
    harness: Harness,
) -> None:
    harness.write("calc.py", "def add(a, b):\n    return a - b\n")
    first = streamed(
        [
            {"type": "thinking", "thinking": "The bug is probably in add()."},
            {"type": "text", "text": "Reading calc.py."},
        ],
        "end_turn",
    )
    model = PacedReplay([first, *script_responses([Turn([Text("Done.")], first_token_s=0)], seed="t")])
    session = harness.session(transport=model.transport())
    session.client = make_model_client(
        ProviderConfig(api_key=TEST_API_KEY, tool_search=True),
        http_client=httpx2.AsyncClient(transport=model.transport()),
        thinking=parse_thinking({"default": 12_000, "haiku": "off"}),
    )
    session.lifecycle = BlockOnce()  # the thinking turn goes back with the hook's request

    outcome = await run_agent(AgentTask("Fix it."), session, harness.events)

    assert outcome.stop.reason == "completed"
    for i in range(2):
        assert model.request_json(i)["thinking"] == {"type": "enabled", "budget_tokens": 12_000}
    sent_back = model.request_json(1)["messages"][1]
    assert sent_back["content"][0] == {
        "type": "thinking",
        "thinking": "The bug is probably in add().",
        "signature": SIGNATURE,
    }


POLICY = """\
permissions:
  allow: [Read]
bot:
  model: sonnet
  thinking:
    default: 16000
    haiku: "off"
"""


def test_a_policy_file_asks_for_thinking_per_model(tmp_path: Path) -> None:
    path = tmp_path / "bot-policy.yml"
    path.write_text(POLICY)
    policy = load_policy_stack([PolicyLayer("repository", str(path))])

    thinking = thinking_for_run({}, policy.settings.get("thinking"))

    assert thinking is not None
    assert thinking.request_params(SONNET, 32_000) == {"thinking": {"type": "enabled", "budget_tokens": 16_000}}
    assert thinking.request_params(HAIKU, 32_000) == {"thinking": {"type": "disabled"}}


def test_a_policy_with_a_bad_thinking_value_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bot-policy.yml"
    path.write_text(POLICY.replace("default: 16000", "default: 100"))
    policy = load_policy_stack([PolicyLayer("repository", str(path))])

    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}:5: bot\.thinking\.default: a thinking budget"):
        thinking_for_run({}, policy.settings.get("thinking"))


def test_a_thinking_value_of_the_wrong_type_is_refused_by_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "bot-policy.yml"
    path.write_text(POLICY.replace("default: 16000", "default: [1, 2]"))

    with pytest.raises(ConfigError, match=r"bot\.thinking"):
        load_policy_stack([PolicyLayer("repository", str(path))])
