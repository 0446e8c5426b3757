"""The built-in tool table names each tool's module; these keep the table and the classes agreeing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.tools.registry import BUILTIN_TOOLS, all_base_tools, base_tools_for


def test_every_entry_names_the_class_s_own_name_and_aliases() -> None:
    for entry, tool in zip(BUILTIN_TOOLS, all_base_tools(), strict=True):
        assert (entry.name, entry.aliases) == (tool.name, tool.aliases)


def test_names_and_aliases_are_unique() -> None:
    spelled = [n for e in BUILTIN_TOOLS for n in (e.name, *e.aliases)]
    assert len(spelled) == len(set(spelled))


@pytest.mark.parametrize(
    ("called", "expected"),
    [
        ("a built-in by name is pooled alone", ("Read", ["Read"])),
        ("an alias finds its tool", ("FileEdit", ["Edit"])),
    ],
)
def test_a_call_of_one_tool_pools_that_tool(called: str, expected: tuple[str, list[str]]) -> None:
    name, names = expected
    assert [t.name for t in base_tools_for(name)] == names


@pytest.mark.parametrize("name", ["ToolSearch", "Agent", "Task", "mcp__server__tool", "NoSuchTool"])
def test_tools_that_read_the_pool_and_unknown_names_get_every_built_in(name: str) -> None:
    assert len(base_tools_for(name)) == len(BUILTIN_TOOLS)


def test_loading_read_alone_does_not_import_the_shell_analysis_or_web_libraries() -> None:
    code = (
        "import sys\n"
        "from bot.tools.registry import base_tools_for\n"
        "base_tools_for('Read')\n"
        "heavy = ('bot.tools.bash', 'bot.shell.judge.decide', 'bot.tools.web_fetch')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PATH": ""})
    assert out.stdout.strip() == ""
