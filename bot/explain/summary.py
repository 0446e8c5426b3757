"""The policy, told to the model before it acts: a compact summary for the system prompt.

In a headless run a denial costs a turn and the model cannot ask, so the system prompt says up
front which tools need no rule, which files it may write, which shell commands the rules approve
(in the rules' own words) and what they never approve, and the network. The text is rendered from
an :class:`~bot.explain.compute.Explanation` (what the engine decides), deterministically — same
policy, same bytes — so it sits in the cached prefix of every request of the run, right after the
static prompt and before the per-run environment (:func:`bot.agent.prompts.build_system_prompt`).

Bound: :data:`MAX_SUMMARY_TOKENS`, counted with the context manager's pessimistic estimate
(:data:`bot.agent.context_window.CHARS_PER_TOKEN`, 3 characters a token). Past it the lists are cut,
saying how many entries were left out: the engine still decides every call, the summary only
spares the model calls it would lose.

The policy cannot change during a run (policy files are read once, before the model starts, and no
hook can rewrite rules); the summary says so, so the model can rely on it for the whole run.
"""

from __future__ import annotations

import math

from bot.agent.context_window import CHARS_PER_TOKEN
from bot.explain.compute import Explanation

#: The summary's size bound in (estimated) tokens: about a page, under 1% of a 200k window.
MAX_SUMMARY_TOKENS = 800
#: Entries listed per line before the line says "and N more".
MAX_LISTED = 40


def estimated_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _listed(items: list[str], limit: int) -> str:
    shown = items[:limit]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def render_summary(e: Explanation, *, limit: int = MAX_LISTED) -> str:
    """The summary at most :data:`MAX_SUMMARY_TOKENS`: lists are shortened until it fits."""
    while True:
        text = _render(e, limit)
        if estimated_tokens(text) <= MAX_SUMMARY_TOKENS or limit <= 1:
            return text
        limit = max(1, limit // 2)


def _render(e: Explanation, limit: int) -> str:
    by = {s: [t.name for t in e.tools if t.standing == s] for s in {t.standing for t in e.tools}}
    lines = [
        "# This run's permission policy",
        "Fixed for the whole run. A call it does not allow is denied, costs a turn, and retrying it "
        "will not help: plan within these rules.",
    ]
    if e.mode == "plan":
        lines.append("- Mode plan: only read-only calls are allowed.")
    free = by.get("no rule needed", [])
    if free:
        lines.append(f"- Need no rule: {', '.join(free)}.")
    reads = by.get("workspace reads", []) + [
        t.name for t in e.tools if t.standing == "allowed" and t.name in ("Read", "Glob", "Grep")
    ]
    if reads:
        lines.append(f"- {', '.join(sorted(set(reads)))}: anywhere in the workspace.")
    # "Edit: docs/**" entries grouped by what they open: "Edit, Write: anywhere in the workspace".
    targets: dict[str, list[str]] = {}
    for entry in e.writable:
        tool, _, target = entry.partition(": ")
        targets.setdefault(target, []).append(tool)
    writes = [f"{', '.join(tools)}: {target}" for target, tools in targets.items()]
    if writes:
        lines.append(f"- File writes: {_listed(writes, limit)}.")
    else:
        lines.append("- File writes: none allowed.")
    if e.protected:
        lines.append(f"- Never written: {', '.join(e.protected)}.")
    if e.denied_paths:
        lines.append(f"- Denied: {_listed([r for r, _ in e.denied_paths], limit)}.")
    bash = next((t for t in e.tools if t.name == "Bash"), None)
    if bash is None:
        lines.append("- Shell commands: the Bash tool is not available.")
    elif bash.standing in ("allowed", "mode"):
        lines.append("- Shell commands: any command (the Bash tool is allowed as a whole).")
    else:
        exact = [f"`{r.literal}`" for r in e.bash_rules if r.kind == "exact"]
        prefix = [f"`{r.literal}`" for r in e.bash_rules if r.kind == "prefix"]
        other = [f"`{r.rule}`" for r in e.bash_rules if r.kind == "wildcard"]
        if not e.bash_rules:
            lines.append("- Shell commands: none allowed (no Bash rule).")
        else:
            lines.append("- Shell commands, only these:")
            if exact:
                lines.append(f"  - exactly: {_listed(exact, limit)}")
            if prefix:
                lines.append(f"  - followed by any arguments: {_listed(prefix, limit)}")
            if other:
                lines.append(f"  - matching: {_listed(other, limit)}")
            lines.append(
                "  - each part of `&&`, `;`, `|` is judged alone; a command run through `sh -c`, `xargs`, "
                "`find -exec` or a runner needs its own rule; an option that runs a command, names a program, "
                "loads configuration or connects elsewhere needs a rule that spells it out; paths outside "
                "the workspace are refused."
            )
        if e.bash_denied:
            lines.append(f"  - never, in any spelling: {_listed([f'`{r}`' for r, _ in e.bash_denied], limit)}")
    if e.sandbox != "off" and bash is not None:
        lines.append(f"- Shell commands run sandboxed (sandbox: {e.sandbox}).")
    fetch = [] if any(n.startswith("WebFetch") for n in e.network) else ["WebFetch: no rule, fetches are denied"]
    lines.append(f"- Network: {'; '.join([*fetch, *e.network])}.")
    mcp = [s["name"] for s in e.mcp_servers if s["allowed"]]
    if mcp:
        lines.append(f"- MCP servers with allowed tools: {', '.join(mcp)}.")
    if e.hooks:
        lines.append("- Hooks may refuse individual calls on top of these rules.")
    return "\n".join(lines)
