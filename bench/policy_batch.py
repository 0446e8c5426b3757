"""``bot policy check --batch`` throughput (issue: permission policy engine).

A corpus of N JSON lines (Read, Glob, Grep, Edit, Write, WebFetch, an MCP tool; under a preset
policy file, per-line rules, a second workspace; allowed and denied) is decided:

1. in process, through ``PolicyChecker.run_batch`` (stages 1–4 of the real pipeline per line);
2. as the CLI would run it, ``bot policy check --batch FILE`` in a fresh process (start-up
   included);
3. baselines from the same run: JSON parsing and writing alone (the I/O floor), and
   ``PolicyEngine.decide`` alone on pre-built requests (the pure decision, no pipeline).

Target: thousands of lines per second in one process.

    python bench/policy_batch.py [--lines 5000]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
from _common import ROOT, report

from bot.permissions.chain import PermissionRequest
from bot.permissions.engine import PolicyEngine
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.runtime.policy_checker import PolicyChecker


def corpus(n: int, other_ws: Path) -> list[str]:
    fix = str(ROOT / "policies" / "fix.json")
    templates: list[dict[str, Any]] = [
        {"tool": "Read", "input": {"file_path": "src/app/module_{i}.py"}, "policy": fix},
        {"tool": "Read", "input": {"file_path": "services/s{i}/.env"}, "policy": fix},
        {"tool": "Glob", "input": {"pattern": "**/*.py", "path": "src"}, "policy": fix},
        {"tool": "Grep", "input": {"pattern": "TODO", "path": "src/{i}"}, "policy": fix},
        {"tool": "Edit", "input": {"file_path": "src/f{i}.py", "old_string": "a", "new_string": "b"}, "policy": fix},
        {"tool": "Write", "input": {"file_path": ".github/workflows/w{i}.yml", "content": "x"}, "policy": fix},
        {
            "tool": "WebFetch",
            "input": {"url": "https://docs{i}.example.com/", "prompt": "p"},
            "allow": ["WebFetch(domain:*.example.com)"],
        },
        {"tool": "Read", "input": {"file_path": "/etc/hosts"}, "allow": ["Read"]},
        {"tool": "mcp__github__list_issues", "input": {"state": "open"}, "allow": ["mcp__github"]},
        {"tool": "Read", "input": {"file_path": "a{i}.txt"}, "allow": ["Read"], "workspace": str(other_ws)},
    ]
    lines = []
    for i in range(n):
        line = json.dumps(templates[i % len(templates)]).replace("{i}", str(i))
        lines.append(line)
    return lines


def in_process(lines: list[str], ws: Path) -> tuple[float, str]:
    out = io.StringIO()
    with PolicyChecker(workspace=ws) as checker:
        started = time.perf_counter()
        anyio.run(checker.run_batch, lines, out.write)
        elapsed = time.perf_counter() - started
    return elapsed, out.getvalue()


def json_floor(lines: list[str]) -> float:
    out = io.StringIO()
    started = time.perf_counter()
    for line in lines:
        data = json.loads(line)
        out.write(json.dumps({"decision": "deny", "reason": data["tool"], "rule": None}) + "\n")
    return time.perf_counter() - started


def engine_only(lines: list[str], ws: Path) -> float:
    policy = load_policy_stack([PolicyLayer("flag", str(ROOT / "policies" / "fix.json"))], allow=["Read"])
    context = policy.permission_context(ws)
    engine = PolicyEngine()
    requests = []
    for line in lines:
        data = json.loads(line)
        inp = data["input"]
        subject = inp.get("file_path") or inp.get("path") or inp.get("url")
        requests.append(PermissionRequest(tool_name=data["tool"], input=inp, workspace=ws, subject=subject))
    started = time.perf_counter()
    for request in requests:
        engine.decide(request, context)
    return time.perf_counter() - started


def cli(lines: list[str], ws: Path, tmp: Path) -> tuple[float, int]:
    batch = tmp / "calls.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    bot = Path(sys.executable).parent / "bot"
    started = time.perf_counter()
    done = subprocess.run(
        [str(bot), "policy", "check", "--batch", str(batch), "-w", str(ws)], check=False, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    return elapsed, len(done.stdout.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=5_000)
    args = parser.parse_args()
    n = max(args.lines, 1_000)
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw).resolve()
        ws, other = tmp / "ws", tmp / "other"
        ws.mkdir()
        other.mkdir()
        lines = corpus(n, other)
        in_process(lines[:200], ws)  # warm imports and caches
        elapsed, output = in_process(lines, ws)
        decisions = [json.loads(x)["decision"] for x in output.splitlines()]
        assert len(decisions) == n, "one output line per input line"
        floor = json_floor(lines)
        pure = engine_only(lines, ws)
        cli_elapsed, cli_lines = cli(lines, ws, tmp)
        assert cli_lines == n
    rate = n / elapsed
    print(f"{n} lines, {decisions.count('allow')} allowed, {decisions.count('deny')} denied")
    report("batch in process (lines/s)", rate, "lines/s", target="≥ 1000 lines/s")
    report("batch per line", elapsed / n * 1e6, "µs")
    report("  baseline: JSON in + out only, per line", floor / n * 1e6, "µs")
    report("  baseline: PolicyEngine.decide only, per line", pure / n * 1e6, "µs")
    report("  in-process per line vs JSON floor", elapsed / n * 1e6, "µs", baseline=floor / n * 1e6)
    report("  in-process per line vs engine only", elapsed / n * 1e6, "µs", baseline=pure / n * 1e6)
    report("bot policy check --batch, fresh process (lines/s)", n / cli_elapsed, "lines/s")
    report("  process wall time", cli_elapsed, "s")


if __name__ == "__main__":
    main()
