"""YAML read within bounds: size, nesting depth and alias expansion (see :mod:`bot.core.bounded`,
whose limits and errors these are; it is a module of its own so that only what reads a YAML file
imports PyYAML)."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, SequenceNode

from bot.core.bounded import MAX_DEPTH, MAX_POLICY_BYTES, MAX_YAML_ALIASES, MAX_YAML_NODES, check_size
from bot.errors import ConfigError


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
    check_size(text, source, max_bytes)
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


__all__ = ["BoundedLoader", "compose_yaml", "load_yaml"]
