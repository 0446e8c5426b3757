"""A ``for`` loop over words written in the command, judged as its body once per word:
``for f in src/*.py tests/a.py; do echo "$f"; wc -l "$f"; done``.

The seeds call control flow "too complex" (ask). A loop over a list the command spells out is not:
bash runs the body once per item with the variable set to it, in the same shell (a ``cd`` in the
body carries over to the next round), so the body written out once per item, the variable replaced,
is what runs. That unrolled command is judged by the whole analysis.

Only the plain shape is unrolled; anything else keeps the seeds' answer:

* the variable's name is lower case (``for PATH in .`` changes where programs are found);
* the loop is the whole command, with ``in`` and at most :data:`MAX_ITEMS` items, none holding an
  expansion or substitution (``for f in $(ls)`` is not known until it runs);
* the variable appears in the body as ``$f``, ``${f}`` or ``"$f"`` only (no ``${f%.py}``), is not
  assigned there, and the body has no ``read``/``mapfile``/``getopts``/``break``/``continue``;
* an item with a glob character stands for the files it matches: it replaces a whole word (``$f``
  or ``"$f"``, which bash leaves one word per file); where the variable is part of a larger word
  (``echo "FAILED: $f"``) the pattern is expanded first, as bash expands it when the loop starts,
  and each file it matches now is an item of its own (plain names only, at most
  :data:`MAX_ITEMS`; no match, and the pattern would stay itself: not unrolled);
* an item that is part of a larger word is a plain literal (``pkg$i`` with ``1 2``).
"""

from __future__ import annotations

import os
import re
from typing import Any

from bot.shell.parse.walk import MAX_COMMAND_CHARS, parse_tree
from bot.shell.paths.globbing import expand

#: More items than this are not unrolled (a list that long is data, not a loop a model writes).
MAX_ITEMS = 16

_EXPANDING = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"}
)
_GLOB = frozenset("*?[")
#: A glob item: wildcards among plain characters.
_GLOB_ITEM = re.compile(r"[A-Za-z0-9_./:=@%+,*?\[\]!-]+\Z")
#: bash's own variables are upper case; a lower-case one changes nothing but what names it.
_LOWER_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]+\Z")
#: How the variable is used: ``"$f"`` (one word whatever the item), a bare ``$f`` word (split and
#: globbed), or part of a larger word.
_QUOTED, _BARE, _PART = 0, 1, 2
#: Commands that can assign the variable without an ``f=`` the parse shows (``printf -v f``,
#: ``declare f=…``), or change the flow of the rounds.
_STOPPERS = frozenset(
    {"read", "mapfile", "readarray", "getopts", "printf", "declare", "typeset", "local", "export", "readonly"}
    | {"let", "unset", "wait", "break", "continue", "eval", "source", ".", "exec", "return", "exit"}
)


def unroll_for(command: str, cwd: str | None = None) -> str | None:
    """The loop's body written out once per item, or ``None`` when the loop is not of the plain
    shape (see the module's documentation). ``cwd`` is where a glob item is expanded from (``None``:
    a glob item is never expanded)."""
    root = parse_tree(command).root_node
    if root.has_error:
        return None
    statements = [c for c in root.children if c.type not in ("comment", ";", "\n")]
    if len(statements) != 1 or statements[0].type != "for_statement":
        return None
    loop = statements[0]
    data = command.encode("utf-8", "surrogateescape")
    variable = loop.child_by_field_name("variable")
    body = loop.child_by_field_name("body")
    if variable is None or body is None or body.type != "do_group":
        return None
    name = _text(variable, data)
    if not _LOWER_NAME.match(name):
        return None  # PATH, HOME, CDPATH, GLOBIGNORE, IFS…: setting it changes what the body does
    items = _items(loop, data)
    if items is None or not items or len(items) > MAX_ITEMS:
        return None
    sites = _sites(body, name, data)
    if sites is None:
        return None
    if any(kind == _PART for _, _, kind in sites) and any(is_glob for _, is_glob in items):
        items = _expanded(items, cwd)
        if items is None or len(items) > MAX_ITEMS:
            return None
    inner = [c for c in body.children if c.type not in ("do", "done")]
    if not inner:
        return None
    start, end = inner[0].start_byte, inner[-1].end_byte
    rounds: list[bytes] = []
    for item, is_glob in items:
        plain = _PLAIN.match(item.decode("utf-8", "surrogateescape")) is not None
        out: list[bytes] = []
        last = start
        for site_start, site_end, kind in sites:
            # "$f" takes any item as one word; an unquoted $f a plain word or a glob (a quoted
            # 'a b' would be split there); part of a word only a plain one
            if (kind == _BARE and not (plain or is_glob)) or (kind == _PART and not plain):
                return None
            out.append(data[last:site_start])
            out.append(item)
            last = site_end
        out.append(data[last:end])
        rounds.append(b"".join(out).rstrip(b"; \t\n"))
    unrolled = b"\n".join(rounds).decode("utf-8", "surrogateescape")
    return unrolled if len(unrolled) <= MAX_COMMAND_CHARS else None


def _expanded(items: list[tuple[bytes, bool]], cwd: str | None) -> list[tuple[bytes, bool]] | None:
    """Glob items replaced by the plain names they match now (relative ones relative to ``cwd``)."""
    out: list[tuple[bytes, bool]] = []
    for item, is_glob in items:
        if not is_glob:
            out.append((item, False))
            continue
        pattern = item.decode("utf-8", "surrogateescape")
        if cwd is None:
            return None
        found = expand(pattern, cwd)
        matches = sorted(m.path for m in found or () if not m.partial and not m.through_link)
        if not matches or found is None or len(matches) != sum(1 for m in found if not m.partial):
            return None  # nothing (bash keeps the pattern), too many, or one through a link
        for path in matches:
            name = path if pattern.startswith("/") else os.path.relpath(path, cwd)
            if not _PLAIN.match(name):
                return None
            out.append((name.encode("utf-8", "surrogateescape"), False))
    return out


def _text(node: Any, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _items(loop: Any, data: bytes) -> list[tuple[bytes, bool]] | None:
    """The items as written, each with whether it is a glob; ``None`` for a list not spelled out."""
    items: list[tuple[bytes, bool]] = []
    seen_in = False
    for child in loop.children:
        if child.type == "in":
            seen_in = True
            continue
        if not seen_in or child.type in ("variable_name", "for"):
            continue
        if child.type in (";", "\n", "do_group"):
            break
        if child.type not in ("word", "number", "raw_string", "string", "concatenation"):
            return None
        if _has(child, _EXPANDING):
            return None
        raw = data[child.start_byte : child.end_byte]
        text = raw.decode("utf-8", "surrogateescape")
        glob = child.type == "word" and not _GLOB.isdisjoint(text) and _GLOB_ITEM.match(text) is not None
        if child.type == "word" and not _GLOB.isdisjoint(_unquoted(child, data)) and not glob:
            return None  # a pattern with other characters: not followed
        items.append((raw, glob))
    return items if seen_in else None


def _unquoted(node: Any, data: bytes) -> str:
    """The characters of ``node`` outside quotes (where a glob character is live)."""
    if node.type in ("raw_string", "string"):
        return ""
    if node.child_count == 0 or node.type == "word":
        return _text(node, data)
    return "".join(_unquoted(c, data) for c in node.children)


def _command_word(node: Any, data: bytes) -> str:
    """The command's name as bash reads it (quotes and backslashes removed: ``"printf"`` is
    ``printf``); a declaration's keyword."""
    first = node.children[0] if node.type != "command_name" and node.child_count else node
    return re.sub(r"[\"'\\]", "", _text(first, data))


def _has(node: Any, kinds: frozenset[str]) -> bool:
    if node.type in kinds:
        return True
    return any(_has(c, kinds) for c in node.children)


def _sites(body: Any, name: str, data: bytes) -> list[tuple[int, int, int]] | None:
    """Where the variable is used in the body: ``(start, end, how)``, or ``None`` when it is used or
    changed in a way unrolling cannot follow."""
    sites: list[tuple[int, int, int]] = []
    ok = True

    def walk(node: Any, parent: Any) -> None:
        nonlocal ok
        kind = node.type
        if kind in ("command_name", "declaration_command", "unset_command") and _command_word(node, data) in _STOPPERS:
            ok = False
        if kind == "variable_assignment":
            target = node.child_by_field_name("name")
            if target is not None and _text(target, data) == name:
                ok = False
        if kind in ("simple_expansion", "expansion"):
            text = _text(node, data)
            if text in (f"${name}", f"${{{name}}}"):
                if parent is not None and parent.type == "string":
                    if parent.named_child_count == 1 and _text(parent, data) == f'"{text}"':
                        sites.append((parent.start_byte, parent.end_byte, _QUOTED))
                    else:
                        sites.append((node.start_byte, node.end_byte, _PART))
                else:
                    bare = parent is not None and parent.type in ("command", "file_redirect")
                    sites.append((node.start_byte, node.end_byte, _BARE if bare else _PART))
                return
            if re.search(rf"[{{!#]{re.escape(name)}\b|\b{re.escape(name)}\b", text[1:]):
                ok = False  # ${f%.py}, ${#f}, ${!f}: a form unrolling does not follow
            return
        for child in node.children:
            walk(child, node)

    walk(body, None)
    return sites if ok else None  # in document order, each use once
