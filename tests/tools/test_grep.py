"""Grep: rg's search in three output modes, paging by head_limit/offset, mtime order, VCS
directories and .gitignore respected, long lines elided, file names holding newlines kept whole."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.interface.context import ToolUseContext
from bot.tools.grep import (
    DEFAULT_HEAD_LIMIT,
    GrepInput,
    GrepTool,
    HeadLimit,
    apply_head_limit,
    content_line_paths,
)
from tests.tools.helpers import call, call_error, context_for, run_tool

GREP = GrepTool()


def put(path: Path, text: str, mtime: int = 1_700_000_000) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


@pytest.fixture
def repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    put(workspace / ".gitignore", "dist/\n")
    put(workspace / "src" / "app.py", "import os\n\ndef main():\n    return os.getcwd()\n", 1_700_000_100)
    put(workspace / "src" / "util.py", "def helper():\n    pass\n# TODO main\n", 1_700_000_300)
    put(workspace / "web" / "main.ts", "export function main() {}\n", 1_700_000_200)
    put(workspace / "dist" / "bundle.js", "function main(){}\n")
    put(workspace / ".git" / "COMMIT_EDITMSG", "main\n")
    return workspace


@pytest.mark.parametrize(
    ("description", "raw", "expected"),
    [
        (
            "files with matches, newest first",
            {"pattern": "main"},
            "Found 3 files\nsrc/util.py\nweb/main.ts\nsrc/app.py",
        ),
        ("a glob filter", {"pattern": "main", "glob": "*.py"}, "Found 2 files\nsrc/util.py\nsrc/app.py"),
        ("a glob with braces", {"pattern": "main", "glob": "*.{ts,js}"}, "Found 1 file\nweb/main.ts"),
        ("a directory glob", {"pattern": "main", "glob": "src/app.*"}, "Found 1 file\nsrc/app.py"),
        ("an exclusion glob", {"pattern": "main", "glob": "!*.ts"}, "Found 2 files\nsrc/util.py\nsrc/app.py"),
        ("a file type", {"pattern": "main", "type": "ts"}, "Found 1 file\nweb/main.ts"),
        ("a path", {"pattern": "main", "path": "web"}, "Found 1 file\nweb/main.ts"),
        ("case-insensitive", {"pattern": "TODO MAIN", "-i": True}, "Found 1 file\nsrc/util.py"),
        ("no match", {"pattern": "nothing_here"}, "No files found"),
    ],
)
def test_files_with_matches(
    repo: Path, context: ToolUseContext, description: str, raw: dict[str, object], expected: str
) -> None:
    assert call(GREP, context, **raw) == expected


def test_content_mode_shows_numbered_lines_with_paths(repo: Path, context: ToolUseContext) -> None:
    out = call(GREP, context, pattern="def main", output_mode="content")
    assert out == "src/app.py:3:def main():"


def test_content_mode_with_context_lines(repo: Path, context: ToolUseContext) -> None:
    out = call(GREP, context, pattern="def main", output_mode="content", **{"-B": 1, "-A": 1})
    assert out.splitlines() == ["src/app.py-2-", "src/app.py:3:def main():", "src/app.py-4-    return os.getcwd()"]


def test_content_mode_without_line_numbers(repo: Path, context: ToolUseContext) -> None:
    out = call(GREP, context, pattern="def main", output_mode="content", **{"-n": False})
    assert out == "src/app.py:def main():"


def test_a_single_file_can_be_searched(repo: Path, context: ToolUseContext) -> None:
    assert call(GREP, context, pattern="pass", path="src/util.py", output_mode="content") == "src/util.py:2:    pass"


def test_count_mode(repo: Path, context: ToolUseContext) -> None:
    out = call(GREP, context, pattern="main", output_mode="count", glob="*.py")
    assert sorted(out.split("\n\n")[0].splitlines()) == ["src/app.py:1", "src/util.py:1"]
    assert out.endswith("Found 2 total occurrences across 2 files.")


def test_multiline(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "a.py", "class A:\n    pass\n")
    assert call(GREP, context, pattern=r"class A:\s+pass", multiline=True) == "Found 1 file\na.py"
    assert call(GREP, context, pattern=r"class A:\s+pass") == "No files found"


def test_version_control_directories_and_gitignored_files_are_not_searched(repo: Path, context: ToolUseContext) -> None:
    out = call(GREP, context, pattern="main", glob="*")
    assert ".git" not in out and "dist/" not in out


def test_long_lines_are_elided(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "min.js", "var needle=1;" + "x" * 2_000 + "\n")
    out = call(GREP, context, pattern="needle", output_mode="content")
    assert "[Omitted long matching line]" in out and "xxxx" not in out


@pytest.mark.parametrize(
    ("description", "head_limit", "offset", "page", "cut"),
    [
        ("default limit", None, None, list(range(DEFAULT_HEAD_LIMIT)), True),
        ("explicit limit", 5, None, [0, 1, 2, 3, 4], True),
        ("zero is unlimited", 0, None, list(range(300)), False),
        ("offset then limit", 5, 10, [10, 11, 12, 13, 14], True),
        ("offset near the end", 5, 297, [297, 298, 299], False),
        ("offset with unlimited", 0, 290, list(range(290, 300)), False),
    ],
)
def test_apply_head_limit(
    description: str, head_limit: int | None, offset: int | None, page: list[int], cut: bool
) -> None:
    assert apply_head_limit(list(range(300)), HeadLimit.of(head_limit, offset)) == (page, cut)


def test_content_results_are_paged_and_say_how_to_get_more(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "log.txt", "".join(f"hit {i}\n" for i in range(1, 1_001)))
    out = call(GREP, context, pattern="hit", output_mode="content", head_limit=3, offset=10)
    assert out.splitlines()[:3] == ["log.txt:11:hit 11", "log.txt:12:hit 12", "log.txt:13:hit 13"]
    assert "Pass offset=13 for the next page" in out
    everything = call(GREP, context, pattern="hit", output_mode="content", head_limit=0)
    assert everything.count("\n") == 999


def test_files_beyond_the_limit_are_counted(workspace: Path, context: ToolUseContext) -> None:
    for i in range(12):
        put(workspace / f"f{i:02}.txt", "hit\n", 1_700_000_000 + i)
    out = call(GREP, context, pattern="hit", head_limit=2)
    assert out.startswith("Found 12 files\nf11.txt\nf10.txt\n\n[Results limited to 2 entries")


def test_a_bad_regex_is_reported_from_ripgrep(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "a.txt", "x\n")
    assert "regex parse error" in call_error(GREP, context, pattern="(unclosed")


def test_a_pattern_starting_with_a_dash_is_a_pattern(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "a.txt", "--verbose flag\n")
    assert call(GREP, context, pattern="--verbose") == "Found 1 file\na.txt"


def test_huge_output_goes_through_result_persistence(workspace: Path, tmp_path: Path) -> None:
    put(workspace / "big.txt", "".join(f"match line {i} {'x' * 80}\n" for i in range(2_000)))
    ctx = context_for(workspace, tmp_path / "scratch", allow=("Grep",))
    outcome = run_tool(ctx, "Grep", {"pattern": "match", "output_mode": "content", "head_limit": 0})
    text = outcome.result.text
    assert not outcome.result.is_error and text.startswith("<persisted-output>")
    saved = tmp_path / "scratch" / "tool-results" / "toolu_1.txt"
    assert saved.read_text().count("match line") == 2_000


def test_hooks_see_the_parameter_names_the_model_used() -> None:
    inp = GREP.parse_input({"pattern": "x", "-A": 2, "-i": True, "type": "py"})
    assert isinstance(inp, GrepInput) and inp.after == 2 and inp.ignore_case and inp.file_type == "py"
    assert inp.model_dump(exclude_none=True) == {"pattern": "x", "-A": 2, "-i": True, "type": "py"}
    assert {"-A", "-B", "-C", "-n", "-i", "type"} <= set(GREP.input_json_schema()["properties"])


NOTICE = b'x: WARNING: stopped searching binary file after match (found "\\0" byte around offset 5)'


@pytest.mark.parametrize(
    ("description", "pending", "path", "rest", "expected"),
    [
        ("a path cut by one newline", [b"secrets/a"], b"b", b"1:x", [b"secrets/a\nb"]),
        ("a path cut twice", [b"a", b"b"], b"c", b"1:x", [b"a\nb\nc"]),
        ("a path ending in a newline", [b"a"], b"", b"1:x", [b"a\n"]),
        ("a binary notice, then a line: both readings", [NOTICE], b"y.txt", b"1:x", [b"y.txt", NOTICE + b"\ny.txt"]),
        ("a notice after a cut path", [b"a", b"b" + NOTICE[1:]], b"c", b"2:x", [b"c", b"a\nb" + NOTICE[1:] + b"\nc"]),
        ("a notice, then the context separator", [NOTICE], b"", b"--", []),
        ("a cut path, then what looks like the separator: a line", [b"a"], b"", b"--", [b"a\n"]),
    ],
)
def test_content_line_paths_are_every_reading_of_the_lines_without_a_nul(
    description: str, pending: list[bytes], path: bytes, rest: bytes, expected: list[bytes]
) -> None:
    assert content_line_paths(pending, path, rest) == expected


@pytest.fixture
def newline_names(workspace: Path) -> Path:
    put(workspace / "secrets" / "a\nb", "NLSECRET hidden\n")
    put(workspace / "secrets" / "key.txt", "NLSECRET key\n")
    put(workspace / "ok" / "c\nd", "NLSECRET shown\n")
    put(workspace / "b", "nothing\n")
    return workspace


@pytest.mark.parametrize(
    ("description", "mode", "expected"),
    [
        ("content", "content", "ok/c\nd:1:NLSECRET shown"),
        ("count", "count", "ok/c\nd:1\n\nFound 1 total occurrence across 1 file."),
        ("files", "files_with_matches", "Found 1 file\nok/c\nd"),
    ],
)
def test_a_file_name_holding_a_newline_is_one_path_in_every_mode(
    newline_names: Path, tmp_path: Path, description: str, mode: str, expected: str
) -> None:
    ctx = context_for(newline_names, tmp_path / "scratch", allow=("Grep",), deny=("Read(secrets/**)",))
    outcome = run_tool(ctx, "Grep", {"pattern": "NLSECRET", "output_mode": mode})
    assert not outcome.result.is_error
    assert outcome.result.text == expected


def test_a_file_name_crafted_to_look_like_a_binary_notice_does_not_leak(workspace: Path, tmp_path: Path) -> None:
    put(workspace / "secrets" / os.fsdecode(NOTICE + b"\nfoo"), "NLSECRET crafted\n")
    put(workspace / "shown.txt", "NLSECRET shown\n")
    ctx = context_for(workspace, tmp_path / "scratch", allow=("Grep",), deny=("Read(secrets/**)",))
    outcome = run_tool(ctx, "Grep", {"pattern": "NLSECRET", "output_mode": "content"})
    assert outcome.result.text == "shown.txt:1:NLSECRET shown"


def test_rg_binary_notices_are_dropped_and_the_next_line_keeps_its_path(
    workspace: Path, context: ToolUseContext
) -> None:
    # a match, then a NUL past rg's first buffer: rg prints the match, then a notice without a NUL
    (workspace / "big.bin").write_bytes(b"NEEDLE 1\n" + b"x" * 300_000 + b"\n\0\nNEEDLE 2\n")
    put(workspace / "text.txt", "NEEDLE 3\n")
    out = call(GREP, context, pattern="NEEDLE", output_mode="content", head_limit=0)
    assert sorted(out.splitlines()) == ["big.bin:1:NEEDLE 1", "text.txt:1:NEEDLE 3"]
    single = call(GREP, context, pattern="NEEDLE", path="big.bin", output_mode="content")
    assert "binary" not in single


def test_context_groups_are_still_separated(workspace: Path, context: ToolUseContext) -> None:
    put(workspace / "a.txt", "hit\n1\n2\n3\n4\nhit\n")
    out = call(GREP, context, pattern="hit", output_mode="content", **{"-A": 1})
    assert out.splitlines() == ["a.txt:1:hit", "a.txt-2-1", "--", "a.txt:6:hit"]
