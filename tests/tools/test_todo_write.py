from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress
from bot.interface.tool import InputSchemaError
from bot.permissions.decision import Allow
from bot.tools.todo_write import TODO_SERVICE, TodoItem, TodoList, TodoWriteTool

TOOL = TodoWriteTool()
Changes = list[tuple[tuple[TodoItem, ...], str | None]]


def item(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": content + "ing"}


def write(context: ToolUseContext, *todos: dict[str, str]) -> str:
    async def main() -> str:
        result = await TOOL.call(TOOL.parse_input({"todos": list(todos)}), context, Progress("t", "TodoWrite"))
        return str(TOOL.map_result(result.data))

    return anyio.run(main)


@pytest.fixture
def changes(context: ToolUseContext) -> list[tuple[tuple[TodoItem, ...], str | None]]:
    seen: list[tuple[tuple[TodoItem, ...], str | None]] = []
    context.services[TODO_SERVICE] = TodoList(lambda todos, agent: seen.append((todos, agent)))
    return seen


def test_each_write_replaces_the_list_and_tells_the_listener(context: ToolUseContext, changes: Changes) -> None:
    write(context, item("Read", "in_progress"), item("Fix", "pending"))
    text = write(context, item("Read", "completed"), item("Fix", "in_progress"))

    assert text.startswith("Todos have been modified successfully")
    assert [[t.status for t in todos] for todos, _ in changes] == [
        ["in_progress", "pending"],
        ["completed", "in_progress"],
    ]
    assert changes[0][1] is None


def test_an_unchanged_list_is_not_reported_again(context: ToolUseContext, changes: Changes) -> None:
    write(context, item("Read", "pending"))
    write(context, item("Read", "pending"))
    assert len(changes) == 1


def test_a_list_with_everything_completed_is_cleared(context: ToolUseContext, changes: Changes) -> None:
    write(context, item("Read", "in_progress"))
    write(context, item("Read", "completed"))
    assert changes[-1][0] == ()


def test_each_agent_has_its_own_list(workspace: Path, tmp_path: Path, changes: Changes) -> None:
    main = make_context(workspace, scratch_dir=tmp_path / "s")
    main.services[TODO_SERVICE] = store = TodoList()
    sub = main.with_(agent_id="a1")
    write(main, item("Plan", "pending"))
    write(sub, item("Search", "in_progress"))
    assert [t.content for t in store.get(None)] == ["Plan"] and [t.content for t in store.get("a1")] == ["Search"]


@pytest.mark.parametrize(
    ("case", "raw"),
    [
        ("an unknown status", {"todos": [{"content": "x", "status": "done", "activeForm": "x"}]}),
        ("no active form", {"todos": [{"content": "x", "status": "pending"}]}),
        ("empty content", {"todos": [{"content": "", "status": "pending", "activeForm": "x"}]}),
        ("an extra key", {"todos": [], "id": 3}),
    ],
)
def test_malformed_lists_are_refused(case: str, raw: dict[str, object]) -> None:
    with pytest.raises(InputSchemaError):
        TOOL.parse_input(raw)


def test_it_needs_no_rule_and_is_allowed_in_plan_mode(context: ToolUseContext) -> None:
    parsed = TOOL.parse_input({"todos": []})
    assert isinstance(anyio.run(TOOL.check_permissions, parsed, context), Allow)
    assert TOOL.is_read_only(parsed) and not TOOL.is_concurrency_safe(parsed) and TOOL.always_load
