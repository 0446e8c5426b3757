"""The run's transcript: one JSON line per message, in Claude Code's transcript shape, so hook
scripts written for Claude Code (that read ``transcript_path``) work unchanged.

Each line: ``type`` (``user``/``assistant``), ``message`` (the API-shaped message), ``uuid``,
``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``, ``isSidechain`` (true for sub-agents),
``agentId``. Lines are appended and flushed as the run goes, so a hook sees the conversation so far.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TRANSCRIPT_FILE = "transcript.jsonl"


def transcript_path_for(scratch_dir: Path, agent_id: str | None) -> Path:
    """The main agent's transcript, or ``agent-<id>.jsonl`` for a sub-agent (Claude Code's names)."""
    return scratch_dir / (TRANSCRIPT_FILE if agent_id is None else f"agent-{agent_id}.jsonl")


class Transcript:
    def __init__(self, path: Path, *, session_id: str, cwd: Path, agent_id: str | None = None) -> None:
        self.path = path
        self._session_id = session_id
        self._cwd = str(cwd)
        self._agent_id = agent_id
        self._parent: str | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def append(self, message: dict[str, Any], **extra: Any) -> None:
        line_id = str(uuid.uuid4())
        entry: dict[str, Any] = {
            "parentUuid": self._parent,
            "isSidechain": self._agent_id is not None,
            "type": message.get("role", "user"),
            "message": message,
            "uuid": line_id,
            "sessionId": self._session_id,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "cwd": self._cwd,
            **extra,
        }
        if self._agent_id is not None:
            entry["agentId"] = self._agent_id
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
        self._parent = line_id


def read_transcript(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
