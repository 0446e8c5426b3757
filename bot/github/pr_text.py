"""What a run writes where people read it: the commit subject, the pull request's title and its
body, which keeps a history of the runs on the branch.

Pure functions of the trigger and the run's results. The body is rendered as every comment is
(redacted, then neutralised) by the caller; text that came from people (a request, an earlier body
someone edited) is only ever shown, never read as instructions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.agent.outcome import AgentOutcome
from bot.github.events import Trigger
from bot.orchestration.adapter import Work
from bot.orchestration.git_records import FileChange
from bot.orchestration.render import FileDiff, defuse_mentions
from bot.orchestration.report import run_summary

#: Opens the earlier runs' part of a body the bot wrote.
HISTORY_MARK = "<!-- bot:history -->"
#: The label of the run a body's top part is from (moved into the history by the next run).
_RUN_MARK = re.compile(r"<!-- bot:run (.*?) -->")
#: GitHub refuses a pull request body over 65,536 characters; the history gives way first (the
#: oldest runs go), the current run's part stays whole.
MAX_BODY_CHARS = 60_000
#: A request shown in a commit subject or a history label.
MAX_REQUEST_CHARS = 72


def commit_subject(title: str, request: str | None, *, follow_up: bool) -> str:
    """The first run on an issue is named after the issue; a follow-up (the branch has a pull
    request already) after what the follow-up asked, when it asked anything in words."""
    asked = " ".join((request or "").split())
    if follow_up and asked:
        return _cut(asked, MAX_REQUEST_CHARS)
    return title


def pr_title(trigger: Trigger, title: str) -> str:
    first = title.strip().splitlines()[0][:200] if title.strip() else "bot changes"
    return f"{first} (#{trigger.issue})" if trigger.issue is not None else first


def run_part(trigger: Trigger, outcome: AgentOutcome | None, files: Sequence[FileChange | FileDiff]) -> str:
    """This run's part of the body: its summary (what was done, when the model wrote none), the
    issue it fixes, who asked."""
    summary = defuse_mentions(run_summary(outcome, files).strip())
    lines = [summary or "_The run did not start any work._", ""]
    if trigger.issue is not None and trigger.pr is None:
        lines.append(f"Fixes #{trigger.issue}")
    if trigger.actor:
        lines.append(f"Requested by @{trigger.actor}.")
    return "\n".join(lines)


def run_label(request: str | None, commit: str, run_url: str | None) -> str:
    """How a run is named in the history: what it was asked, its commit and its workflow run."""
    asked = _cut(" ".join((request or "").replace("<", " ").replace(">", " ").split()), MAX_REQUEST_CHARS)
    where = f" ([workflow run]({run_url}))" if run_url else ""
    return f"Run at `{commit[:12]}`{where}" + (f": {asked}" if asked else "")


def compose_body(part: str, label: str, previous: str | None = None) -> str:
    """The body: this run's part on top, then the earlier runs (newest first), each collapsed."""
    top = f"<!-- bot:run {_safe_comment(label)} -->\n{part.strip()}\n"
    history = _history(previous) if previous else ""
    room = MAX_BODY_CHARS - len(top) - len(HISTORY_MARK) - 2
    if len(history) > room:  # the oldest runs go, whole
        cut = history[: max(0, room)].rfind("</details>")
        history = history[: cut + len("</details>")] if cut >= 0 else ""
    return top + (f"\n{HISTORY_MARK}\n{history}" if history else "")


def _history(previous: str) -> str:
    old_top, marked, old_history = previous.partition(HISTORY_MARK)
    found = _RUN_MARK.search(old_top)
    label = found.group(1) if found else "An earlier run"
    # The issue link and the mention are in the new top already: not repeated (nor re-notified).
    kept = [
        line
        for line in _RUN_MARK.sub("", old_top).strip().splitlines()
        if not line.startswith(("Fixes #", "Requested by @"))
    ]
    text = "\n".join(kept).strip()
    entry = f"<details><summary>{label}</summary>\n\n{text}\n\n</details>\n" if text else ""
    return entry + (old_history.strip() + "\n" if marked and old_history.strip() else "")


def draft_reason(work: Work) -> str:
    """Why the pull request is (or is no longer) a draft, in the words the report uses."""
    failed = [command for command, ok in work.verification if not ok]
    if not work.finished:
        return "the run did not finish"
    if failed:
        return "verification failed (" + ", ".join(f"`{c}`" for c in failed) + ")"
    if work.sensitive_paths:
        return "the run changed files that configure the bot or CI"
    if work.verification:
        return "verification passed (" + ", ".join(f"`{c}`" for c, _ in work.verification) + ")"
    return "the run finished"


def _safe_comment(text: str) -> str:
    return text.replace("--", "—")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


__all__ = [
    "HISTORY_MARK",
    "MAX_BODY_CHARS",
    "commit_subject",
    "compose_body",
    "draft_reason",
    "pr_title",
    "run_label",
    "run_part",
]
