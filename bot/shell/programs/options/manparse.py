"""Options as a program documents them: the header lines of a rendered manual page, or of
``--help`` output, and the description under each.

A rendered page (``man -P cat``) lays an option out as a tag line (``-f, --file=ARCHIVE``) indented
less than its description; ``--help`` usually puts both on one line, two or more spaces apart. Both
parsers return :class:`DocOption`: every spelling of the option, the value it takes (its metavar:
``ARCHIVE``, ``<file>``, ``[=WHEN]`` for an optional one; ``""`` for a flag) and the description.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class DocOption(NamedTuple):
    names: tuple[str, ...]
    #: The value's placeholder as documented (``FILE``, ``<cmd>``, ``[=WHEN]``); empty for a flag.
    value: str
    description: str
    #: The value may only be attached (``--color[=WHEN]``): ``--color x`` does not take ``x``.
    optional: bool = False


#: An option spelling at the start of a tag or after a comma: ``-x``, ``--long``, ``-long`` (find,
#: java, vim), ``+opt`` is left out (rare, and never a value-taking option).
_SPELLING = re.compile(
    r"(?<![\w-])(--?[A-Za-z0-9?@][\w.?@+-]*)"  # the spelling
    r"(\[?=[^\s,\]]+\]?|\s*\[=[^\]]+\]"  # =VALUE, [=VALUE]
    r"|\s+(?:<[^>]+>|\[[^\]-][^\]]*\]|\{[^}]+\}|[A-Za-z][\w.:|/-]*(?:\.\.\.)?))?"
)  # <v>, [v], {v}, VALUE
_TAG_START = re.compile(r"^--?[A-Za-z0-9?@]")
#: Two or more spaces end a tag written on the same line as its description.
_GAP = re.compile(r"\S( {2,}|\t)\S")


def _clean(text: str) -> str:
    """A tag without its list bullet (jq's ``•   --seq:``) and trailing colon (kubectl's)."""
    return _BULLET.sub("", text).rstrip(":")


_BULLET = re.compile(r"^[\u2022\u25cb\u25e6*]\s+")


def _tag_options(tag: str) -> tuple[tuple[str, ...], str, bool]:
    tag = tag.replace("/-", ", -")
    names: list[str] = []
    value = ""
    optional = False
    for match in _SPELLING.finditer(tag):
        name = match.group(1).rstrip(".,;:")
        if len(name) < 2 or name in ("-", "--"):
            continue
        names.append(name)
        if match.group(2) and not value:
            optional = match.group(2).lstrip().startswith("[")
            value = match.group(2).strip().strip("[]=").strip()
        inline = re.match(r"^(--?[\w.?@+-]+)=(\S+)", name)
        if inline:
            names[-1] = inline.group(1)
            value = value or inline.group(2)
    if value in ("true", "false"):
        value = ""  # kubectl's `--all-namespaces=false:`: a flag, shown with its default
    return tuple(dict.fromkeys(names)), value, optional


def _is_tag(text: str) -> bool:
    if not _TAG_START.match(text):
        return False
    # a sentence that starts with an option ("-x is the default...") is not a tag: tags are short
    # or made of spellings separated by commas
    head = _GAP.split(text, 1)[0] if _GAP.search(text) else text
    return len(head) <= 90


def parse_manual(text: str) -> list[DocOption]:
    """Options of a rendered manual page."""
    lines = text.splitlines()
    found: list[DocOption] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        stripped = _clean(line.strip())
        indent = len(line) - len(line.lstrip(" "))
        if not stripped or not _is_tag(stripped) or indent > 24:
            k += 1
            continue
        tag, description_parts = stripped, []
        gap = _GAP.search(stripped)
        if gap is not None and not stripped[: gap.start() + 1].rstrip().endswith(","):
            tag = stripped[: gap.start() + 1]
            description_parts.append(stripped[gap.end() - 1 :])
        k += 1
        while k < len(lines):
            following = lines[k]
            body = following.strip()
            body_indent = len(following) - len(following.lstrip(" "))
            if body and body_indent <= indent:
                break
            if body and body_indent > indent and not description_parts and _is_tag(body) and body_indent <= indent + 2:
                break
            if not body and description_parts and k + 1 < len(lines):
                nxt = lines[k + 1]
                if nxt.strip() and len(nxt) - len(nxt.lstrip(" ")) <= indent:
                    break
            if body:
                description_parts.append(body)
            k += 1
            if len(description_parts) > 60:
                break
        names, value, optional = _tag_options(tag)
        if names:
            found.append(DocOption(names, value, " ".join(description_parts)[:1200], optional))
    return found


def parse_help(text: str) -> list[DocOption]:
    """Options of ``--help`` output (one option a line, its description after a gap or below)."""
    lines = text.splitlines()
    found: list[DocOption] = []
    for k, line in enumerate(lines):
        stripped = _clean(line.strip())
        if not _is_tag(stripped):
            continue
        gap = _GAP.search(stripped)
        if gap is not None:
            tag, description = stripped[: gap.start() + 1], stripped[gap.end() - 1 :]
        else:
            tag, description = stripped, ""
            if k + 1 < len(lines) and lines[k + 1].strip() and not _is_tag(lines[k + 1].strip()):
                description = lines[k + 1].strip()
        names, value, optional = _tag_options(tag)
        if names:
            found.append(DocOption(names, value, description[:600], optional))
    return found


#: A configuration parameter's header in npm's pages (``   registry``) and the type line under it.
_PARAMETER = re.compile(r"^ {2,4}([a-z@][\w:@-]*)\s*$")
_TYPE = re.compile(r"^\W*Type:\s*(.+)$")


def parse_config_page(text: str) -> list[DocOption]:
    """Parameters of a page that documents options as configuration (npm's config(7), the
    ``Configuration`` section of ``npm-install(1)``): ``--NAME``, a flag when its type is Boolean."""
    found: list[DocOption] = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        header = _PARAMETER.match(line)
        if header is None:
            continue
        kind, description = "", []
        for body in lines[k + 1 : k + 40]:
            if _PARAMETER.match(body) or (body.strip() and not body.startswith(" ")):
                break
            typed = _TYPE.match(body.strip())
            if typed and not kind:
                kind = typed.group(1).strip()
            elif body.strip() and not body.strip().lstrip("\u2022 ").startswith("Default:"):
                description.append(body.strip())
        if not kind:
            continue  # a section heading, not a parameter
        found.append(DocOption((f"--{header.group(1)}",), _config_value(kind), " ".join(description)[:1200]))
    return found


def _config_value(kind: str) -> str:
    """The placeholder of a parameter of type ``kind``: none for a Boolean (``null or Boolean``
    too: npm's parser takes the next word as the value of a Boolean only when it is ``true`` or
    ``false``), else the type's own name where it says one."""
    types = set(re.findall(r"[A-Za-z]+", kind))
    if "Boolean" in types and "String" not in types:
        return ""
    for name, placeholder in (("URL", "URL"), ("Path", "PATH"), ("Number", "NUMBER")):
        if name in types:
            return placeholder
    return "VALUE"
