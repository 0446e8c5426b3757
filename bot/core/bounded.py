"""JSON, YAML and TOML read within bounds: size, nesting depth, and YAML's alias expansion.

Trust model: policy files come from the default branch, but event payloads carry text anyone can
write, and a policy edit is one pull request away; a model's tool input is hostile. Python's
parsers recurse once per nesting level, so ``[[[[…]]]]`` ten thousand deep ends in a
``RecursionError`` traceback instead of an error someone can act on; and YAML's aliases share one
node among many places, so nine anchors each referring nine times to the one before (a "billion
laughs") compose in microseconds and expand to 9⁹ values in whatever walks the result, merge keys
(``<<: [*a, *a]``) included. Here:

* size is checked first, on the encoded bytes;
* depth is checked before any recursive parser runs: JSON and TOML by one linear scan of the text
  (strings and comments skipped), YAML while its nodes are composed (the composer is the recursive
  step, and it is stopped at the limit);
* YAML aliases are counted as they are composed, then the size and depth the document would have
  with every alias (and merge key) expanded are computed on the node graph, linearly, without
  expanding anything; a document that refers to itself is refused.

Errors are :class:`~bot.errors.ConfigError`: they name the source, the line when known, and the
limit. :func:`check_input_bounds` is the same depth rule for a value already decoded (a tool's
input), worded for the model.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, SequenceNode

from bot.errors import ConfigError

#: Nesting depth of configuration and payloads. Real policy files nest about 5 levels, GitHub's
#: event payloads about 8 (``pull_request.head.repo.owner.login``); 64 leaves room for any real
#: file and stays far below Python's recursion limit (1,000 frames; the parsers use 1-3 a level).
MAX_DEPTH = 64
#: A tool's input, as the model writes it: tool schemas nest a few levels (an MCP tool's perhaps
#: ten); 64 is the same margin. The SDK's own JSON reader gives up at 200.
MAX_INPUT_DEPTH = 64
#: A policy file is a few kilobytes; a megabyte is a generated allow list, not a mistake.
MAX_POLICY_BYTES = 1 << 20
#: GitHub caps webhook payloads at 25 MB ("Webhook events and payloads": payload cap).
MAX_EVENT_BYTES = 25 << 20
#: Alias uses in one YAML document. Anchors share a block or two in real files (CI matrices,
#: repeated rule lists); a hundred uses is far beyond that and far below what hurts.
MAX_YAML_ALIASES = 100
#: Values a YAML document may expand to with its aliases and merge keys resolved: a generous
#: policy has a few thousand; a billion-laughs document has millions at its third level.
MAX_YAML_NODES = 100_000


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _check_size(text: str, source: str, max_bytes: int) -> None:
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise ConfigError(f"the file is {size:,} bytes; at most {max_bytes:,} are read", path=source)


def nesting_depth(text: str, *, toml: bool = False, max_depth: int | None = None) -> tuple[int, int]:
    """The deepest nesting of ``[``/``{`` in JSON (or ``toml``) text, and where it is first reached
    (an offset). Strings are skipped (``"…"`` with escapes; for TOML also ``'…'``, the triple-quoted
    forms and ``#`` comments). With ``max_depth``, the scan stops as soon as it is passed. Linear in
    the text, never recursive."""
    depth = deepest = at = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, i
                if max_depth is not None and depth > max_depth:
                    break
        elif c in "]}":
            depth -= 1
        elif c == '"' or (c == "'" and toml):
            quote = text[i : i + 3] if toml and text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" and c == '"' else 1
            i = j + len(quote)
            continue
        elif toml and c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        i += 1
    return deepest, at


def _check_depth(text: str, source: str, max_depth: int, toml: bool = False) -> None:
    deepest, at = nesting_depth(text, toml=toml, max_depth=max_depth)
    if deepest > max_depth:
        raise ConfigError(
            f"nested more than {max_depth} levels deep (arrays and objects inside each other); "
            f"at most {max_depth} are read",
            path=source,
            line=_line_at(text, at),
        )


def load_json(text: str, *, source: str, max_bytes: int = MAX_POLICY_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` within bounds; every failure a :class:`ConfigError` naming ``source``."""
    _check_size(text, source, max_bytes)
    _check_depth(text, source, max_depth)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = "; comments are not allowed in JSON" if text.startswith(("//", "/*"), exc.pos) else ""
        raise ConfigError(f"invalid JSON: {exc.msg} (column {exc.colno}){hint}", path=source, line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:  # an integer of more than 4,300 digits; belt and braces
        raise ConfigError(f"invalid JSON: {exc}", path=source) from None


def load_toml(
    text: str, *, source: str, max_bytes: int = MAX_POLICY_BYTES, max_depth: int = MAX_DEPTH
) -> dict[str, Any]:
    """``tomllib.loads`` within bounds (its inline arrays and tables are parsed recursively)."""
    _check_size(text, source, max_bytes)
    _check_depth(text, source, max_depth, toml=True)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        import re

        m = re.search(r"at line (\d+)", str(exc))
        raise ConfigError(f"invalid TOML: {exc}", path=source, line=int(m.group(1)) if m else None) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"invalid TOML: {exc}", path=source) from None


# ----- YAML ----------------------------------------------------------------------------------------


class BoundedLoader(yaml.SafeLoader):
    """A ``SafeLoader`` that stops composing past ``max_depth`` levels and ``max_aliases`` alias
    uses. Use :func:`load_yaml`, or :func:`compose_yaml` for the node graph (line numbers)."""

    def __init__(
        self, stream: str, *, source: str, max_depth: int = MAX_DEPTH, max_aliases: int = MAX_YAML_ALIASES
    ) -> None:
        super().__init__(stream)
        self.source = source
        self.max_depth = max_depth
        self.max_aliases = max_aliases
        self.aliases = 0
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if self.check_event(AliasEvent):
            self.aliases += 1
            if self.aliases > self.max_aliases:
                raise ConfigError(
                    f"more than {self.max_aliases} YAML aliases (*name); at most {self.max_aliases} are expanded",
                    path=self.source,
                    line=line,
                )
        nests = int(self.check_event(SequenceStartEvent, MappingStartEvent))
        self._depth += nests
        try:
            if self._depth > self.max_depth:
                raise ConfigError(
                    f"nested more than {self.max_depth} levels deep; at most {self.max_depth} are read",
                    path=self.source,
                    line=line,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= nests


def _expanded(root: Node, source: str, max_depth: int, max_nodes: int) -> None:
    """Refuse a node graph whose expansion (every alias and merge key resolved) is deeper than
    ``max_depth`` or larger than ``max_nodes``, or which contains itself. Each node is visited
    once (post-order, an explicit stack): linear in the composed document."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            nests = int(isinstance(node, SequenceNode | MappingNode))
            depth[key] = nests + max((depth[id(k)] for k in kids), default=0)
            line = node.start_mark.line + 1 if node.start_mark is not None else None
            if depth[key] > max_depth:
                raise ConfigError(
                    f"with its aliases expanded, nested more than {max_depth} levels deep; at most "
                    f"{max_depth} are read",
                    path=source,
                    line=line,
                )
            if size[key] > max_nodes:
                raise ConfigError(
                    f"with its aliases and merge keys expanded, more than {max_nodes:,} values "
                    f"(an alias bomb?); at most {max_nodes:,} are read",
                    path=source,
                    line=line,
                )
            continue
        if key in size:
            continue
        if key in on_path:
            line = node.start_mark.line + 1 if node.start_mark is not None else None
            raise ConfigError("a YAML alias refers to the node that contains it", path=source, line=line)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def compose_yaml(
    text: str,
    *,
    source: str,
    max_bytes: int = MAX_POLICY_BYTES,
    max_depth: int = MAX_DEPTH,
    max_aliases: int = MAX_YAML_ALIASES,
    max_nodes: int = MAX_YAML_NODES,
) -> tuple[Any, Node | None]:
    """The data of a single-document YAML text and its node graph (for line numbers), both
    within bounds. A YAML error becomes a :class:`ConfigError` with the line."""
    _check_size(text, source, max_bytes)
    loader = BoundedLoader(text, source=source, max_depth=max_depth, max_aliases=max_aliases)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _expanded(node, source, max_depth, max_nodes)
        return loader.construct_document(node), node
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        if isinstance(exc, ComposerError) and "undefined alias" in str(problem):
            problem = f"{problem} (an alias must come after its anchor)"
        raise ConfigError(
            f"invalid YAML: {problem}", path=source, line=None if mark is None else mark.line + 1
        ) from None
    except RecursionError:  # belt and braces: the depth limit stops the composer well before this
        raise ConfigError(f"nested too deeply; at most {max_depth} levels are read", path=source) from None
    finally:
        loader.dispose()


def load_yaml(
    text: str,
    *,
    source: str,
    max_bytes: int = MAX_POLICY_BYTES,
    max_depth: int = MAX_DEPTH,
    max_aliases: int = MAX_YAML_ALIASES,
    max_nodes: int = MAX_YAML_NODES,
) -> Any:
    """``yaml.safe_load`` of one document, within bounds (see the module docstring)."""
    return compose_yaml(
        text, source=source, max_bytes=max_bytes, max_depth=max_depth, max_aliases=max_aliases, max_nodes=max_nodes
    )[0]


# ----- values already decoded ----------------------------------------------------------------------


def check_input_bounds(value: Any, *, max_depth: int = MAX_INPUT_DEPTH) -> str | None:
    """Why a decoded value (a tool's input) is too deeply nested to handle, worded for the model,
    or ``None``. Iterative: a value nested ten thousand deep is answered, not a traceback."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, level = stack.pop()
        if not isinstance(item, dict | list | tuple):
            continue
        if level > max_depth:
            return (
                f"InputValidationError: the input is nested more than {max_depth} levels deep (objects and "
                "arrays inside each other); send the same call with a flatter input."
            )
        if id(item) in seen:
            continue
        seen.add(id(item))
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children)
    return None


def json_nesting_problem(text: str, *, max_depth: int = MAX_INPUT_DEPTH) -> str | None:
    """:func:`check_input_bounds` for JSON text not decoded yet (a streamed ``tool_use`` input):
    ``json.loads`` itself recurses, so the depth is checked first, by a linear scan."""
    deepest, _ = nesting_depth(text, max_depth=max_depth)
    if deepest > max_depth:
        return (
            f"InputValidationError: the input is nested more than {max_depth} levels deep (objects and "
            "arrays inside each other); send the same call with a flatter input."
        )
    return None
