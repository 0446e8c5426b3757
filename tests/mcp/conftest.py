"""Real MCP servers for the MCP tests: mcp-server-time and mcp-server-git (PyPI, stdio),
@modelcontextprotocol/server-everything (npm, installed by .ci/run into .ci/node_modules) over
stdio, streamable HTTP and SSE on loopback, and in-process servers written in the tests."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MCP_FIXTURES = ROOT / "tests" / "fixtures" / "upstream" / "mcp"
#: Where .ci/run installs the npm server; BOT_SERVER_EVERYTHING_JS points elsewhere if needed.
EVERYTHING_JS = Path(
    os.environ.get(
        "BOT_SERVER_EVERYTHING_JS",
        ROOT / ".ci" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js",
    )
)
NODE = shutil.which("node")


def everything_missing() -> str | None:
    """Why the server-everything tests cannot run, or None."""
    if NODE is None:
        return "node is not installed (server-everything needs it; npm installs it in .ci/run)"
    if not EVERYTHING_JS.is_file():
        return (
            f"server-everything is not installed at {EVERYTHING_JS} "
            "(run: npm install --prefix .ci @modelcontextprotocol/server-everything)"
        )
    return None


needs_everything = pytest.mark.skipif(everything_missing() is not None, reason=everything_missing() or "")


def pytest_report_header(config: pytest.Config) -> str:
    reason = everything_missing()
    if reason is None:
        return f"mcp: server-everything at {EVERYTHING_JS}"
    return f"mcp: SKIPPING the server-everything tests: {reason}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # The header is printed only when pytest starts in this folder; this line always is.
    reason = everything_missing()
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "tests/mcp/" in getattr(r, "nodeid", "")]
    if reason is not None and skipped:
        terminalreporter.write_line(f"mcp: {len(skipped)} server-everything tests skipped: {reason}", yellow=True)


def python_server(command: str) -> str:
    """A console script of this venv (mcp-server-time, mcp-server-git)."""
    path = Path(sys.executable).parent / command
    return str(path) if path.exists() else command


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_everything(mode: str) -> tuple[subprocess.Popen[str], int]:
    """server-everything in ``sse`` or ``streamableHttp`` mode on a free loopback port; returns
    once it says it is listening (it prints that on stderr)."""
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
            break
    else:
        proc.wait()
        raise RuntimeError(f"server-everything {mode} did not start (exit {proc.returncode})")
    # Keep draining stderr so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stderr or ()], daemon=True).start()
    return proc, port


@pytest.fixture(scope="session")
def everything_http() -> Iterator[str]:
    reason = everything_missing()
    if reason is not None:
        pytest.skip(reason)
    proc, port = start_everything("streamableHttp")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def everything_sse() -> Iterator[str]:
    reason = everything_missing()
    if reason is not None:
        pytest.skip(reason)
    proc, port = start_everything("sse")
    try:
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class _Refuser(http.server.BaseHTTPRequestHandler):
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        self.send_error(400, "no MCP here")

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def refusing_http() -> Iterator[str]:
    """A loopback HTTP server that answers 400 to everything: ``http://127.0.0.1:PORT``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuser)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
