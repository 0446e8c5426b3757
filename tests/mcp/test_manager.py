"""McpManager against real servers: every server connected at once, failures isolated and
reported with a reason, children stopped at exit, secrets kept out of a server's environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.server.mcpserver import MCPServer

from bot.errors import ToolExecutionError
from bot.mcp import Connected, Disabled, Failed, McpManager, Pending, in_process_server, parse_mcp_config
from bot.mcp.config import McpConfig
from bot.mcp.limits import McpLimits
from bot.mcp.manager import unusable_reason
from bot.runtime.single_call import flag_permission_context
from tests.mcp.conftest import MCP_FIXTURES, free_port, python_server
from tests.mcp.servers import paged_server

pytestmark = pytest.mark.anyio

HERE = Path(__file__).resolve().parent
SECRET = "ghp_this-must-never-reach-a-server"


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (path / "README.md").write_text("hello\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    return path


def fixture_tools(name: str) -> list[str]:
    data = json.loads((MCP_FIXTURES / "server-tool-lists" / f"{name}.tools_list.json").read_text())
    return [t["name"] for r in data["tools_list_responses"] for t in r["result"]["tools"]]


@pytest.fixture(scope="module")
async def fleet(tmp_path_factory: pytest.TempPathFactory, refusing_http: str) -> AsyncIterator[McpManager]:
    """One manager, every kind of server at once: real ones, broken ones, refused ones."""
    tmp = tmp_path_factory.mktemp("fleet")
    repo = git_repo(tmp / "repo")
    os.environ["GITHUB_TOKEN"] = SECRET  # in our environment: must not reach any server
    config = parse_mcp_config(
        {
            "mcpServers": {
                "time": {"command": python_server("mcp-server-time")},
                "git": {
                    "command": python_server("mcp-server-git"),
                    "args": ["--repository", str(repo)],
                    "trusted": True,
                },
                "scripted": {
                    "command": sys.executable,
                    "args": [str(HERE / "stdio_server.py")],
                    "env": {"PID_FILE": str(tmp / "scripted.pid"), "PASSED_ON": "${BOT_TEST_PASSED_ON}"},
                },
                "missing-binary": {"command": "bot-no-such-mcp-server"},
                "crashes": {
                    "command": sys.executable,
                    "args": ["-c", "import sys; print('bad flag --x', file=sys.stderr); sys.exit(2)"],
                },
                "never-answers": {
                    "command": sys.executable,
                    "args": ["-c", "import sys; sys.stdin.read()"],
                    "startupTimeoutSec": 0.3,
                },
                "needs-a-key": {"command": "x", "env": {"KEY": "${BOT_TEST_UNSET_KEY}"}},
                "websocket": {"type": "ws", "url": "ws://127.0.0.1:9"},
                "nobody-listens": {"type": "http", "url": f"http://127.0.0.1:{free_port()}/mcp"},
                "refuses": {"type": "sse", "url": refusing_http + "/sse?key=${BOT_TEST_KEY}"},
                "switched-off": {"command": "x", "disabled": True},
                "refused": {"command": "x"},
            }
        },
        source="fleet.json",
        environ={"BOT_TEST_PASSED_ON": "visible-value", "BOT_TEST_KEY": SECRET},
    )
    permission = flag_permission_context([], ["mcp__refused"], [])
    try:
        async with McpManager(config, workspace=tmp, permission=permission, log_dir=tmp / "logs") as manager:
            yield manager
    finally:
        os.environ.pop("GITHUB_TOKEN", None)


def state(manager: McpManager, name: str) -> Any:
    conn = manager.get(name)
    assert conn is not None
    return conn.state


@pytest.mark.parametrize(
    ("description", "server", "kind", "reason"),
    [
        ("a real PyPI server connects", "time", Connected, None),
        ("a trusted one too", "git", Connected, None),
        ("a server written in the tests, over stdio", "scripted", Connected, None),
        (
            "a missing binary fails with a clear reason",
            "missing-binary",
            Failed,
            "command not found: bot-no-such-mcp-server",
        ),
        ("a server that exits at once fails", "crashes", Failed, "the server closed the connection"),
        ("a server that never answers times out", "never-answers", Failed, "did not connect within 0.3 s"),
        (
            "an unset ${VAR} fails that server only",
            "needs-a-key",
            Failed,
            "environment variable BOT_TEST_UNSET_KEY not set (referenced in fleet.json)",
        ),
        ("an unsupported transport fails", "websocket", Failed, "transport 'ws' is not supported"),
        ("an HTTP server nobody runs fails at once", "nobody-listens", Failed, "ConnectError"),
        (
            "an HTTP error fails, the URL shown as configured",
            "refuses",
            Failed,
            "HTTPStatusError: Client error '400 no MCP here' for url 'http://127.0.0.1:",
        ),
        ("disabled in config", "switched-off", Disabled, "disabled in fleet.json"),
        ("a blanket deny rule keeps it from starting", "refused", Disabled, "denied by rule mcp__refused (cliArg)"),
    ],
)
async def test_each_server_settles_in_its_state(
    fleet: McpManager, description: str, server: str, kind: Any, reason: str | None
) -> None:
    current: Any = state(fleet, server)
    assert isinstance(current, kind)
    if reason is not None:
        assert reason in current.reason


async def test_a_failed_stdio_server_reports_its_stderr(fleet: McpManager) -> None:
    crashed = state(fleet, "crashes")
    assert isinstance(crashed, Failed) and crashed.stderr_tail == "bad flag --x"


async def test_no_reason_or_description_shows_an_expanded_secret(fleet: McpManager) -> None:
    assert SECRET not in json.dumps(fleet.describe())
    assert "/sse?key=${BOT_TEST_KEY}'" in state(fleet, "refuses").reason


@pytest.mark.parametrize(("server", "fixture"), [("time", "mcp-server-time"), ("git", "mcp-server-git")])
async def test_real_servers_list_the_tools_their_published_lists_show(
    fleet: McpManager, server: str, fixture: str
) -> None:
    connected = state(fleet, server)
    assert {t.name for t, _ in connected.tools} == set(fixture_tools(fixture))
    assert all(bridged == f"mcp__{server}__{t.name}" for t, bridged in connected.tools)
    assert connected.connect_s > 0 and connected.list_tools_s > 0


async def test_a_call_returns_the_servers_result(fleet: McpManager) -> None:
    result = await fleet.call_tool("time", "get_current_time", {"timezone": "Europe/Paris"})
    assert not result.is_error
    assert json.loads(result.content[0].text)["timezone"] == "Europe/Paris"  # type: ignore[union-attr]
    refused = await fleet.call_tool("time", "get_current_time", {"timezone": "Mars/Olympus"})
    assert refused.is_error


async def test_a_stdio_server_gets_the_config_env_and_none_of_our_secrets(fleet: McpManager) -> None:
    async def env(name: str) -> str:
        result = await fleet.call_tool("scripted", "env", {"name": name})
        return str(result.content[0].text)  # type: ignore[union-attr]

    assert await env("PASSED_ON") == "visible-value"
    assert await env("GITHUB_TOKEN") == "<unset>"
    assert await env("PATH") != "<unset>"


async def test_calls_to_servers_that_are_not_connected_are_tool_errors(fleet: McpManager) -> None:
    with pytest.raises(ToolExecutionError, match=r"'missing-binary' is not connected \(failed: command not found"):
        await fleet.call_tool("missing-binary", "x", {})
    with pytest.raises(ToolExecutionError, match="'switched-off' is not connected"):
        await fleet.call_tool("switched-off", "x", {})


async def test_describe_lists_states_reasons_and_bridged_tools(fleet: McpManager) -> None:
    described = {d["name"]: d for d in fleet.describe()}
    assert described["time"]["tools"] == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    assert described["git"]["trusted"] is True and described["git"]["server"].startswith("mcp-git")
    assert described["needs-a-key"]["state"] == "failed"
    assert described["needs-a-key"]["target"] == "x"
    assert json.dumps(list(described.values()))  # plain data all the way down


async def test_a_server_that_dies_mid_call_is_an_error_and_marked_lost(tmp_path: Path) -> None:
    config = parse_mcp_config(
        {"mcpServers": {"scripted": {"command": sys.executable, "args": [str(HERE / "stdio_server.py")]}}}, environ={}
    )
    async with McpManager(config) as manager:
        with pytest.raises(ToolExecutionError, match="closed the connection"):
            await manager.call_tool("scripted", "die", {})
        lost = state(manager, "scripted")
        assert isinstance(lost, Failed) and lost.reason.startswith("connection lost")


def children_of(pid: int) -> set[int]:
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists()}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see child processes")
async def test_stdio_children_are_stopped_when_the_manager_exits(tmp_path: Path) -> None:
    before = children_of(os.getpid())
    config = parse_mcp_config(
        {
            "mcpServers": {
                "time": {"command": python_server("mcp-server-time")},
                "scripted": {
                    "command": sys.executable,
                    "args": [str(HERE / "stdio_server.py")],
                    "env": {"PID_FILE": str(tmp_path / "pid")},
                },
            }
        },
        environ={},
    )
    async with McpManager(config) as manager:
        assert len(manager.connected) == 2
        started = children_of(os.getpid()) - before
        assert int((tmp_path / "pid").read_text()) in started and len(started) == 2
    assert not alive(started)


@asynccontextmanager
async def _waiting_lifespan(mine: anyio.Event, other: anyio.Event) -> AsyncIterator[None]:
    mine.set()
    await other.wait()
    yield None


async def test_servers_connect_concurrently() -> None:
    # Each server's start-up waits until the other has started: sequential connects would deadlock
    # into the connect timeout; concurrent ones both succeed.
    a_up, b_up = anyio.Event(), anyio.Event()
    a = MCPServer("a", lifespan=lambda _s: _waiting_lifespan(a_up, b_up), log_level="CRITICAL")
    b = MCPServer("b", lifespan=lambda _s: _waiting_lifespan(b_up, a_up), log_level="CRITICAL")
    config = McpConfig((in_process_server("a", a), in_process_server("b", b)))
    async with McpManager(config, limits=McpLimits(connect_timeout_s=5)) as manager:
        assert [c.label for c in manager.servers] == ["connected", "connected"]


async def test_without_waiting_a_server_is_pending_until_it_connects() -> None:
    release, started = anyio.Event(), anyio.Event()
    slow = MCPServer("slow", lifespan=lambda _s: _waiting_lifespan(started, release), log_level="CRITICAL")
    async with McpManager(McpConfig((in_process_server("slow", slow),)), wait=False) as manager:
        await started.wait()
        assert isinstance(state(manager, "slow"), Pending)
        release.set()
        await manager.wait_settled()
        assert isinstance(state(manager, "slow"), Connected)


async def test_tools_are_listed_across_pages_and_unusable_ones_are_skipped_with_a_reason() -> None:
    async with McpManager(McpConfig((in_process_server("paged", paged_server()),))) as manager:
        connected = state(manager, "paged")
        result = await manager.call_tool("paged", "second", {"x": 1})
    assert [bridged for _, bridged in connected.tools] == ["mcp__paged__first", "mcp__paged__second"]
    assert dict(connected.skipped) == {"first": "listed twice"}
    assert not connected.has_resources
    assert result.content[0].text == "second {'x': 1}"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("description", "schema", "reason"),
    [
        ("an object schema is usable", {"type": "object", "properties": {}}, None),
        ("no type means an object", {"properties": {}}, None),
        ("a scalar schema cannot be a tool input", {"type": "string"}, "its input schema is of type 'string'"),
    ],
)
def test_a_tool_needs_an_object_schema(description: str, schema: dict[str, Any], reason: str | None) -> None:
    tool = types.Tool.model_validate({"name": "t", "inputSchema": schema})
    found = unusable_reason(tool, set())
    assert found == reason if reason is None else (found is not None and found.startswith(reason))


async def test_an_error_in_the_managers_body_comes_out_as_itself() -> None:
    config = McpConfig((in_process_server("paged", paged_server()),))
    with pytest.raises(LookupError, match="the run failed"):
        async with McpManager(config):
            raise LookupError("the run failed")


async def test_a_cancelled_connect_leaves_no_child_behind() -> None:
    before = children_of(os.getpid())
    config = parse_mcp_config(
        {"mcpServers": {"scripted": {"command": sys.executable, "args": [str(HERE / "stdio_server.py")]}}}, environ={}
    )
    with anyio.CancelScope() as scope:
        async with McpManager(config, wait=False) as manager:
            await anyio.wait_all_tasks_blocked()  # spawned, waiting for the handshake's answer
            spawned = children_of(os.getpid()) - before
            scope.cancel()
            await manager.wait_settled()
    assert len(spawned) == 1
    assert not alive(spawned)
