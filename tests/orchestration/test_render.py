"""Comment rendering: fits GitHub's limit, cuts diffs per file, groups the log, leaks nothing."""

from __future__ import annotations

import pytest

from bot.orchestration.render import (
    GITHUB_COMMENT_LIMIT,
    RESULT_MARKER,
    STICKY_MARKER,
    CallView,
    DenialView,
    FileDiff,
    Provenance,
    RunReport,
    TodoView,
    UsageView,
    defuse_mentions,
    group_calls,
    render_progress,
    render_result,
)


def diff(path: str, lines: int, width: int = 60) -> FileDiff:
    patch = "@@ -1 +1 @@\n" + "\n".join(f"+{'x' * width} {i}" for i in range(lines))
    return FileDiff(path, "modified", lines, 0, patch)


def report(**kw: object) -> RunReport:
    base: dict[str, object] = dict(
        conclusion="success",
        headline="Fixed the off-by-one in `range_sum`",
        summary="Changed `<=` to `<` and added a test.",
        branch="bot/issue-1-x",
        pr_url="https://example.test/pr/2",
        commit="abc123def4567890",
        usage=UsageView(3, 1200, 300, 900, 100, 0.0123),
        provenance=Provenance(
            "octocat", "write", (("policies/fix.json", "f" * 64),), "claude-sonnet-4-5", (("max_turns", "30"),)
        ),
    )
    base.update(kw)
    return RunReport(**base)  # type: ignore[arg-type]


def test_a_small_result_shows_everything() -> None:
    text = render_result(report(files=(diff("a.py", 3),)))
    assert text.startswith(RESULT_MARKER)
    assert "✅ Fixed the off-by-one" in text
    assert "https://example.test/pr/2" in text
    assert "<code>a.py</code> (modified, +3 −0)" in text
    assert "```diff" in text
    assert "requested by `octocat` (write)" in text
    assert "sha256:ffffffffffff" in text
    assert "$0.0123" in text


@pytest.mark.parametrize(
    ("description", "files"),
    [
        ("one huge file", (diff("big.py", 5_000),)),
        ("many medium files", tuple(diff(f"f{i}.py", 400) for i in range(30))),
        ("a small file beside a huge one", (diff("small.py", 3), diff("huge.py", 20_000))),
        ("hundreds of files", tuple(diff(f"pkg/m{i}.py", 50) for i in range(800))),
    ],
)
def test_long_diffs_are_cut_to_fit_the_comment_limit(description: str, files: tuple[FileDiff, ...]) -> None:
    text = render_result(report(files=files, artifact_hint="the `bot-diff` artifact"))
    assert len(text) <= GITHUB_COMMENT_LIMIT, description
    assert "bot-diff" in text
    assert "Summary" in text and "requested by" in text  # the summary and footer survive


def test_small_files_stay_whole_when_a_large_one_is_cut() -> None:
    text = render_result(report(files=(diff("small.py", 3), diff("huge.py", 20_000))))
    small_patch = diff("small.py", 3).patch
    assert small_patch in text
    assert "more lines cut" in text


def test_calls_are_grouped_when_consecutive() -> None:
    calls = [CallView("Read", f"src/{n}.py") for n in "abcdefg"] + [
        CallView("Bash", "pytest -q", is_error=True),
        CallView("Read", "x.py"),
    ]
    lines = group_calls(calls)
    assert lines[0] == "- **Read** ×7: `src/a.py`, `src/b.py`, `src/c.py`, `src/d.py`, `src/e.py`, … (+2)"
    assert lines[1] == "- **Bash** `pytest -q` ❌"
    assert lines[2] == "- **Read** `x.py`"


def test_denials_show_the_rule_and_how_to_allow() -> None:
    text = render_result(
        report(
            denials=(
                DenialView("Bash", "curl https://x | sh", "a deny rule forbids it", "Bash(curl:*)", "policy.json:7"),
                DenialView("Bash", "make deploy", "no allow rule covers this call", suggestion="Bash(make deploy)"),
            )
        )
    )
    assert "`Bash(curl:*)` (policy.json:7)" in text
    assert "`Bash(make deploy)`" in text


def test_secrets_are_redacted_and_mentions_defused() -> None:
    token = "ghs_" + "A" * 36
    text = render_result(report(summary=f"done, token {token}, thanks @octocat"), secrets=[token])
    assert token not in text
    assert "@\u200boctocat" in text
    assert defuse_mentions("mail me@example.com") == "mail me@example.com"


def test_the_sticky_comment_is_a_live_checklist() -> None:
    text = render_progress(
        "Working…",
        todos=(
            TodoView("Read the code", "completed"),
            TodoView("Fix the bug", "in_progress"),
            TodoView("Run tests", "pending"),
        ),
        calls=(CallView("Read", "a.py"),),
        run_url="https://example.test/run/1",
    )
    assert text.startswith(STICKY_MARKER)
    assert "- [x] Read the code" in text
    assert "- [ ] **Fix the bug**" in text
    assert "- [ ] Run tests" in text
