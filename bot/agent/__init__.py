"""The agent layer: the model client, the loop, prompts, prompt-cache layout, limits, sub-agents.

Public surface (what the GitHub layer calls)::

    outcome = await run_agent(AgentTask(prompt, quoted=(QuotedData(...),)),
                              AgentSession(context, pool, make_model_client(ProviderConfig()), model,
                                           engine=..., hooks=..., limits=RunLimits(...)),
                              events=sink)

Names are imported lazily: the Agent tool (``bot.tools``) reads agent definitions from this
package, and this package's loop uses the tools, so an eager import here would be circular.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "run_agent": "bot.agent.loop",
    "AgentSession": "bot.agent.session",
    "RunLedger": "bot.agent.session",
    "AgentTask": "bot.agent.prompts",
    "QuotedData": "bot.agent.prompts",
    "Instruction": "bot.agent.prompts",
    "Environment": "bot.agent.prompts",
    "read_instructions": "bot.agent.prompts",
    "gather_environment": "bot.agent.prompts",
    "AgentOutcome": "bot.agent.outcome",
    "Stop": "bot.agent.outcome",
    "ToolCallEntry": "bot.agent.outcome",
    "TurnRecord": "bot.agent.outcome",
    "RunLimits": "bot.agent.limits",
    "Usage": "bot.agent.usage",
    "PriceTable": "bot.agent.pricing",
    "ProviderConfig": "bot.agent.client",
    "make_model_client": "bot.agent.client",
    "ModelClient": "bot.agent.model",
    "ModelError": "bot.agent.model",
    "RetryPolicy": "bot.agent.retry",
    "EventSink": "bot.agent.events",
    "EventLog": "bot.agent.events",
    "RunEvent": "bot.agent.events",
    "LifecycleHooks": "bot.agent.lifecycle",
    "NoLifecycleHooks": "bot.agent.lifecycle",
    "AgentDefinition": "bot.agent.definitions",
    "load_agent_definitions": "bot.agent.definitions",
}

__all__ = [
    "AgentDefinition",
    "AgentOutcome",
    "AgentSession",
    "AgentTask",
    "Environment",
    "EventLog",
    "EventSink",
    "Instruction",
    "LifecycleHooks",
    "ModelClient",
    "ModelError",
    "NoLifecycleHooks",
    "PriceTable",
    "ProviderConfig",
    "QuotedData",
    "RetryPolicy",
    "RunEvent",
    "RunLedger",
    "RunLimits",
    "Stop",
    "ToolCallEntry",
    "TurnRecord",
    "Usage",
    "gather_environment",
    "load_agent_definitions",
    "make_model_client",
    "read_instructions",
    "run_agent",
]

if TYPE_CHECKING:
    from bot.agent.client import ProviderConfig, make_model_client
    from bot.agent.definitions import AgentDefinition, load_agent_definitions
    from bot.agent.events import EventLog, EventSink, RunEvent
    from bot.agent.lifecycle import LifecycleHooks, NoLifecycleHooks
    from bot.agent.limits import RunLimits
    from bot.agent.loop import run_agent
    from bot.agent.model import ModelClient, ModelError
    from bot.agent.outcome import AgentOutcome, Stop, ToolCallEntry, TurnRecord
    from bot.agent.pricing import PriceTable
    from bot.agent.prompts import (
        AgentTask,
        Environment,
        Instruction,
        QuotedData,
        gather_environment,
        read_instructions,
    )
    from bot.agent.retry import RetryPolicy
    from bot.agent.session import AgentSession, RunLedger
    from bot.agent.usage import Usage


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bot.agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
