"""Glob: rg's file list, .gitignore honoured, newest first, at most 100, relative paths."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.tools.files.parent_ignores import KEEP
from bot.tools.glob import MAX_GLOB_RESULTS, GlobInput, GlobTool, glob_command, glob_root
from bot.tools.ripgrep import rg_path
from bot.tools.search_filter import SearchFilter
from tests.tools.helpers import call, context_for, run_tool

GLOB = GlobTool()


def touch(path: Path, mtime: int = 1_700_000_000, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


@pytest.fixture
def repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / ".gitignore").write_text("build/\n*.log\n")
    touch(workspace / "src" / "a.py", 1_700_000_300)
    touch(workspace / "src" / "pkg" / "b.py", 1_700_000_200)
    touch(workspace / "tests" / "test_a.py", 1_700_000_100)
    touch(workspace / "build" / "gen.py")
    touch(workspace / "debug.log")
    touch(workspace / ".hidden" / "c.py", 1_700_000_050)
    touch(workspace / ".git" / "hooks" / "x.py")
    return workspace


def names(out: str) -> list[str]:
    return [] if out == "No files found" else out.splitlines()


@pytest.mark.parametrize(
    ("description", "pattern", "path", "expected"),
    [
        (
            "a name pattern finds files at any depth, newest first",
            "*.py",
            None,
            ["src/a.py", "src/pkg/b.py", "tests/test_a.py", ".hidden/c.py"],
        ),
        (
            "a double star prefix is the same",
            "**/*.py",
            None,
            ["src/a.py", "src/pkg/b.py", "tests/test_a.py", ".hidden/c.py"],
        ),
        ("a literal directory prefix narrows the walk", "src/**/*.py", None, ["src/a.py", "src/pkg/b.py"]),
        ("a directory pattern is anchored", "src/*.py", None, ["src/a.py"]),
        ("a pattern with directories after a wildcard", "*/pkg/*.py", None, ["src/pkg/b.py"]),
        ("the path parameter is the root", "*.py", "src", ["src/a.py", "src/pkg/b.py"]),
        ("gitignored files never show, even when named", "*.log", None, []),
        ("gitignored directories never show under a wildcard", "**/gen.py", None, []),
        (
            "a directory named explicitly is searched, as rg searches paths it is given",
            "build/*.py",
            None,
            ["build/gen.py"],
        ),
        ("nothing matches", "*.rs", None, []),
    ],
)
def test_glob_results(
    repo: Path, context: ToolUseContext, description: str, pattern: str, path: str | None, expected: list[str]
) -> None:
    raw = {"pattern": pattern} | ({"path": path} if path else {})
    assert names(call(GLOB, context, **raw)) == expected


def test_the_git_directory_is_never_listed(repo: Path, context: ToolUseContext) -> None:
    assert not any(".git/" in n for n in names(call(GLOB, context, pattern="**/*")))


def test_an_absolute_pattern_inside_the_workspace_gives_relative_paths(repo: Path, context: ToolUseContext) -> None:
    assert names(call(GLOB, context, pattern=f"{repo}/src/*.py")) == ["src/a.py"]


def test_more_than_100_files_are_truncated_newest_first(workspace: Path, context: ToolUseContext) -> None:
    for i in range(130):
        touch(workspace / "many" / f"f{i:03}.txt", 1_700_000_000 + i)
    out = call(GLOB, context, pattern="*.txt")
    lines = out.splitlines()
    assert lines[0] == "many/f129.txt" and lines[MAX_GLOB_RESULTS - 1] == "many/f030.txt"
    assert lines[-1].startswith("(Results are truncated")


def test_a_pattern_prefix_that_names_no_directory_finds_nothing(workspace: Path, context: ToolUseContext) -> None:
    assert call(GLOB, context, pattern="nowhere/*.py") == "No files found"


def test_the_literal_prefix_of_a_pattern_is_what_confinement_checks(workspace: Path, context: ToolUseContext) -> None:
    base, rest = glob_root(GlobInput(pattern="../other/**/*.py"), context)
    assert base == workspace.parent / "other" and rest == "**/*.py"
    ctx = context_for(workspace, workspace.parent / "s", allow=("Glob",))
    outcome = run_tool(ctx, "Glob", {"pattern": "../**/*.py"})
    assert outcome.result.is_error and "outside the workspace" in outcome.result.text


def test_glob_is_concurrency_safe_and_read_only() -> None:
    inp = GlobInput(pattern="*")
    assert GLOB.is_concurrency_safe(inp) and GLOB.is_read_only(inp) and not GLOB.is_destructive(inp)


# Glob against a plain reference: rg's listing, every path filtered and stat'ed, everything sorted.

REFERENCE_DENY = ("Read(secrets/**)", "Read(*.env)")


@pytest.fixture(scope="module")
def mixed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """~1,000 files: many mtime ties, the newest ones ignored by .gitignore or denied by the rules
    above, hidden files, nested directories, and a directory with exactly a page of visible files."""
    root = tmp_path_factory.mktemp("mixed") / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    rng = random.Random(6)
    base = 1_700_000_000
    for i in range(700):
        where = f"src/pkg{i % 7}/sub{i % 5}" if i % 9 else ".hidden"
        ext = (".py", ".txt", ".md", ".env", ".log")[i % 5]
        touch(root / where / f"f{i:03}{ext}", base + rng.choice((0, 10, 20, 30)) + (i % 11))
    for i in range(150):  # newer than everything else, never shown
        touch(root / "secrets" / f"s{i:03}.py", base + 1_000 + i)
        touch(root / "build" / f"b{i:03}.py", base + 2_000 + i)
    for i in range(100):
        touch(root / "edge" / f"e{i:03}.md", base + 500 + i % 3)
    for i in range(30):
        touch(root / "edge" / f"e{i:03}.env", base + 900)
    return root


def reference_glob(context: ToolUseContext, pattern: str, path: str | None) -> tuple[list[str], bool]:
    """rg's listing (it applying every ignore file, those above the root too), every path
    filtered and stat'ed, everything sorted."""
    base, rest = glob_root(GlobInput(pattern=pattern, path=path), context)
    args, prefix, selection = glob_command(base, rest, context, KEEP)  # rg's own handling of everything
    output = subprocess.run([rg_path(), *args], cwd=base, capture_output=True, check=False).stdout
    listed = [name for name in output.split(b"\0") if name]  # the tool asks rg for NUL-separated names
    hidden = SearchFilter(context, "Glob")
    found: list[tuple[int, bytes]] = []
    for raw in listed:
        rel = os.fsdecode(raw)
        if not selection.wants(rel) or hidden.hides(f"{base}/{rel}"):
            continue
        try:
            mtime = os.stat(base / rel).st_mtime_ns
        except OSError:
            mtime = 0
        found.append((-mtime, raw))
    found.sort()
    return [prefix + os.fsdecode(raw) for _, raw in found[:MAX_GLOB_RESULTS]], len(found) > MAX_GLOB_RESULTS


@pytest.mark.parametrize(
    ("description", "pattern", "path", "deny", "truncated"),
    [
        ("everything, the newest files denied or ignored", "**/*", None, REFERENCE_DENY, True),
        ("everything, no deny rules", "**/*", None, (), True),
        ("a name pattern", "*.py", None, REFERENCE_DENY, True),
        ("a pattern with directories after a wildcard", "src/*/sub1/*", None, REFERENCE_DENY, True),
        ("the path parameter as the root", "*.txt", "src", REFERENCE_DENY, True),
        ("exactly a page visible once the newest are denied", "edge/*", None, REFERENCE_DENY, False),
        ("a page and more when nothing is denied", "edge/*", None, (), True),
        ("everything the pattern matches is denied", "**/*.env", None, REFERENCE_DENY, False),
    ],
)
def test_glob_gives_what_a_plain_listing_stat_and_sort_gives(
    mixed_tree: Path,
    tmp_path: Path,
    description: str,
    pattern: str,
    path: str | None,
    deny: tuple[str, ...],
    truncated: bool,
) -> None:
    ctx = context_for(mixed_tree, tmp_path / "scratch", deny=deny)
    expected, expected_truncated = reference_glob(ctx, pattern, path)
    raw = {"pattern": pattern} | ({"path": path} if path else {})

    async def run() -> dict[str, object]:
        return (await GLOB.call(GLOB.parse_input(raw), ctx, Progress("toolu_ref", "Glob"))).data

    data = anyio.run(run)
    assert (data["filenames"], data["truncated"]) == (expected, expected_truncated)
    assert expected_truncated is truncated and (expected or pattern == "**/*.env")


@pytest.mark.parametrize(
    ("description", "raw", "allowed"),
    [
        ("inside the allowed directory", {"pattern": "**/*.py", "path": "src"}, True),
        ("a pattern climbing out of it", {"pattern": "../**", "path": "src"}, False),
        ("a pattern naming a sibling", {"pattern": "../tests/*", "path": "src"}, False),
        ("an absolute pattern elsewhere", {"pattern": "/WS/tests/*.py", "path": "src"}, False),
        ("a literal prefix inside it", {"pattern": "pkg/*.py", "path": "src"}, True),
    ],
)
def test_a_directory_scoped_glob_rule_covers_where_the_search_goes(
    repo: Path, tmp_path: Path, description: str, raw: dict[str, str], allowed: bool
) -> None:
    from bot.permissions.decision import Allow
    from tests.tools.helpers import decide_tool

    raw = {k: v.replace("/WS", str(repo)) for k, v in raw.items()}
    context = context_for(repo, tmp_path / "scratch", allow=["Glob(src/**)"])
    decision = decide_tool(context, "Glob", raw)
    # Allowed *by the rule* (a search inside the workspace is allowed without one anyway).
    assert (isinstance(decision, Allow) and decision.rule is not None) is allowed, description


def test_a_file_name_with_a_newline_is_one_name_and_deny_rules_hide_it(repo: Path, tmp_path: Path) -> None:
    (repo / "secrets").mkdir()
    (repo / "secrets" / "a\nb.py").write_text("x")
    (repo / "src" / "c\nd.py").write_text("x")
    context = context_for(repo, tmp_path / "scratch", deny=["Read(secrets/**)"])
    names = call(GLOB, context, pattern="**/*.py")
    assert "b.py" not in names.split("\n")  # no fragment of the denied name
    assert "src/c\nd.py" in names


# Ignore files above the search root: rg passes over them (--no-ignore-parent) when their rules
# cannot reach under it or ignore names; the files shown are then checked against those names.


@pytest.fixture
def nested_workspace(tmp_path: Path) -> Path:
    """A workspace with no .git of its own inside a repository whose .gitignore has rules for
    elsewhere and rules by name (as bench/search.py's tree sits in pyenv's checkout); 150 files."""
    outer = tmp_path / "outer"
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    (outer / ".gitignore").write_text("/versions\n/other/cache/\n*.un~\n.idea\n")
    for i in range(150):
        touch(outer / "ws" / "pkg" / f"m{i:03}.py", 1_700_000_000 + i * 10)
    return outer / "ws"


def glob_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records the arguments of every rg the Glob tool runs."""
    import bot.tools.glob as glob_module

    runs: list[list[str]] = []
    real = glob_module.stream_rg

    async def recording(args: list[str], *rest: Any, **kwargs: Any) -> Any:
        runs.append(args)
        return await real(args, *rest, **kwargs)

    monkeypatch.setattr(glob_module, "stream_rg", recording)
    return runs


def glob_data(ws: Path, tmp_path: Path, pattern: str, deny: tuple[str, ...] = ()) -> tuple[list[str], bool]:
    ctx = context_for(ws, tmp_path / "scratch", deny=deny)

    async def run() -> dict[str, object]:
        return (await GLOB.call(GLOB.parse_input({"pattern": pattern}), ctx, Progress("toolu_p", "Glob"))).data

    data = anyio.run(run)
    assert (data["filenames"], data["truncated"]) == reference_glob(ctx, pattern, None)
    return data["filenames"], bool(data["truncated"])  # type: ignore[return-value]


def test_rg_skips_the_rules_above_a_workspace_when_no_file_shown_is_one_they_name(
    nested_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(nested_workspace / "old.un~", 1_600_000_000)  # ignored by name, older than the page
    runs = glob_runs(monkeypatch)
    names, truncated = glob_data(nested_workspace, tmp_path, "**/*")
    assert names[0] == "pkg/m149.py" and truncated and "old.un~" not in names
    assert len(runs) == 1 and "--no-ignore-parent" in runs[0]


@pytest.mark.parametrize(
    ("newest", "deny"),
    [
        ("notes.un~", ()),
        (".idea/workspace.xml", ()),
        ("pkg/.idea/x.py", ()),
        ("pkg/.idea/x.py", ("Read(pkg/m149.py)",)),  # the first visible one is hidden by the rules above
    ],
)
def test_a_file_shown_that_a_rule_above_may_hide_makes_rg_list_again_with_those_rules(
    nested_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, newest: str, deny: tuple[str, ...]
) -> None:
    touch(nested_workspace / newest, 1_800_000_000)
    runs = glob_runs(monkeypatch)
    names, truncated = glob_data(nested_workspace, tmp_path, "**/*", deny)
    assert newest not in names and truncated and len(names) == MAX_GLOB_RESULTS
    assert ["--no-ignore-parent" in args for args in runs] == [True, False]


def test_the_file_after_the_page_is_checked_too_it_decides_more_than_a_page(
    nested_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """50 of the 150 files denied: exactly a page visible, and one file more, older, that the
    rules above ignore — listed without them, it would make the page look truncated."""
    for i in range(50):
        (nested_workspace / "pkg" / f"m{i:03}.py").rename(nested_workspace / "pkg" / f"s{i:03}.py")
    touch(nested_workspace / "pkg" / "old.un~", 1_600_000_000)
    runs = glob_runs(monkeypatch)
    names, truncated = glob_data(nested_workspace, tmp_path, "**/*", ("Read(pkg/s*.py)",))
    assert len(names) == MAX_GLOB_RESULTS and not truncated
    assert ["--no-ignore-parent" in args for args in runs] == [True, False]


def test_name_rules_of_the_workspace_itself_keep_rg_applying_them_under_a_literal_prefix(
    repo: Path, context: ToolUseContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``src/**`` walks ``src``, below the workspace's .gitignore (``*.log``): rg applies it."""
    touch(repo / "src" / "new.log", 1_800_000_000)
    runs = glob_runs(monkeypatch)
    assert names(call(GLOB, context, pattern="src/**/*")) == ["src/a.py", "src/pkg/b.py"]
    assert len(runs) == 1 and "--no-ignore-parent" not in runs[0]
    assert "--no-ignore-parent" in glob_command(repo, "**/*", context)[0]  # the workspace's own root
