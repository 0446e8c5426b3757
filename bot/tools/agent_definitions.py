"""Sub-agent definitions (seeds 4.7 stage 1, 8.3.1–8.3.2): built-in ones and user-defined ones.

A definition says what a sub-agent is for (shown to the model in the Agent tool's description),
its system prompt, which tools it gets (an allow list, ``None`` = the parent's pool, and a deny
list), its model, and optionally a stricter permission mode. A definition can only take away:
the sub-agent's permission context is the parent's, never more.

User-defined agents use Claude Code's file format — ``.claude/agents/<name>.md`` with YAML front
matter (``name``, ``description``, ``tools``, ``disallowedTools``, ``model``, ``permissionMode``,
``maxTurns``; other keys such as ``color`` are Claude Code's display settings and ignored) and the
system prompt as the body.

Trust model: an agent file is a system prompt and a tool list, so it is configuration, read only
from trusted files — the default branch's tree on GitHub, the maintainer's working tree locally —
once, before the model runs (:func:`load_trusted_definitions`). Never from a pull request's head,
never from the workspace after the model ran anything in it: a file the model wrote must not
become a prompt.

This module sits below the tools (the Agent tool lists the definitions in its description) and
above nothing but the interface: the agent layer imports it, never the other way round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import ConfigError
from bot.interface.tool import AnyTool
from bot.permissions.context import PERMISSION_MODES, PermissionMode
from bot.tools.ask_user import ASK_USER_TOOL_NAME

GENERAL_PURPOSE = "general-purpose"
EXPLORE = "Explore"
#: The tool that starts sub-agents is never given to one (no recursive fan-out).
AGENT_TOOL_NAME = "Agent"
TOOL_SEARCH_NAME = "ToolSearch"
#: Model aliases the Agent tool accepts, mapped to model ids; a session can override the mapping.
DEFAULT_MODEL_ALIASES: Mapping[str, str] = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
}
#: Tools that change files; the read-only explorer never gets them.
FILE_WRITING_TOOLS = ("Edit", "Write", "NotebookEdit", "MultiEdit")


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    agent_type: str
    #: When to use it: shown to the model in the Agent tool's description.
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] = ()
    #: An alias (``sonnet``), a model id, or ``None``/``inherit`` for the parent's model.
    model: str | None = None
    #: A stricter mode for the sub-agent (``plan`` makes it read-only); never a looser one.
    permission_mode: PermissionMode | None = None
    max_turns: int | None = None
    source: str = "built-in"

    def filter_tools(self, tools: Iterable[AnyTool]) -> list[AnyTool]:
        """The sub-agent's pool: the parent's, minus the Agent tool and AskUserQuestion (only the main
        agent talks to the requester), through the allow and deny lists."""
        allowed = None if self.tools is None or "*" in self.tools else set(self.tools)
        denied = {*self.disallowed_tools, AGENT_TOOL_NAME, ASK_USER_TOOL_NAME}
        tools = list(tools)
        chosen = [t for t in tools if t.name not in denied and (allowed is None or t.name in allowed)]
        # An agent file lists the MCP tools it needs, not ToolSearch; a deferred one is reachable
        # only through ToolSearch, so it comes along unless the file denies it.
        if any(t.should_defer and not t.always_load for t in chosen) and TOOL_SEARCH_NAME not in denied:
            chosen += [t for t in tools if t.name == TOOL_SEARCH_NAME and t not in chosen]
        return chosen


BUILTIN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        agent_type=GENERAL_PURPOSE,
        description=(
            "General-purpose agent for researching complex questions, searching for code, and "
            "executing multi-step tasks. Use it when a search may take several rounds, or to do "
            "an independent piece of work."
        ),
        prompt="",
    ),
    AgentDefinition(
        agent_type=EXPLORE,
        description=(
            "Fast read-only agent for exploring a codebase: find files by pattern, search code for "
            "keywords, answer questions about how the code works. It cannot change files. Say how "
            "thorough it should be: quick, medium or very thorough."
        ),
        prompt=(
            "You explore a codebase and report what you find. You are read-only: you cannot create, "
            "edit or delete files, and shell commands that change anything are denied. Search broadly "
            "first, then read what matters; answer with file paths and line numbers."
        ),
        disallowed_tools=(*FILE_WRITING_TOOLS, "TodoWrite"),
        model="haiku",
        permission_mode="plan",
    ),
)


#: Most restrictive first: a sub-agent takes the stricter of its parent's mode and its own.
_MODE_STRICTNESS: dict[str, int] = {"plan": 0, "default": 1, "dontAsk": 1, "acceptEdits": 2, "bypassPermissions": 3}


def stricter_mode(parent: PermissionMode, requested: PermissionMode | None) -> PermissionMode:
    if requested is None:
        return parent
    return requested if _MODE_STRICTNESS[requested] < _MODE_STRICTNESS[parent] else parent


def resolve_model(
    call_model: str | None,
    definition: AgentDefinition,
    parent_model: str,
    aliases: Mapping[str, str] = DEFAULT_MODEL_ALIASES,
) -> str:
    """Seeds 4.7 stage 2: the call's ``model`` > the definition's > the parent's."""
    for choice in (call_model, definition.model):
        if choice and choice != "inherit":
            return aliases.get(choice, choice)
    return parent_model


def find_definition(definitions: Sequence[AgentDefinition], agent_type: str | None) -> AgentDefinition | None:
    wanted = agent_type or GENERAL_PURPOSE
    for definition in definitions:
        if definition.agent_type == wanted:
            return definition
    lowered = wanted.lower()
    return next((d for d in definitions if d.agent_type.lower() == lowered), None)


def merge_definitions(
    builtin: Sequence[AgentDefinition], user: Sequence[AgentDefinition]
) -> tuple[AgentDefinition, ...]:
    """User definitions override built-ins of the same type; order: built-ins, then users' by type."""
    by_type = {d.agent_type: d for d in builtin}
    for d in sorted(user, key=lambda d: d.agent_type):
        by_type[d.agent_type] = d
    return tuple(by_type.values())


# ----- Claude Code's agent files ----------------------------------------------------------------


#: Where Claude Code keeps a project's agent files.
AGENTS_DIR = ".claude/agents"
#: An agent file larger than this is not a prompt anybody wrote by hand (the largest real ones
#: are a few tens of KB).
MAX_AGENT_FILE_CHARS = 256 * 1024


def load_agent_definitions(directory: Path) -> list[AgentDefinition]:
    """Every ``*.md`` agent file in a trusted directory, sorted by name. Raises :class:`ConfigError`."""
    if not directory.is_dir():
        return []
    return [parse_agent_file(path) for path in sorted(directory.glob("*.md"))]


def load_trusted_definitions(
    read: Callable[[str], str | None], list_dir: Callable[[str], Sequence[str]], where: str = ""
) -> tuple[tuple[AgentDefinition, ...], list[str]]:
    """The built-ins merged with the agent files of ``.claude/agents/`` as a trusted source has them.

    ``list_dir(directory)`` names the files in a directory of the trusted tree, ``read(path)`` gives
    one's text (``None``: not a regular file there). A file that cannot be used is skipped with a
    warning that names it and the problem (as Claude Code skips it), so one bad file does not stop
    the run nor hide the others. Returns the definitions and the warnings."""
    found: list[AgentDefinition] = []
    warnings: list[str] = []
    names = sorted(n for n in list_dir(AGENTS_DIR) if n.endswith(".md") and "/" not in n)
    for name in names:
        path = f"{AGENTS_DIR}/{name}"
        text = read(path)
        if text is None:
            continue
        shown = f"{path} ({where})" if where else path
        if len(text) > MAX_AGENT_FILE_CHARS:
            warnings.append(f"{shown}: skipped, larger than {MAX_AGENT_FILE_CHARS // 1024} KB")
            continue
        try:
            found.append(parse_agent_text(text, Path(path)))
        except ConfigError as exc:
            warnings.append(f"{shown}: skipped: {exc}")
    return merge_definitions(BUILTIN_AGENTS, found), warnings


def parse_agent_file(path: Path) -> AgentDefinition:
    return parse_agent_text(path.read_text(encoding="utf-8"), path)


#: A top-level ``key: value`` line of front matter whose value is a plain (unquoted) scalar.
_PLAIN_ENTRY = re.compile(r"^([A-Za-z_][\w-]*):[ \t]+(?![\"'\[{|>&*!%@`])(.+?)\s*$")


def _front_matter(raw: str, path: Path) -> Any:
    """YAML, as Claude Code reads it: when the text is not valid YAML because a plain value holds
    ``: `` or `` #`` (the agent files Claude Code itself generated put ``Examples: <example>Context:
    ...`` in one-line descriptions), each top-level plain value is read as the literal text it is."""
    import yaml

    from bot.core.bounded_yaml import load_yaml  # PyYAML loads with the first agent file

    try:
        return load_yaml(raw, source=str(path))
    except (ConfigError, yaml.YAMLError):
        lenient = "\n".join(_quoted_if_ambiguous(line) for line in raw.split("\n"))
        if lenient == raw:
            raise
        try:
            return load_yaml(lenient, source=str(path))
        except (ConfigError, yaml.YAMLError):
            pass
        raise


def _quoted_if_ambiguous(line: str) -> str:
    """``key: value`` with the value quoted when YAML would read more structure into it (``: ``,
    `` #``); other values (``maxTurns: 20``) keep their type."""
    m = _PLAIN_ENTRY.match(line)
    if m is None:
        return line
    value = m.group(2)
    if ": " not in value and " #" not in value and not value.endswith(":"):
        return line
    return f"{m.group(1)}: {json.dumps(value)}"


def parse_agent_text(text: str, path: Path) -> AgentDefinition:
    """One agent file's definition. Raises :class:`ConfigError` naming ``path`` and the line."""
    import yaml

    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ConfigError("an agent file must start with YAML front matter between '---' lines", path=path, line=1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ConfigError("the front matter is not closed with '---'", path=path, line=1) from None
    try:
        meta = _front_matter("\n".join(lines[1:end]), path) or {}
    except ConfigError as exc:  # its line counts from the front matter, which starts on the file's line 2
        raise ConfigError(exc.detail, path=path, line=exc.line + 1 if exc.line is not None else None) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        raise ConfigError(f"invalid YAML front matter: {getattr(exc, 'problem', exc)}", path=path, line=line) from None
    if not isinstance(meta, dict):
        raise ConfigError("the front matter must be a mapping", path=path, line=2)

    def field_line(key: str) -> int:
        return next((i + 1 for i in range(1, end) if lines[i].lstrip().startswith(f"{key}:")), 2)

    def text_field(key: str, required: bool = False) -> str | None:
        value = meta.get(key)
        if value is None:
            if required:
                raise ConfigError(f"missing required field `{key}`", path=path, line=2)
            return None
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"`{key}` must be a string", path=path, line=field_line(key))
        return str(value).strip()

    def list_field(key: str) -> tuple[str, ...] | None:
        value: Any = meta.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",")]
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            items = [v.strip() for v in value]
        else:
            raise ConfigError(
                f"`{key}` must be a comma-separated string or a list of tool names", path=path, line=field_line(key)
            )
        return tuple(i for i in items if i)

    name = text_field("name", required=True)
    description = text_field("description", required=True)
    assert name is not None and description is not None
    mode = text_field("permissionMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise ConfigError(
            f"`permissionMode` must be one of {', '.join(PERMISSION_MODES)}",
            path=path,
            line=field_line("permissionMode"),
        )
    max_turns_raw = meta.get("maxTurns")
    if max_turns_raw is not None and (
        not isinstance(max_turns_raw, int) or isinstance(max_turns_raw, bool) or max_turns_raw < 1
    ):
        raise ConfigError("`maxTurns` must be a positive integer", path=path, line=field_line("maxTurns"))
    return AgentDefinition(
        agent_type=name,
        description=description,
        prompt="\n".join(lines[end + 1 :]).strip(),
        tools=list_field("tools"),
        disallowed_tools=list_field("disallowedTools") or (),
        model=text_field("model"),
        permission_mode=mode,
        max_turns=max_turns_raw,
        source=str(path),
    )
