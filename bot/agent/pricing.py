"""What a response cost, from a price table per model (USD per million tokens).

The table is dated: prices change, and a budget computed from stale prices is wrong. The rates
below were read from Anthropic's pricing page (https://platform.claude.com/docs/en/about-claude/pricing)
as of :data:`PRICES_AS_OF`; pass your own :class:`PriceTable` to override them (a negotiated rate,
a new model) without editing this file.

An unknown model is priced at the most expensive rates in the table and the cost is flagged as an
estimate: a budget limit must never be under-counted (fail closed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from bot.agent.usage import Usage

#: When the rates below were last checked against the pricing page.
PRICES_AS_OF = date(2026, 10, 24)
PER_MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per million tokens."""

    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


@dataclass(frozen=True, slots=True)
class ModelPrice:
    rates: Rates
    #: Some models bill a whole request at higher rates once its prompt exceeds a threshold.
    long_prompt_threshold: int | None = None
    long_prompt_rates: Rates | None = None

    def rates_for(self, usage: Usage) -> Rates:
        if (
            self.long_prompt_threshold is not None
            and self.long_prompt_rates is not None
            and usage.prompt_tokens > self.long_prompt_threshold
        ):
            return self.long_prompt_rates
        return self.rates


def _price(inp: float, out: float, w5: float, w1: float, read: float) -> ModelPrice:
    return ModelPrice(Rates(inp, out, w5, w1, read))


_FABLE_5_1 = _price(10, 50, 12.50, 20, 0.25)
_FABLE_5 = _price(10, 50, 12.50, 20, 1.00)
_OPUS_5_5 = _price(4, 20, 5, 8, 0.20)
_OPUS_4_5 = _price(5, 25, 6.25, 10, 0.50)
_OPUS_4 = _price(15, 75, 18.75, 30, 1.50)
_SONNET_5_5 = _price(2, 10, 2.50, 4, 0.10)  # cache reads cut from 0.20 on 2026-10-07
_SONNET_5 = _price(2, 10, 2.50, 4, 0.20)
_SONNET_4 = _price(3, 15, 3.75, 6, 0.30)
_HAIKU_5_5 = ModelPrice(Rates(0.10, 0.50, 0.125, 0.20, 0.01), 100_000, Rates(0.50, 2.50, 0.625, 1.00, 0.05))
_HAIKU_4_5 = _price(1, 5, 1.25, 2, 0.10)
_HAIKU_3_5 = _price(0.80, 4, 1, 1.6, 0.08)

#: Canonical model name (no date suffix, no provider prefix) → price, as of PRICES_AS_OF.
DEFAULT_PRICES: Mapping[str, ModelPrice] = {
    "claude-fable-5-2": _FABLE_5_1,
    "claude-mythos-5-2": _FABLE_5_1,
    "claude-fable-5-1": _FABLE_5_1,
    "claude-mythos-5-1": _FABLE_5_1,
    "claude-fable-5": _FABLE_5,
    "claude-mythos-5": _FABLE_5,
    "claude-opus-5-5": _OPUS_5_5,
    "claude-opus-5": _OPUS_4_5,
    "claude-opus-4-8": _OPUS_4_5,
    "claude-opus-4-7": _OPUS_4_5,
    "claude-opus-4-6": _OPUS_4_5,
    "claude-opus-4-5": _OPUS_4_5,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-sonnet-5-5": _SONNET_5_5,
    "claude-sonnet-5": _SONNET_5,
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-haiku-5-5": _HAIKU_5_5,
    "claude-haiku-4-5": _HAIKU_4_5,
    "claude-3-5-haiku": _HAIKU_3_5,
}

# Provider spellings: `us.anthropic.claude-…-v1:0` (Bedrock), `claude-…@20250929` (Vertex),
# `claude-…-20250929` (dated API ids), `claude-…[1m]` (long-context variants).
_PROVIDER_PREFIX = re.compile(r"^(?:[a-z]{2,6}\.)?anthropic\.")
_SUFFIXES = re.compile(r"(?:\[1m\])?(?:@\d{8})?(?:-\d{8})?(?:-v\d+(?::\d+)?)?(?:\[1m\])?$")


def canonical_model(model: str) -> str:
    """``us.anthropic.claude-sonnet-4-5-20250929-v1:0`` → ``claude-sonnet-4-5``."""
    name = _PROVIDER_PREFIX.sub("", model.strip().lower())
    return _SUFFIXES.sub("", name)


@dataclass(frozen=True, slots=True)
class Cost:
    usd: float
    #: The model was not in the table: priced at the table's most expensive rates.
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class PriceTable:
    prices: Mapping[str, ModelPrice] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    as_of: date = PRICES_AS_OF

    def lookup(self, model: str) -> ModelPrice | None:
        name = canonical_model(model)
        if name in self.prices:
            return self.prices[name]
        # A longer id of a known family (`claude-opus-4-1-preview`): the longest known prefix wins.
        best = max((k for k in self.prices if name.startswith(k + "-")), key=len, default=None)
        return self.prices[best] if best is not None else None

    def fallback(self) -> ModelPrice:
        return max(self.prices.values(), key=lambda p: (p.rates.output, p.rates.input))

    def cost(self, model: str, usage: Usage) -> Cost:
        price = self.lookup(model)
        estimated = price is None
        rates = (price or self.fallback()).rates_for(usage)
        usd = (
            usage.input_tokens * rates.input
            + usage.output_tokens * rates.output
            + usage.cache_write_5m_tokens * rates.cache_write_5m
            + usage.cache_write_1h_tokens * rates.cache_write_1h
            + usage.cache_read_input_tokens * rates.cache_read
        ) / PER_MILLION
        return Cost(usd, estimated)


DEFAULT_PRICE_TABLE = PriceTable()
