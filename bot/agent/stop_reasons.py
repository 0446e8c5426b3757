"""What the loop does with a response's ``stop_reason``: a pure decision over every reason the
Messages API documents (the SDK's ``StopReason``; a test fails when the SDK lists one this table
does not know).

A reason this table does not know ends the run as an error rather than as "completed": a run that
stopped for a cause nobody checked must not be reported as done.
"""

from __future__ import annotations

from typing import Literal

TurnEnding = Literal["finished", "cut_off", "paused", "refused", "window_full", "unknown"]

#: Every stop reason of the Messages API (anthropic 2.15 ``types.StopReason``) and what it means here.
STOP_REASONS: dict[str, TurnEnding] = {
    # The model is done with its turn (or hit a stop sequence the request set).
    "end_turn": "finished",
    "stop_sequence": "finished",
    # Tool calls are handled before the stop reason is looked at; a ``tool_use`` stop without a
    # client tool call (only server tools ran) is an ordinary end of turn.
    "tool_use": "finished",
    # The output token limit cut the response: the model is told so and continues.
    "max_tokens": "cut_off",
    # A server tool paused a long turn: the conversation goes back as is and the model resumes.
    "pause_turn": "paused",
    # The model declined to continue: an error, not a completed task.
    "refusal": "refused",
    # The prompt plus the response filled the model's context window: the response is cut and
    # the conversation must shrink (a compaction) before another turn can help.
    "model_context_window_exceeded": "window_full",
}


def turn_ending(stop_reason: str | None) -> TurnEnding:
    """How a turn without (complete) tool calls ended."""
    if stop_reason is None:
        return "unknown"
    return STOP_REASONS.get(stop_reason, "unknown")


__all__ = ["STOP_REASONS", "TurnEnding", "turn_ending"]
