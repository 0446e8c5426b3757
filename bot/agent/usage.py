"""Token usage of one model response, and its sum over a run.

The API reports usage twice per streamed response: in ``message_start`` (input side, output so
far) and in ``message_delta`` (cumulative totals). The client turns the last one seen into a
:class:`Usage`; a stream that failed half-way still reports what ``message_start`` said, because
the input of a failed attempt is billed too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    #: Cache writes, split by time-to-live (they are priced differently).
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0

    @property
    def cache_write_tokens(self) -> int:
        return self.cache_write_5m_tokens + self.cache_write_1h_tokens

    @property
    def prompt_tokens(self) -> int:
        """Everything the model read: uncached input, cache reads and cache writes."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_write_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_write_5m_tokens + other.cache_write_5m_tokens,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_write_5m_tokens": self.cache_write_5m_tokens,
            "cache_write_1h_tokens": self.cache_write_1h_tokens,
        }

    @classmethod
    def from_api(cls, usage: dict[str, Any]) -> Usage:
        """From the API's ``usage`` object. Without the TTL breakdown, writes count as 5-minute ones
        (the API's default TTL)."""
        writes = int(usage.get("cache_creation_input_tokens") or 0)
        breakdown = usage.get("cache_creation") or {}
        one_hour = int(breakdown.get("ephemeral_1h_input_tokens") or 0)
        five_min = int(breakdown.get("ephemeral_5m_input_tokens") or 0)
        if one_hour + five_min != writes:
            five_min, one_hour = writes - one_hour, one_hour
        return cls(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_input_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_write_5m_tokens=max(0, five_min),
            cache_write_1h_tokens=max(0, one_hour),
        )


ZERO_USAGE = Usage()
