"""The Tool interface (seeds 4.1) and its fail-closed defaults (seeds ``TOOL_DEFAULTS``).

Every tool — built-in, MCP-bridged, sub-agent — is a :class:`Tool`. The pipeline knows nothing
else about a tool than what this class declares. The safety flags are methods of the *input*,
not of the tool: Bash is read-only for ``ls`` and not for ``rm``.

Fail-closed, as the seeds' ``TOOL_DEFAULTS`` (and our style guide) put it:

* ``is_concurrency_safe`` → ``False``: a new tool never runs beside another by accident;
* ``is_read_only`` → ``False``: a new tool is assumed to write;
* ``is_destructive`` → ``True``: the seeds default this to ``False`` because it only drives a
  warning there; here it also feeds the run log and the plan mode, and an unknown tool is assumed
  to be able to destroy (as MCP's ``ToolAnnotations.destructiveHint`` defaults to true);
* ``check_permissions`` → :class:`Passthrough`: the rules engine decides; headless there is no
  default "allow" (the seeds' default allow was safe only because a human was asked next);
* no automatic approval: nothing is approved because a tool says it is harmless — the rules decide.

A tool relaxes a default by overriding the method, with a one-line reason.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.errors import json_type_name
from bot.interface.context import ContextModifier, ToolUseContext
from bot.interface.messages import ContentBlock, Progress, ToolResultContent
from bot.permissions.decision import Passthrough, PermissionResult


class ToolInput(BaseModel):
    """Base of every tool's input model: unknown keys are an error (the seeds' ``z.strictObject``),
    so internal-only fields can never be smuggled in by the model."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT")


@dataclass(slots=True)
class ToolResult(Generic[OutputT]):
    """What ``call`` returns (seeds' ``ToolResult``)."""

    data: OutputT
    #: Content blocks appended to the next user message (after the tool results).
    new_messages: list[ContentBlock] = field(default_factory=list)
    #: Applied by the scheduler after the call's batch, only for non-concurrency-safe tools.
    context_modifier: ContextModifier | None = None
    #: True when the call ran but failed in a way the model should see as an error.
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ValidationOk:
    pass


@dataclass(frozen=True, slots=True)
class ValidationReject:
    message: str
    code: int = 0


ValidationResult = ValidationOk | ValidationReject
VALID = ValidationOk()


class Tool(ABC, Generic[InputT, OutputT]):
    """Subclass, set the class attributes and ``input_model``, implement ``call``."""

    name: ClassVar[str]
    #: Old names. Calling a tool by one works and adds a deprecation notice to the result.
    aliases: ClassVar[tuple[str, ...]] = ()
    #: Extra words for ToolSearch (seeds 4.10 ``searchHint``).
    search_hint: ClassVar[str | None] = None
    #: Above this many characters a result is persisted to disk (clamped at 50,000, seeds 4.8);
    #: ``math.inf`` for tools that page themselves (Read).
    max_result_chars: ClassVar[float] = 50_000
    #: Left out of the model's context until ToolSearch finds it (seeds 4.10).
    should_defer: ClassVar[bool] = False
    #: Never deferred, whatever ``should_defer`` says.
    always_load: ClassVar[bool] = False
    is_mcp: ClassVar[bool] = False
    #: Seeds 4.5 sibling abort: an error of this tool cancels the other calls of its batch (Bash).
    aborts_siblings_on_error: ClassVar[bool] = False
    #: Edits files in the workspace (``acceptEdits`` mode allows these inside the workspace).
    is_edit_tool: ClassVar[bool] = False
    #: The tool matches ``Tool(content)`` rules itself in ``check_permissions`` (Bash: compound
    #: commands, wrappers). The generic chain then applies only whole-tool rules to it, so a naive
    #: prefix match can never approve ``git status && rm -rf /`` under ``Bash(git:*)``.
    matches_own_rule_content: ClassVar[bool] = False

    input_model: ClassVar[type[BaseModel]]

    # ----- schema and input -------------------------------------------------------------------

    def input_json_schema(self) -> dict[str, Any]:
        """The JSON Schema sent to the model. Stable across calls (prompt caching)."""
        return _clean_schema(self.input_model)

    def parse_input(self, raw: Any) -> InputT:
        """Schema validation with coercion. Raises :class:`InputSchemaError`."""
        if not isinstance(raw, dict):
            raise InputSchemaError(f"The input must be a JSON object, got {json_type_name(raw)}.")
        try:
            return self.input_model.model_validate(raw)  # type: ignore[return-value]
        except ValidationError as exc:
            raise InputSchemaError(format_validation_error(self.name, exc)) from None

    def result_limit(self) -> float:
        """Stage 6's persistence threshold before the 50,000 clamp: ``max_result_chars``, unless the
        operator configures the tool's limit (Bash: ``BASH_MAX_OUTPUT_LENGTH``)."""
        return float(self.max_result_chars)

    # ----- prompt -----------------------------------------------------------------------------

    def description(self) -> str:
        """One paragraph for the API's ``description`` field."""
        return (type(self).__doc__ or self.name).strip()

    def prompt(self) -> str:
        """Usage guidance for the system prompt; empty when the description says it all."""
        return ""

    def user_facing_name(self, input: InputT | None = None) -> str:
        return self.name

    def to_api(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description(), "input_schema": self.input_json_schema()}

    # ----- execution --------------------------------------------------------------------------

    @abstractmethod
    async def call(self, input: InputT, context: ToolUseContext, progress: Progress) -> ToolResult[OutputT]:
        """Run the tool. Raise :class:`~bot.errors.ToolError` (or any exception) to fail: the pipeline
        turns it into an ``is_error`` result."""

    def map_result(self, output: OutputT) -> ToolResultContent:
        """The tool_result content for an output (seeds ``mapToolResultToToolResultBlockParam``)."""
        if isinstance(output, str):
            return output
        if isinstance(output, list) and all(isinstance(b, dict) and "type" in b for b in output):
            return output
        return json.dumps(output, ensure_ascii=False, indent=1, default=str)

    # ----- safety flags: fail-closed defaults -------------------------------------------------

    def is_enabled(self) -> bool:
        return True

    def is_concurrency_safe(self, input: InputT) -> bool:
        return False

    def is_read_only(self, input: InputT) -> bool:
        return False

    def is_destructive(self, input: InputT) -> bool:
        return True

    async def validate_input(self, input: InputT, context: ToolUseContext) -> ValidationResult:
        return VALID

    async def check_permissions(self, input: InputT, context: ToolUseContext) -> PermissionResult:
        return Passthrough()

    def permission_subject(self, input: InputT) -> str | None:
        """The string a rule's content is matched against: Bash's command, a file tool's path,
        WebFetch's URL. ``None`` means the tool has no content to match (only ``Tool`` rules)."""
        return None

    # ----- rendering (headless: Markdown for comments and job summaries) ----------------------

    def observable_input(self, input: InputT, context: ToolUseContext) -> dict[str, Any]:
        """A *copy* of the input enriched for observers (hooks, logs, rendering): absolute paths and
        so on (seeds ``backfillObservableInput``). Never sent back to the model."""
        return input.model_dump(mode="json", exclude_none=True)

    def summarize_input(self, input: InputT) -> str:
        """A short label of the input (the file, the command), for logs and grouped rendering."""
        subject = self.permission_subject(input)
        if subject:
            return _shorten(subject, 120)
        dumped = json.dumps(input.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
        return _shorten(dumped, 120)

    def render_result(self, content: ToolResultContent, is_error: bool = False) -> str:
        """Markdown for the result, shortened for a comment."""
        from bot.interface.messages import content_text

        text = _shorten(content_text(content), 2_000)
        label = "Error" if is_error else "Result"
        fence = "````" if "```" in text else "```"
        return f"{label}:\n{fence}\n{text}\n{fence}"


AnyTool = Tool[Any, Any]


class InputSchemaError(Exception):
    """The raw input did not match the tool's schema. The message is model-readable."""


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    """Pydantic's errors as short lines the model can act on (seeds ``formatZodValidationError``)."""
    lines = [f"{tool_name} failed due to the following issue{'s' if exc.error_count() > 1 else ''}:"]
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(input)"
        kind = err["type"]
        if kind == "missing":
            lines.append(f"The required parameter `{loc}` is missing")
        elif kind == "extra_forbidden":
            lines.append(f"An unexpected parameter `{loc}` was provided")
        else:
            got = json_type_name(err.get("input"))
            lines.append(f"The parameter `{loc}` is invalid: {err['msg']} (got {got})")
    return "\n".join(lines)


def _shorten(text: str, limit: int) -> str:
    text = text.replace("\n", " ⏎ ") if limit <= 200 else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SCHEMA_VALUE_KEYS = frozenset({"default", "examples", "enum", "const"})


@cache
def _clean_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    cleaned = _strip_titles(schema)
    assert isinstance(cleaned, dict)
    cleaned.setdefault("additionalProperties", False)
    return cleaned


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            out[key] = value if key in _SCHEMA_VALUE_KEYS else _strip_titles(value)
        return out
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
