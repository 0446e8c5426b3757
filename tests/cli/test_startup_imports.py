"""Commands that never talk to the model or fetch a page do not import the model SDK, nor the HTML
and PDF/image libraries, nor Rich (help is plain): each runs in a fresh interpreter and reports
what ``sys.modules`` holds. The help and a Read do not load the Bash analysis either (its parser,
tree-sitter) nor what runs a hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

#: The model SDK (1.5 s to import), the libraries only WebFetch (HTML) and Read of a PDF or an
#: image need, and Rich (only typer's fancy help would use it).
HEAVY = ("anthropic", "bs4", "markdownify", "soupsieve", "pypdf", "PIL", "rich")
#: What only the Bash tool, a policy check of a command, or a hook that runs needs: the parser
#: (tree-sitter and ours), the command judge, wrappers, the sandbox and the hook executor's confinement.
SHELL_ANALYSIS = (
    "tree_sitter",
    "tree_sitter_bash",
    "bot.shell.parse",
    "bot.shell.judge",
    "bot.shell.launch",
    "bot.shell.sandbox",
    "bot.shell.execute.confine",
    "bot.tools.bash",
)

PROBE = """
import json, sys
HEAVY = sys.argv[2]
sys.argv = ["bot", *json.loads(sys.argv[1])]
from bot.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
wanted = json.loads(HEAVY)
heavy = sorted({w for w in wanted for name in sys.modules if name == w or name.startswith(w + ".")})
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def imported_by(args: list[str], cwd: Path, watched: Sequence[str] = HEAVY) -> tuple[object, list[str]]:
    """(exit code, which of the ``watched`` modules or packages were imported) of ``bot ARGS`` in a
    fresh interpreter."""
    # PATH finds git and rg for the commands that look for them; HOME is where nothing is read from
    # (the test's own directory); nothing else of the test runner's environment goes in.
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(list(watched))],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], report["heavy"]


@pytest.mark.parametrize(
    ("description", "args"),
    [
        ("the help", ["--help"]),
        ("a subcommand's help", ["run", "--help"]),
        ("the tool pool", ["tools", "list"]),
        ("the tool pool as JSON Schemas", ["tools", "list", "--json"]),
        ("one policy check", ["policy", "check", "Read", '{"file_path": "hello.txt"}', "--preset", "read-only"]),
        (
            "one policy check of a web fetch",
            ["policy", "check", "WebFetch", '{"url": "https://example.com", "prompt": "p"}', "--preset", "read-only"],
        ),
        ("a Read of a text file", ["tools", "call", "Read", '{"file_path": "hello.txt"}', "--allow", "Read"]),
    ],
)
def test_a_command_that_needs_no_model_imports_no_sdk_and_no_html_or_pdf_library(
    tmp_path: Path, description: str, args: list[str]
) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    code, heavy = imported_by(args, tmp_path)
    assert code in (0, None), f"{description}: exit {code}"
    assert heavy == [], f"{description} imported {heavy}"


@pytest.mark.parametrize(
    ("description", "args"),
    [
        ("the help", ["--help"]),
        ("the help of tools call", ["tools", "call", "--help"]),
        ("a Read of a text file", ["tools", "call", "Read", '{"file_path": "hello.txt"}', "--allow", "Read"]),
        ("a Glob", ["tools", "call", "Glob", '{"pattern": "*.txt"}', "--allow", "Glob"]),
    ],
)
def test_the_help_and_a_file_tool_call_load_no_bash_analysis_and_no_hook_execution(
    tmp_path: Path, description: str, args: list[str]
) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    code, loaded = imported_by(args, tmp_path, SHELL_ANALYSIS)
    assert code in (0, None), f"{description}: exit {code}"
    assert loaded == [], f"{description} imported {loaded}"


#: The Bash analysis proper: what only a command to judge needs (the pool's Bash tool does not), and
#: the sandbox's code, which loads with the first command or a run's sandbox self-test.
COMMAND_ANALYSIS = (
    "tree_sitter",
    "tree_sitter_bash",
    "bot.shell.parse",
    "bot.shell.judge",
    "bot.shell.paths",
    "bot.shell.sandbox",
)


@pytest.mark.parametrize(
    ("description", "args"),
    [
        ("the tool pool", ["tools", "list"]),
        ("the tool pool as JSON Schemas", ["tools", "list", "--json"]),
        ("one policy check of a Read", ["policy", "check", "Read", '{"file_path": "hello.txt"}', "--preset", "fix"]),
    ],
)
def test_listing_the_pool_and_checking_a_file_call_parse_no_command(
    tmp_path: Path, description: str, args: list[str]
) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    code, loaded = imported_by(args, tmp_path, COMMAND_ANALYSIS)
    assert code in (0, 1, None), f"{description}: exit {code}"
    assert loaded == [], f"{description} imported {loaded}"


def test_the_probe_does_see_the_bash_analysis_when_a_command_is_checked(tmp_path: Path) -> None:
    """The checks above can fail: a Bash call under a rule naming the command parses it."""
    code, loaded = imported_by(
        ["tools", "call", "Bash", '{"command": "ls"}', "--allow", "Bash(ls)", "--deny", "Bash(ls)"],
        tmp_path,
        COMMAND_ANALYSIS,
    )
    assert code in (0, None)
    assert {"tree_sitter", "bot.shell.parse", "bot.shell.judge"} <= set(loaded)


def test_the_probe_does_see_the_sandbox_when_a_command_runs(tmp_path: Path) -> None:
    """The check above can fail: a command that runs loads the sandbox's code."""
    code, loaded = imported_by(
        ["tools", "call", "Bash", '{"command": "true"}', "--allow", "Bash(true)"], tmp_path, COMMAND_ANALYSIS
    )
    assert code in (0, None)
    assert "bot.shell.sandbox" in loaded


def test_the_probe_does_see_a_heavy_import(tmp_path: Path) -> None:
    """The check above can fail: a Read of a PDF does need pypdf, and the probe sees it."""
    (tmp_path / "page.pdf").write_bytes(b"%PDF-1.4 not really\n")
    _, heavy = imported_by(["tools", "call", "Read", '{"file_path": "page.pdf"}', "--allow", "Read"], tmp_path)
    assert "pypdf" in heavy


def test_building_the_anthropic_client_does_not_load_the_model_sdk(tmp_path: Path) -> None:
    """It loads while the first request is on its way (tests/agent/test_first_request.py)."""
    probe = (
        "import sys\n"
        "import bot.agent.client as client\n"
        "before = 'anthropic' in sys.modules\n"
        "client.make_model_client(client.ProviderConfig(api_key='sk-ant-test-' + 'x' * 24))\n"
        "print(before, 'anthropic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["False", "False"]


def test_reading_an_mcp_config_does_not_import_the_mcp_sdk_and_every_public_name_resolves(tmp_path: Path) -> None:
    """A run's preflight parses MCP configs (and a run without MCP servers never connects one): the
    package's names load on first use, so the parse costs no SDK import (over a second)."""
    probe = (
        "import sys\n"
        "from bot.mcp import config_from_policy, parse_mcp_config\n"
        "before = 'mcp' in sys.modules or 'bot.mcp.manager' in sys.modules\n"
        "import bot.mcp\n"
        "missing = [n for n in bot.mcp.__all__ if getattr(bot.mcp, n, None) is None]\n"
        "print(before, 'mcp' in sys.modules, missing)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["False", "True", "[]"]


#: What a Read through ``bot tools call`` under rule flags alone needs none of: the model SDK, the MCP
#: SDK and our MCP bridge, the other built-ins' modules (each brings its own dependencies), the
#: policy schema and the policy-file stack (no ``--policy``), the hook runner (no hooks without a
#: policy), the run's orchestration, and ``pathspec`` (no rule names a path to glob).
NOT_FOR_A_READ = (
    "anthropic",
    "mcp",
    "bot.mcp.manager",
    "bot.mcp.session",
    "bot.agent",
    "bot.orchestration",
    "bot.local",
    "bot.tools.bash",
    "bot.tools.web_fetch",
    "bot.tools.grep",
    "bot.tools.glob",
    "bot.tools.edit",
    "bot.tools.agent_tool",
    "bot.permissions.stack",
    "bot.permissions.schema",
    "bot.permissions.settings_model",
    "bot.runtime.hook_runner",
    "bot.runtime.hook_exec",
    "pathspec",
    *HEAVY,
)

READ_CALL = ["tools", "call", "Read", '{"file_path": "hello.txt"}', "--allow", "Read"]


def test_a_read_through_tools_call_imports_the_read_tool_alone_and_no_policy_file_machinery(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    code, loaded = imported_by(READ_CALL, tmp_path, (*NOT_FOR_A_READ, "bot.tools.read"))
    assert code in (0, None)
    assert loaded == ["bot.tools.read"], f"a Read imported {[m for m in loaded if m != 'bot.tools.read']}"


def test_the_probe_does_see_the_policy_stack_when_a_read_names_a_policy(tmp_path: Path) -> None:
    """The check above can fail: the same Read under ``--policy read-only`` loads the policy stack."""
    (tmp_path / "hello.txt").write_text("hello\n")
    code, loaded = imported_by([*READ_CALL, "--policy", "read-only"], tmp_path, NOT_FOR_A_READ)
    assert code in (0, None)
    assert {"bot.permissions.stack", "bot.permissions.settings_model"} <= set(loaded)
    assert "pathspec" in loaded  # the preset's Read(.env) deny rules are globs


@pytest.mark.parametrize(
    ("description", "args"),
    [
        ("the tool pool", ["tools", "list"]),
        (
            "one policy check under a JSON preset",
            ["policy", "check", "Read", '{"file_path": "hello.txt"}', "--preset", "fix"],
        ),
        ("a Read of a text file", READ_CALL),
    ],
)
def test_a_command_that_reads_no_yaml_file_does_not_import_pyyaml(
    tmp_path: Path, description: str, args: list[str]
) -> None:
    """PyYAML (some 10 ms with its regular expressions) loads with the first YAML file read
    (bot.core.bounded_yaml), not with the JSON and TOML readers every command imports."""
    (tmp_path / "hello.txt").write_text("hello\n")
    code, loaded = imported_by(args, tmp_path, ("yaml",))
    assert code in (0, 1, None), f"{description}: exit {code}"
    assert loaded == [], f"{description} imported {loaded}"


def test_the_probe_does_see_pyyaml_when_a_yaml_policy_is_read(tmp_path: Path) -> None:
    """The check above can fail: a policy file in YAML does load it."""
    (tmp_path / "hello.txt").write_text("hello\n")
    (tmp_path / "policy.yml").write_text("permissions:\n  allow: [Read]\n")
    args = ["policy", "check", "Read", '{"file_path": "hello.txt"}', "--policy", str(tmp_path / "policy.yml")]
    _, loaded = imported_by(args, tmp_path, ("yaml",))
    assert loaded == ["yaml"]
