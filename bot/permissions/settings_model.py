"""The policy file as pydantic models: Claude Code's settings keys we read, and our ``bot`` key.

One description serves three purposes: validation (strict: ``"3"`` is not a number, ``1`` is not
``true``), the JSON Schema editors use for ``.github/bot-policy.json`` (``bot policy schema``,
``policies/bot-policy.schema.json``), and the error wording — :func:`error_message` turns
pydantic's first error into the sentence this project has always printed, and its ``loc`` is the
key path whose line :mod:`bot.permissions.documents` knows.

What the models leave to :mod:`bot.permissions.schema`: which top-level keys are warnings or
misspellings, rule syntax (``Read(src/**)``: an invalid allow rule is skipped with a warning, an
invalid deny rule is an error), hook events Claude Code does not have (warned about and dropped
before validation), and ``bot.env``'s names (secrets are refused), which need the entry's line.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from bot.errors import json_type_name

PermissionModeName = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
SandboxName = Literal["required", "auto", "off"]
#: The smallest ``bot.limits.context_window`` (tokens) that still holds a prompt, tools and a summary.
MIN_CONTEXT_WINDOW = 4_000

NonEmpty = Annotated[str, Field(pattern=r"\S")]


def _no_blank_command(commands: list[str]) -> list[str]:
    if any(not c.strip() for c in commands):
        raise ValueError("bot.verify: empty command")
    return commands


def _written_null(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """Every key is optional, and none may be written as ``null``: the error is the one a value of
    the wrong type gets (``None`` in the models only ever means "not written")."""
    if value is None:
        assert info.field_name is not None
        annotation = cls.model_fields[info.field_name].annotation
        if annotation is Any:  # checked where it is read (bot.env) or not read at all
            return value
        raise PydanticCustomError(_kind_of(annotation), "null is not allowed here")
    return value


def _kind_of(annotation: Any) -> str:
    """The error type pydantic gives a value of the wrong type for this annotation."""
    for arg in (annotation, *get_args(annotation)):
        if get_origin(arg) is Annotated:
            arg = get_args(arg)[0]
        origin = get_origin(arg) or arg
        if origin is list:
            return "list_type"
        if origin is dict:
            return "dict_type"
        if origin is bool:
            return "bool_type"
        if isinstance(origin, type) and issubclass(origin, BaseModel):
            return "model_type"
    return "string_type"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_null(cls, value: Any, info: ValidationInfo) -> Any:
        return _written_null(cls, value, info)


class Permissions(_Strict):
    """Claude Code's ``permissions``: rules and the mode."""

    allow: list[str] | None = Field(None, description="Rules that allow a call: Tool or Tool(content).")
    deny: list[str] | None = Field(None, description="Rules that deny a call, from any source, always.")
    ask: list[str] | None = Field(None, description="Rules that would ask; headless, a denial.")
    defaultMode: PermissionModeName | None = None
    additionalDirectories: list[str] | None = Field(
        None, description="More directories file tools may reach (read without a rule, as the workspace)."
    )
    disableBypassPermissionsMode: Literal["disable"] | None = None
    #: Claude Code's; not used headless (reported with the other unused keys).
    disableAutoMode: Any = None


class Limits(_Strict):
    max_turns: Annotated[int, Field(ge=1)] | None = None
    max_budget_usd: Annotated[float, Field(gt=0)] | None = None
    timeout_minutes: Annotated[float, Field(gt=0)] | None = None
    context_window: Annotated[int, Field(ge=MIN_CONTEXT_WINDOW)] | None = None
    #: AskUserQuestion calls per task (0 turns the tool off; docs/sessions.md).
    max_questions: Annotated[int, Field(ge=0)] | None = None


EnvSetting = Annotated[
    Any,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}},
                {
                    "type": "object",
                    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                    "additionalProperties": {"type": ["string", "number", "null"]},
                },
            ],
            "description": "Variables let into the shell: names (the runner's value passes through) or "
            "name → value (null: pass through). Secrets are refused.",
        }
    ),
]


class Bot(_Strict):
    """Our headless extensions (the one key Claude Code does not have)."""

    extends: NonEmpty | None = Field(None, description="A preset name (read-only, fix, maintenance) or a path.")
    limits: Limits | None = None
    model: NonEmpty | None = None
    #: Extended thinking: its meaning (budget, effort, per model) is checked by bot.agent.thinking.
    thinking: int | str | dict[str, int | str] | None = Field(
        None, description="A token budget, an effort (low … max), adaptive or off; or model → one of those."
    )
    sandbox: SandboxName | None = None
    #: Checked name by name in bot.permissions.schema (each entry's line, secrets refused).
    env: EnvSetting = None
    verify: Annotated[list[str], AfterValidator(_no_blank_command)] | None = Field(
        None, description="Commands run after the agent; a failure makes the PR a draft."
    )
    scheduled_task: NonEmpty | None = None
    allow_git_dir_writes: bool | None = None
    allow_workflow_writes: bool | None = None
    network: bool | None = None
    allow_unsandboxed: bool | None = None
    excluded_commands: list[str] | None = None
    secret_env: list[str] | None = None
    install_scripts: bool | None = None


class HookHandler(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    type: str
    command: str | None = None

    @model_validator(mode="after")
    def _command_needs_a_command(self) -> HookHandler:
        if self.type == "command" and not self.command:
            raise ValueError('needs a "command"')
        return self


class HookGroup(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    matcher: str | None = None
    hooks: Annotated[list[HookHandler], Field(min_length=1)]


class ClaudeSandbox(_Strict):
    """Claude Code's ``sandbox``, for what it means here: ``enabled`` with ``failIfUnavailable``
    is ``bot.sandbox: required``; ``excludedCommands`` and ``allowUnsandboxedCommands`` are
    ``bot.excluded_commands`` and ``bot.allow_unsandboxed``; ``network`` that widens access is
    warned about (commands get no network unless ``bot.network``). ``enabled: false`` never turns
    the sandbox off: only ``bot.sandbox: off`` does. Other keys are accepted, unused."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    enabled: bool | None = None
    failIfUnavailable: bool | None = None
    excludedCommands: list[str] | None = None
    allowUnsandboxedCommands: bool | None = None
    network: dict[str, Any] | None = None


#: The keys of Claude Code's ``sandbox`` that mean something here (the rest: one "unused" warning).
CLAUDE_SANDBOX_KEYS = frozenset(ClaudeSandbox.model_fields)


class Settings(BaseModel):
    """A policy file: Claude Code's settings schema; other Claude Code keys are accepted unread."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True, title="headless-bot policy")

    @field_validator("*", mode="before")
    @classmethod
    def _no_null(cls, value: Any, info: ValidationInfo) -> Any:
        return _written_null(cls, value, info)

    permissions: Permissions | None = None
    hooks: dict[str, list[HookGroup]] | None = None
    disableAllHooks: bool | None = None
    mcpServers: dict[str, dict[str, Any]] | None = None
    sandbox: ClaudeSandbox | None = None
    #: Claude Code's variables for the session; here: for the shell's commands (as ``bot.env``).
    env: dict[str, str] | None = None
    bot: Bot | None = None


def parse_settings(data: dict[str, Any]) -> Settings:
    """Validate; raises pydantic's ``ValidationError`` (see :func:`error_message`)."""
    return Settings.model_validate(data)


def first_error(exc: ValidationError) -> tuple[tuple[str | int, ...], str]:
    """The key path and our sentence for the first error pydantic found."""
    err = exc.errors(include_url=False)[0]
    return error_location(err), error_message(err)


_LIST_OF_STRINGS = {
    ("permissions", "allow"),
    ("permissions", "deny"),
    ("permissions", "ask"),
    ("permissions", "additionalDirectories"),
    ("bot", "verify"),
    ("bot", "excluded_commands"),
    ("bot", "secret_env"),
    ("sandbox", "excludedCommands"),
}
_LIMIT_WORDING = {
    "max_turns": "bot.limits.max_turns must be a whole number of at least 1",
    "context_window": f"bot.limits.context_window must be a whole number of tokens, at least {MIN_CONTEXT_WINDOW:,}",
    "max_questions": "bot.limits.max_questions must be a whole number (0 turns questions off)",
}


def _keys(model: type[BaseModel]) -> str:
    return ", ".join(sorted(model.model_fields))


def error_location(err: ErrorDetails) -> tuple[str | int, ...]:
    """The key path an error is about: pydantic's ``loc`` without its ``[key]`` marks, and for a
    hook group's missing ``hooks`` or a handler's ``type``/``command``, the group's (handler's) own
    line, as the hand-written validator reported them."""
    loc = tuple(p for p in err["loc"] if p != "[key]")
    if loc[:1] == ("hooks",) and len(loc) == 4 and loc[3] == "hooks":
        return loc[:3]
    if loc[:1] == ("hooks",) and len(loc) == 6:
        return loc[:5]
    return loc


def error_message(err: ErrorDetails) -> str:
    """Pydantic's error, in the words the hand-written validator used (tests hold them)."""
    loc = tuple(err["loc"])
    kind = err["type"]
    value = err.get("input")
    if "[key]" in loc:
        return f"keys must be strings, got {value!r}"
    path = tuple(str(p) for p in loc)
    dotted = ".".join(path)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"{dotted or 'the document'} must be an object (a mapping), got {json_type_name(value)}"
    if kind == "extra_forbidden":
        parent, key = path[:-1], path[-1]
        if parent == ("bot", "limits"):
            return f"unknown limit 'bot.limits.{key}' (expected one of: {_keys(Limits)})"
        model = Permissions if parent == ("permissions",) else Bot
        known = ", ".join(sorted(set(model.model_fields) - {"disableAutoMode"}))
        return f"unknown key '{'.'.join(path)}' (expected one of: {known})"
    if path[:2] == ("bot", "limits") and len(path) == 3:
        return _LIMIT_WORDING.get(path[2], f"bot.limits.{path[2]} must be a number greater than 0")
    if path[:1] == ("hooks",):
        return _hook_message(loc, kind)
    head = tuple(loc[:2])
    if head in _LIST_OF_STRINGS:
        name = ".".join(str(p) for p in head)
        if len(loc) == 2 and kind == "list_type":
            return f"{name} must be a list of strings, got {json_type_name(value)}"
        if len(loc) == 3 and kind == "string_type":
            return f"{name}[{loc[2]}] must be a string, got {json_type_name(value)}"
        if kind == "value_error":
            return str(err["msg"]).removeprefix("Value error, ")
    match path:
        case ("permissions", "defaultMode"):
            modes = ", ".join(get_args(PermissionModeName))
            return f"permissions.defaultMode {value!r} is not one of {modes}"
        case ("permissions", "disableBypassPermissionsMode"):
            return 'permissions.disableBypassPermissionsMode must be "disable"'
        case ("bot", "sandbox"):
            return f"bot.sandbox must be one of {', '.join(get_args(SandboxName))}"
        case ("bot", "extends" | "model" | "scheduled_task"):
            return f"{dotted} must be a non-empty string"
    if path[:1] == ("env",) and len(path) == 2:
        return f"env.{path[1]} must be a string"
    if kind == "bool_type":
        return f"{dotted} must be true or false"
    return f"{dotted}: {err['msg']}"


def _hook_message(loc: tuple[Any, ...], kind: str) -> str:
    event = loc[1] if len(loc) > 1 else None
    if len(loc) == 2:
        return f"hooks.{event} must be a list of matcher groups"
    i = loc[2]
    if len(loc) == 4 and loc[3] == "matcher":
        return f"hooks.{event}[{i}].matcher must be a string"
    if len(loc) == 4 and loc[3] == "hooks":
        return f"hooks.{event}[{i}].hooks must be a non-empty list"
    if len(loc) >= 5:
        j = loc[4]
        if kind == "value_error":
            return f'hooks.{event}[{i}].hooks[{j}] of type command needs a "command"'
        if len(loc) == 6 and loc[5] == "type":
            return f'hooks.{event}[{i}].hooks[{j}] needs a "type"'
        if len(loc) == 6 and loc[5] == "command":
            return f'hooks.{event}[{i}].hooks[{j}] of type command needs a "command"'
    return f"hooks.{event}[{i}]: {kind}"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a policy file, for editors (``"$schema"`` in ``.github/bot-policy.json``)."""
    from bot.permissions.schema import CLAUDE_CODE_UNUSED_KEYS, HOOK_EVENTS

    schema = Settings.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["description"] = (
        "A headless-bot policy: Claude Code's settings schema (an existing .claude/settings.json loads "
        "unchanged) plus the 'bot' key. Other Claude Code keys are accepted and not used."
    )
    properties = schema["properties"]
    properties["$schema"] = {"type": "string"}
    properties["hooks"] = {
        "anyOf": [
            {
                "type": "object",
                "propertyNames": {"enum": list(HOOK_EVENTS)},
                "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/HookGroup"}},
            },
            {"type": "null"},
        ]
    }
    for key in sorted(CLAUDE_CODE_UNUSED_KEYS - set(properties)):
        properties[key] = {"description": "A Claude Code setting this bot does not use (accepted, ignored)."}
    cleaned: dict[str, Any] = _without_null(schema)
    return cleaned


def schema_text() -> str:
    """:func:`json_schema` as the committed file holds it (``policies/bot-policy.schema.json``)."""
    import json

    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def _without_null(node: Any) -> Any:
    """``X | None`` in the models means "may be left out", never "may be null": drop the null branch
    (and the ``default: null`` that goes with it), so an editor flags a written ``null``."""
    if isinstance(node, list):
        return [_without_null(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_null(v) for k, v in node.items() if not (k == "default" and v is None)}
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        kept = [b for b in branches if b != {"type": "null"}]
        del out["anyOf"]
        if len(kept) == 1:
            out = {**kept[0], **out}
        else:
            out["anyOf"] = kept
    return out
