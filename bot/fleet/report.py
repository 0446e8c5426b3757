"""The fleet's report: one row per repository, from the legs' records and the plan.

Every repository the plan named is a row: a leg that ran (its ``outcome.json``: conclusion, pull
request, turns, cost, denials), a leg that failed before it had an outcome (its ``leg.json``: the
error), a leg that left no record at all (cancelled, runner lost), and a repository the plan found
unreachable (the reason). :func:`gather` reads the files, :func:`build_rows` and :func:`render`
are pure, :func:`publish` keeps the fleet's one tracking issue: created once (found again by its
label), its body replaced by the latest report, a comment per run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bot.fleet.leg import LEG_FILE
from bot.github.fleet_api import IssueRef

#: ``outcome.json`` and ``leg.json`` are small; a larger file there is not one of ours.
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: Leg folders are one or two levels down (``DIR/<artifact>/leg.json``); deeper is not ours.
MAX_DEPTH = 3
#: How much of a failed leg's error a table note shows.
MAX_NOTE_CHARS = 300
#: A tracking issue's body must stay under GitHub's 65,536 characters.
MAX_BODY_CHARS = 60_000

ICONS = {
    "success": "✅",
    "partial": "🟡",
    "failure": "❌",
    "error": "❌",
    "refused": "⛔",
    "skipped": "⏭️",
    "no access": "🔒",
    "no record": "❔",
}


@dataclass(frozen=True, slots=True)
class Row:
    repository: str
    conclusion: str
    pr_url: str | None = None
    turns: int | None = None
    cost_usd: float | None = None
    denials: int | None = None
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "repository": self.repository,
            "conclusion": self.conclusion,
            "pr_url": self.pr_url,
            "turns": self.turns,
            "cost_usd": self.cost_usd,
            "denials": self.denials,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class LegRecord:
    """What one leg's folder holds: its ``leg.json`` and, when the run got that far, ``outcome.json``."""

    leg: Mapping[str, Any]
    outcome: Mapping[str, Any] | None


def _read_json(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def gather(root: Path) -> list[LegRecord]:
    """Every leg record under ``root`` (downloaded artifacts), links not followed."""
    records: list[LegRecord] = []
    for path in sorted(_leg_files(root, MAX_DEPTH)):
        leg = _read_json(path)
        if not isinstance(leg, dict) or not isinstance(leg.get("repository"), str):
            continue
        outcome = _read_json(path.parent / "outcome.json")
        records.append(LegRecord(leg, outcome if isinstance(outcome, dict) else None))
    return records


def _leg_files(folder: Path, depth: int) -> Iterable[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            continue
        if entry.name == LEG_FILE and entry.is_file():
            yield entry
        elif depth > 0 and entry.is_dir():
            yield from _leg_files(entry, depth - 1)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def last_line(text: str) -> str:
    """A failed run's stderr ends with what went wrong (``error: …``, a traceback's exception)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def leg_row(record: LegRecord) -> Row:
    leg, outcome = record.leg, record.outcome
    repository = str(leg["repository"])
    error = last_line(str(leg.get("error") or ""))
    if outcome is None:
        outputs = leg.get("outputs") if isinstance(leg.get("outputs"), dict) else {}
        conclusion = str(outputs.get("conclusion") or "") if outputs else ""
        if conclusion in ("refused", "skipped"):
            return Row(repository, conclusion, note=error or "the run did not start")
        return Row(repository, "error", note=error or "the run left no outcome")
    conclusion = str(outcome.get("conclusion") or "error")
    denials = outcome.get("denials")
    cost = outcome.get("cost_usd")
    note = str(outcome.get("headline") or "")
    if conclusion == "failure" and error and not note:
        note = error
    return Row(
        repository,
        conclusion,
        pr_url=outcome.get("pr_url") if isinstance(outcome.get("pr_url"), str) else None,
        turns=_int(outcome.get("turns")),
        cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        denials=len(denials) if isinstance(denials, list) else None,
        note=note,
    )


def build_rows(plan: Mapping[str, Any] | None, records: Iterable[LegRecord]) -> list[Row]:
    """Pure: a row per leg record, plus the plan's legs that left none and its unreachable ones,
    in the plan's order (records the plan does not name follow, sorted)."""
    by_repo: dict[str, Row] = {}
    for record in records:
        row = leg_row(record)
        by_repo[row.repository.lower()] = row
    rows: list[Row] = []
    if plan is not None:
        matrix = plan.get("matrix") if isinstance(plan.get("matrix"), Mapping) else {}
        include = matrix.get("include") if isinstance(matrix, Mapping) else None
        for entry in include if isinstance(include, list) else []:
            name = str(entry.get("repository")) if isinstance(entry, Mapping) else ""
            if not name:
                continue
            found = by_repo.pop(name.lower(), None)
            rows.append(
                found or Row(name, "no record", note="the leg left no record (cancelled, or its runner was lost)")
            )
        unreachable = plan.get("unreachable")
        for entry in unreachable if isinstance(unreachable, list) else []:
            if isinstance(entry, Mapping) and isinstance(entry.get("repository"), str):
                by_repo.pop(entry["repository"].lower(), None)
                rows.append(Row(entry["repository"], "no access", note=str(entry.get("reason") or "")))
    rows.extend(sorted(by_repo.values(), key=lambda r: r.repository.lower()))
    return rows


def _cell(text: str) -> str:
    """Table-cell text: one line, no column breaks, no mentions or markup from run output."""
    flat = " ".join(text.split())
    for char, escaped in (("\\", "\\\\"), ("|", "\\|"), ("`", "'"), ("<", "&lt;"), (">", "&gt;"), ("@", "@\u200b")):
        flat = flat.replace(char, escaped)
    return flat if len(flat) <= MAX_NOTE_CHARS else flat[: MAX_NOTE_CHARS - 1] + "…"


def _pr(url: str | None) -> str:
    if not url or not url.startswith(("https://", "http://")):
        return "—"
    number = url.rstrip("/").rsplit("/", 1)[-1]
    label = f"#{number}" if number.isdigit() else "pull request"
    return f"[{label}]({url.replace(')', '%29').replace(' ', '%20')})"


def counts(rows: Iterable[Row]) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in rows:
        out[row.conclusion] = out.get(row.conclusion, 0) + 1
    return out


def render(fleet: str, rows: list[Row], *, run_url: str | None = None) -> str:
    """The report as Markdown: a headline with the counts, the table, then why for each row that did not succeed."""
    tally = ", ".join(f"{n} {c}" for c, n in sorted(counts(rows).items(), key=lambda kv: -kv[1]))
    cost = sum(r.cost_usd or 0.0 for r in rows)
    turns = sum(r.turns or 0 for r in rows)
    lines = [
        f"## Fleet `{_cell(fleet)}`" + (f" — [run]({run_url})" if run_url else ""),
        "",
        f"{len(rows)} repositor{'y' if len(rows) == 1 else 'ies'}: {tally or 'none'}. "
        f"{turns} turns, ${cost:.4f} in all.",
        "",
        "| repository | conclusion | pull request | turns | cost | denials |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {_cell(r.repository)} | {ICONS.get(r.conclusion, '')} {_cell(r.conclusion)} | {_pr(r.pr_url)} | "
            f"{'—' if r.turns is None else r.turns} | {'—' if r.cost_usd is None else f'${r.cost_usd:.4f}'} | "
            f"{'—' if r.denials is None else r.denials} |"
        )
    # What went well needs no note; what did not says why.
    notes = [f"- **{_cell(r.repository)}**: {_cell(r.note)}" for r in rows if r.note and r.conclusion != "success"]
    if notes:
        lines += ["", *notes]
    text = "\n".join(lines) + "\n"
    return text if len(text) <= MAX_BODY_CHARS else text[: MAX_BODY_CHARS - 40] + "\n\n… (cut: see the job summary)\n"


class TrackingApi(Protocol):
    def find_issue(self, repository: str, label: str) -> IssueRef | None: ...

    def create_issue(self, repository: str, *, title: str, body: str, label: str) -> IssueRef: ...

    def update_issue(self, repository: str, number: int, *, body: str) -> IssueRef: ...

    def comment(self, repository: str, number: int, body: str) -> str: ...


def tracking_label(fleet: str) -> str:
    """The label that finds the fleet's issue again (GitHub labels hold up to 50 characters)."""
    return f"bot-fleet:{fleet}"[:50]


def publish(api: TrackingApi, home: str, fleet: str, report: str) -> IssueRef:
    """The tracking issue: found by its label or created once; its body is the latest report; each
    run adds the report as a comment, so the issue's history is the fleet's history."""
    label = tracking_label(fleet)
    body = f"Results of the fleet `{fleet}`, updated by every run (each run's report is a comment below).\n\n{report}"
    issue = api.find_issue(home, label)
    if issue is None:
        issue = api.create_issue(home, title=f"Fleet {fleet}: results", body=body, label=label)
    else:
        issue = api.update_issue(home, issue.number, body=body)
    api.comment(home, issue.number, report)
    return issue
