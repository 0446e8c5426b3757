"""The report: every repository of the plan is a row, whatever became of its leg."""

from __future__ import annotations

import json
from pathlib import Path

from bot.fleet.report import LegRecord, Row, build_rows, gather, render

PLAN = {
    "fleet": "f",
    "matrix": {"include": [{"repository": "o/ran"}, {"repository": "o/crashed"}, {"repository": "o/lost"}]},
    "unreachable": [{"repository": "o/locked", "reason": "archived: it cannot take a push"}],
}


def _outcome(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "conclusion": "success",
        "pr_url": "https://gh/o/ran/pull/7",
        "turns": 3,
        "cost_usd": 0.5,
        "denials": [{}],
        "headline": "Done",
    }
    base.update(fields)
    return base


def test_a_leg_that_ran_crashed_vanished_or_never_started_is_each_a_row() -> None:
    records = [
        LegRecord({"repository": "o/ran", "exit_code": 0}, _outcome()),
        LegRecord({"repository": "o/crashed", "exit_code": 1, "error": "Traceback…\nModuleNotFoundError: x"}, None),
    ]
    assert build_rows(PLAN, records) == [
        Row("o/ran", "success", "https://gh/o/ran/pull/7", 3, 0.5, 1, "Done"),
        Row("o/crashed", "error", note="ModuleNotFoundError: x"),
        Row("o/lost", "no record", note="the leg left no record (cancelled, or its runner was lost)"),
        Row("o/locked", "no access", note="archived: it cannot take a push"),
    ]


def test_without_a_plan_the_records_alone_are_the_rows() -> None:
    rows = build_rows(
        None, [LegRecord({"repository": "o/b"}, _outcome()), LegRecord({"repository": "o/a"}, _outcome())]
    )
    assert [r.repository for r in rows] == ["o/a", "o/b"]


def test_run_output_cannot_break_the_table_or_mention_anyone() -> None:
    rows = [Row("o/x", "failure", note="a | b\n@alice <img src=x> `code`")]
    markdown = render("f", rows)
    line = next(line for line in markdown.splitlines() if line.startswith("- **o/x**"))
    assert "a \\| b @\u200balice &lt;img src=x&gt; 'code'" in line
    assert markdown.count("\n| o/x |") == 1


def test_a_pull_request_link_must_be_a_web_address() -> None:
    markdown = render("f", [Row("o/x", "success", pr_url="javascript:alert(1)")])
    assert "javascript" not in markdown


def test_gather_reads_artifact_folders_and_skips_links_and_strangers(tmp_path: Path) -> None:
    leg = tmp_path / "fleet-leg-0"
    leg.mkdir()
    (leg / "leg.json").write_text(json.dumps({"repository": "o/a", "exit_code": 0}))
    (leg / "outcome.json").write_text(json.dumps(_outcome()))
    (tmp_path / "fleet-leg-1").mkdir()
    (tmp_path / "fleet-leg-1" / "leg.json").write_text("not json")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "leg.json").write_text(json.dumps({"repository": "o/planted"}))
    (tmp_path / "link").symlink_to(outside)
    records = gather(tmp_path)
    assert [r.leg["repository"] for r in records] == ["o/a"]
    assert records[0].outcome is not None
