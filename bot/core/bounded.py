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

YAML lives in :mod:`bot.core.bounded_yaml` (``load_yaml``, ``compose_yaml``), so that what reads no
YAML file (a tool call, a policy check of a JSON preset) does not import PyYAML (some 10 ms).
"""

from __future__ import annotations

import json
from typing import Any

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


def check_size(text: str, source: str, max_bytes: int) -> None:
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
    check_size(text, source, max_bytes)
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
    import tomllib  # loaded by the TOML file that needs it (a few ms of every start-up otherwise)

    check_size(text, source, max_bytes)
    _check_depth(text, source, max_depth, toml=True)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        import re

        m = re.search(r"at line (\d+)", str(exc))
        raise ConfigError(f"invalid TOML: {exc}", path=source, line=int(m.group(1)) if m else None) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"invalid TOML: {exc}", path=source) from None


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
