"""Model API retries show in the run's progress: a line on the terminal, a note in the sticky
comment's status while the run waits, and the count afterwards."""

from __future__ import annotations

import io

import anyio

from bot.agent.events import ModelRetrying, TurnFinished, TurnStarted
from bot.agent.usage import ZERO_USAGE
from bot.github.progress import StickyProgress
from bot.local.progress import TerminalProgress

OVERLOADED = "overloaded (HTTP 529): Overloaded [request-id req_011CabcdefghijklmnopqrST]"


def test_the_terminal_shows_each_retry_with_its_reason_and_wait() -> None:
    out = io.StringIO()
    terminal = TerminalProgress(out)

    terminal.sink(TurnStarted(1, "claude-sonnet-5-5"))
    terminal.sink(ModelRetrying(1, 1, OVERLOADED, 2.0))
    terminal.sink(ModelRetrying(2, 3, "server (HTTP 502): an HTML error page", 4.5, agent_id="agent-1"))

    lines = out.getvalue().splitlines()
    assert lines[1] == f"   ↻ the model API failed: {OVERLOADED}; attempt 2 in 2.0s"
    assert (
        lines[2].startswith("   [agent-1] ↻ the model API failed: server (HTTP 502)")
        and "attempt 4 in 4.5s" in lines[2]
    )


def test_the_sticky_comment_says_the_run_is_waiting_for_a_retry_then_counts_them() -> None:
    posted: list[str] = []

    async def main() -> tuple[str, str]:
        progress = StickyProgress(posted.append, min_interval_s=0.0)
        progress.sink(TurnStarted(1, "claude-sonnet-5-5"))
        progress.sink(ModelRetrying(1, 1, OVERLOADED, 2.0))
        waiting = progress.render()
        progress.sink(ModelRetrying(1, 2, OVERLOADED, 4.0))
        progress.sink(TurnFinished(1, "tool_use", ZERO_USAGE, 0.01, 0.01))
        progress.sink(TurnStarted(2, "claude-sonnet-5-5"))
        after = progress.render()
        async with anyio.create_task_group() as tg:
            tg.start_soon(progress.run)
            progress.sink(ModelRetrying(2, 1, OVERLOADED, 8.0))
            await anyio.sleep(0.05)
            await progress.close()
        return waiting, after

    waiting, after = anyio.run(main)

    assert "Working… (turn 1) — the model API failed (overloaded (HTTP 529): Overloaded" in waiting
    assert "attempt 2 in 2 s" in waiting
    assert "Working… (turn 2) — 2 model API retries so far" in after
    assert posted and "attempt 2 in 8 s" in posted[-1]  # a retry alone is worth an edit of the comment
