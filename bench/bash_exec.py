"""Overhead of running a command through the Bash tool (issue: Bash execution).

Median wall time of ``true`` over N runs:

* baseline: ``subprocess.run(["true"])``;
* ``run_process(["true"])``: our process runner alone (anyio, own process group, pipes);
* the Bash tool unsandboxed (``sandbox: off``): environment allowlist, ``setpriv``, ``bash -c``
  with the working-directory trailer, redaction, formatting;
* the Bash tool in the bubblewrap sandbox (``sandbox: required``), when ``bwrap`` can run here;
* the sandboxed tool through the whole pipeline (``ToolRunner``, an allow rule).

Each figure is printed with its ratio to the baseline measured in the same run.

    python bench/bash_exec.py [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
from _common import median_us, report

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress, ToolUseBlock
from bot.permissions.chain import RuleEngine
from bot.permissions.context import PermissionContext
from bot.permissions.rules import make_rule
from bot.runtime.pipeline import ToolPool, ToolRunner
from bot.shell.execute.process import run_process
from bot.shell.sandbox.status import SERVICE_KEY as SANDBOX_SERVICE
from bot.shell.sandbox.status import probe_bwrap
from bot.tools.bash import BashTool

Variant = tuple[str, Callable[[], Awaitable[object]]]


async def interleaved(variants: list[Variant], runs: int) -> dict[str, list[float]]:
    """One run of each variant per round: a noisy neighbour on a shared machine then slows every
    variant alike instead of whichever happened to be measuring."""
    for _, fn in variants:
        await fn()  # warm-up: the sandbox's probe and self-test happen once per run, before the first command
    samples: dict[str, list[float]] = {name: [] for name, _ in variants}
    for _ in range(runs):
        for name, fn in variants:
            started = time.perf_counter()
            await fn()
            samples[name].append(time.perf_counter() - started)
    return samples


async def subprocess_true() -> None:
    subprocess.run(["true"], check=True)  # noqa: ASYNC221 - the baseline is the blocking call itself


def context_for(root: Path, mode: str) -> ToolUseContext:
    ws = root / mode / "ws"
    ws.mkdir(parents=True)
    permission = PermissionContext(allow=(make_rule("Bash(true)", "allow", "session"),), extra={"sandbox": mode})
    return make_context(ws, scratch_dir=root / mode / "scratch", permission=permission)


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-bash-"))
    tool = BashTool()
    progress = Progress("toolu_bench", "Bash")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    parsed = tool.parse_input({"command": "true"})
    off = context_for(root, "off")
    variants: list[Variant] = [
        ("subprocess.run(['true'])", subprocess_true),
        ("run_process(['true'])", lambda: run_process(["true"], cwd=root, env=env)),
        ("Bash tool, unsandboxed (setpriv + bash)", lambda: tool.call(parsed, off, progress)),
    ]
    probe = await probe_bwrap()
    required = context_for(root, "required")
    if probe.works:
        runner = ToolRunner(ToolPool([tool]), RuleEngine())
        block = ToolUseBlock("toolu_bench", "Bash", {"command": "true"})
        variants += [
            ("Bash tool, sandboxed (bwrap + bash)", lambda: tool.call(parsed, required, progress)),
            ("Bash tool, sandboxed, whole pipeline", lambda: runner.run(block, required)),
        ]
    samples = await interleaved(variants, runs)
    print(f"median of {runs} runs of `true`, variants interleaved")
    baseline = median_us(samples[variants[0][0]])
    for name, _ in variants:
        report(name, median_us(samples[name]), "µs", baseline=baseline)
    if not probe.works:
        print(f"sandboxed figures skipped: {probe.reason}")
        return
    status = required.services[SANDBOX_SERVICE]
    if status.self_test is not None:
        print(f"(once per run, not in the figures: {status.self_test.describe().splitlines()[0]})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    anyio.run(main, args.runs)
