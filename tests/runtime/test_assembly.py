"""Tool-pool assembly (seeds 4.2): filters, partitioned sort, built-ins win name clashes."""

from __future__ import annotations

from typing import ClassVar

import pytest

from bot.interface.tool import AnyTool
from bot.runtime.assembly import assemble_tool_pool, get_tools
from bot.runtime.single_call import flag_permission_context
from bot.tools.registry import all_base_tools
from tests.runtime.fakes import EchoTool


def mcp_tool(name: str) -> AnyTool:
    cls = type(name, (EchoTool,), {"name": name, "is_mcp": True, "aliases": ()})
    return cls()  # type: ignore[no-any-return]


def names(tools: list[AnyTool]) -> list[str]:
    return [t.name for t in tools]


def base() -> list[AnyTool]:
    return [mcp_tool(n) for n in ("Read", "Bash", "Edit", "Grep", "Glob")]


def test_all_base_tools_is_the_single_source_and_has_unique_names() -> None:
    tools = all_base_tools()
    assert len(set(names(tools))) == len(tools)
    assert {"Read", "Glob"} <= set(names(tools))


def test_simple_mode_keeps_only_bash_read_edit() -> None:
    perm = flag_permission_context([], [], [])
    from dataclasses import replace

    assert sorted(names(get_tools(replace(perm, simple_mode=True), base()))) == ["Bash", "Edit", "Read"]


def test_a_blanket_deny_removes_the_tool_before_the_model_sees_it() -> None:
    perm = flag_permission_context([], ["Bash"], [])
    assert "Bash" not in names(get_tools(perm, base()))


def test_a_content_deny_does_not_remove_the_tool() -> None:
    perm = flag_permission_context([], ["Bash(rm:*)"], [])
    assert "Bash" in names(get_tools(perm, base()))


def test_disabled_tools_are_filtered() -> None:
    class Off(EchoTool):
        name = "Off"
        aliases: ClassVar[tuple[str, ...]] = ()

        def is_enabled(self) -> bool:
            return False

    perm = flag_permission_context([], [], [])
    assert "Off" not in names(get_tools(perm, [*base(), Off()]))


def test_builtins_form_a_sorted_prefix_and_mcp_tools_a_sorted_suffix() -> None:
    perm = flag_permission_context([], [], [])
    mcp = [mcp_tool("mcp__b__x"), mcp_tool("mcp__a__y")]
    pool = assemble_tool_pool(perm, mcp, base())
    assert names(pool) == ["Bash", "Edit", "Glob", "Grep", "Read", "mcp__a__y", "mcp__b__x"]


def test_adding_an_mcp_tool_never_changes_the_builtin_prefix() -> None:
    perm = flag_permission_context([], [], [])
    before = names(assemble_tool_pool(perm, [mcp_tool("mcp__a__y")], base()))
    # A name that would sort between built-ins if the sort were global ("Glob" < "H..." < "Read").
    after = names(assemble_tool_pool(perm, [mcp_tool("mcp__a__y"), mcp_tool("Hmm")], base()))
    assert after[:5] == before[:5] == ["Bash", "Edit", "Glob", "Grep", "Read"]
    assert after[5:] == ["Hmm", "mcp__a__y"]


def test_a_builtin_wins_a_name_clash_with_an_mcp_tool() -> None:
    perm = flag_permission_context([], [], [])
    impostor = mcp_tool("Read")
    pool = assemble_tool_pool(perm, [impostor], base())
    assert names(pool).count("Read") == 1
    assert next(t for t in pool if t.name == "Read") is not impostor


def test_an_mcp_server_deny_removes_all_its_tools() -> None:
    mcp = [mcp_tool("mcp__github__create_issue"), mcp_tool("mcp__github__list"), mcp_tool("mcp__time__now")]
    for rule in ("mcp__github", "mcp__github__*"):
        pool = assemble_tool_pool(flag_permission_context([], [rule], []), mcp, base())
        assert [n for n in names(pool) if n.startswith("mcp__")] == ["mcp__time__now"], rule
    pool = assemble_tool_pool(flag_permission_context([], ["mcp__github__list"], []), mcp, base())
    assert [n for n in names(pool) if n.startswith("mcp__")] == ["mcp__github__create_issue", "mcp__time__now"]


@pytest.mark.parametrize(
    ("description", "value", "simple"),
    [
        ("1 switches it on", "1", True),
        ("true, any case", "TRUE", True),
        ("yes", "yes", True),
        ("0 leaves it off", "0", False),
        ("false leaves it off", "false", False),
        ("empty leaves it off", "", False),
    ],
)
def test_claude_code_simple_switches_simple_mode_on(description: str, value: str, simple: bool) -> None:
    perm = flag_permission_context([], [], [])
    pool = names(assemble_tool_pool(perm, base_tools=all_base_tools(), environ={"CLAUDE_CODE_SIMPLE": value}))
    assert (pool == ["Bash", "Edit", "Read"]) is simple, (description, pool)


def test_simple_mode_keeps_mcp_tools_and_tool_search_when_one_is_deferred() -> None:
    perm = flag_permission_context([], [], [])
    plain = mcp_tool("mcp__time__now")
    attributes = {"name": "mcp__tracker__create", "is_mcp": True, "should_defer": True}
    deferred: AnyTool = type("mcp__tracker__create", (EchoTool,), attributes)()
    environ = {"CLAUDE_CODE_SIMPLE": "1"}
    assert names(assemble_tool_pool(perm, [plain], all_base_tools(), environ=environ)) == [
        "Bash",
        "Edit",
        "Read",
        "mcp__time__now",
    ]
    assert names(assemble_tool_pool(perm, [plain, deferred], all_base_tools(), environ=environ)) == [
        "Bash",
        "Edit",
        "Read",
        "ToolSearch",
        "mcp__time__now",
        "mcp__tracker__create",
    ]


def test_bot_tools_list_honours_claude_code_simple() -> None:
    import json

    from typer.testing import CliRunner

    from bot.cli import app

    result = CliRunner().invoke(app, ["tools", "list", "--json"], env={"CLAUDE_CODE_SIMPLE": "1"})
    assert result.exit_code == 0, result.output
    assert [t["name"] for t in json.loads(result.stdout)] == ["Bash", "Edit", "Read"]
