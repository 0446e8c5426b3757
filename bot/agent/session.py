"""What a run is given (:class:`AgentSession`) and what all agents of a run share (:class:`RunLedger`).

The GitHub layer builds the session: the workspace context (with the policy's permission context),
the assembled tool pool, the permission engine, hooks, the model client and the limits. The loop
does not read configuration files or the environment itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.agent.cache import CacheTTL
from bot.agent.compaction import Compaction, ToolResultClearing
from bot.agent.lifecycle import LifecycleHooks, NoLifecycleHooks
from bot.agent.limits import Clock, LimitHit, RunLimits, monotonic
from bot.agent.model import ModelClient
from bot.agent.outcome import ToolCallEntry, TurnRecord
from bot.agent.pricing import DEFAULT_PRICE_TABLE, PriceTable
from bot.agent.prompts import STATIC_SYSTEM_PROMPT, Environment, Instruction
from bot.agent.retry import RetryPolicy
from bot.core.services import Services
from bot.interface.context import ToolUseContext
from bot.permissions.chain import PermissionEngine
from bot.permissions.engine import PolicyEngine
from bot.runtime.hooks import HookRunner, NoHooks
from bot.runtime.pipeline import ToolPool
from bot.tools.agent_definitions import BUILTIN_AGENTS, DEFAULT_MODEL_ALIASES, AgentDefinition

#: Output tokens per response. Large enough for a whole-file Write; Claude Code's default is 32k.
DEFAULT_MAX_OUTPUT_TOKENS = 32_000


@dataclass(slots=True)
class AgentSession:
    context: ToolUseContext
    pool: ToolPool
    client: ModelClient
    model: str
    engine: PermissionEngine = field(default_factory=PolicyEngine)
    hooks: HookRunner = field(default_factory=NoHooks)
    lifecycle: LifecycleHooks = field(default_factory=NoLifecycleHooks)
    limits: RunLimits = field(default_factory=RunLimits)
    #: Gathered from the workspace at start when not given (tests pass a fixed one).
    environment: Environment | None = None
    #: ``AGENTS.md`` / ``CLAUDE.md`` from trusted files (:func:`bot.agent.prompts.read_instructions`).
    instructions: tuple[Instruction, ...] = ()
    system_prompt: str = STATIC_SYSTEM_PROMPT
    append_system_prompt: str = ""
    #: What the policy allows, for the system prompt's stable part (:mod:`bot.explain.summary`).
    policy_summary: str = ""
    max_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    prices: PriceTable = DEFAULT_PRICE_TABLE
    cache_ttl: CacheTTL = "5m"
    agent_definitions: tuple[AgentDefinition, ...] = BUILTIN_AGENTS
    model_aliases: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MODEL_ALIASES))
    #: Who clears old tool results (:mod:`bot.agent.compaction`); ``None``: we do, client-side.
    context_clearing: ToolResultClearing | None = None
    #: Passed through to every request (``thinking``, ``metadata``, ...).
    extra_params: Mapping[str, Any] = field(default_factory=dict)
    #: The earlier conversation a follow-up run continues (:mod:`bot.agent.resume`); main agent only.
    resumed: tuple[dict[str, Any], ...] = ()
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    clock: Clock = monotonic
    #: Set-up still under way when the run starts (the sandbox's probe and self-test, which run
    #: while the first request is on its way). The loop awaits it before it reads a response, before
    #: a lifecycle hook runs and before the run ends, so no tool or hook runs and no run ends until
    #: it has passed; what it raises ends the run. It returns the services it prepared, which join
    #: the run's context.
    pending_setup: Callable[[], Awaitable[Services]] | None = None
    #: Begins the pending set-up without waiting for it: the loop calls it once its first request is
    #: out, so the set-up's CPU does not hold that request back (the first await begins it too).
    start_pending_setup: Callable[[], object] | None = None
    # ----- set for sub-agents by the sub-agent runner -----
    agent_id: str | None = None
    agent_type: str | None = None
    ledger: RunLedger | None = None


class SetupGate:
    """An agent's wait for its session's pending set-up: :meth:`passed` awaits it until it has
    passed once (a wait an abort cut short is taken up again at the next call) and adds the
    services it prepared to the agent's context; :attr:`begin` begins it without waiting."""

    def __init__(self, session: AgentSession) -> None:
        self._pending = session.pending_setup
        self._start = session.start_pending_setup

    @property
    def begin(self) -> Callable[[], object] | None:
        return self._start if self._pending is not None else None

    async def passed(self, context: ToolUseContext) -> None:
        pending = self._pending
        if pending is not None:
            prepared = await pending()
            self._pending = None
            for key in prepared:
                context.services[key] = prepared[key]


@dataclass(slots=True)
class RunLedger:
    """Shared by the main agent and its sub-agents: one budget, one deadline, one log."""

    started_at: float
    #: Absolute (clock) time the run must end by, or ``None``.
    deadline: float | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    tool_calls: list[ToolCallEntry] = field(default_factory=list)
    #: Set (before the run's abort signal fires) when a limit ended the run.
    limit_hit: LimitHit | None = None
    compactions: list[Compaction] = field(default_factory=list)

    @property
    def total_cost_usd(self) -> float:
        return sum(t.cost_usd for t in self.turns)
