"""An :class:`~bot.explain.compute.Explanation` as JSON-able data and as Markdown (a comment, a
job summary, ``policies/README.md``; the terminal gets the same Markdown)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bot.explain.compute import Explanation, ToolStanding

_STANDING_ORDER = ("no rule needed", "workspace reads", "allowed", "mode", "needs a rule", "denied")


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    return asdict(explanation)


def _code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(e: Explanation, *, title: str = "What a run under this policy may do") -> str:
    lines = [f"### {title}", ""]
    lines.append(
        f"Mode `{e.mode}`, sandbox `{e.sandbox}`"
        + (f", model `{e.model}`" if e.model else "")
        + (
            ", limits: " + ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in e.limits.items())
            if e.limits
            else ""
        )
        + "."
    )
    lines += ["", "**Tools**", ""]
    for standing in _STANDING_ORDER:
        group = [t for t in e.tools if t.standing == standing]
        if not group:
            continue
        if standing in ("needs a rule", "denied"):
            lines += [f"- {standing}: {_tool(t)} — {t.why}" for t in group if t.name != "Bash"]
            lines += [f"- {standing}: Bash — see the shell commands below" for t in group if t.name == "Bash"]
        else:
            lines.append(f"- {standing}: " + ", ".join(_tool(t) for t in group))
    if e.removed:
        lines.append("- not offered: " + ", ".join(f"{name} ({why})" for name, why in e.removed))
    deferred = [t.name for t in e.tools if t.deferred]
    if deferred:
        lines.append("- deferred (found through ToolSearch): " + ", ".join(deferred))
    if e.bash_rules or e.bash_denied:
        lines += ["", "**Shell commands**", ""]
        for rule in e.bash_rules:
            lines.append(f"- {_code(rule.rule)}: {rule.approves}")
            for cls in rule.never:
                named = ", ".join(_code(o) for o in cls.options) + (
                    f" and {cls.total - len(cls.options)} more" if cls.total > len(cls.options) else ""
                )
                example = f" — e.g. {_code(cls.example)} is refused" if cls.example else ""
                lines.append(f"  - {'' if cls.name == 'writes' else 'never approves '}{cls.words}: {named}{example}")
        for statement, example in e.bash_separate:
            lines.append(f"- under every rule, {statement} (e.g. {_code(example)} is refused)")
        for denied, where in e.bash_denied:
            lines.append(f"- never, in any spelling: {_code(denied)} ({where})")
    lines += ["", "**Files**", ""]
    lines.append("- writable: " + (", ".join(_code(w) for w in e.writable) if e.writable else "nothing"))
    if e.protected:
        lines.append("- never written: " + ", ".join(_code(p) for p in e.protected))
    if e.directories:
        lines.append("- also reachable: " + ", ".join(_code(d) for d in e.directories))
    if e.denied_paths:
        lines.append("- denied: " + ", ".join(_code(r) for r, _ in e.denied_paths))
    lines += ["", "**Network**", ""]
    lines += [f"- {n}" for n in e.network]
    if e.mcp_servers:
        lines += ["", "**MCP servers**", ""]
        for server in e.mcp_servers:
            allowed = ", ".join(_code(r) for r in server["allowed"]) or "no allow rule: every tool call is denied"
            lines.append(f"- `{server['name']}` ({server['transport']}: {_code(server['target'])}): {allowed}")
            if "tools" in server:
                brought = ", ".join(_code(t) for t in server["tools"]) or "none (it did not start, or lists no tools)"
                lines.append(f"  - tools: {brought}")
    if e.hooks:
        lines += ["", "**Hooks**", ""]
        for hook in e.hooks:
            cond = f" if {_code(hook['if'])}" if hook["if"] else ""
            lines.append(f"- {hook['event']} on {_code(hook['matcher'])}{cond}: {_code(hook['command'])}")
    if e.trigger is not None:
        lines += ["", "**This event**", ""]
        t = e.trigger
        if t["triggered"]:
            lines.append(f"- triggers: {t['reason']}")
            actor = t.get("actor")
            who = f"@{actor} (write access is checked first)" if actor else "the workflow (no actor)"
            lines.append(f"- for: {who}")
            lines.append(f"- work lands on: `{t['branch']}`" if t.get("branch") else "- work lands on: no branch")
        else:
            lines.append(f"- does not trigger: {t['reason']}")
    return "\n".join(lines) + "\n"


def _tool(t: ToolStanding) -> str:
    text = t.name
    if t.rules:
        text += " (" + ", ".join(_code(r) for r in t.rules) + ")"
    return text
