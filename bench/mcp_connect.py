"""MCP connect + ``tools/list`` time per server, and what connecting them all at once saves.

For each real server (mcp-server-time and mcp-server-git over stdio, server-everything over stdio,
streamable HTTP and SSE on loopback, an in-process server), N connections through ``McpManager``:
median handshake time (spawn included for stdio), median ``tools/list`` time, median close time.
Baselines measured in the same run: starting and ending a bare interpreter (``python -c pass``,
``node -e 0``) — the part of a stdio connect that is the runtime's own start-up.

Then every server in one manager (concurrent connects) against the sum of the single connects
(what connecting them one after the other would cost) and the slowest single one (the ideal).

    python bench/mcp_connect.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
from _common import ROOT, report

from bot.mcp import Connected, McpManager, in_process_server, parse_mcp_config
from bot.mcp.config import McpConfig, ServerConfig

EVERYTHING_JS = ROOT / ".ci" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
NODE = shutil.which("node")


def script(name: str) -> str:
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def spawn_s(argv: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_everything(mode: str) -> tuple[subprocess.Popen[str], int]:
    assert NODE is not None
    port = free_port()
    proc = subprocess.Popen(
        [NODE, str(EVERYTHING_JS), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if f"port {port}" in line:
            return proc, port
    raise RuntimeError(f"server-everything {mode} did not start")


def in_process() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench", log_level="CRITICAL")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return server


async def measure(config: ServerConfig, runs: int) -> tuple[float, float, float, int]:
    """Medians of (connect, tools/list, close) in seconds, and the number of tools."""
    connect, listing, close = [], [], []
    tools = 0
    for _ in range(runs):
        async with McpManager(McpConfig((config,))) as manager:
            state = manager.servers[0].state
            if not isinstance(state, Connected):
                raise RuntimeError(f"{config.name}: {state}")
            connect.append(state.connect_s)
            listing.append(state.list_tools_s)
            tools = len(state.tools)
            closing = time.perf_counter()
        close.append(time.perf_counter() - closing)
    return statistics.median(connect), statistics.median(listing), statistics.median(close), tools


async def all_at_once(configs: list[ServerConfig], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        async with McpManager(McpConfig(tuple(configs))) as manager:
            assert len(manager.connected) == len(configs), manager.describe()
            samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        servers: dict[str, Any] = {
            "time": {"command": script("mcp-server-time")},
            "git": {"command": script("mcp-server-git"), "args": ["--repository", str(repo)]},
        }
        procs: list[subprocess.Popen[str]] = []
        if NODE and EVERYTHING_JS.is_file():
            servers["everything-stdio"] = {"command": NODE, "args": [str(EVERYTHING_JS), "stdio"]}
            http, http_port = start_everything("streamableHttp")
            sse, sse_port = start_everything("sse")
            procs += [http, sse]
            servers["everything-http"] = {"type": "http", "url": f"http://127.0.0.1:{http_port}/mcp"}
            servers["everything-sse"] = {"type": "sse", "url": f"http://127.0.0.1:{sse_port}/sse"}
        else:
            print(
                "server-everything not installed (npm install --prefix .ci @modelcontextprotocol/server-everything):"
                " its rows are skipped"
            )
        configs = [
            *parse_mcp_config({"mcpServers": servers}, environ={}).servers,
            in_process_server("in-process", in_process()),
        ]
        try:
            python_s = spawn_s([sys.executable, "-c", "pass"], runs)
            node_s = spawn_s([NODE, "-e", "0"], runs) if NODE else None
            print(f"medians of {runs} runs\n")
            report("baseline: python -c pass (spawn + exit)", python_s * 1000, "ms")
            if node_s is not None:
                report("baseline: node -e 0 (spawn + exit)", node_s * 1000, "ms")
            total = slowest = 0.0
            for config in configs:
                connect, listing, close, tools = anyio.run(measure, config, runs)
                total += connect + listing
                slowest = max(slowest, connect + listing)
                base = node_s if config.kind == "stdio" and "everything" in config.name else python_s
                print(f"\n{config.name} ({config.kind}, {tools} tools)")
                report(
                    "  connect (handshake; stdio: spawn too)",
                    connect * 1000,
                    "ms",
                    baseline=base * 1000 if config.kind == "stdio" and base else None,
                )
                report("  tools/list", listing * 1000, "ms")
                report("  close", close * 1000, "ms")
            together = anyio.run(all_at_once, configs, runs)
            print()
            report(
                f"all {len(configs)} servers, one manager (connect + list)",
                together * 1000,
                "ms",
                baseline=total * 1000,
            )
            report("sum of single connects + lists (sequential)", total * 1000, "ms")
            report("slowest single connect + list (the ideal)", slowest * 1000, "ms")
            print(
                f"(stdio Python servers spend their start-up importing on the CPU: with {os.cpu_count()} cores, "
                "shared, concurrent spawns overlap only as far as cores are free)"
            )
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()


if __name__ == "__main__":
    main()
