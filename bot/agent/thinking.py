"""Extended thinking, asked for by policy (``bot.thinking``) or the workflow (``thinking`` input):
what a setting means for each request, per model.

A setting is one of:

* a number — a thinking budget in tokens (``{"type": "enabled", "budget_tokens": N}``); at least
  1,024, the API's minimum;
* an effort — ``low``, ``medium``, ``high``, ``xhigh`` or ``max``: the model decides when and how
  much to think (``{"type": "adaptive"}``) at that effort (``output_config.effort``);
* ``adaptive`` — adaptive thinking at the model's default effort;
* ``off`` — no thinking, said explicitly (some models think when the request does not say).

or a mapping from model to setting, with ``default`` for the others: a model id
(``claude-opus-5-5``) matches that model, an alias (``opus``, ``sonnet``, ``haiku``) its whole family.
Sub-agents on another model get that model's setting.

A budget counts toward the response's ``max_tokens`` and must stay below it: a request with a
smaller ``max_tokens`` (a compaction's summary) gets the largest budget that fits, and none when
not even the minimum fits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

from bot.agent.pricing import canonical_model
from bot.errors import ConfigError

Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORTS: tuple[str, ...] = get_args(Effort)
#: The API's smallest ``budget_tokens``.
MIN_BUDGET_TOKENS = 1_024
#: The model families an alias key stands for.
FAMILY_ALIASES = ("opus", "sonnet", "haiku")


@dataclass(frozen=True, slots=True)
class Thinking:
    """One model's setting: a budget, an effort, adaptive, or off."""

    mode: Literal["budget", "effort", "adaptive", "off"]
    budget_tokens: int = 0
    effort: Effort | None = None

    def request_params(self, max_tokens: int) -> dict[str, Any]:
        match self.mode:
            case "budget":
                budget = min(self.budget_tokens, max_tokens - 1)
                if budget < MIN_BUDGET_TOKENS:
                    return {}
                return {"thinking": {"type": "enabled", "budget_tokens": budget}}
            case "effort":
                return {"thinking": {"type": "adaptive"}, "output_config": {"effort": self.effort}}
            case "adaptive":
                return {"thinking": {"type": "adaptive"}}
            case "off":
                return {"thinking": {"type": "disabled"}}

    def describe(self) -> str:
        match self.mode:
            case "budget":
                return f"a budget of {self.budget_tokens:,} tokens"
            case "effort":
                return f"adaptive at {self.effort} effort"
            case _:
                return self.mode


@dataclass(frozen=True, slots=True)
class ThinkingPolicy:
    default: Thinking | None = None
    #: Canonical model ids (``claude-opus-5-5``) and family aliases (``opus``) → their setting.
    per_model: Mapping[str, Thinking] = field(default_factory=dict)

    def for_model(self, model: str) -> Thinking | None:
        name = canonical_model(model)
        if name in self.per_model:
            return self.per_model[name]
        for alias in FAMILY_ALIASES:
            if alias in self.per_model and name.startswith(f"claude-{alias}"):
                return self.per_model[alias]
        return self.default

    def request_params(self, model: str, max_tokens: int) -> dict[str, Any]:
        """What a request to ``model`` adds (nothing when this model has no setting)."""
        setting = self.for_model(model)
        return {} if setting is None else setting.request_params(max_tokens)


def parse_thinking(value: object, where: str = "bot.thinking") -> ThinkingPolicy:
    """A ``bot.thinking`` value (or the workflow input, a string). Raises ``ValueError`` with a
    sentence that names ``where`` and says what is accepted."""
    if isinstance(value, Mapping):
        per_model: dict[str, Thinking] = {}
        default: Thinking | None = None
        for key, setting in value.items():
            if not isinstance(key, str) or not key.strip():
                raise ValueError(f"{where}: model names must be non-empty strings")
            parsed = _setting(setting, f"{where}.{key}")
            if key == "default":
                default = parsed
            else:
                per_model[key if key in FAMILY_ALIASES else canonical_model(key)] = parsed
        return ThinkingPolicy(default, per_model)
    return ThinkingPolicy(_setting(value, where))


def _setting(value: object, where: str) -> Thinking:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())  # the workflow input is a string
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{where} must be a token budget, an effort ({', '.join(EFFORTS)}), adaptive or off")
    if isinstance(value, int):
        if value < MIN_BUDGET_TOKENS:
            raise ValueError(f"{where}: a thinking budget is at least {MIN_BUDGET_TOKENS:,} tokens (got {value:,})")
        return Thinking("budget", budget_tokens=value)
    word = value.strip().lower()
    if word in ("off", "adaptive"):
        return Thinking("off" if word == "off" else "adaptive")
    if word in EFFORTS:
        effort: Effort = word  # type: ignore[assignment]
        return Thinking("effort", effort=effort)
    raise ValueError(f"{where}: {value!r} is not a token budget, an effort ({', '.join(EFFORTS)}), adaptive or off")


#: The workflow's ``thinking`` input reaches the bot as this variable; it wins over the policy's.
THINKING_ENV = "BOT_THINKING"


class _Written(Protocol):
    """A policy setting with where it was written (``bot.permissions.schema.Setting``)."""

    @property
    def value(self) -> object: ...

    @property
    def origin(self) -> Any: ...


def thinking_for_run(environ: Mapping[str, str], setting: _Written | None) -> ThinkingPolicy | None:
    """The run's setting: the workflow input, else the policy's ``bot.thinking``, else none. A bad
    value is a :class:`ConfigError` that names the input, or the policy file and line."""
    origin = getattr(setting, "origin", None)
    return thinking_from(
        environ,
        None if setting is None else setting.value,
        path=getattr(origin, "file", None),
        line=getattr(origin, "line", None),
    )


def thinking_from(
    environ: Mapping[str, str], policy_value: object = None, *, path: str | None = None, line: int | None = None
) -> ThinkingPolicy | None:
    """:func:`thinking_for_run` with the policy's value and where it was written given apart."""
    raw = environ.get(THINKING_ENV, "").strip()
    try:
        if raw:
            return parse_thinking(raw, f"the workflow's thinking input ({THINKING_ENV})")
        return None if policy_value is None else parse_thinking(policy_value)
    except ValueError as exc:
        raise ConfigError(str(exc), path=None if raw else path, line=None if raw else line) from None


__all__ = [
    "EFFORTS",
    "MIN_BUDGET_TOKENS",
    "THINKING_ENV",
    "Thinking",
    "ThinkingPolicy",
    "parse_thinking",
    "thinking_for_run",
    "thinking_from",
]
