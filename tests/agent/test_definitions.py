from __future__ import annotations

from pathlib import Path

import pytest

from bot.agent.definitions import (
    BUILTIN_AGENTS,
    EXPLORE,
    GENERAL_PURPOSE,
    AgentDefinition,
    find_definition,
    load_agent_definitions,
    merge_definitions,
    parse_agent_file,
    resolve_model,
    stricter_mode,
)
from bot.errors import ConfigError
from bot.tools.registry import all_base_tools

GENERAL = find_definition(BUILTIN_AGENTS, None)
EXPLORER = find_definition(BUILTIN_AGENTS, EXPLORE)


def test_the_built_ins_are_a_general_agent_and_a_read_only_explorer() -> None:
    assert GENERAL is not None and GENERAL.agent_type == GENERAL_PURPOSE
    assert EXPLORER is not None and EXPLORER.permission_mode == "plan"
    explorer_tools = {t.name for t in EXPLORER.filter_tools(all_base_tools())}
    assert {"Read", "Glob", "Grep"} <= explorer_tools
    assert not {"Edit", "Write", "NotebookEdit", "Agent"} & explorer_tools


def test_no_definition_ever_gets_the_agent_tool() -> None:
    everything = AgentDefinition("all", "d", "p", tools=("*",))
    assert "Agent" not in {t.name for t in everything.filter_tools(all_base_tools())}
    listed = AgentDefinition("listed", "d", "p", tools=("Read", "Agent"))
    assert [t.name for t in listed.filter_tools(all_base_tools())] == ["Read"]


@pytest.mark.parametrize(
    ("case", "call", "definition_model", "model"),
    [
        ("the call's model wins", "opus", "haiku", "claude-opus-5-5"),
        ("then the definition's", None, "haiku", "claude-haiku-5-5"),
        ("inherit means the parent's", None, "inherit", "claude-parent"),
        ("nothing given: the parent's", None, None, "claude-parent"),
        ("a full model id passes through", None, "claude-sonnet-4-5", "claude-sonnet-4-5"),
    ],
)
def test_the_model_chain(case: str, call: str | None, definition_model: str | None, model: str) -> None:
    definition = AgentDefinition("x", "d", "p", model=definition_model)
    assert resolve_model(call, definition, "claude-parent") == model, case


@pytest.mark.parametrize(
    ("case", "parent", "requested", "result"),
    [
        ("no request keeps the parent's", "acceptEdits", None, "acceptEdits"),
        ("plan is stricter than anything", "bypassPermissions", "plan", "plan"),
        ("a looser mode is ignored", "default", "bypassPermissions", "default"),
        ("a looser mode is ignored under plan", "plan", "acceptEdits", "plan"),
    ],
)
def test_a_sub_agent_never_has_a_looser_mode(case: str, parent: str, requested: str | None, result: str) -> None:
    assert stricter_mode(parent, requested) == result, case  # type: ignore[arg-type]


AGENT_FILE = """---
name: test-runner
description: Runs the test suite and reports failures
tools: Read, Grep, Bash
model: haiku
maxTurns: 12
---
You run tests. Report failing tests with their output.
"""


def test_a_claude_code_agent_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "test-runner.md").write_text(AGENT_FILE)
    [definition] = load_agent_definitions(tmp_path)
    assert definition.agent_type == "test-runner" and definition.tools == ("Read", "Grep", "Bash")
    assert definition.model == "haiku" and definition.max_turns == 12
    assert definition.prompt == "You run tests. Report failing tests with their output."
    assert definition.source.endswith("test-runner.md")


@pytest.mark.parametrize(
    ("case", "text", "line", "message"),
    [
        ("no front matter", "just text\n", 1, "must start with YAML front matter"),
        ("unclosed", "---\nname: x\n", 1, "not closed"),
        ("no description", "---\nname: x\n---\nbody\n", 2, "missing required field `description`"),
        ("bad tools", "---\nname: x\ndescription: d\ntools: {a: 1}\n---\n", 4, "`tools` must be"),
        ("bad mode", "---\nname: x\ndescription: d\npermissionMode: yolo\n---\n", 4, "`permissionMode` must be"),
        ("bad YAML", "---\nname: [x\ndescription: d\n---\n", 3, "invalid YAML"),
    ],
)
def test_a_bad_agent_file_names_the_file_and_line(
    tmp_path: Path, case: str, text: str, line: int, message: str
) -> None:
    path = tmp_path / "bad.md"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        parse_agent_file(path)
    assert info.value.path == str(path) and info.value.line == line, case


def test_user_definitions_override_built_ins_of_the_same_type() -> None:
    mine = AgentDefinition(EXPLORE, "my explorer", "p")
    merged = merge_definitions(BUILTIN_AGENTS, [mine, AgentDefinition("zeta", "z", "p")])
    assert [d.agent_type for d in merged] == [GENERAL_PURPOSE, EXPLORE, "zeta"]
    assert find_definition(merged, "explore") is mine
