"""Context size per request over a long session, with and without context management, and the
prompt-cache hit share around a compaction.

The session is the 60-turn one of ``tests/cassettes/compaction_scripts.py`` (read a 6 kB module,
bump its version, thirty times), served by the real SDK over an in-process transport that answers
summary requests with a summary and every other request with the next scripted turn. Two runs:

- **managed**: a 20,000-token window (``bot.limits.context_window``), so old results are cleared
  and the conversation compacted;
- **unmanaged**: a window too large to ever be reached, i.e. what the loop did before.

Figures per run: the estimated size of every request (the same estimate the loop uses), and a
simulated prompt cache: a request reads from the cache the longest prefix, up to a breakpoint, that
an earlier request wrote (``bot.agent.cache.cached_prefix``). The cache hit share is cached tokens /
prompt tokens: for the whole run, and for the requests right after each summary compaction (the
first one writes the new prefix, the ones after it should read it); and the input priced the way
the cache bills it (reads at 0.1x, writes at 1.25x the base price).

Run: ``python bench/context_window.py`` (a few seconds).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
import httpx2

from bot.agent.cache import cached_prefix, prompt_units
from bot.agent.context_window import CHARS_PER_TOKEN, estimate_body
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask
from bot.testing.cassettes import script_responses
from tests.agent.conftest import Harness
from tests.cassettes import compaction_scripts as scripts

UNMANAGED_WINDOW = 10_000_000
#: Anthropic's prompt-cache prices relative to base input tokens (5-minute cache writes).
CACHE_READ_PRICE = 0.1
CACHE_WRITE_PRICE = 1.25


class ScriptedApi(httpx2.AsyncBaseTransport):
    """Task turns in order; summary requests get the next summary. Keeps every request body."""

    def __init__(self) -> None:
        task, summaries = scripts.long_session()
        self._task = iter(script_responses(task, seed="bench-task"))
        self._summaries = iter(script_responses(summaries * 4, seed="bench-summary"))
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        self.bodies.append(body)
        source = self._summaries if scripts.purpose_of(json.dumps(body)) == "compaction" else self._task
        response = next(source)
        headers = [(k, v) for k, values in response.headers.items() for v in values if k != "transfer-encoding"]
        return httpx2.Response(response.status, headers=headers, content=response.body)


def cache_shares(bodies: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(prompt tokens, tokens read from the simulated cache) per request."""
    written: list[list[str]] = []
    out: list[tuple[int, int]] = []
    for body in bodies:
        units, _ = prompt_units(body)
        hit = max((len(p) for p in written if units[: len(p)] == p), default=0)
        tokens = [len(u) / CHARS_PER_TOKEN for u in units]
        out.append((int(sum(tokens)), int(sum(tokens[:hit]))))
        prefix = cached_prefix(body)
        if prefix:
            written.append(prefix)
    return out


async def session(window: int) -> tuple[AgentOutcome, list[dict[str, Any]], float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        api = ScriptedApi()
        harness = Harness((root / "ws").resolve(), (root / "scratch").resolve())
        for k in range(scripts.MODULES):
            harness.write(scripts.module_name(k), scripts.module_text(k))
        run = harness.session(allow=["Read", "Edit"], limits=RunLimits(context_window=window), transport=api)
        started = time.perf_counter()
        outcome = await run_agent(AgentTask("Bump VERSION to 2 everywhere.", nonce="c0ffee00"), run)
        elapsed = time.perf_counter() - started
        done = sum(
            "VERSION = 2" in (harness.workspace / scripts.module_name(k)).read_text() for k in range(scripts.MODULES)
        )
        assert done == scripts.MODULES, done
        return outcome, api.bodies, elapsed


def sparkline(values: list[int], top: int) -> str:
    bars = "▁▂▃▄▅▆▇█"
    return "".join(bars[min(len(bars) - 1, int(v / top * len(bars)))] for v in values)


async def main() -> None:
    await session(scripts.WINDOW)  # warm-up: imports, the first SDK client
    runs = {"managed": await session(scripts.WINDOW), "unmanaged": await session(UNMANAGED_WINDOW)}
    top = max(max(estimate_body(b) for b in bodies) for _, bodies, _ in runs.values())
    print(f"== Context size per request, 60-turn session, window {scripts.WINDOW:,} tokens (estimated tokens)")
    for name, (outcome, bodies, elapsed) in runs.items():
        sizes = [estimate_body(b) for b in bodies]
        over = sum(s >= scripts.WINDOW for s in sizes)
        kinds = [c.kind for c in outcome.compactions]
        print(
            f"  {name:>9}: {len(sizes)} requests ({kinds.count('summary')} summaries), stop {outcome.stop.reason}, "
            f"{elapsed:.2f} s | size max {max(sizes):,}, median {statistics.median(sizes):,.0f}, "
            f"last {sizes[-1]:,} | over the window: {over} | sent in all: {sum(sizes):,}"
        )
        print(f"  {'':>9}  {sparkline(sizes, top)}")
        if kinds:
            saved = sum(c.tokens_saved for c in outcome.compactions)
            print(
                f"  {'':>9}  {kinds.count('cleared_tool_results')} clearings, {kinds.count('summary')} compactions, "
                f"{saved:,} tokens saved at the moments they happened"
            )

    print("\n== Prompt-cache hit share (simulated cache: a prefix up to an earlier request's breakpoint)")
    for name, (outcome, bodies, _) in runs.items():
        shares = cache_shares(bodies)
        total, cached = sum(p for p, _ in shares), sum(c for _, c in shares)
        # Input price in base-input-token units: cache reads bill at 0.1x, the rest is written at 1.25x.
        priced = cached * CACHE_READ_PRICE + (total - cached) * CACHE_WRITE_PRICE
        line = (
            f"  {name:>9}: whole run {cached / total:.1%} of {total:,} prompt tokens, input billed as "
            f"{priced:,.0f} base-token units"
        )
        task_index = [i for i, b in enumerate(bodies) if scripts.purpose_of(json.dumps(b)) != "compaction"]
        after: list[float] = []
        first: list[float] = []
        for c in outcome.compactions:
            if c.kind != "summary" or c.turn > len(task_index):
                continue
            i = task_index[c.turn - 1]  # the first request of the new conversation
            first.append(shares[i][1] / shares[i][0])
            after += [shares[j][1] / shares[j][0] for j in task_index[c.turn : c.turn + 3]]
        summary_reqs = [i for i, b in enumerate(bodies) if scripts.purpose_of(json.dumps(b)) == "compaction"]
        if first:
            line += (
                f" | first request after a compaction {statistics.mean(first):.1%}, the next three "
                f"{statistics.mean(after):.1%} | summary requests "
                f"{statistics.mean(shares[i][1] / shares[i][0] for i in summary_reqs):.1%}"
            )
        print(line)


if __name__ == "__main__":
    anyio.run(main)
