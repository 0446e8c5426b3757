"""Commit subjects and the pull request's body across runs: a follow-up says what it asked, and
the body keeps every run's summary instead of the last one alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.github.pr_text import HISTORY_MARK, MAX_BODY_CHARS, commit_subject, compose_body, run_label
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from tests.github.conftest import BRANCH, DEMO_CASSETTE, REPO, World


@pytest.mark.parametrize(
    ("description", "request_text", "follow_up", "subject"),
    [
        ("the first run is named after the issue", "fix this", False, "median() is wrong"),
        ("a follow-up is named after its request", "also handle an empty list", True, "also handle an empty list"),
        ("a follow-up that asked nothing in words keeps the title", "", True, "median() is wrong"),
        ("whitespace of the request is folded", "  also\n  this ", True, "also this"),
    ],
)
def test_commit_subject(description: str, request_text: str, follow_up: bool, subject: str) -> None:
    assert commit_subject("median() is wrong", request_text, follow_up=follow_up) == subject


def test_a_long_request_is_cut_in_the_subject() -> None:
    subject = commit_subject("t", "word " * 40, follow_up=True)
    assert len(subject) <= 72 and subject.endswith("…")


def test_each_run_moves_the_previous_one_into_the_history_newest_first() -> None:
    first = compose_body("Fixed median.\n\nFixes #1\nRequested by @alice.", run_label("fix this", "a" * 40, None))
    second = compose_body(
        "Handled empty lists.\n\nFixes #1\nRequested by @alice.", run_label("empty", "b" * 40, None), first
    )
    third = compose_body("Added a test.\n\nFixes #1\nRequested by @bob.", run_label("a test", "c" * 40, None), second)
    top, _, history = third.partition(HISTORY_MARK)
    assert "Added a test." in top and "Fixes #1" in top
    assert history.index("Handled empty lists.") < history.index("Fixed median.")
    assert "<summary>Run at `bbbbbbbbbbbb`: empty</summary>" in history
    assert "<summary>Run at `aaaaaaaaaaaa`: fix this</summary>" in history
    # The issue link and the mention are not repeated in the history.
    assert "Fixes #1" not in history and "@alice" not in history


def test_a_body_someone_wrote_before_the_bot_is_kept_as_an_earlier_run() -> None:
    body = compose_body("Bot's work.", run_label(None, "d" * 40, None), "The maintainer's own notes.")
    assert "<summary>An earlier run</summary>" in body and "The maintainer's own notes." in body


def test_the_history_gives_way_to_stay_under_githubs_limit() -> None:
    body = ""
    for n in range(40):
        body = compose_body(f"run {n} " + "x" * 3_000, run_label(f"r{n}", f"{n:040d}", None), body or None)
    assert len(body) <= MAX_BODY_CHARS
    assert "run 39" in body and body.rstrip().endswith("</details>")
    assert "run 0 " not in body


def test_a_label_cannot_close_the_marker_comment() -> None:
    body = compose_body("x", run_label("--> <img src=x>", "e" * 40, None))
    first_line = body.splitlines()[0]
    assert first_line.count("-->") == 1 and "<img" not in first_line


def _log_subjects(world: World) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(world.origin), "log", "--format=%s", BRANCH], capture_output=True, text=True, check=True
    ).stdout
    return out.splitlines()


def _follow_up_cassette(tmp: Path) -> Path:
    return write_cassette(
        tmp / "follow-up.yaml",
        [
            Turn([ToolCall("Write", {"file_path": "NOTES.md", "content": "median([]) raises ValueError.\n"})]),
            Turn([Text("Documented what median() does with an empty list.")]),
        ],
    )


def test_a_follow_up_commit_says_what_it_asked_and_the_pr_body_keeps_both_runs(world: World) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    (pull,) = world.gh.pulls(REPO)
    first_body = pull.body or ""
    world.comment = world.gh.add_comment(REPO, world.issue, "@bot also document the empty list", user="alice")
    second = world.run(
        "--replay", str(_follow_up_cassette(world.tmp)), event=world.event("@bot also document the empty list")
    )
    assert second.exit_code == 0, second.output
    assert _log_subjects(world)[0] == "also document the empty list"
    assert _log_subjects(world)[-2] == "median() is wrong for an even number of values"
    (pull,) = world.gh.pulls(REPO)
    body = pull.body or ""
    top, _, history = body.partition(HISTORY_MARK)
    assert "Documented what median() does with an empty list." in top
    first_summary = first_body.split("-->", 1)[1].strip().splitlines()[0]
    assert first_summary in history
    assert "also document the empty list" in top.splitlines()[0]  # this run's label
