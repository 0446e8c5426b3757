from __future__ import annotations

import pytest

from bot.agent.pricing import DEFAULT_PRICE_TABLE, PRICES_AS_OF, ModelPrice, PriceTable, Rates, canonical_model
from bot.agent.usage import Usage


@pytest.mark.parametrize(
    ("case", "model", "canonical"),
    [
        ("an alias stays", "claude-sonnet-5-5", "claude-sonnet-5-5"),
        ("a dated API id loses its date", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("a Bedrock inference profile", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("a Bedrock model id", "anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("a Vertex id", "claude-opus-4-1@20250805", "claude-opus-4-1"),
        ("a long-context variant", "claude-sonnet-5-5[1m]", "claude-sonnet-5-5"),
    ],
)
def test_model_ids_of_every_provider_map_to_one_price_name(case: str, model: str, canonical: str) -> None:
    assert canonical_model(model) == canonical, case


@pytest.mark.parametrize(
    ("case", "model", "usage", "usd"),
    [
        ("input and output", "claude-sonnet-4-5", Usage(1_000_000, 1_000_000), 3 + 15),
        ("cache reads are a tenth of input", "claude-opus-4-5", Usage(cache_read_input_tokens=1_000_000), 0.50),
        (
            "5-minute and 1-hour writes differ",
            "claude-sonnet-5-5",
            Usage(cache_write_5m_tokens=1_000_000, cache_write_1h_tokens=1_000_000),
            2.50 + 4,
        ),
        (
            "Haiku 5.5's short-prompt tier",
            "claude-haiku-5-5",
            Usage(100_000, 1_000),
            (100_000 * 0.10 + 1_000 * 0.50) / 1e6,
        ),
        (
            "Haiku 5.5's long-prompt tier bills every token higher",
            "claude-haiku-5-5",
            Usage(50_001, 1_000, cache_read_input_tokens=50_000),
            (50_001 * 0.50 + 1_000 * 2.50 + 50_000 * 0.05) / 1e6,
        ),
        ("a dated id is priced as its family", "claude-opus-4-1-20250805", Usage(0, 1_000_000), 75),
    ],
)
def test_cost_is_computed_from_the_dated_table(case: str, model: str, usage: Usage, usd: float) -> None:
    cost = DEFAULT_PRICE_TABLE.cost(model, usage)
    assert cost.usd == pytest.approx(usd), case
    assert not cost.estimated


def test_an_unknown_model_is_priced_at_the_most_expensive_rates_and_flagged() -> None:
    cost = DEFAULT_PRICE_TABLE.cost("claude-mystery-9", Usage(0, 1_000_000))
    assert cost.estimated and cost.usd == pytest.approx(75)  # Opus 4.1 output


def test_a_table_can_be_overridden_without_editing_the_module() -> None:
    table = PriceTable({"claude-sonnet-5-5": ModelPrice(Rates(1, 2, 1, 1, 0.1))})
    assert table.cost("claude-sonnet-5-5", Usage(1_000_000, 1_000_000)).usd == pytest.approx(3)
    assert PRICES_AS_OF.year == 2026
