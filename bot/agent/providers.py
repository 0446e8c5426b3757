"""Model ids per provider: the Anthropic id a policy or workflow names (``claude-sonnet-5-5``, an
alias resolved to it, a dated ``claude-sonnet-4-5-20250929``) as Amazon Bedrock and Google Vertex
spell it, so the same configuration — the default model included — works on each.

The spellings, from the providers' model tables:

* Vertex: models up to Opus 4.5 carry their snapshot date after ``@`` (``claude-sonnet-4-5@20250929``);
  from Sonnet 4.6 on, Vertex takes the Anthropic id as it is.
* Bedrock: ``anthropic.`` + the id, with a date and version for the older models
  (``anthropic.claude-sonnet-4-5-20250929-v1:0``; Opus 4.6 is ``anthropic.claude-opus-4-6-v1``), and
  the bare id from Sonnet 4.6 on. Requests go to a cross-region inference profile — the id prefixed
  with ``global.``, or with the region's group (``us.``, ``eu.``, ``apac.``) for the models without a
  global profile — because the newer models are not offered on demand in a single region.

An id that is already a provider's (``us.anthropic.…``, ``…@date``, an ARN) is used unchanged: an
operator can always name exactly what their account has.
"""

from __future__ import annotations

import re

#: Snapshot dates of the models whose provider ids carry one (newer models need none).
DATED_MODELS: dict[str, str] = {
    "claude-opus-4-5": "20251101",
    "claude-opus-4-1": "20250805",
    "claude-opus-4": "20250514",
    "claude-sonnet-4-5": "20250929",
    "claude-sonnet-4": "20250514",
    "claude-haiku-4-5": "20251001",
    "claude-3-7-sonnet": "20250219",
    "claude-3-5-haiku": "20241022",
}
#: Bedrock ids that follow neither pattern.
BEDROCK_SPECIAL: dict[str, str] = {"claude-opus-4-6": "anthropic.claude-opus-4-6-v1"}
#: Models Bedrock offers through regional inference profiles only (no ``global.`` profile).
BEDROCK_REGIONAL_ONLY = frozenset({"claude-opus-4-1", "claude-opus-4", "claude-3-7-sonnet", "claude-3-5-haiku"})

_DATE_SUFFIX = re.compile(r"-(\d{8})$")


def is_provider_id(model: str) -> bool:
    """Already spelt for a provider (or an ARN): not ours to rewrite."""
    return model.startswith("arn:") or any(mark in model for mark in (".", "@", ":"))


def bedrock_model_id(model: str, region: str | None = None) -> str:
    """``claude-sonnet-5-5`` → ``global.anthropic.claude-sonnet-5-5``."""
    if is_provider_id(model):
        return model
    name, date = _undated(model)
    date = date or DATED_MODELS.get(name)
    if name in BEDROCK_SPECIAL:
        base = BEDROCK_SPECIAL[name]
    elif date is not None and name in DATED_MODELS:
        base = f"anthropic.{name}-{date}-v1:0"
    else:
        base = f"anthropic.{name}"
    profile = _region_group(region) if name in BEDROCK_REGIONAL_ONLY else "global"
    return f"{profile}.{base}"


def vertex_model_id(model: str) -> str:
    """``claude-sonnet-4-5`` → ``claude-sonnet-4-5@20250929``; ``claude-sonnet-5-5`` unchanged."""
    if is_provider_id(model):
        return model
    name, date = _undated(model)
    date = date or DATED_MODELS.get(name)
    return f"{name}@{date}" if date is not None and name in DATED_MODELS else name


def provider_model_id(provider: str, model: str, region: str | None = None) -> str:
    match provider:
        case "bedrock":
            return bedrock_model_id(model, region)
        case "vertex":
            return vertex_model_id(model)
        case _:
            return model


def _undated(model: str) -> tuple[str, str | None]:
    found = _DATE_SUFFIX.search(model)
    return (model[: found.start()], found.group(1)) if found else (model, None)


def _region_group(region: str | None) -> str:
    """The inference-profile group of an AWS region (``eu-west-1`` → ``eu``)."""
    head = (region or "").split("-", 1)[0]
    return {"eu": "eu", "ap": "apac"}.get(head, "us")


__all__ = ["bedrock_model_id", "is_provider_id", "provider_model_id", "vertex_model_id"]
