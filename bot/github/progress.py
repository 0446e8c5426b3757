"""Live progress on GitHub: the sticky comment, throttled (a local run prints lines instead).

The agent loop calls a sink synchronously and the sink must not block, so :class:`StickyProgress`
only records state and wakes a task that edits the comment — at most once per
``min_interval_s`` (a few edits a minute, well inside GitHub's secondary rate limits).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

import anyio

from bot.agent.events import ModelRetrying, RunEvent, TodosChanged, ToolFinished, TurnFinished, TurnStarted
from bot.orchestration.render import CallView, TodoView, render_progress

#: Edits of the sticky comment are at least this far apart (GitHub asks integrators to keep
#: content-creating requests to well under one per second; a checklist needs far less).
DEFAULT_MIN_INTERVAL_S = 15.0
MAX_CALLS_SHOWN = 40


class StickyProgress:
    def __init__(
        self,
        post: Callable[[str], object],
        *,
        run_url: str | None = None,
        secrets: Iterable[str] = (),
        min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
        clock: Callable[[], float] = anyio.current_time,
    ) -> None:
        self._post = post
        self._run_url = run_url
        self._secrets = list(secrets)
        self._min_interval = min_interval_s
        self._clock = clock
        self._todos: tuple[TodoView, ...] = ()
        self._calls: list[CallView] = []
        self._turn = 0
        #: The retry being waited for (what failed, when the next attempt is), and all retries so far.
        self._retrying: ModelRetrying | None = None
        self._retries = 0
        self._dirty = anyio.Event()
        self._closed = False
        self._closing = anyio.Event()
        self.posts = 0

    def sink(self, event: RunEvent) -> None:
        match event:
            case TodosChanged(todos=todos, agent_id=None):
                self._todos = tuple(TodoView(t.content, t.status) for t in todos)
            case ToolFinished(agent_id=None) as done:
                self._calls.append(CallView(done.tool_name, done.summary, done.is_error, done.denied))
                del self._calls[:-MAX_CALLS_SHOWN]
            case TurnStarted(turn=turn, agent_id=None):
                self._turn, self._retrying = turn, None
            case ModelRetrying() as retrying:
                self._retrying = retrying
                self._retries += 1
            case TurnFinished(agent_id=None):
                if self._retrying is None:
                    return
                self._retrying = None
            case _:
                return
        self._dirty.set()

    def render(self, status: str | None = None) -> str:
        status = status or f"Working… (turn {self._turn}){retry_status(self._retrying, self._retries)}"
        return render_progress(
            status, todos=self._todos, calls=self._calls, run_url=self._run_url, secrets=self._secrets
        )

    async def run(self) -> None:
        """Edit the comment when something changed, throttled. Runs until :meth:`close`."""
        last = -self._min_interval
        while not self._closed:
            await self._dirty.wait()
            self._dirty = anyio.Event()
            wait = last + self._min_interval - self._clock()
            if wait > 0:
                with anyio.move_on_after(wait):
                    await self._closing.wait()  # sleep out the interval, but wake for close
            if self._closed:
                return
            last = self._clock()
            await self._safe_post(self.render())

    async def close(self, final: str | None = None) -> None:
        self._closed = True
        self._closing.set()
        self._dirty.set()
        if final is not None:
            await self._safe_post(final)

    async def _safe_post(self, text: str) -> None:
        try:
            await anyio.to_thread.run_sync(self._post, text)
            self.posts += 1
        except Exception as exc:  # progress is best effort: never end the run for it
            print(f"warning: could not update the progress comment: {exc}", file=sys.stderr)


def retry_status(retrying: ModelRetrying | None, retries: int) -> str:
    """The status line's note on model API retries: the one being waited for, or how many there were."""
    if retrying is not None:
        who = f"{retrying.agent_id}: " if retrying.agent_id else ""
        return (
            f" — {who}the model API failed ({retrying.short_reason()}); "
            f"attempt {retrying.attempt + 1} in {retrying.delay_s:.0f} s"
        )
    if retries:
        return f" — {retries} model API {'retry' if retries == 1 else 'retries'} so far"
    return ""
