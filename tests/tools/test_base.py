"""The Tool interface: fail-closed defaults, schema generation, coercion helpers."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.interface.messages import Progress
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.decision import Passthrough
from bot.tools.coercion import coerce_bool, coerce_number
from tests.runtime.fakes import EchoInput, EchoTool


class Bare(Tool[EchoInput, str]):
    """A tool that declares nothing but how to run."""

    name = "Bare"
    input_model = EchoInput

    async def call(self, input: EchoInput, context: ToolUseContext, progress: Progress) -> ToolResult[str]:
        return ToolResult(input.text)


def test_a_tool_without_call_cannot_be_built() -> None:
    class NoCall(Tool[EchoInput, str]):
        name = "NoCall"
        input_model = EchoInput

    with pytest.raises(TypeError):
        NoCall()  # type: ignore[abstract]


def test_an_undeclared_tool_is_fail_closed(tmp_path: Path) -> None:
    tool = Bare()
    inp = EchoInput(text="x")
    assert tool.is_concurrency_safe(inp) is False
    assert tool.is_read_only(inp) is False
    assert tool.is_destructive(inp) is True
    assert tool.is_enabled() is True
    ctx = make_context(tmp_path, scratch_dir=tmp_path / ".s")
    assert isinstance(anyio.run(tool.check_permissions, inp, ctx), Passthrough)
    assert tool.should_defer is False and tool.always_load is False and tool.is_mcp is False
    assert tool.matches_own_rule_content is False and tool.aborts_siblings_on_error is False


def test_the_json_schema_is_clean_strict_and_stable() -> None:
    schema = EchoTool().input_json_schema()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["text"]
    assert "title" not in schema and all("title" not in p for p in schema["properties"].values())
    assert EchoTool().input_json_schema() == schema


def test_a_property_named_title_survives_schema_cleaning() -> None:
    class WithTitle(ToolInput):
        title: str

    class T(Bare):
        name = "T"
        input_model = WithTitle

    assert "title" in T().input_json_schema()["properties"]


@pytest.mark.parametrize(
    ("description", "value", "expected"),
    [
        ("'true'", "true", True),
        ("'TRUE'", "TRUE", True),
        ("'1'", "1", True),
        ("'yes'", "yes", True),
        ("'false'", "false", False),
        ("'0'", "0", False),
        ("'no'", "no", False),
        ("a real bool passes through", True, True),
        ("nonsense is left for the schema", "maybe", "maybe"),
    ],
)
def test_coerce_bool(description: str, value: object, expected: object) -> None:
    assert coerce_bool(value) == expected, description


@pytest.mark.parametrize(
    ("description", "value", "expected"),
    [
        ("'42' → 42", "42", 42),
        ("'4.2' → 4.2", "4.2", 4.2),
        ("' 7 ' → 7", " 7 ", 7),
        ("'3.0' → 3", "3.0", 3),
        ("a number passes through", 5, 5),
        ("nonsense is left for the schema", "many", "many"),
    ],
)
def test_coerce_number(description: str, value: object, expected: object) -> None:
    assert coerce_number(value) == expected, description
