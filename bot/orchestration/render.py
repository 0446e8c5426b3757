"""The Markdown a run posts: the sticky progress comment, the result comment, the job summary.

Pure functions of a :class:`RunReport` (built from the agent's outcome and the git facts by
:mod:`bot.orchestration.report`). Two rules hold for everything rendered here:

* it fits: a comment stays under GitHub's 65,536-character limit — long diffs are cut per file
  with a note (the full diff goes to the workflow artifact);
* it is safe to post: every text is redacted for secrets before it leaves (:func:`finalize`),
  nothing in it fetches when the page is viewed (:mod:`bot.orchestration.markdown_safety`: an image URL
  is a zero-click channel out), and mentions in text the model wrote are defused so a run cannot
  ping people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.core.redact import redact
from bot.orchestration.markdown_safety import neutralize

#: GitHub rejects issue and PR comments above this many characters.
GITHUB_COMMENT_LIMIT = 65_536
#: Room kept free under the limit for the footer and rounding.
COMMENT_MARGIN = 1_024
#: The job summary may be much longer (1 MiB per step); keep it readable.
JOB_SUMMARY_LIMIT = 500_000
#: Shown per file at least, when diffs must be cut.
MIN_PATCH_CHARS = 400
#: The marker a sticky comment carries, so a re-run finds and updates it.
STICKY_MARKER = "<!-- bot:sticky -->"
RESULT_MARKER = "<!-- bot:result -->"

_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9][A-Za-z0-9-]*)")


@dataclass(frozen=True, slots=True)
class FileDiff:
    path: str
    status: str  # added | modified | deleted | renamed
    additions: int
    deletions: int
    patch: str
    old_path: str | None = None


@dataclass(frozen=True, slots=True)
class DenialView:
    tool: str
    input_summary: str
    reason: str
    rule: str | None = None
    where: str | None = None
    #: A rule a maintainer could add to allow this call.
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class CallView:
    tool: str
    summary: str
    is_error: bool = False
    denied: bool = False


@dataclass(frozen=True, slots=True)
class UsageView:
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    #: Model API attempts that failed and were retried (429, 529, cut streams).
    model_retries: int = 0


@dataclass(frozen=True, slots=True)
class Provenance:
    actor: str | None = None
    permission: str | None = None
    policy_files: tuple[tuple[str, str], ...] = ()  # (path, sha256)
    model: str | None = None
    limits: tuple[tuple[str, str], ...] = ()
    run_url: str | None = None


@dataclass(frozen=True, slots=True)
class TodoView:
    content: str
    status: str  # pending | in_progress | completed


@dataclass(frozen=True, slots=True)
class RunReport:
    #: success (finished, verified) | partial (a limit, a failed verification) | failure | refused
    conclusion: str
    headline: str
    summary: str = ""
    branch: str | None = None
    pr_url: str | None = None
    commit: str | None = None
    files: tuple[FileDiff, ...] = ()
    denials: tuple[DenialView, ...] = ()
    calls: tuple[CallView, ...] = ()
    usage: UsageView = field(default_factory=UsageView)
    provenance: Provenance = field(default_factory=Provenance)
    notes: tuple[str, ...] = ()
    artifact_hint: str | None = None
    #: Changed files that configure the bot or CI (``report.sensitive_changes``).
    sensitive_paths: tuple[str, ...] = ()
    #: When the conversation was shrunk to fit the context window, and what it saved (one line each).
    context: tuple[str, ...] = ()


#: Files listed in the configuration warning; the rest are counted.
MAX_SENSITIVE_SHOWN = 20

_ICONS = {"success": "✅", "partial": "⚠️", "failure": "❌", "refused": "⛔", "needs-input": "❓"}


def defuse_mentions(text: str) -> str:
    """``@user`` → ``@\u200buser`` in text we did not write, so posting it pings nobody."""
    return _MENTION.sub("@\u200b", text)


def finalize(markdown: str, secrets: Iterable[str] = (), *, allowed_hosts: Iterable[str] = ()) -> str:
    """Last step before any Markdown is posted (comments, PR body, job summary): redact secrets
    (values and known shapes), then neutralise every image and element that would fetch from
    outside GitHub and ``allowed_hosts`` (the policy's WebFetch domains) when the page is viewed.
    Markdown only: a file that is not rendered (a transcript) takes :func:`bot.core.redact.redact`."""
    return neutralize(redact(markdown, list(secrets)), allowed_hosts)


def fit(markdown: str, limit: int, secrets: Iterable[str] = (), *, allowed_hosts: Iterable[str] = ()) -> str:
    """:func:`finalize`, then cut to ``limit`` characters. The cut text is finalized again: a cut
    may leave a tag open, and the redaction ran before the cut, so no secret is left half-shown."""
    secrets = list(secrets)
    hosts = tuple(allowed_hosts)
    text = finalize(markdown, secrets, allowed_hosts=hosts)
    cut = limit
    while len(text) > limit and cut > 0:
        text = finalize(text[:cut], secrets, allowed_hosts=hosts)
        cut -= max(len(text) - limit, 1_000)
    return text if len(text) <= limit else ""


def fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def group_calls(calls: Sequence[CallView]) -> list[str]:
    """The run log, consecutive calls of one tool grouped (the seeds' grouped rendering)."""
    lines: list[str] = []
    i = 0
    while i < len(calls):
        j = i
        while j < len(calls) and calls[j].tool == calls[i].tool:
            j += 1
        group = calls[i:j]
        marks = "".join(" ⛔" if c.denied else (" ❌" if c.is_error else "") for c in group)
        if len(group) == 1:
            summary = f" `{_inline(group[0].summary)}`" if group[0].summary else ""
            lines.append(f"- **{group[0].tool}**{summary}{marks}")
        else:
            shown = ", ".join(f"`{_inline(c.summary)}`" for c in group[:5] if c.summary)
            more = f", … (+{len(group) - 5})" if len(group) > 5 else ""
            lines.append(f"- **{group[0].tool}** ×{len(group)}: {shown}{more}{marks}")
        i = j
    return lines


def _inline(text: str, limit: int = 80) -> str:
    text = text.replace("`", "'").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_usage(usage: UsageView) -> str:
    n = usage.model_retries
    retries = f" · {n} model API {'retry' if n == 1 else 'retries'}" if n else ""
    return (
        f"{usage.turns} turns · {usage.input_tokens:,} input / {usage.output_tokens:,} output tokens · "
        f"cache {usage.cache_read_tokens:,} read / {usage.cache_write_tokens:,} written · "
        f"${usage.cost_usd:.4f}{retries}"
    )


def render_provenance(p: Provenance) -> str:
    parts = []
    if p.actor:
        parts.append(f"requested by `{p.actor}`" + (f" ({p.permission})" if p.permission else ""))
    for path, digest in p.policy_files:
        parts.append(f"policy `{path}` sha256:{digest[:12]}")
    if p.model:
        parts.append(f"model `{p.model}`")
    if p.limits:
        parts.append("limits " + ", ".join(f"{k}={v}" for k, v in p.limits))
    if p.run_url:
        parts.append(f"[workflow run]({p.run_url})")
    return " · ".join(parts)


def render_denials(denials: Sequence[DenialView]) -> str:
    if not denials:
        return ""
    rows = ["| tool | call | why | rule that decided | to allow it |", "| --- | --- | --- | --- | --- |"]
    for d in denials[:50]:
        rule = (f"`{_cell(d.rule)}`" + (f" ({_cell(d.where)})" if d.where else "")) if d.rule else "no allow rule"
        hint = f"`{_cell(d.suggestion)}`" if d.suggestion else ""
        rows.append(f"| {d.tool} | `{_cell(d.input_summary, 60)}` | {_cell(d.reason)} | {rule} | {hint} |")
    if len(denials) > 50:
        rows.append(f"| … | {len(denials) - 50} more | | | |")
    return "\n".join(rows)


def _cell(text: str, limit: int = 160) -> str:
    return _inline(text, limit).replace("|", "\\|")


def render_files(files: Sequence[FileDiff], budget: int, artifact_hint: str | None) -> str:
    """Per-file diffs in collapsible sections, cut per file to fit ``budget`` characters."""
    if not files:
        return "_No files changed._"
    header = [
        f"**{len(files)} file{'s' if len(files) != 1 else ''} changed** "
        f"(+{sum(f.additions for f in files)} −{sum(f.deletions for f in files)})",
        "",
    ]
    sections = [_file_section(f, f.patch) for f in files]
    full = "\n".join(header + sections)
    if len(full) <= budget:
        return full
    # Cut: every file keeps its section, and the patch room is shared evenly, smallest first,
    # so small files stay whole and large ones are cut.
    overhead = sum(len(_file_section(f, "")) + 120 for f in files) + len("\n".join(header))
    room = max(budget - overhead, MIN_PATCH_CHARS * len(files))
    order = sorted(range(len(files)), key=lambda i: len(files[i].patch))
    allot: dict[int, int] = {}
    remaining = room
    for rank, i in enumerate(order):
        share = remaining // (len(order) - rank)
        allot[i] = min(len(files[i].patch), max(share, MIN_PATCH_CHARS))
        remaining -= allot[i]
    note = f"full diff in {artifact_hint}" if artifact_hint else "full diff in the branch"
    cut_sections = []
    for i, f in enumerate(files):
        patch = f.patch
        if len(patch) > allot[i]:
            kept = patch[: allot[i]].rsplit("\n", 1)[0]
            dropped = patch.count("\n") - kept.count("\n")
            patch = f"{kept}\n… {dropped} more lines cut ({note})"
        cut_sections.append(_file_section(f, patch))
    text = "\n".join(header + cut_sections)
    if len(text) > budget:  # still too long (hundreds of files): list them without patches
        listing = [f"- `{f.path}` ({f.status}, +{f.additions} −{f.deletions})" for f in files]
        text = "\n".join([*header, *listing, "", f"_Diffs omitted: too many files; {note}._"])
        if len(text) > budget:
            text = text[: budget - 80].rsplit("\n", 1)[0] + f"\n… (list cut; {note})"
    return text


def _file_section(f: FileDiff, patch: str) -> str:
    name = f"{f.old_path} → {f.path}" if f.old_path else f.path
    body = fence(patch, "diff") if patch else "_binary or empty change_"
    return (
        f"<details><summary><code>{_html(name)}</code> ({f.status}, +{f.additions} −{f.deletions})"
        f"</summary>\n\n{body}\n\n</details>"
    )


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_sensitive_warning(paths: Sequence[str]) -> str:
    """The warning the result comment opens with (and a PR body may carry) when the change edits
    files that configure the bot or CI; empty when it does not."""
    if not paths:
        return ""
    shown = ", ".join(f"`{_inline(p, 200)}`" for p in paths[:MAX_SENSITIVE_SHOWN])
    more = f" and {len(paths) - MAX_SENSITIVE_SHOWN} more" if len(paths) > MAX_SENSITIVE_SHOWN else ""
    return (
        "> [!WARNING]\n"
        f"> This change edits files that configure the bot or CI: {shown}{more}. "
        "The pull request is kept a draft; review these files before merging."
    )


def render_result(
    report: RunReport,
    *,
    limit: int = GITHUB_COMMENT_LIMIT,
    secrets: Iterable[str] = (),
    allowed_hosts: Iterable[str] = (),
) -> str:
    """The result comment (and, with a larger limit, the job summary). ``allowed_hosts``: image
    hosts beside GitHub's that may stay (the policy's WebFetch domains)."""
    icon = _ICONS.get(report.conclusion, "ℹ️")
    top = [RESULT_MARKER]
    if report.sensitive_paths:
        top += [render_sensitive_warning(report.sensitive_paths), ""]
    top += [f"### {icon} {report.headline}", ""]
    links = []
    if report.pr_url:
        links.append(f"Pull request: {report.pr_url}")
    if report.branch:
        links.append(f"Branch: `{report.branch}`" + (f" at `{report.commit[:12]}`" if report.commit else ""))
    if links:
        top += [" · ".join(links), ""]
    if report.summary.strip():
        top += ["#### Summary", "", defuse_mentions(report.summary.strip()), ""]
    for note in report.notes:
        top += [f"> [!NOTE]\n> {note}", ""]
    tail: list[str] = []
    if report.denials:
        tail += [
            "#### Denied tool calls",
            "",
            "These calls were refused by the policy. Nothing asked a human: add the rule shown to allow one.",
            "",
            render_denials(report.denials),
            "",
        ]
    if report.calls:
        log = group_calls(report.calls)
        shown = log[:60] + ([f"- … {len(log) - 60} more"] if len(log) > 60 else [])
        tail += ["<details><summary>Run log</summary>", "", *shown, "", "</details>", ""]
    if report.context:
        tail += ["#### Context window", "", report.context[0], "", *(f"- {line}" for line in report.context[1:]), ""]
    tail += ["---", f"<sub>{render_usage(report.usage)}<br>{render_provenance(report.provenance)}</sub>"]
    head_text = "\n".join(top)
    tail_text = "\n".join(tail)
    budget = limit - COMMENT_MARGIN - len(head_text) - len(tail_text) - 40
    if budget < 2_000:  # an enormous summary: cut it, the diff matters more
        cut = max(0, len(head_text) + budget - 2_000)
        head_text = head_text[:cut] + "\n… (summary cut)\n"
        budget = limit - COMMENT_MARGIN - len(head_text) - len(tail_text) - 40
    files = render_files(report.files, budget, report.artifact_hint)
    text = "\n".join([head_text, "#### Changes", "", files, "", tail_text])
    return fit(text, limit, secrets, allowed_hosts=allowed_hosts)


def render_progress(
    status: str,
    *,
    todos: Sequence[TodoView] = (),
    calls: Sequence[CallView] = (),
    run_url: str | None = None,
    secrets: Iterable[str] = (),
    allowed_hosts: Iterable[str] = (),
) -> str:
    """The sticky comment while the run goes: status, the todo checklist, the latest calls."""
    lines = [STICKY_MARKER, f"**{status}**"]
    if run_url:
        lines.append(f"[workflow run]({run_url})")
    if todos:
        lines.append("")
        for todo in todos:
            box = "x" if todo.status == "completed" else " "
            text = defuse_mentions(_inline(todo.content, 200))
            lines.append(f"- [{box}] {'**' + text + '**' if todo.status == 'in_progress' else text}")
    if calls:
        lines += ["", "<details><summary>Latest tool calls</summary>", "", *group_calls(calls)[-15:], "", "</details>"]
    return fit("\n".join(lines), GITHUB_COMMENT_LIMIT, secrets, allowed_hosts=allowed_hosts)
