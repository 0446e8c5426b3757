"""The README's bundled demo, once installed (issue 20: "the bundled demo in under 10 s").

Runs the README's command (``bot run --local --repo examples/demo-repo --prompt "Fix the failing
test" --replay examples/demo.cassette.yaml --policy examples/demo-policy.json``) N times, each into
a fresh output directory, and prints the median wall time and CPU time (the process and its
children). Beside it, measured in the same run: the demo's own work without the bot — its test
suite run twice, as the replayed session does (``python3 -m unittest -q``, failing then passing) —
so a loaded machine shows as a high baseline too. Target: wall < 10 s.

    python bench/demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import ROOT, report

BOT = Path(sys.executable).with_name("bot")
EXAMPLES = ROOT / "examples"


def child_env(home: Path) -> dict[str, str]:
    """PATH to find git, python3 and bwrap; a scratch HOME; the locale. No tokens: the demo needs none."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL") if k in os.environ}
    env["HOME"] = str(home)
    return env


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the children it started, exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not BOT.exists():
        print(f"no bot console script next to {sys.executable}: install the checkout first (pip install -e .)")
        return 1
    with tempfile.TemporaryDirectory(prefix="bot-bench-demo-") as tmp:
        scratch = Path(tmp)
        env = child_env(scratch)
        walls, cpus, base_walls = [], [], []
        for n in range(args.runs):
            # The baseline: the demo's tests twice on a fresh copy of the buggy repository.
            copy = scratch / f"repo-{n}"
            shutil.copytree(EXAMPLES / "demo-repo", copy)
            base = sum(timed([sys.executable, "-m", "unittest", "-q"], copy, env)[0] for _ in range(2))
            base_walls.append(base)
            out = scratch / f"out-{n}"
            wall, cpu, code = timed(
                [
                    str(BOT),
                    "run",
                    "--local",
                    "--repo",
                    "examples/demo-repo",
                    "--prompt",
                    "Fix the failing test",
                    "--replay",
                    "examples/demo.cassette.yaml",
                    "--policy",
                    "examples/demo-policy.json",
                    "--output-dir",
                    str(out),
                ],
                ROOT,
                env,
            )
            if code != 0:
                print(f"the demo exited {code}")
                return 1
            walls.append(wall)
            cpus.append(cpu)
        load = os.getloadavg()[0]
        print(f"{args.runs} runs, load average {load:.1f} on {os.cpu_count()} CPUs")
        report("tests twice, no bot (baseline)", statistics.median(base_walls), "s")
        report("demo: wall", statistics.median(walls), "s", baseline=statistics.median(base_walls), target="< 10 s")
        report("demo: CPU (bot and its children)", statistics.median(cpus), "s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
