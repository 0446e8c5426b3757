"""Red team: a stdio MCP server must not pick up the workspace through its working directory.

Servers run on the host, outside the sandbox, and when they start the workspace already holds what
nobody trusts: a pull request's head (checked out before the servers start), an earlier run's
branch (a re-run, a resumed session), and from the first command on whatever the model writes. Yet
the common launchers read their working directory: ``python -m`` puts it first on ``sys.path``
(also for modules imported later, after the model ran), ``npx`` runs ``node_modules/.bin`` and obeys
``.npmrc``, ``uv run`` obeys ``.python-version``, ``uv.toml`` and ``.venv``, ``docker run`` resolves
``--env-file .env`` and ``-v ./dir`` against it, ``node``'s ``process.loadEnvFile()`` reads ``.env``.

Every test starts real server processes through :class:`McpManager`, with ``cwd=workspace`` as the
run (``bot.orchestration.session``), ``bot mcp list`` and ``bot tools call`` give it, and checks
that what the workspace planted never ran: servers start in a private directory of their own, and
the workspace reaches them only where the trusted configuration names it, as ``${CLAUDE_PROJECT_DIR}``.
No test reaches the network: npm and uv run offline against a dead loopback registry, docker talks
to a stand-in daemon on a UNIX socket.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socketserver
import stat
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.mcp import Connected, Failed, McpManager, parse_mcp_config

pytestmark = pytest.mark.anyio

NPX = shutil.which("npx")
NODE = shutil.which("node")
DOCKER = shutil.which("docker")
#: uv is not a dependency of the project: the test runs where it is installed (or named here).
UV = os.environ.get("BOT_TEST_UV") or shutil.which("uv")

#: A small stdio MCP server, run as ``python -m cwdprobe``: where it runs, what it was given, and
#: an optional module it imports only when asked (as servers import optional dependencies).
PROBE = '''
import json, os, sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("cwdprobe", log_level="CRITICAL")


@server.tool()
def where() -> str:
    """Where this server runs and what it was given."""
    return json.dumps(
        {"cwd": os.getcwd(), "path0": sys.path[0], "argv": sys.argv[1:], "PATH": os.environ.get("PATH", ""),
         "WS": os.environ.get("WS", "<unset>")}
    )


@server.tool()
def extra() -> str:
    """Imports an optional module on first use."""
    try:
        import cwdprobe_extra
    except ImportError:
        return "no extra"
    return "extra from " + cwdprobe_extra.__file__


server.run("stdio")
'''


def planted(marker: Path, what: str, *, exits: bool = True) -> str:
    """Python that records it ran (the attack's proof), then exits or goes on quietly."""
    code = f"open({str(marker)!r}, 'a').write({what!r} + '\\n')\n"
    return code + ("raise SystemExit(7)\n" if exits else "")


@pytest.fixture
def trusted(tmp_path: Path) -> Path:
    """Where the trusted server lives (site-packages, say): ``cwdprobe`` on ``PYTHONPATH``."""
    root = tmp_path / "trusted"
    (root / "cwdprobe").mkdir(parents=True)
    (root / "cwdprobe" / "__init__.py").write_text("")
    (root / "cwdprobe" / "__main__.py").write_text(PROBE)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "PLANTED-CODE-RAN"


def probe(trusted: Path, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "cwdprobe"], "env": {"PYTHONPATH": str(trusted)}, **extra}


@asynccontextmanager
async def started(
    servers: Mapping[str, Any], workspace: Path | None, environ: Mapping[str, str] | None = None
) -> AsyncIterator[McpManager]:
    config = parse_mcp_config({"mcpServers": dict(servers)}, environ=dict(environ or {}))
    async with McpManager(config, workspace=workspace) as manager:
        yield manager


async def text(manager: McpManager, server: str, tool: str) -> str:
    result = await manager.call_tool(server, tool, {})
    return str(result.content[0].text)  # type: ignore[union-attr]


async def where(manager: McpManager, server: str = "probe") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await text(manager, server, "where"))
    return data


def inside(path: str | Path, root: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def ran(marker: Path) -> bool:
    """Whether planted code ran (it leaves the marker)."""
    return os.path.exists(marker)


def read(path: Path) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def private(path: Path) -> tuple[bool, int, int, list[str]]:
    """Is a directory, its mode, its owner, its entries."""
    info = os.stat(path)
    return os.path.isdir(path), stat.S_IMODE(info.st_mode), info.st_uid, os.listdir(path)


# ----- python -m -------------------------------------------------------------------------------


async def test_python_m_runs_the_trusted_module_not_one_the_workspace_names_the_same(
    trusted: Path, workspace: Path, marker: Path
) -> None:
    # A pull request adds cwdprobe.py at the top of the checkout; `python -m cwdprobe` put the
    # working directory first on sys.path, ahead of the trusted package.
    (workspace / "cwdprobe.py").write_text(planted(marker, "workspace cwdprobe.py"))
    async with started({"probe": probe(trusted)}, workspace) as manager:
        state = manager.get("probe").state  # type: ignore[union-attr]
        seen = await where(manager) if isinstance(state, Connected) else {}
    assert not ran(marker)
    assert isinstance(state, Connected), state
    assert not inside(seen["cwd"], workspace) and not inside(seen["path0"], workspace)


async def test_a_module_written_after_the_server_started_is_not_imported(
    trusted: Path, workspace: Path, marker: Path
) -> None:
    # The server starts before the model runs; the model then writes the module the server
    # imports on first use. That import ran the model's code on the host, outside the sandbox.
    async with started({"probe": probe(trusted)}, workspace) as manager:
        (workspace / "cwdprobe_extra.py").write_text(planted(marker, "model-written module", exits=False))
        answer = await text(manager, "probe", "extra")
    assert not ran(marker)
    assert answer == "no extra"


async def test_servers_run_in_a_private_directory_that_is_removed_at_the_end(trusted: Path, workspace: Path) -> None:
    async with started({"probe": probe(trusted), "other": probe(trusted)}, workspace) as manager:
        seen, other = await where(manager), await where(manager, "other")
        cwd = Path(seen["cwd"])
        assert private(cwd) == (True, 0o700, os.getuid(), [])
        assert not inside(cwd, workspace) and str(cwd) != os.getcwd()
        assert other["cwd"] == seen["cwd"]
    assert not ran(cwd)


# ----- the workspace where the configuration names it ----------------------------------------------


async def test_claude_project_dir_names_the_workspace_in_args_and_env(trusted: Path, workspace: Path) -> None:
    server = probe(trusted, args=["-m", "cwdprobe", "--root", "${CLAUDE_PROJECT_DIR}"])
    server["env"] = {"PYTHONPATH": str(trusted), "WS": "${BOT_PROJECT_DIR}/sub"}
    # Even when the bot itself runs with CLAUDE_PROJECT_DIR set (started from Claude Code, say):
    # the servers serve this run's workspace.
    async with started({"probe": server}, workspace, environ={"CLAUDE_PROJECT_DIR": "/elsewhere"}) as manager:
        seen = await where(manager)
    assert seen["argv"] == ["--root", str(workspace)]
    assert seen["WS"] == f"{workspace}/sub"


async def test_without_a_workspace_claude_project_dir_fails_that_server_or_takes_its_default(trusted: Path) -> None:
    needs = probe(trusted, args=["-m", "cwdprobe", "${CLAUDE_PROJECT_DIR}"])
    defaulted = probe(trusted, args=["-m", "cwdprobe", "${CLAUDE_PROJECT_DIR:-/srv/default}"])
    async with started({"needs": needs, "defaulted": defaulted}, None) as manager:
        failed = manager.get("needs").state  # type: ignore[union-attr]
        assert isinstance(failed, Failed) and "CLAUDE_PROJECT_DIR" in failed.reason, failed
        assert (await where(manager, "defaulted"))["argv"] == ["/srv/default"]


async def test_a_relative_script_fails_with_a_hint_instead_of_running_the_workspaces_copy(
    workspace: Path, marker: Path
) -> None:
    (workspace / "server.py").write_text(planted(marker, "workspace server.py"))
    async with started({"local": {"command": sys.executable, "args": ["server.py"]}}, workspace) as manager:
        state = manager.get("local").state  # type: ignore[union-attr]
    assert not ran(marker)
    assert isinstance(state, Failed) and "${CLAUDE_PROJECT_DIR}/" in state.reason, state


async def test_path_entries_in_the_workspace_do_not_choose_the_servers_program(
    trusted: Path, workspace: Path, marker: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A workflow step put the checkout's .venv/bin (or ./node_modules/.bin) on PATH; the pull
    # request, or the model, puts a program of the launcher's name there.
    launcher = f'#!/bin/sh\nexec {sys.executable} -m cwdprobe "$@"\n'
    good = tmp_path / "tools"
    good.mkdir()
    (good / "cwdprobe-server").write_text(launcher)
    (good / "cwdprobe-server").chmod(0o755)
    for bin_dir in (workspace / ".venv" / "bin", workspace / "bin"):
        bin_dir.mkdir(parents=True)
        (bin_dir / "cwdprobe-server").write_text(f"#!/bin/sh\necho {bin_dir} >> {marker}\nexit 7\n")
        (bin_dir / "cwdprobe-server").chmod(0o755)
    entries = [str(workspace / ".venv" / "bin"), "bin", str(good), os.environ["PATH"]]
    monkeypatch.setenv("PATH", os.pathsep.join(entries))
    server = {"command": "cwdprobe-server", "env": {"PYTHONPATH": str(trusted)}}
    async with started({"probe": server}, workspace) as manager:
        state = manager.get("probe").state  # type: ignore[union-attr]
        seen = await where(manager) if isinstance(state, Connected) else {}
    assert not ran(marker)
    assert isinstance(state, Connected), state
    path = seen["PATH"].split(os.pathsep)
    assert str(good) in path and "bin" not in path and not any(inside(p, workspace) for p in path if p)


async def test_a_temporary_directory_inside_the_workspace_is_refused(
    trusted: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TMPDIR=${{ github.workspace }}/tmp: the "private" directory would be the model's to write.
    (workspace / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(workspace / "tmp"))
    async with started({"probe": probe(trusted)}, workspace) as manager:
        state = manager.get("probe").state  # type: ignore[union-attr]
    assert isinstance(state, Failed) and "inside the workspace" in state.reason, state


# ----- npx ---------------------------------------------------------------------------------------------


def npm_env(tmp_path: Path) -> dict[str, str]:
    """npm without the network: its own cache, offline, a registry nobody listens on."""
    return {
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_offline": "true",
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_update_notifier": "false",
        "npm_config_audit": "false",
        "npm_config_fund": "false",
    }


def node_package(root: Path, name: str, script: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", "bin": {name: "cli.js"}}))
    (root / "cli.js").write_text("#!/usr/bin/env node\n" + script)
    (root / "cli.js").chmod(0o755)
    return root


def node_writes(marker: Path, what: str) -> str:
    return f"require('fs').appendFileSync({str(marker)!r}, {what!r} + '\\n');\n"


@pytest.mark.skipif(NPX is None, reason="npx is not installed")
async def test_npx_does_not_run_the_workspaces_node_modules_bin(workspace: Path, marker: Path, tmp_path: Path) -> None:
    # `npx -y some-mcp-server` runs a package of that name in the project's node_modules first.
    package = node_package(workspace / "node_modules" / "cwdprobe-mcp", "cwdprobe-mcp", node_writes(marker, "npx"))
    (workspace / "node_modules" / ".bin").mkdir()
    (workspace / "node_modules" / ".bin" / "cwdprobe-mcp").symlink_to(package / "cli.js")
    server = {"command": "npx", "args": ["-y", "cwdprobe-mcp"], "env": npm_env(tmp_path), "startupTimeoutSec": 60}
    async with started({"npx": server}, workspace) as manager:
        state = manager.get("npx").state  # type: ignore[union-attr]
    assert not ran(marker)
    assert isinstance(state, Failed)  # offline, the real package is not in the cache


@pytest.mark.skipif(NPX is None, reason="npx is not installed")
async def test_npx_does_not_obey_the_workspaces_npmrc(workspace: Path, marker: Path, tmp_path: Path) -> None:
    # The trusted server is a local package outside the workspace; the workspace's .npmrc makes
    # npm preload a script into it (node-options) and run it through a shell of its choosing.
    trusted_ran = tmp_path / "trusted-ran"
    package = node_package(tmp_path / "pkg" / "cwdprobe-npm", "cwdprobe-npm", node_writes(trusted_ran, "trusted"))
    (workspace / "preload.js").write_text(node_writes(marker, "node-options preload"))
    (workspace / "shell.sh").write_text(f'#!/bin/sh\necho script-shell >> {marker}\nexec /bin/sh "$@"\n')
    (workspace / "shell.sh").chmod(0o755)
    (workspace / ".npmrc").write_text("node-options=--require=./preload.js\nscript-shell=./shell.sh\n")
    server = {"command": "npx", "args": ["-y", str(package)], "env": npm_env(tmp_path), "startupTimeoutSec": 60}
    async with started({"npx": server}, workspace):
        pass
    assert not ran(marker)
    assert read(trusted_ran) == "trusted\n"


# ----- node ----------------------------------------------------------------------------------------------


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_node_servers_load_env_from_their_own_directory_not_the_workspace(
    workspace: Path, marker: Path, tmp_path: Path
) -> None:
    # A server that calls process.loadEnvFile() (or dotenv, or pydantic-settings' env_file)
    # reads ./.env: the workspace's would redirect its API base and with it the server's key.
    (workspace / ".env").write_text("API_BASE=http://attacker.example\n")
    script = tmp_path / "server.js"
    script.write_text(
        "try { process.loadEnvFile(); } catch (e) {}\n"
        f"require('fs').writeFileSync({str(marker)!r}, process.env.API_BASE || '');\n"
        "process.exit(0);\n"
    )
    async with started({"node": {"command": "node", "args": [str(script)]}}, workspace):
        pass
    assert read(marker) == ""


# ----- uv run --------------------------------------------------------------------------------------------


@pytest.mark.skipif(UV is None, reason="uv is not installed (BOT_TEST_UV may name it)")
async def test_uv_run_does_not_obey_the_workspaces_python_version_or_venv(
    trusted: Path, workspace: Path, marker: Path, tmp_path: Path
) -> None:
    # .python-version may name an interpreter by path: uv runs it to ask its version. A project's
    # .venv is where `uv run` looks for the program first.
    fake = workspace / "tools" / "python3"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho python-version >> {marker}\nexec {sys.executable} "$@"\n')
    fake.chmod(0o755)
    (workspace / ".python-version").write_text(f"{fake}\n")
    (workspace / "pyproject.toml").write_text('[project]\nname = "ws"\nversion = "0"\n[tool.uv]\npackage = false\n')
    venv_bin = workspace / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (workspace / ".venv" / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (venv_bin / "cwdprobe-uv").write_text(f"#!/bin/sh\necho venv >> {marker}\nexit 7\n")
    (venv_bin / "cwdprobe-uv").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "cwdprobe-uv").write_text(f'#!/bin/sh\nexec {sys.executable} -m cwdprobe "$@"\n')
    (tmp_path / "bin" / "cwdprobe-uv").chmod(0o755)
    env = {
        "PYTHONPATH": str(trusted),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_OFFLINE": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
    }
    server = {"command": str(UV), "args": ["run", "--no-sync", "cwdprobe-uv"], "env": env, "startupTimeoutSec": 60}
    async with started({"uv": server}, workspace) as manager:
        state = manager.get("uv").state  # type: ignore[union-attr]
    assert not ran(marker)
    assert isinstance(state, Connected), state


# ----- docker run ------------------------------------------------------------------------------------------


class _Daemon(http.server.BaseHTTPRequestHandler):
    """Just enough of the Docker Engine API for `docker run` to send its create request."""

    created: list[dict[str, Any]]

    def address_string(self) -> str:
        return "unix"

    def _send(self, code: int, body: str) -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Api-Version", "1.45")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_HEAD(self) -> None:
        self._send(200, "")

    def do_GET(self) -> None:
        self._send(200, "OK") if "_ping" in self.path else self._send(404, '{"message": "not here"}')

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if "/containers/create" in self.path:
            self.created.append(json.loads(body or b"{}"))
        self._send(500, '{"message": "stand-in daemon: no containers here"}')

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def docker_daemon() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    short = Path(tempfile.mkdtemp(prefix="dk-"))  # a UNIX socket's path must stay short
    created: list[dict[str, Any]] = []
    handler = type("Handler", (_Daemon,), {"created": created})

    class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True

    server = Server(str(short / "d.sock"), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"unix://{short / 'd.sock'}", created
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(short, ignore_errors=True)


@pytest.mark.skipif(DOCKER is None, reason="the docker CLI is not installed")
async def test_docker_run_does_not_read_the_workspaces_env_file_or_mount_its_directories(
    workspace: Path, tmp_path: Path, docker_daemon: tuple[str, list[dict[str, Any]]]
) -> None:
    host, created = docker_daemon
    (workspace / ".env").write_text("LD_PRELOAD=/data/evil.so\nAPI_BASE=http://attacker.example\n")
    (workspace / "data").mkdir()
    docker_args = ["run", "-i", "--rm", "--env-file", ".env", "-v", "./data:/data", "example/mcp-server"]
    plain_args = ["run", "-i", "--rm", "-v", "./data:/data", "example/mcp-server"]
    env = {"DOCKER_HOST": host, "DOCKER_CONFIG": str(tmp_path / "docker-config")}
    servers = {
        "with-env-file": {"command": "docker", "args": docker_args, "env": env},
        "plain": {"command": "docker", "args": plain_args, "env": env},
    }
    async with started(servers, workspace):
        pass
    assert created, "docker sent no create request (did the stand-in daemon answer?)"
    for request in created:
        assert not any("attacker" in e or "LD_PRELOAD" in e for e in request.get("Env") or [])
        binds = (request.get("HostConfig") or {}).get("Binds") or []
        assert binds and not any(inside(b.split(":")[0], workspace) for b in binds)


# ----- the pieces ----------------------------------------------------------------------------------------


def test_workspace_variables_are_not_missing_at_parse_time_and_expand_at_start(tmp_path: Path) -> None:
    from bot.mcp.config import HttpTransport, StdioTransport, with_workspace

    config = parse_mcp_config(
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "server-filesystem", "${CLAUDE_PROJECT_DIR}"]},
                "web": {"url": "https://example.com/mcp?root=${BOT_PROJECT_DIR}"},
            }
        },
        environ={"CLAUDE_PROJECT_DIR": "/not/the/workspace"},
    )
    fs, web = config.servers
    assert fs.missing_env == () and fs.transport == StdioTransport(
        "npx", ("-y", "server-filesystem", "${CLAUDE_PROJECT_DIR}"), {}
    )
    assert with_workspace(fs, tmp_path).transport == StdioTransport(
        "npx", ("-y", "server-filesystem", str(tmp_path)), {}
    )
    assert with_workspace(web, tmp_path).transport == HttpTransport(f"https://example.com/mcp?root={tmp_path}", {})
    assert with_workspace(fs, None).missing_env == ("CLAUDE_PROJECT_DIR",)


def test_inherited_path_keeps_absolute_entries_outside_what_the_model_writes(tmp_path: Path) -> None:
    from bot.mcp.workdir import inherited_path

    workspace, extra = tmp_path / "ws", tmp_path / "extra"
    (workspace / "bin").mkdir(parents=True)
    extra.mkdir()
    (tmp_path / "link").symlink_to(workspace / "bin")  # a link into the workspace is the workspace
    value = os.pathsep.join(
        ["", ".", "bin", str(workspace / "bin"), str(tmp_path / "link"), str(extra), "/usr/bin", "/usr/bin", "/bin"]
    )
    assert inherited_path(value, workspace, [extra]) == "/usr/bin:/bin"
    assert inherited_path(value, None) == os.pathsep.join(
        [str(workspace / "bin"), str(tmp_path / "link"), str(extra), "/usr/bin", "/bin"]
    )
    assert inherited_path(None, workspace) is None


@pytest.mark.parametrize(
    ("command", "args", "relative"),
    [
        ("npx", ["-y", "@modelcontextprotocol/server-filesystem", "."], ["."]),
        ("node", ["server.js"], ["server.js"]),
        ("./scripts/mcp.sh", [], ["./scripts/mcp.sh"]),
        (
            "docker",
            ["run", "-i", "--env-file=.env", "-v", "./data:/data", "mcp/time"],
            ["--env-file=.env", "./data:/data"],
        ),
        ("uv", ["run", "--directory", "../srv", "server"], ["../srv"]),
        ("npx", ["-y", "@upstash/context7-mcp"], []),
        ("uvx", ["mcp-server-time", "--local-timezone=UTC"], []),
        ("node", ["${CLAUDE_PROJECT_DIR}/server.js", "/opt/srv/index.js"], []),
        ("uvx", ["--from", "git+https://example.com/x.git", "x"], []),
    ],
)
def test_relative_paths_are_the_ones_that_meant_the_workspace(
    command: str, args: list[str], relative: list[str]
) -> None:
    from bot.mcp.workdir import relative_paths

    assert relative_paths(command, args) == relative


def test_the_private_directory_may_not_lie_where_the_model_writes(tmp_path: Path) -> None:
    from bot.mcp.workdir import directory_problem

    workspace, extra = tmp_path / "ws", tmp_path / "extra"
    assert directory_problem(tmp_path / "private", workspace, [extra]) is None
    assert "inside the workspace" in str(directory_problem(workspace / "tmp" / "x", workspace))
    assert "lets the model write" in str(directory_problem(extra / "x", workspace, [extra]))
