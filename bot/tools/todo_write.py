"""TodoWrite: the model's todo list (content, status, active form), replaced whole on every call.

Each agent has its own list (the main agent and each sub-agent), kept in the run's
:class:`TodoList` service. Every change is reported to the service's listener — the loop turns it
into a ``TodosChanged`` event, which the GitHub layer renders as a live checklist. As in Claude
Code, a list whose items are all completed is cleared.

Touches nothing but the run's memory: allowed without a rule (a deny rule still removes it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from bot.core.services import ServiceKey
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.decision import Allow, PermissionResult

TODO_SERVICE: ServiceKey[TodoList] = ServiceKey("todos")
TodoStatus = Literal["pending", "in_progress", "completed"]


class TodoItem(ToolInput):
    content: str = Field(min_length=1, description="What needs doing, imperative: 'Run the tests'")
    status: TodoStatus = Field(description="pending, in_progress or completed")
    # camelCase: the wire name models are trained on (Claude Code's TodoWrite).
    activeForm: str = Field(
        min_length=1, description="The same, as a present participle shown while it runs: 'Running the tests'"
    )


class TodoWriteInput(ToolInput):
    todos: list[TodoItem] = Field(description="The whole updated todo list")


@dataclass(frozen=True, slots=True)
class TodoUpdate:
    old: tuple[TodoItem, ...]
    new: tuple[TodoItem, ...]


TodoListener = Callable[[tuple[TodoItem, ...], str | None], None]


class TodoList:
    """The todo lists of a run, by agent (``None`` = the main agent)."""

    def __init__(self, listener: TodoListener | None = None) -> None:
        self._lists: dict[str | None, tuple[TodoItem, ...]] = {}
        self._listener = listener

    def get(self, agent_id: str | None = None) -> tuple[TodoItem, ...]:
        return self._lists.get(agent_id, ())

    def replace(self, agent_id: str | None, todos: tuple[TodoItem, ...]) -> TodoUpdate:
        old = self.get(agent_id)
        self._lists[agent_id] = todos
        if self._listener is not None and todos != old:
            self._listener(todos, agent_id)
        return TodoUpdate(old, todos)


def todo_list_of(context: ToolUseContext) -> TodoList:
    store = context.services.get(TODO_SERVICE)
    if not isinstance(store, TodoList):
        store = TodoList()
        context.services[TODO_SERVICE] = store
    return store


class TodoWriteTool(Tool[TodoWriteInput, TodoUpdate]):
    """Create and update a structured todo list for the current task: plan multi-step work, track
    progress, and show it. Send the whole list every time. Keep exactly one item in_progress while
    working; mark items completed as soon as they are done; add items you discover along the way.
    Skip the list for a single trivial step."""

    name = "TodoWrite"
    search_hint = "todo list plan tasks progress checklist track"
    input_model = TodoWriteInput
    always_load = True

    def is_read_only(self, input: TodoWriteInput) -> bool:
        return True  # changes the run's bookkeeping, never the workspace

    def is_destructive(self, input: TodoWriteInput) -> bool:
        return False

    async def check_permissions(self, input: TodoWriteInput, context: ToolUseContext) -> PermissionResult:
        return Allow("TodoWrite only updates the run's todo list", source="tool")

    async def call(self, input: TodoWriteInput, context: ToolUseContext, progress: Progress) -> ToolResult[TodoUpdate]:
        todos = tuple(input.todos)
        if todos and all(t.status == "completed" for t in todos):
            todos = ()
        return ToolResult(todo_list_of(context).replace(context.agent_id, todos))

    def map_result(self, output: TodoUpdate) -> str:
        return (
            "Todos have been modified successfully. Ensure that you continue to use the todo list to "
            "track your progress. Please proceed with the current tasks if applicable"
        )

    def summarize_input(self, input: TodoWriteInput) -> str:
        done = sum(t.status == "completed" for t in input.todos)
        return f"{done}/{len(input.todos)} done"

    def observable_input(self, input: TodoWriteInput, context: ToolUseContext) -> dict[str, Any]:
        return input.model_dump(mode="json")
