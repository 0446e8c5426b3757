"""``bot policy show``: the merged policy with the source of every rule and setting."""

from __future__ import annotations

import os
from typing import Any

from bot.permissions.rules import Rule
from bot.permissions.schema import Origin
from bot.permissions.stack import EffectivePolicy

_SETTING_ORDER = (
    "limits.max_turns",
    "limits.max_budget_usd",
    "limits.timeout_minutes",
    "limits.context_window",
    "model",
    "sandbox",
    "verify",
    "scheduled_task",
    "allow_git_dir_writes",
    "allow_workflow_writes",
)


def shown_path(path: str | None) -> str | None:
    """Relative to the current directory when below it (shorter, and what the user typed)."""
    if path is None:
        return None
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _where(origin: Origin) -> str:
    if origin.file is None:
        return origin.source
    file = shown_path(origin.file)
    return f"{origin.source}  {file}:{origin.line}" if origin.line is not None else f"{origin.source}  {file}"


def _rule_where(rule: Rule) -> str:
    return _where(Origin(rule.ref.source, rule.ref.file, rule.ref.line))


def policy_json(policy: EffectivePolicy) -> dict[str, Any]:
    def origin(o: Origin) -> dict[str, Any]:
        return {"source": o.source, "file": shown_path(o.file), "line": o.line}

    def rules(items: tuple[Rule, ...]) -> list[dict[str, Any]]:
        return [
            {"rule": r.text, "source": r.ref.source, "file": shown_path(r.ref.file), "line": r.ref.line} for r in items
        ]

    return {
        "files": [{"source": f.source, "file": shown_path(f.path)} for f in policy.files],
        "mode": {"value": policy.mode.value, **origin(policy.mode.origin)},
        "deny": rules(policy.deny),
        "ask": rules(policy.ask),
        "allow": rules(policy.allow),
        "additional_directories": [{"value": d.value, **origin(d.origin)} for d in policy.additional_directories],
        "settings": {k: {"value": _jsonable(s.value), **origin(s.origin)} for k, s in policy.settings.items()},
        "env": {k: {"value": s.value, **origin(s.origin)} for k, s in policy.env.items()},
        "hooks": [{"events": {e: len(g) for e, g in h.events.items()}, **origin(h.origin)} for h in policy.hooks],
        "hooks_disabled": None if policy.hooks_disabled is None else origin(policy.hooks_disabled.origin),
        "mcp_servers": {k: origin(s.origin) for k, s in policy.mcp_servers.items()},
        "warnings": list(policy.warnings),
    }


def policy_text(policy: EffectivePolicy) -> str:
    out: list[str] = []
    out.append("Policy files (weakest first):")
    if not policy.files:
        out.append("  (none: only command-line rules; everything else is denied)")
    for f in policy.files:
        out.append(f"  {f.source:<13} {shown_path(f.path)}")
    out.append("")
    out.append(f"Mode: {policy.mode.value}  ({_where(policy.mode.origin)})")
    for title, items in (("Deny", policy.deny), ("Ask (headless: denied)", policy.ask), ("Allow", policy.allow)):
        out.append("")
        out.append(f"{title} rules ({len(items)}):")
        width = max((len(r.text) for r in items), default=0)
        for rule in items:
            out.append(f"  {rule.text:<{width}}  {_rule_where(rule)}")
    if policy.additional_directories:
        out.append("")
        out.append("Additional directories:")
        for d in policy.additional_directories:
            out.append(f"  {d.value}  ({_where(d.origin)})")
    settings = [k for k in _SETTING_ORDER if k in policy.settings]
    if settings:
        out.append("")
        out.append("Settings:")
        for key in settings:
            s = policy.settings[key]
            out.append(f"  {key} = {_show_value(s.value)}  ({_where(s.origin)})")
    if policy.env:
        out.append("")
        out.append("Environment let into the shell:")
        for name, s in policy.env.items():
            value = "(passed through)" if s.value is None else repr(s.value)
            out.append(f"  {name} {value}  ({_where(s.origin)})")
    if policy.hooks:
        out.append("")
        disabled = f" — all disabled by {_where(policy.hooks_disabled.origin)}" if policy.hooks_disabled else ""
        out.append(f"Hooks{disabled}:")
        for h in policy.hooks:
            events = ", ".join(f"{e} ×{len(g)}" for e, g in h.events.items())
            out.append(f"  {events}  ({_where(h.origin)})")
    if policy.mcp_servers:
        out.append("")
        out.append("MCP servers:")
        for name, s in policy.mcp_servers.items():
            out.append(f"  {name}  ({_where(s.origin)})")
    if policy.warnings:
        out.append("")
        out.append("Warnings:")
        here = os.getcwd() + os.sep
        out.extend(f"  {w.replace(here, '')}" for w in policy.warnings)
    return "\n".join(out)


def _show_value(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(repr(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
