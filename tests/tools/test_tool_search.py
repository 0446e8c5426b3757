from __future__ import annotations

import anyio
import pytest

from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import AnyTool, Tool, ToolInput, ToolResult
from bot.tools.tool_search import TOOL_SEARCH_SERVICE, DeferredTools, ToolSearchTool, search_tools
from tests.agent.test_deferred_tools import TrackerTool

TOOL = ToolSearchTool()


class NoInput(ToolInput):
    pass


class _Described(Tool[NoInput, str]):
    input_model = NoInput

    async def call(self, input: NoInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        return ToolResult("ok")


def deferred(name: str, doc: str, hint: str | None = None) -> AnyTool:
    cls = type(name, (_Described,), {"__doc__": doc, "name": name, "should_defer": True, "search_hint": hint})
    tool: AnyTool = cls()
    return tool


SLACK_SEND = deferred("mcp__slack__send_message", "Send a message to a Slack channel.", "chat post notify")
SLACK_LIST = deferred("mcp__slack__list_channels", "List the Slack channels.")
NOTEBOOK = deferred("NotebookEdit", "Edit a cell of a Jupyter notebook.", "notebook jupyter ipynb cell")
GITHUB = deferred("mcp__github__create_issue", "Create an issue in a GitHub repository.", "ticket bug")
POOL: list[AnyTool] = [SLACK_SEND, SLACK_LIST, NOTEBOOK, GITHUB, TrackerTool()]


@pytest.mark.parametrize(
    ("case", "query", "matches"),
    [
        (
            "select by exact names",
            "select:NotebookEdit,mcp__slack__list_channels",
            ("NotebookEdit", "mcp__slack__list_channels"),
        ),
        ("select ignores case and spaces", "select: notebookedit ", ("NotebookEdit",)),
        ("keywords rank name words first", "notebook", ("NotebookEdit",)),
        ("the search hint counts", "jupyter", ("NotebookEdit",)),
        ("several keywords add up", "slack send", ("mcp__slack__send_message", "mcp__slack__list_channels")),
        ("+prefix keeps only names containing it", "+slack channels", ("mcp__slack__list_channels",)),
        ("+prefix alone lists that server's tools", "+github", ("mcp__github__create_issue",)),
        ("parameter descriptions are searched", "wrong", ("mcp__tracker__create_ticket",)),
        ("nothing matches", "kubernetes", ()),
    ],
)
def test_search(case: str, query: str, matches: tuple[str, ...]) -> None:
    assert search_tools(query, POOL).matches == matches, case


def test_select_reports_unknown_names() -> None:
    result = search_tools("select:NotebookEdit,Nope", POOL)
    assert result.matches == ("NotebookEdit",) and result.unknown == ("Nope",)


def test_ties_are_broken_by_name_so_results_are_stable() -> None:
    assert search_tools("slack", POOL).matches == ("mcp__slack__list_channels", "mcp__slack__send_message")


def run(context: ToolUseContext, query: str) -> object:
    async def main() -> object:
        result = await TOOL.call(TOOL.parse_input({"query": query}), context, Progress("t", "ToolSearch"))
        return TOOL.map_result(result.data)

    return anyio.run(main)


def test_server_side_results_are_tool_references_and_discoveries_are_recorded(context: ToolUseContext) -> None:
    context = context.with_(tools=(TOOL, *POOL))
    context.services[TOOL_SEARCH_SERVICE] = state = DeferredTools(server_side=True)
    assert run(context, "jupyter") == [{"type": "tool_reference", "tool_name": "NotebookEdit"}]
    assert state.discovered == ["NotebookEdit"]


def test_client_side_results_are_text_and_only_deferred_tools_are_searched(context: ToolUseContext) -> None:
    context = context.with_(tools=(TOOL, *POOL))
    context.services[TOOL_SEARCH_SERVICE] = DeferredTools(server_side=False)
    text = run(context, "select:NotebookEdit,Nope")
    assert isinstance(text, str) and "- NotebookEdit: Edit a cell" in text and "Unknown names: Nope" in text


def test_select_of_a_loaded_tool_confirms_it_is_loaded(context: ToolUseContext) -> None:
    from bot.tools.read import ReadTool

    context = context.with_(tools=(TOOL, ReadTool(), *POOL))
    context.services[TOOL_SEARCH_SERVICE] = DeferredTools(server_side=True)
    assert run(context, "select:Read") == "Already loaded (call directly, no search needed): Read."
    mixed = run(context, "select:Read,NotebookEdit,ToolSearch")
    assert isinstance(mixed, list)
    assert "Already loaded (call directly, no search needed): Read, ToolSearch." in mixed[0]["text"]
    assert mixed[1:] == [{"type": "tool_reference", "tool_name": "NotebookEdit"}]
    assert "Unknown" not in mixed[0]["text"]


def test_select_of_loaded_and_unknown_names_says_both() -> None:
    from bot.tools.read import ReadTool

    result = search_tools("select:read,Nope", POOL, loaded=[ReadTool()])
    assert result.already_loaded == ("Read",) and result.unknown == ("Nope",) and result.matches == ()


def test_no_match_says_how_many_tools_are_deferred(context: ToolUseContext) -> None:
    context = context.with_(tools=(TOOL, *POOL))
    assert run(context, "kubernetes") == "No deferred tool matches 'kubernetes' (5 deferred tools)."
