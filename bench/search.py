"""Search and edit speed (issue: file, search and fetch tools).

1. Grep end to end (``GrepTool.call``: rg started, output streamed, parsed, sorted, paged) vs the
   raw ``rg`` command with the very same arguments, run in the same directory. Target ≤ 1.15×.
2. Glob end to end (``GlobTool.call``: ``rg --files``, mtime of every match, newest 100) vs
   ``rg --files --sortr=modified -g PATTERN`` (rg doing the same job: every match, newest first).
   Target ≤ 1.1× (issue 17). Also shown: plain ``rg --files -g PATTERN`` (no ordering) and the rg
   command the tool runs, alone (what the stat and the rest add); one case with two ``Read`` deny
   rules (Glob leaves out what they cover).
3. Edit of one line in a 10 MB file (staleness check, replacement, atomic write, read-state
   update, diff): the time, next to a bare read-replace-write of the same file.

The tree is the installed Python's standard library (≈ 50,000 files, real code) or, with
``--generate N``, a generated tree of N files under /tmp. Each figure is the median of ``--runs``
runs in this one process, tool and baseline interleaved so that machine noise hits both alike.

    python bench/search.py [--tree stdlib|generated] [--generate 60000] [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
from _common import report

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress
from bot.runtime.single_call import flag_permission_context
from bot.tools.edit import EditTool
from bot.tools.files.globs import select_files, split_globs
from bot.tools.glob import GlobInput, GlobTool, glob_command, glob_root
from bot.tools.grep import GrepInput, GrepTool, grep_command
from bot.tools.read import ReadTool
from bot.tools.ripgrep import rg_path

GREP_CASES: list[tuple[str, dict[str, Any]]] = [
    ("files_with_matches, few files", {"pattern": "def main\\("}),
    ("files_with_matches, many files (mtime sort)", {"pattern": "import"}),
    ("files_with_matches, glob + -i", {"pattern": "class .*error", "glob": "*.py", "-i": True}),
    ("count", {"pattern": "self", "output_mode": "count", "type": "py"}),
    ("content, default page of 250", {"pattern": "import os", "output_mode": "content"}),
    ("content, everything (head_limit 0)", {"pattern": "raise ValueError", "output_mode": "content", "head_limit": 0}),
]
GLOB_CASES = ["*.txt", "**/test_*.py", "**/*.py", "**/*"]
#: Deny rules a policy typically has: Glob leaves out what they cover (seeds 8.4.1).
GLOB_DENY = ("Read(.env)", "Read(**/secrets/**)")


def generate_tree(root: Path, count: int) -> Path:
    """``count`` small files in nested directories (reused when already there)."""
    marker = root / f".generated-{count}"
    if marker.exists():
        return root
    rng = random.Random(1)
    words = ["alpha", "beta", "gamma", "delta", "import os", "def main():", "raise ValueError", "self.x = 1"]
    for i in range(count):
        d = root / f"d{i % 40:02}" / f"s{(i // 40) % 50:02}"
        if i % 1000 == 0 or not d.exists():
            d.mkdir(parents=True, exist_ok=True)
        ext = (".py", ".txt", ".md", ".json")[i % 4]
        prefix = "test_" if i % 97 == 0 else "f"
        lines = "\n".join(rng.choice(words) + f" {i} {j}" for j in range(20))
        (d / f"{prefix}{i}{ext}").write_text(lines + "\n")
    marker.write_text("")
    return root


def rg_baseline(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([rg_path(), *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    return time.perf_counter() - started


async def timed(fn: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await fn()
    return time.perf_counter() - started


async def compare(
    name: str,
    runs: int,
    tool_fn: Callable[[], Awaitable[Any]],
    args: list[str],
    cwd: Path,
    target: str,
    extras: Sequence[tuple[str, list[str]]] = (),
) -> float:
    """Median of ``runs`` of each, interleaved A B B A so drift and noise hit both alike. ``extras``
    are other rg commands shown next to the baseline (not part of the ratio to the target)."""
    await tool_fn()  # warm: page cache, imports
    rg_baseline(args, cwd)
    tool_times: list[float] = []
    rg_times: list[float] = []
    extra_times: list[list[float]] = [[] for _ in extras]
    for k in range(runs):
        if k % 2:
            tool_times.append(await timed(tool_fn))
            rg_times.append(rg_baseline(args, cwd))
        else:
            rg_times.append(rg_baseline(args, cwd))
            tool_times.append(await timed(tool_fn))
        for (_, extra_args), times in zip(extras, extra_times, strict=True):
            times.append(rg_baseline(extra_args, cwd))
    base, ours = statistics.median(rg_times) * 1000, statistics.median(tool_times) * 1000
    report(f"  rg        {name}", base, "ms")
    report(f"  tool      {name}", ours, "ms", baseline=base, target=target)
    for (label, _), times in zip(extras, extra_times, strict=True):
        other = statistics.median(times) * 1000
        report(f"  {label:<9} {name}", other, "ms", baseline=base)
        report(f"  tool vs {label}", ours, "ms", baseline=other)
    return ours / base


async def bench_grep(ctx: ToolUseContext, runs: int) -> list[float]:
    tool = GrepTool()
    ratios = []
    print("Grep (end to end) vs rg with the same arguments")
    for name, raw in GREP_CASES:
        inp = tool.parse_input(raw)
        assert isinstance(inp, GrepInput)
        args = grep_command(inp, select_files(split_globs(inp.glob or "")), None)

        async def run(inp: GrepInput = inp) -> Any:
            return await tool.call(inp, ctx, Progress("b", "Grep"))

        ratios.append(await compare(name, runs, run, args, ctx.workspace, "≤ 1.15×"))
    return ratios


async def bench_glob(ctx: ToolUseContext, runs: int) -> list[float]:
    tool = GlobTool()
    ratios = []
    print('Glob (end to end) vs rg --files --sortr=modified -g PATTERN (the "rg" line below)')
    denying = replace(ctx, permission=flag_permission_context((), GLOB_DENY, ()))
    cases = [(p, p, ctx) for p in GLOB_CASES] + [("**/*", f"**/* + {len(GLOB_DENY)} Read deny rules", denying)]
    for pattern, name, case_ctx in cases:
        inp = GlobInput(pattern=pattern)
        base, rest = glob_root(inp, case_ctx)
        assert base == case_ctx.workspace
        ours_args, _, _ = glob_command(base, rest, case_ctx)
        raw_args = ["--files", "-g", pattern]

        async def run(inp: GlobInput = inp, ctx: ToolUseContext = case_ctx) -> Any:
            return await tool.call(inp, ctx, Progress("b", "Glob"))

        found = (await run()).data["truncated"]
        print(f"  ({pattern}: tool runs rg {' '.join(ours_args)}; truncated={found})")
        # rg doing the same job (every match stat'ed for newest-first) puts the stat cost in view;
        # the tool's own rg command (its walker threads, no stat) shows what the stat adds
        sortr_args = ["--files", "--sortr=modified", "-g", pattern]
        extras = [("rg-plain", raw_args), ("rg-tool", ours_args)]
        ratios.append(await compare(name, runs, run, sortr_args, case_ctx.workspace, "≤ 1.1×", extras))
    return ratios


async def bench_edit(runs: int) -> None:
    print("Edit of one line in a 10 MB file")
    with tempfile.TemporaryDirectory(prefix="bench-edit-") as tmp:
        ws = Path(tmp)
        path = ws / "big.txt"
        lines = [f"line {i:07d} " + "x" * 40 + "\n" for i in range(200_000)]
        path.write_text("".join(lines))
        size = path.stat().st_size
        ctx = make_context(ws, scratch_dir=ws / ".scratch")
        await ReadTool().call(ReadTool().parse_input({"file_path": "big.txt", "limit": 1}), ctx, Progress("b", "Read"))
        edit = EditTool()
        tool_times, bare_times = [], []
        for k in range(runs + 1):
            i = 100_000 + k
            inp = edit.parse_input(
                {"file_path": "big.txt", "old_string": f"line {i:07d} ", "new_string": f"LINE {i:07d} "}
            )
            started = time.perf_counter()
            assert (await edit.validate_input(inp, ctx)).__class__.__name__ == "ValidationOk"
            await edit.call(inp, ctx, Progress("b", "Edit"))
            elapsed = time.perf_counter() - started
            started = time.perf_counter()
            data = path.read_bytes().decode().replace(f"LINE {i:07d} ", f"line {i:07d} ", 1)
            path.write_bytes(data.encode())
            bare = time.perf_counter() - started
            ctx.read_file_state.record(path.resolve(), path.read_bytes(), path.stat().st_mtime_ns)
            if k:  # the first round warms the page cache
                tool_times.append(elapsed)
                bare_times.append(bare)
        base = statistics.median(bare_times) * 1000
        report(f"  bare read+replace+write ({size / 1e6:.1f} MB)", base, "ms")
        report(
            f"  Edit tool ({size / 1e6:.1f} MB, incl. validate, diff)",
            statistics.median(tool_times) * 1000,
            "ms",
            baseline=base,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", choices=("stdlib", "generated"), default="stdlib")
    parser.add_argument("--generate", type=int, default=60_000, help="files in the generated tree")
    parser.add_argument("--runs", type=int, default=9)
    opts = parser.parse_args()
    if opts.tree == "stdlib":
        root = Path(sysconfig.get_path("stdlib")).resolve()
    else:
        root = generate_tree(Path(tempfile.gettempdir()) / "bot-bench-search-tree", opts.generate).resolve()
    files = sum(len(f) for _, _, f in os.walk(root))
    print(f"tree: {root} ({files:,} files), rg: {rg_path()}, {opts.runs} runs each, medians\n")
    ctx = make_context(root, scratch_dir=Path(tempfile.mkdtemp(prefix="bench-search-")))

    async def run_all() -> None:
        grep = await bench_grep(ctx, opts.runs)
        print()
        glob = await bench_glob(ctx, opts.runs)
        print()
        await bench_edit(opts.runs)
        glob_line = f"Glob {max(glob):.2f}× vs rg --sortr=modified (target ≤ 1.1×)"
        print(f"\nworst ratios: Grep {max(grep):.2f}× (target ≤ 1.15×), {glob_line}")

    anyio.run(run_all)


if __name__ == "__main__":
    main()
