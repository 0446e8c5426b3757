"""Policy documents: JSON, YAML or TOML chosen by extension, parsed with the line of every key.

:func:`parse_document` returns the data and a :class:`Positions` map from key paths
(``("permissions", "allow", 3)``) to 1-based line numbers, so a schema error can name the line:
for JSON by scanning the text (the standard parser keeps no positions), for YAML from PyYAML's
node marks, for TOML by scanning key lines and multi-line arrays. A syntax error becomes a
:class:`~bot.errors.ConfigError` naming the file and line.

Every format is read within :mod:`bot.core.bounded`'s limits (size, nesting depth, YAML aliases
and merge keys): a policy is one pull request away from anyone, and a nesting or alias bomb must
be a clear error, not a traceback or minutes of expansion.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core.bounded import load_json, load_toml
from bot.errors import ConfigError

if TYPE_CHECKING:
    import yaml

KeyPath = tuple[str | int, ...]

FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml"}


@dataclass(frozen=True, slots=True)
class Positions:
    lines: Mapping[KeyPath, int] = field(default_factory=dict)

    def line(self, path: KeyPath) -> int | None:
        """The line of ``path``, else of its nearest parent that has one."""
        while path:
            found = self.lines.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return None


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    data: Any
    positions: Positions

    def line(self, *path: str | int) -> int | None:
        return self.positions.line(tuple(path))


def format_of(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    fmt = FORMATS.get(suffix)
    if fmt is None:
        raise ConfigError(
            f"unknown policy file type {suffix or '(none)'!r}: use .json, .yaml, .yml or .toml", path=path
        )
    return fmt


def read_document(path: str | Path) -> Document:
    """Read and parse a policy file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the file: {exc}", path=path) from None
    return parse_document(text, str(path))


def parse_document(text: str, path: str, fmt: str | None = None) -> Document:
    """Parse ``text`` (the contents of ``path``; the format from its extension unless given)."""
    fmt = fmt or format_of(path)
    if fmt == "json":
        return _parse_json(text, path)
    if fmt == "yaml":
        return _parse_yaml(text, path)
    if fmt == "toml":
        return _parse_toml(text, path)
    raise ConfigError(f"unknown policy format {fmt!r}", path=path)


# ----- JSON ------------------------------------------------------------------------------------


def _parse_json(text: str, path: str) -> Document:
    data = load_json(text, source=path)
    return Document(path, data, Positions(_JsonScanner(text).scan()))


_JSON_ATOM = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_WS = re.compile(r"[ \t\n\r]*")


class _JsonScanner:
    """Records the line of every object key and array element of already-validated JSON."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.lines: dict[KeyPath, int] = {}

    def scan(self) -> dict[KeyPath, int]:
        self._value(self._ws(0), ())
        return self.lines

    def _line(self, index: int) -> int:
        return bisect.bisect_left(self.newlines, index) + 1

    def _ws(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def _value(self, i: int, path: KeyPath) -> int:
        c = self.text[i]
        if c == "{":
            i = self._ws(i + 1)
            if self.text[i] == "}":
                return i + 1
            while True:
                key, j = scanstring(self.text, i + 1)
                self.lines[(*path, key)] = self._line(i)
                j = self._ws(self._ws(j) + 1)  # past ':'
                j = self._ws(self._value(j, (*path, key)))
                if self.text[j] == "}":
                    return j + 1
                i = self._ws(j + 1)  # past ','
        if c == "[":
            i = self._ws(i + 1)
            if self.text[i] == "]":
                return i + 1
            index = 0
            while True:
                self.lines[(*path, index)] = self._line(i)
                j = self._ws(self._value(i, (*path, index)))
                index += 1
                if self.text[j] == "]":
                    return j + 1
                i = self._ws(j + 1)
        if c == '"':
            _, end = scanstring(self.text, i + 1)
            return int(end)
        m = _JSON_ATOM.match(self.text, i)
        assert m is not None, "the text was validated by json.loads"
        return m.end()


# ----- YAML ------------------------------------------------------------------------------------


def _parse_yaml(text: str, path: str) -> Document:
    from bot.core.bounded_yaml import compose_yaml  # PyYAML loads with the first YAML file

    data, node = compose_yaml(text, source=path)
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _yaml_walk(node, (), lines)
    return Document(path, {} if data is None else data, Positions(lines))


def _yaml_walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int]) -> None:
    import yaml

    # Recursive, and through aliases: bounded by compose_yaml's expanded depth and size.
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _yaml_walk(value_node, (*path, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            _yaml_walk(item, (*path, index), lines)


# ----- TOML ------------------------------------------------------------------------------------

_TOML_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_BARE = r"(?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')"
_TOML_KEY = re.compile(rf"^\s*({_TOML_BARE}(?:\s*\.\s*{_TOML_BARE})*)\s*=\s*(.*)$")
_TOML_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")


def _parse_toml(text: str, path: str) -> Document:
    data = load_toml(text, source=path)
    return Document(path, data, Positions(_toml_lines(text)))


def _toml_key_parts(raw: str) -> list[str]:
    parts = re.findall(r"[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'", raw)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


def _toml_lines(text: str) -> dict[KeyPath, int]:
    """Key lines and the lines of string elements of arrays: enough to point at a rule."""
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    array_counts: dict[KeyPath, int] = {}
    open_array: KeyPath | None = None
    depth = 0
    next_index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if open_array is not None:
            next_index, depth = _toml_array_line(line, open_array, next_index, depth, number, lines)
            if depth <= 0:
                open_array = None
            continue
        header = _TOML_HEADER.match(line)
        if header:
            table = tuple(_toml_key_parts(header.group(1)))
            if line.lstrip().startswith("[["):
                count = array_counts.get(table, 0)
                array_counts[table] = count + 1
                lines.setdefault(table, number)
                table = (*table, count)
            lines[table] = number
            continue
        key = _TOML_KEY.match(line)
        if not key:
            continue
        key_path: KeyPath = (*table, *_toml_key_parts(key.group(1)))
        lines[key_path] = number
        rest = key.group(2)
        if rest.lstrip().startswith("["):
            next_index, depth = _toml_array_line(rest.lstrip()[1:], key_path, 0, 1, number, lines)
            if depth > 0:
                open_array = key_path
    return lines


def _toml_array_line(
    line: str, path: KeyPath, index: int, depth: int, number: int, lines: dict[KeyPath, int]
) -> tuple[int, int]:
    """Count string elements and bracket depth on one line of an array."""
    pos = 0
    while pos < len(line) and depth > 0:
        c = line[pos]
        if c == "#":
            break
        if c in "\"'":
            m = _TOML_STRING.match(line, pos)
            if m is None:
                break
            if depth == 1:
                lines[(*path, index)] = number
                index += 1
            pos = m.end()
            continue
        if c in "[{":
            if c == "{" and depth == 1:
                lines[(*path, index)] = number
                index += 1
            depth += 1
        elif c in "]}":
            depth -= 1
        pos += 1
    return index, depth
