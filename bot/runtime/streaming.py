"""The streaming path (seeds 4.5, ``StreamingToolExecutor``): tools start while the model writes.

The agent loop opens one executor per streamed attempt, calls ``add_tool`` at each ``tool_use``
block's ``content_block_stop`` (the call starts at once if the scheduling rule allows), ``finish``
when the stream ends, and ``collect`` for the results in the model's order. Progress events go to
the sink the moment they happen.

The executor *is* the one scheduler (:class:`bot.runtime.scheduler.ToolScheduler`), so the static
path and this one share the rule, the concurrency cap, FIFO results and sibling abort; this name is
the seeds' and the agent loop's view of it.
"""

from __future__ import annotations

from bot.runtime.scheduler import ToolScheduler, TrackedTool, can_execute_tool

StreamingToolExecutor = ToolScheduler

__all__ = ["StreamingToolExecutor", "TrackedTool", "can_execute_tool"]
