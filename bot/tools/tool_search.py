"""ToolSearch (seeds 4.10): find deferred tools and load them into the model's context.

Tools marked ``should_defer`` (and not ``always_load``) are only names to the model until found.
Query syntax, as in the seeds:

* ``select:Read,Edit`` — load these tools by name;
* ``notebook jupyter`` — keyword search, ranked over the name (split into words), ``search_hint``,
  parameter names, the description and parameter descriptions, best first;
* ``+slack send`` — only tools whose name contains ``slack``, ranked by the other words.

How a found tool is loaded depends on the provider (the run's :class:`DeferredTools` service):
with server-side tool search the result is ``tool_reference`` blocks that the API expands in place,
so the cached prompt prefix never changes; otherwise the tools are recorded as discovered and the
loop appends their definitions after the cached prefix from the next request on.

ToolSearch itself is never deferred, and needs no rule (it only reads the tool pool).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from bot.core.services import ServiceKey
from bot.interface.context import ToolUseContext
from bot.interface.messages import ContentBlock, Progress, ToolResultContent
from bot.interface.tool import AnyTool, Tool, ToolInput, ToolResult
from bot.permissions.decision import Allow, PermissionResult
from bot.tools.coercion import SemanticInt

TOOL_SEARCH_SERVICE: ServiceKey[DeferredTools] = ServiceKey("tool_search")
DEFAULT_MAX_RESULTS = 5
#: A search that loads dozens of tools defeats deferral (and the API caps references per result).
MAX_SEARCH_RESULTS = 20

# Ranking weights: a word of the tool's name says most, a parameter description least.
W_EXACT_NAME = 12
W_NAME_WORD = 6
W_NAME_SUBSTRING = 3
W_HINT = 4
W_PARAM_NAME = 3
W_DESCRIPTION = 2
W_PARAM_DESCRIPTION = 1


@dataclass(slots=True)
class DeferredTools:
    """Per agent: how found tools are loaded, and which were found (in discovery order)."""

    server_side: bool = True
    discovered: list[str] = field(default_factory=list)

    def discover(self, names: Iterable[str]) -> None:
        for name in names:
            if name not in self.discovered:
                self.discovered.append(name)


def is_deferred(tool: AnyTool) -> bool:
    return tool.should_defer and not tool.always_load


_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> set[str]:
    return set(_WORD.findall(_CAMEL.sub(" ", text).lower()))


@dataclass(frozen=True, slots=True)
class SearchResult:
    matches: tuple[str, ...]
    #: ``select:`` names that are no tool of this pool.
    unknown: tuple[str, ...] = ()
    #: ``select:`` names of tools that are loaded already (not deferred): nothing to load.
    already_loaded: tuple[str, ...] = ()


def search_tools(
    query: str,
    tools: Sequence[AnyTool],
    max_results: int = DEFAULT_MAX_RESULTS,
    *,
    loaded: Sequence[AnyTool] = (),
) -> SearchResult:
    """A pure function of the query, the deferred ``tools`` and the ``loaded`` (not deferred) ones.

    ``select:`` may name a loaded tool (the seeds' own example is ``select:Read,Edit,Grep``): that is
    no error, the answer says it is loaded already. Keyword searches look at deferred tools only."""
    query = query.strip()
    if query.lower().startswith("select:"):
        by_name = {t.name: t for t in tools}
        by_lower = {t.name.lower(): t for t in tools}
        loaded_names = {t.name.lower(): t.name for t in loaded}
        found: list[str] = []
        unknown: list[str] = []
        already: list[str] = []
        for raw in query[len("select:") :].split(","):
            name = raw.strip()
            if not name:
                continue
            tool = by_name.get(name) or by_lower.get(name.lower())
            if tool is not None:
                if tool.name not in found:
                    found.append(tool.name)
            elif name.lower() in loaded_names:
                if loaded_names[name.lower()] not in already:
                    already.append(loaded_names[name.lower()])
            else:
                unknown.append(name)
        return SearchResult(tuple(found[:MAX_SEARCH_RESULTS]), tuple(unknown), tuple(already))

    terms = query.split()
    required = [t[1:].lower() for t in terms if t.startswith("+") and len(t) > 1]
    keywords = [w for t in terms if not t.startswith("+") for w in _WORD.findall(t.lower())]
    candidates = [t for t in tools if all(r in t.name.lower() for r in required)]
    if not keywords:
        return SearchResult(tuple(t.name for t in candidates[:max_results]))
    scored = [(score_tool(t, keywords), t.name) for t in candidates]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return SearchResult(tuple(name for _, name in ranked[:max_results]))


def score_tool(tool: AnyTool, keywords: Sequence[str]) -> int:
    name = tool.name.lower()
    name_words = words(tool.name.replace("__", " "))
    hint = words(tool.search_hint or "")
    description = words(tool.description())
    schema = tool.input_json_schema()
    properties: dict[str, Any] = schema.get("properties") or {}
    param_names = set().union(*(words(p) for p in properties)) if properties else set()
    param_text = " ".join(str(p.get("description", "")) for p in properties.values() if isinstance(p, dict))
    param_descriptions = words(param_text)
    score = 0
    for kw in keywords:
        if kw == name:
            score += W_EXACT_NAME
        elif kw in name_words:
            score += W_NAME_WORD
        elif kw in name:
            score += W_NAME_SUBSTRING
        if kw in hint:
            score += W_HINT
        if kw in param_names:
            score += W_PARAM_NAME
        if kw in description:
            score += W_DESCRIPTION
        if kw in param_descriptions:
            score += W_PARAM_DESCRIPTION
    return score


class ToolSearchInput(ToolInput):
    query: str = Field(
        min_length=1,
        description=(
            'What to find: "select:Name1,Name2" to load tools by name, keywords to search ("notebook '
            'jupyter"), or "+prefix keywords" to search only tools whose name contains the prefix'
        ),
    )
    max_results: SemanticInt = Field(
        default=DEFAULT_MAX_RESULTS, ge=1, le=MAX_SEARCH_RESULTS, description="How many tools to return at most"
    )


@dataclass(frozen=True, slots=True)
class ToolSearchOutput:
    query: str
    matches: tuple[str, ...]
    unknown: tuple[str, ...]
    deferred_count: int
    server_side: bool
    descriptions: tuple[str, ...] = ()
    already_loaded: tuple[str, ...] = ()


def deferred_tools_of(context: ToolUseContext) -> DeferredTools:
    state = context.services.get(TOOL_SEARCH_SERVICE)
    if not isinstance(state, DeferredTools):
        state = DeferredTools()
        context.services[TOOL_SEARCH_SERVICE] = state
    return state


class ToolSearchTool(Tool[ToolSearchInput, ToolSearchOutput]):
    """Search the deferred tools (known only by name until loaded) and load the ones you need.
    Loaded tools can be called from your next response on. Use "select:Name1,Name2" when you know
    the names, keywords otherwise."""

    name = "ToolSearch"
    search_hint = "find search load deferred tools"
    input_model = ToolSearchInput
    always_load = True  # never deferred: it is how every other deferred tool is found

    def is_concurrency_safe(self, input: ToolSearchInput) -> bool:
        return True  # reads the pool; recording a discovery is idempotent

    def is_read_only(self, input: ToolSearchInput) -> bool:
        return True

    def is_destructive(self, input: ToolSearchInput) -> bool:
        return False

    async def check_permissions(self, input: ToolSearchInput, context: ToolUseContext) -> PermissionResult:
        return Allow("ToolSearch only reads the tool pool", source="tool")

    async def call(
        self, input: ToolSearchInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[ToolSearchOutput]:
        deferred = [t for t in context.tools if is_deferred(t)]
        loaded = [t for t in context.tools if not is_deferred(t)]
        result = search_tools(input.query, deferred, input.max_results, loaded=loaded)
        state = deferred_tools_of(context)
        state.discover(result.matches)
        by_name = {t.name: t for t in deferred}
        descriptions = tuple(_first_line(by_name[n].description()) for n in result.matches)
        return ToolResult(
            ToolSearchOutput(
                input.query,
                result.matches,
                result.unknown,
                len(deferred),
                state.server_side,
                descriptions,
                result.already_loaded,
            )
        )

    def map_result(self, output: ToolSearchOutput) -> ToolResultContent:
        loaded_note = (
            f"Already loaded (call directly, no search needed): {', '.join(output.already_loaded)}."
            if output.already_loaded
            else ""
        )
        if not output.matches:
            if loaded_note and not output.unknown:
                return loaded_note
            text = f"No deferred tool matches {output.query!r} ({output.deferred_count} deferred tools)."
            if output.unknown:
                text += f" Unknown names: {', '.join(output.unknown)}."
            return f"{text} {loaded_note}".rstrip()
        if output.server_side and not output.unknown and not loaded_note:
            references: list[ContentBlock] = [{"type": "tool_reference", "tool_name": n} for n in output.matches]
            return references
        lines = [f"Loaded {len(output.matches)} tool(s); call them from your next response on:"]
        lines += [f"- {n}: {d}" for n, d in zip(output.matches, output.descriptions, strict=True)]
        if output.unknown:
            lines.append(f"Unknown names: {', '.join(output.unknown)}.")
        if loaded_note:
            lines.append(loaded_note)
        if output.server_side:
            blocks: list[ContentBlock] = [{"type": "text", "text": "\n".join(lines)}]
            return blocks + [{"type": "tool_reference", "tool_name": n} for n in output.matches]
        return "\n".join(lines)

    def summarize_input(self, input: ToolSearchInput) -> str:
        return input.query


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 200 else line[:199] + "…"
