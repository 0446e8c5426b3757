"""A stdio MCP server written for the tests: reports its pid and environment, and can die.

python tests/mcp/stdio_server.py        (PID_FILE=... in its environment: it writes its pid there)
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("scripted", log_level="CRITICAL")


@server.tool()
def env(name: str) -> str:
    """The value of one of this process's environment variables, or <unset>."""
    return os.environ.get(name, "<unset>")


@server.tool()
def die() -> str:
    """Exits the process at once, mid-call."""
    os._exit(3)


if __name__ == "__main__":
    pid_file = os.environ.get("PID_FILE")
    if pid_file:
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
    server.run("stdio")
