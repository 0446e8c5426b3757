"""From what happened (the agent's outcome, the git diff, the run's facts) to what is reported.

Pure: builds the :class:`~bot.orchestration.render.RunReport` that the comment, the job summary and the
local output are rendered from, and the outcome JSON a local run writes; and picks out the changed
files that configure the bot or CI (:func:`sensitive_changes`), which the comment flags and which
keep the pull request a draft.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import INSTRUCTION_FILES
from bot.orchestration.git import TRUSTED_PATHS
from bot.orchestration.git_records import DiffStats, FileChange
from bot.orchestration.render import CallView, DenialView, FileDiff, Provenance, RunReport, UsageView
from bot.permissions.decision import Deny

_LIMIT_WORDS = {
    "max_turns": "the turn limit",
    "budget": "the budget",
    "wall_time": "the time limit",
    "context_window": "the context window",
}
#: Compactions listed in the comment; the rest are counted.
MAX_COMPACTIONS_SHOWN = 10


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the run layer knows beside the outcome."""

    branch: str | None = None
    pr_url: str | None = None
    commit: str | None = None
    pushed: bool = False
    #: A failure outside the agent (push rejected, setup error...), said plainly.
    error: str | None = None
    #: Policy-listed verification commands and whether they passed.
    verification: tuple[tuple[str, bool], ...] = ()
    notes: tuple[str, ...] = ()
    provenance: Provenance = field(default_factory=Provenance)
    artifact_hint: str | None = None
    cancelled: bool = False
    #: Changed files that configure the bot or CI (:func:`sensitive_changes`): flagged at the top
    #: of the comment; the pull request stays a draft.
    sensitive_paths: tuple[str, ...] = ()


#: Directories whose files change what CI runs, beside the bot's own :data:`TRUSTED_PATHS`.
CI_PATHS = (".github/workflows/", ".github/actions/")


def sensitive_changes(paths: Iterable[str], hook_scripts: Iterable[str] = ()) -> list[str]:
    """The changed ``paths`` (repository-relative, as git prints them; both sides of a rename) that
    configure the bot or CI: the bot's trusted files (policy, ``.claude/``, ``.mcp.json``), the
    instruction files at any depth (``docs/AGENTS.md`` is read too), workflows and local actions,
    and the scripts hooks run (``hook_scripts``). Compared without case: a look-alike is flagged
    rather than missed. In the order given, without repeats."""
    hooks = {_normal_path(h).lower() for h in hook_scripts if h.strip()}
    prefixes = tuple(p.lower() for p in (*TRUSTED_PATHS, *CI_PATHS) if p.endswith("/"))
    exact = {p.lower() for p in TRUSTED_PATHS if not p.endswith("/")}
    names = {n.lower() for n in INSTRUCTION_FILES}
    found: list[str] = []
    for path in paths:
        key = _normal_path(path).lower()
        if not key or path in found:
            continue
        if key in exact or key.startswith(prefixes) or key.rsplit("/", 1)[-1] in names or key in hooks:
            found.append(path)
    return found


def _normal_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def diff_paths(diff: DiffStats | None) -> list[str]:
    """Every path a diff touches, both sides of a rename: what :func:`sensitive_changes` takes."""
    paths: list[str] = []
    for f in diff.files if diff is not None else ():
        paths += [p for p in (f.old_path, f.path) if p and p not in paths]
    return paths


def conclusion(outcome: AgentOutcome | None, facts: RunFacts) -> str:
    """success | partial | failure | needs-input (refusals never reach a report)."""
    if facts.error or outcome is None or outcome.stop.reason == "error":
        return "failure"
    if outcome.stop.reason == "needs_input" and not facts.cancelled:
        return "needs-input"
    if outcome.stop.reason != "completed" or facts.cancelled or any(not ok for _, ok in facts.verification):
        return "partial"
    return "success"


def headline(outcome: AgentOutcome | None, facts: RunFacts) -> str:
    if facts.error:
        return f"The run failed: {facts.error}"
    if outcome is None:
        return "The run did not start"
    stop = outcome.stop
    saved = " Work so far is committed" + (f" on `{facts.branch}`." if facts.branch else ".")
    # A limit before a cancellation: the wall-time deadline stops the run through its abort signal.
    if stop.is_limit:
        return f"Stopped at {_LIMIT_WORDS.get(stop.reason, stop.reason)} ({stop.detail})." + saved
    if facts.cancelled or stop.reason == "aborted":
        return "The run was cancelled." + saved + (f" ({stop.detail})" if stop.detail else "")
    if stop.reason == "error":
        return f"The run ended with an error: {stop.detail}." + saved
    if stop.reason == "needs_input":
        who = f"@{facts.provenance.actor}" if facts.provenance.actor else "the requester"
        return f"Waiting for an answer from {who} (the question is in the thread)." + saved
    failed = [cmd for cmd, ok in facts.verification if not ok]
    if failed:
        return "Done, but verification failed: " + ", ".join(f"`{c}`" for c in failed)
    return "Done"


def build_report(outcome: AgentOutcome | None, diff: DiffStats | None, facts: RunFacts) -> RunReport:
    calls: list[CallView] = []
    denials: list[DenialView] = []
    if outcome is not None:
        for entry in outcome.tool_calls:
            if entry.discarded or entry.agent_id is not None:
                continue
            record = entry.record
            calls.append(CallView(record.tool_name, record.summary, record.is_error, record.denied))
        for entry in outcome.denials:
            denials.append(_denial(entry.record.tool_name, entry.record.summary, entry.record.decision))
    files = tuple(
        FileDiff(f.path, f.status, f.additions, f.deletions, "" if f.binary else f.patch, f.old_path)
        for f in (diff.files if diff is not None else ())
    )
    notes = list(facts.notes)
    for command, ok in facts.verification:
        notes.append(f"Verification `{command}` {'passed' if ok else 'failed'}.")
    return RunReport(
        conclusion=conclusion(outcome, facts),
        headline=headline(outcome, facts),
        summary=run_summary(outcome, files),
        branch=facts.branch if facts.pushed or facts.branch else None,
        pr_url=facts.pr_url,
        commit=facts.commit,
        files=files,
        denials=tuple(denials),
        calls=tuple(calls),
        usage=_usage(outcome),
        provenance=facts.provenance,
        notes=tuple(notes),
        artifact_hint=facts.artifact_hint,
        sensitive_paths=facts.sensitive_paths,
        context=_context_lines(outcome),
    )


def run_summary(outcome: AgentOutcome | None, files: Sequence[FileDiff | FileChange]) -> str:
    """The model's own summary when it finished. Otherwise its last text is a fragment of work in
    progress ("Reading."), so the summary is what was done: its todo list and the changed files."""
    if outcome is None:
        return ""
    if outcome.completed:
        return outcome.final_text
    lines = ["The run stopped before the model wrote its summary. What it did:", ""]
    todos = last_todos(outcome)
    if todos:
        marks = {"completed": "[x]", "in_progress": "[ ]", "pending": "[ ]"}
        for content, status in todos:
            suffix = " (in progress)" if status == "in_progress" else ""
            lines.append(f"- {marks.get(status, '[ ]')} {content}{suffix}")
    else:
        lines.append("- no todo list was kept")
    if files:
        changed = ", ".join(f"`{f.path}` (+{f.additions} −{f.deletions})" for f in files[:MAX_SUMMARY_FILES])
        more = f" and {len(files) - MAX_SUMMARY_FILES} more" if len(files) > MAX_SUMMARY_FILES else ""
        lines += ["", f"Changed: {changed}{more}."]
    else:
        lines += ["", "No files changed."]
    return "\n".join(lines)


#: Files named in a summary written for the model; the diff below lists them all.
MAX_SUMMARY_FILES = 10


def last_todos(outcome: AgentOutcome) -> list[tuple[str, str]]:
    """The main agent's todo list as its last successful ``TodoWrite`` left it: (content, status)."""
    for entry in reversed(outcome.tool_calls):
        record = entry.record
        if record.tool_name != "TodoWrite" or entry.agent_id is not None or record.is_error or entry.discarded:
            continue
        todos = record.input.get("todos") if isinstance(record.input, dict) else None
        if isinstance(todos, list):
            return [
                (str(t.get("content", "")), str(t.get("status", "pending")))
                for t in todos
                if isinstance(t, dict) and t.get("content")
            ]
    return []


def _context_lines(outcome: AgentOutcome | None) -> tuple[str, ...]:
    """A headline for the compactions, then one line each (sub-agents' tagged)."""
    if outcome is None or not outcome.compactions:
        return ()
    saved = sum(c.tokens_saved for c in outcome.compactions)
    summaries = sum(1 for c in outcome.compactions if c.kind == "summary")
    times = len(outcome.compactions)
    head = (
        f"The conversation was shrunk {times} time{'s' if times != 1 else ''} "
        f"to fit the model's context window ({summaries} summary compaction{'s' if summaries != 1 else ''}), "
        f"saving {saved:,} tokens in all."
    )
    lines = [
        (f"sub-agent {c.agent_id}, " if c.agent_id else "") + c.describe()
        for c in outcome.compactions[:MAX_COMPACTIONS_SHOWN]
    ]
    if len(outcome.compactions) > MAX_COMPACTIONS_SHOWN:
        lines.append(f"… {len(outcome.compactions) - MAX_COMPACTIONS_SHOWN} more")
    return (head, *lines)


def _denial(tool: str, summary: str, decision: Any) -> DenialView:
    if not isinstance(decision, Deny):
        return DenialView(tool, summary, "denied")
    rule = decision.rule
    suggestion = decision.suggestions[0] if decision.suggestions else None
    return DenialView(
        tool, summary, decision.reason, rule.text if rule else None, rule.where() if rule else None, suggestion
    )


def _usage(outcome: AgentOutcome | None) -> UsageView:
    if outcome is None:
        return UsageView()
    usage = outcome.usage
    return UsageView(
        turns=len([t for t in outcome.turns if t.agent_id is None and not t.compaction]),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_input_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd=outcome.total_cost_usd or outcome.cost_usd,
        model_retries=outcome.model_retries,
    )


def outcome_data(
    report: RunReport, outcome: AgentOutcome | None, *, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The outcome as JSON-able data (``outcome.json`` of a local run; the action's outputs)."""
    usage = report.usage
    data: dict[str, Any] = {
        "conclusion": report.conclusion,
        "headline": report.headline,
        "stop_reason": outcome.stop.reason if outcome else None,
        "stop_detail": outcome.stop.detail if outcome else None,
        "branch": report.branch,
        "commit": report.commit,
        "pr_url": report.pr_url,
        "files": [
            {"path": f.path, "status": f.status, "additions": f.additions, "deletions": f.deletions}
            for f in report.files
        ],
        "denials": [
            {
                "tool": d.tool,
                "input": d.input_summary,
                "reason": d.reason,
                "rule": d.rule,
                "where": d.where,
                "suggestion": d.suggestion,
            }
            for d in report.denials
        ],
        "turns": usage.turns,
        "model_retries": outcome.model_retries if outcome else 0,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cost_usd": round(usage.cost_usd, 6),
        "sensitive_paths": list(report.sensitive_paths),
        "compactions": [
            {
                "kind": c.kind,
                "turn": c.turn,
                "at_s": round(c.at_s, 1),
                "tokens_before": c.tokens_before,
                "tokens_after": c.tokens_after,
                "tokens_saved": c.tokens_saved,
                "items": c.items,
                "agent_id": c.agent_id,
            }
            for c in (outcome.compactions if outcome else ())
        ],
        "summary": report.summary,
    }
    data.update(extra or {})
    return data


def action_outputs(report: RunReport) -> dict[str, str]:
    """``GITHUB_OUTPUT`` values (strings)."""
    u = report.usage
    return {
        "conclusion": report.conclusion,
        "branch": report.branch or "",
        "pr_url": report.pr_url or "",
        "turns": str(u.turns),
        "input_tokens": str(u.input_tokens),
        "output_tokens": str(u.output_tokens),
        "cache_read_tokens": str(u.cache_read_tokens),
        "cache_write_tokens": str(u.cache_write_tokens),
        "cost_usd": f"{u.cost_usd:.6f}",
    }


def commit_message(
    title: str, outcome: AgentOutcome | None, *, issue: int | None, finished: bool, files: Sequence[str] = ()
) -> str:
    """The commit's message: what was asked, whether it finished, and a link back."""
    first = title.strip().splitlines()[0][:70] if title.strip() else "bot changes"
    lines = [first if finished else f"WIP (checkpoint): {first}", ""]
    if outcome is not None and not finished:
        lines.append(
            f"The run stopped before finishing: {outcome.stop.reason}"
            + (f" ({outcome.stop.detail})" if outcome.stop.detail else "")
            + "."
        )
    if issue is not None:
        lines.append(f"Refs #{issue}")
    return "\n".join(lines).strip() + "\n"
