"""The sticky comment is throttled and never breaks the run; Actions outputs use GitHub's file format."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import anyio.lowlevel

from bot.agent.events import TodoItemView, TodosChanged, ToolFinished, TurnStarted
from bot.github.outputs import mask, write_outputs, write_step_summary
from bot.github.progress import StickyProgress
from bot.local.progress import TerminalProgress


def finished(i: int) -> ToolFinished:
    return ToolFinished(
        turn=1,
        tool_use_id=f"t{i}",
        tool_name="Read",
        summary=f"f{i}.py",
        is_error=False,
        denied=False,
        denial=None,
        duration_s=0.01,
    )


def test_a_burst_of_events_becomes_one_edit_per_interval() -> None:
    # An interval longer than any test run: the burst after the first edit waits for the final one,
    # however slowly a loaded machine delivers it.
    posted: list[str] = []

    async def main() -> None:
        progress = StickyProgress(posted.append, min_interval_s=3600)
        async with anyio.create_task_group() as tg:
            tg.start_soon(progress.run)
            progress.sink(TurnStarted(turn=1, model="m"))
            progress.sink(finished(0))
            for i in range(1, 50):
                await anyio.lowlevel.checkpoint()
                progress.sink(finished(i))
            await progress.close("done")

    anyio.run(main)
    assert len(posted) == 2  # the first edit at once, then the final one
    assert "f0.py" in posted[0]
    assert posted[-1] == "done"


def test_a_change_during_the_interval_is_posted_when_it_ends() -> None:
    posted: list[str] = []

    async def main() -> None:
        first, todos = anyio.Event(), anyio.Event()

        def post(text: str) -> None:  # in a worker thread, as a real API call is
            posted.append(text)
            anyio.from_thread.run_sync((todos if "Fix it" in text else first).set)

        progress = StickyProgress(post, min_interval_s=0.05)
        async with anyio.create_task_group() as tg:
            tg.start_soon(progress.run)
            progress.sink(TurnStarted(turn=1, model="m"))
            progress.sink(finished(0))
            # Bounded only against a hang: the throttled edit must come, however late.
            with anyio.fail_after(60):
                await first.wait()
                progress.sink(TodosChanged((TodoItemView("Fix it", "in_progress", "Fixing it"),)))
                await todos.wait()
            await progress.close("done")

    anyio.run(main)
    assert len(posted) == 3
    assert "- [ ] **Fix it**" in posted[1]
    assert posted[-1] == "done"


def test_a_failing_comment_edit_does_not_end_the_run() -> None:
    def broken(text: str) -> None:
        raise RuntimeError("502 from GitHub")

    async def main() -> int:
        progress = StickyProgress(broken, min_interval_s=0.0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(progress.run)
            progress.sink(finished(1))
            await anyio.sleep(0.05)
            await progress.close("final")
        return progress.posts

    assert anyio.run(main) == 0


def test_sub_agent_events_do_not_clutter_the_sticky_comment() -> None:
    progress = StickyProgress(lambda text: None)
    event = ToolFinished(
        turn=1,
        tool_use_id="x",
        tool_name="Grep",
        summary="needle",
        is_error=False,
        denied=False,
        denial=None,
        duration_s=0.1,
        agent_id="sub-1",
    )
    progress.sink(event)
    assert "needle" not in progress.render()


def test_terminal_progress_prints_calls_and_denials() -> None:
    out = io.StringIO()
    terminal = TerminalProgress(out)
    terminal.sink(
        ToolFinished(
            turn=1,
            tool_use_id="x",
            tool_name="Bash",
            summary="curl x",
            is_error=True,
            denied=True,
            denial="a deny rule forbids it (rule `Bash(curl *)`)",
            duration_s=0.0,
        )
    )
    assert "Bash curl x … denied" in out.getvalue()
    assert "Bash(curl *)" in out.getvalue()


def test_outputs_and_summary_use_the_actions_files(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    assert write_outputs({"conclusion": "success", "pr_url": "https://x/pr/1"}, env)
    text = (tmp_path / "out").read_text()
    assert "conclusion<<ghadelimiter_" in text
    assert "\nsuccess\n" in text
    assert write_step_summary("# hello", env)
    assert (tmp_path / "summary").read_text() == "# hello\n"
    assert not write_outputs({"a": "b"}, {})


def test_masks_cover_every_line_of_a_secret() -> None:
    out = io.StringIO()
    mask(["sk-ant-abcdef", "line1-secret\nline2-secret", "ab"], out)
    assert out.getvalue().splitlines() == [
        "::add-mask::sk-ant-abcdef",
        "::add-mask::line1-secret",
        "::add-mask::line2-secret",
    ]
