"""The MCP configuration: Claude Code's .mcp.json, ${VAR} expansion, errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.errors import ConfigError
from bot.mcp.config import (
    HttpTransport,
    McpConfig,
    SseTransport,
    StdioTransport,
    UnsupportedTransport,
    expand_env,
    load_mcp_config,
    parse_mcp_config,
)
from tests.mcp.conftest import MCP_FIXTURES


def one(entry: dict[str, Any], environ: dict[str, str] | None = None) -> Any:
    return parse_mcp_config({"mcpServers": {"s": entry}}, source="x.json", environ=environ or {}).servers[0]


@pytest.mark.parametrize(
    ("description", "entry", "expected"),
    [
        ("a command without a type is stdio", {"command": "uvx", "args": ["pkg"]}, StdioTransport("uvx", ("pkg",), {})),
        (
            "an explicit stdio type with env",
            {"type": "stdio", "command": "node", "env": {"A": "1"}},
            StdioTransport("node", (), {"A": "1"}),
        ),
        (
            "a url without a type is streamable HTTP (the seeds' remote-server example)",
            {"url": "https://example.com/mcp"},
            HttpTransport("https://example.com/mcp", {}),
        ),
        (
            "http with headers",
            {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
            HttpTransport("http://127.0.0.1:9/mcp", {"X": "y"}),
        ),
        ("sse", {"type": "sse", "url": "http://h/sse"}, SseTransport("http://h/sse", {})),
        (
            "Claude Code's ws transport is kept, to be reported as unsupported",
            {"type": "ws", "url": "ws://h"},
            UnsupportedTransport("ws"),
        ),
    ],
)
def test_each_transport_is_read_from_its_entry(description: str, entry: dict[str, Any], expected: Any) -> None:
    assert one(entry).transport == expected


@pytest.mark.parametrize(
    ("description", "value", "environ", "expanded", "missing"),
    [
        ("a set variable", "${A}", {"A": "1"}, "1", []),
        ("inside a string", "Bearer ${TOKEN}!", {"TOKEN": "t"}, "Bearer t!", []),
        ("a default when unset", "${PORT:-8080}", {}, "8080", []),
        ("the value wins over the default", "${PORT:-8080}", {"PORT": "9"}, "9", []),
        ("an unset variable is left as written and reported", "${NOPE}", {}, "${NOPE}", ["NOPE"]),
        ("an empty value counts as set", "${E}", {"E": ""}, "", []),
        ("not a variable name: untouched", "${not a var}", {}, "${not a var}", []),
        ("$VAR without braces is not expanded", "$HOME", {"HOME": "/h"}, "$HOME", []),
    ],
)
def test_env_expansion(
    description: str, value: str, environ: dict[str, str], expanded: str, missing: list[str]
) -> None:
    seen: list[str] = []
    assert expand_env(value, environ, seen) == expanded
    assert seen == missing


def test_variables_expand_in_command_args_env_url_and_headers_only_where_named() -> None:
    environ = {"BIN": "/opt/srv", "ARG": "--fast", "KEY": "sekret", "HOST": "h.example"}
    stdio = one({"command": "${BIN}", "args": ["${ARG}"], "env": {"API_KEY": "${KEY}"}}, environ)
    assert stdio.transport == StdioTransport("/opt/srv", ("--fast",), {"API_KEY": "sekret"})
    http = one({"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${KEY}"}}, environ)
    assert http.transport == HttpTransport("https://h.example/mcp", {"Authorization": "Bearer sekret"})
    # What may be printed is the entry as written, never the expanded secret.
    assert "sekret" not in stdio.display + http.display
    assert http.display == "https://${HOST}/mcp"


def test_an_unset_variable_marks_the_server_not_the_file() -> None:
    server = one({"command": "srv", "env": {"K": "${MISSING_ONE}", "L": "${MISSING_TWO}"}})
    assert server.missing_env == ("MISSING_ONE", "MISSING_TWO")


@pytest.mark.parametrize(
    ("description", "entry", "field", "value"),
    [
        ("trusted", {"command": "x", "trusted": True}, "trusted", True),
        ("untrusted by default", {"command": "x"}, "trusted", False),
        ("disabled", {"command": "x", "disabled": True}, "disabled", True),
        ("a startup timeout", {"command": "x", "startupTimeoutSec": 2.5}, "startup_timeout_s", 2.5),
        ("a tool timeout", {"command": "x", "toolTimeoutSec": 10}, "tool_timeout_s", 10.0),
    ],
)
def test_our_extensions_are_read(description: str, entry: dict[str, Any], field: str, value: Any) -> None:
    assert getattr(one(entry), field) == value


@pytest.mark.parametrize(
    ("description", "document", "message"),
    [
        ("not an object", [], "must be a JSON object"),
        ("no mcpServers", {"servers": {}}, 'no "mcpServers"'),
        ("mcpServers not an object", {"mcpServers": []}, '"mcpServers" must be an object'),
        ("an entry that is not an object", {"mcpServers": {"a": "node x"}}, "'a': the entry must be an object"),
        ("neither command nor url", {"mcpServers": {"a": {"args": []}}}, 'needs a "command"'),
        ("args not strings", {"mcpServers": {"a": {"command": "x", "args": [1]}}}, '"args" must be an array'),
        ("env values not strings", {"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}, '"env" must be'),
        ("an empty command", {"mcpServers": {"a": {"command": " "}}}, '"command" must be a non-empty string'),
        ("an unknown type", {"mcpServers": {"a": {"type": "grpc", "url": "x"}}}, "unknown \"type\" 'grpc'"),
        ("a url that is not http", {"mcpServers": {"a": {"type": "http", "url": "file:///x"}}}, "http:// or https://"),
        ("trusted not a boolean", {"mcpServers": {"a": {"command": "x", "trusted": "yes"}}}, '"trusted" must be true'),
        ("a zero timeout", {"mcpServers": {"a": {"command": "x", "toolTimeoutSec": 0}}}, "positive number"),
    ],
)
def test_a_malformed_config_is_a_config_error_that_names_the_file(
    description: str, document: Any, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        parse_mcp_config(document, source="policy/mcp.json", environ={})
    assert str(err.value).startswith("policy/mcp.json")
    assert message in str(err.value)


def test_a_file_error_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text('{\n  "mcpServers": {\n    "ok": {"command": "a"},\n    "bad": {"command": 3}\n  }\n}\n')
    with pytest.raises(ConfigError) as err:
        load_mcp_config(path, environ={})
    assert err.value.path == str(path) and err.value.line == 4
    assert "'bad'" in str(err.value)
    path.write_text('{"mcpServers": {\n  "a": {"command": "x",}\n}}')
    with pytest.raises(ConfigError) as err:
        load_mcp_config(path)
    assert err.value.line == 2 and "invalid JSON" in str(err.value)
    with pytest.raises(ConfigError, match="no such file"):
        load_mcp_config(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("description", "file", "expected"),
    [
        (
            "modelcontextprotocol/servers: remote http",
            "modelcontextprotocol__servers.mcp.json",
            {"mcp-docs": HttpTransport("https://modelcontextprotocol.io/mcp", {})},
        ),
        (
            "trailofbits: npx servers, one with an env key",
            "trailofbits__claude-code-config__mcp-template.json",
            {
                "context7": StdioTransport("npx", ("-y", "@upstash/context7-mcp"), {}),
                "exa": StdioTransport("npx", ("-y", "exa-mcp-server"), {"EXA_API_KEY": "your-exa-api-key-here"}),
            },
        ),
        (
            "disler: uvx with env",
            "disler__claude-code-hooks-mastery.mcp.json.sample",
            {"ElevenLabs": StdioTransport("uvx", ("elevenlabs-mcp",), {"ELEVENLABS_API_KEY": "<sample-api-key>"})},
        ),
    ],
)
def test_real_world_mcp_json_files_load(description: str, file: str, expected: dict[str, Any]) -> None:
    config = load_mcp_config(MCP_FIXTURES / file, environ={})
    assert {s.name: s.transport for s in config} == expected
    assert all(s.source == str(MCP_FIXTURES / file) for s in config)


def test_a_policy_files_block_parses_like_a_file_and_later_sources_win() -> None:
    policy = {"permissions": {"allow": ["Read"]}, "mcpServers": {"time": {"command": "a"}, "git": {"command": "g"}}}
    workflow = json.loads('{"mcpServers": {"time": {"command": "b", "trusted": true}}}')
    merged = parse_mcp_config(policy, source="policy.json").merged(parse_mcp_config(workflow, source="wf"))
    assert isinstance(merged, McpConfig)
    assert [(s.name, s.source) for s in merged] == [("git", "policy.json"), ("time", "wf")]
    assert merged.servers[1].trusted


def test_the_mcp_servers_of_a_policy_file_keep_their_file_and_line(tmp_path: Path) -> None:
    from bot.mcp.config import config_from_policy
    from bot.permissions.stack import PolicyLayer, load_policy_stack

    policy = tmp_path / "policy.json"
    policy.write_text(
        '{\n  "permissions": {"allow": ["mcp__time"]},\n  "mcpServers": {\n'
        '    "time": {"command": "mcp-server-time", "trusted": true},\n'
        '    "bad": {"command": ["not", "a", "string"]}\n  }\n}\n'
    )
    effective = load_policy_stack([PolicyLayer("flag", path=str(policy))])
    with pytest.raises(ConfigError) as err:
        config_from_policy(effective.mcp_servers, environ={})
    assert (err.value.path, err.value.line) == (str(policy), 5) and "'bad'" in str(err.value)
    good = {"time": effective.mcp_servers["time"]}
    (time,) = config_from_policy(good, environ={}).servers
    assert time.transport == StdioTransport("mcp-server-time") and time.trusted
    assert time.source == f"{policy}:4"
