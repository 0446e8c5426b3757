"""Server states as text (``bot mcp list``) and Markdown (run summaries), from ``describe()`` data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def servers_text(servers: Sequence[dict[str, Any]]) -> str:
    """One line per server, then its bridged tools indented."""
    if not servers:
        return "no MCP servers configured"
    width = max(len(s["name"]) for s in servers)
    lines: list[str] = []
    for s in servers:
        head = f"{s['name']:<{width}}  {s['state']:<9}  {s['transport']:<10}  {s['target']}"
        if s["state"] == "connected":
            head += f"  ({s['connect_ms']:.0f} ms connect, {s['list_tools_ms']:.1f} ms tools/list)"
            if s.get("trusted"):
                head += "  [trusted]"
        lines.append(head)
        if s.get("reason"):
            lines.append(f"  reason: {s['reason']}")
        if s.get("stderr"):
            lines.extend(f"  stderr: {line}" for line in str(s["stderr"]).splitlines()[-5:])
        lines.extend(f"  {name}" for name in s.get("tools", []))
        lines.extend(f"  (skipped {k['tool']}: {k['reason']})" for k in s.get("skipped", []))
    return "\n".join(lines)


def servers_markdown(servers: Sequence[dict[str, Any]]) -> str:
    """A table for a job summary or a comment: server, state, tools or the failure reason."""
    if not servers:
        return ""
    rows = ["| MCP server | state | tools / reason |", "| --- | --- | --- |"]
    for s in servers:
        detail = s.get("reason") or f"{len(s.get('tools', []))} tools"
        rows.append(f"| `{s['name']}` | {s['state']} | {_cell(str(detail))} |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]
