"""What every tool call receives: the workspace, what has been read, the abort signal, the limits.

``ToolUseContext`` is immutable; a tool that changes shared state (Bash's ``cd``) returns a context
modifier instead, applied by the scheduler after the call's batch (seeds: only for tools that are
not concurrency-safe). The read-file state is the one deliberately shared, mutable piece: Read
records into it and Edit/Write check staleness against it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.core.services import Services
from bot.interface.abort import AbortSignal
from bot.permissions.context import PermissionContext


@dataclass(frozen=True, slots=True)
class FileReadRecord:
    """What the model saw of a file: enough to tell whether it changed since."""

    content_hash: str
    mtime_ns: int
    offset: int | None = None
    limit: int | None = None

    @property
    def is_partial(self) -> bool:
        return self.offset is not None or self.limit is not None


class ReadFileState:
    """Path → what was read. One per agent: a sub-agent gets a fresh one (seeds 8.3.2)."""

    def __init__(self) -> None:
        self._records: dict[Path, FileReadRecord] = {}

    def record(
        self, path: Path, content: bytes, mtime_ns: int, offset: int | None = None, limit: int | None = None
    ) -> FileReadRecord:
        rec = FileReadRecord(hash_bytes(content), mtime_ns, offset, limit)
        self._records[path] = rec
        return rec

    def get(self, path: Path) -> FileReadRecord | None:
        return self._records.get(path)

    def forget(self, path: Path) -> None:
        self._records.pop(path, None)

    def __contains__(self, path: object) -> bool:
        return path in self._records

    def __len__(self) -> int:
        return len(self._records)

    def clone(self) -> ReadFileState:
        other = ReadFileState()
        other._records = dict(self._records)
        return other


def hash_bytes(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


#: The seeds' conversion between characters and tokens for tool results and their caps
#: (100,000 tokens ≈ 400 KB): one figure for Read, the result budget and MCP output.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """Per-call limits. Tool-specific limits (Bash's timeout, Read's token cap) live with the tool."""

    #: Wall time for one call through stage 5, a backstop above every tool's own timeout
    #: (Bash's maximum is 600 s, seeds 8.1.1).
    call_timeout_s: float = 900.0
    #: Seeds 4.5: concurrent batches limited to 10 (``BOT_MAX_TOOL_USE_CONCURRENCY`` overrides).
    max_tool_use_concurrency: int = 10


@dataclass(frozen=True, slots=True)
class ToolUseContext:
    workspace: Path
    scratch_dir: Path
    permission: PermissionContext = field(default_factory=PermissionContext)
    read_file_state: ReadFileState = field(default_factory=ReadFileState)
    abort: AbortSignal = field(default_factory=AbortSignal)
    limits: ToolLimits = field(default_factory=ToolLimits)
    #: The shell's persistent working directory (changed by Bash's ``cd`` via a context modifier).
    cwd: Path | None = None
    #: ``None`` for the main agent; a sub-agent's id otherwise.
    agent_id: str | None = None
    #: The tool pool the call belongs to (ToolSearch and Agent read it).
    tools: tuple[Any, ...] = ()
    #: Shared services that later layers attach (background tasks, MCP clients, event sink...).
    services: Services = field(default_factory=Services)

    @property
    def working_directory(self) -> Path:
        return self.cwd if self.cwd is not None else self.workspace

    @property
    def allowed_roots(self) -> tuple[Path, ...]:
        return (self.workspace, *self.permission.additional_directories)

    def with_(self, **changes: Any) -> ToolUseContext:
        return replace(self, **changes)


ContextModifier = Callable[[ToolUseContext], ToolUseContext]


def make_context(
    workspace: str | os.PathLike[str],
    *,
    scratch_dir: str | os.PathLike[str] | None = None,
    permission: PermissionContext | None = None,
    **kwargs: Any,
) -> ToolUseContext:
    """A context for a workspace. Both paths are resolved (symlinks included) once, here."""
    ws = Path(workspace).resolve(strict=True)
    scratch = Path(scratch_dir) if scratch_dir is not None else Path(tempfile.mkdtemp(prefix="bot-run-"))
    scratch.mkdir(parents=True, exist_ok=True)
    return ToolUseContext(
        workspace=ws,
        scratch_dir=scratch.resolve(),
        permission=permission or PermissionContext(),
        **kwargs,
    )
