"""Live progress of a local run: one line per finished tool call, retry and checklist change."""

from __future__ import annotations

import sys
from typing import TextIO

from bot.agent.events import ModelRetrying, RunEvent, TodosChanged, ToolFinished, TurnStarted


class TerminalProgress:
    """Local runs: one line per finished tool call and per checklist change, on stderr."""

    def __init__(self, out: TextIO | None = None) -> None:
        self._out = out or sys.stderr

    def sink(self, event: RunEvent) -> None:
        match event:
            case TurnStarted(turn=turn, model=model, agent_id=None):
                self._write(f"── turn {turn} ({model})")
            case ToolFinished(agent_id=agent) as done:
                mark = "denied" if done.denied else ("error" if done.is_error else "ok")
                who = f"[{agent}] " if agent else ""
                self._write(f"   {who}{done.tool_name} {done.summary[:100]} … {mark} ({done.duration_s:.2f}s)")
                if done.denial:
                    self._write(f"      ↳ {done.denial[:200]}")
            case ModelRetrying(agent_id=agent) as retrying:
                who = f"[{agent}] " if agent else ""
                self._write(
                    f"   {who}↻ the model API failed: {retrying.short_reason(200)}; "
                    f"attempt {retrying.attempt + 1} in {retrying.delay_s:.1f}s"
                )
            case TodosChanged(todos=todos, agent_id=None):
                for t in todos:
                    box = {"completed": "[x]", "in_progress": "[>]"}.get(t.status, "[ ]")
                    self._write(f"   {box} {t.content}")
            case _:
                pass

    def _write(self, line: str) -> None:
        print(line, file=self._out, flush=True)
