"""Glob: file names matching a pattern, newest first (seeds 8.4.1), backed by ``rg --files``.

``rg --files`` honours ``.gitignore`` and skips hidden VCS directories. At most
``MAX_GLOB_RESULTS`` paths, relative to the workspace, with a truncation flag. Concurrency-safe
and read-only.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pydantic import Field

from bot.errors import ToolExecutionError
from bot.permissions.decision import PermissionResult
from bot.tools.base import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.tools.context import ToolUseContext
from bot.tools.messages import Progress
from bot.tools.paths import check_path_access, display_path, resolve_path
from bot.tools.ripgrep import run_rg

#: Seeds 8.4.1: ``globLimits.maxResults`` default.
MAX_GLOB_RESULTS = 100


class GlobInput(ToolInput):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py" or "src/**/*.ts"')
    path: str | None = Field(
        default=None,
        description="The directory to search in. Omit it to search the workspace (do not pass null or "
                    "\"undefined\").")


class GlobTool(Tool[GlobInput, dict[str, object]]):
    """Fast file-name pattern matching. Returns matching file paths, most recently modified first, at
    most 100. Honours .gitignore. Use it to find files by name; use Grep to search contents."""

    name = "Glob"
    search_hint = "find files by name pattern wildcard list"
    max_result_chars = 100_000
    input_model = GlobInput

    def is_concurrency_safe(self, input: GlobInput) -> bool:
        return True  # lists files only

    def is_read_only(self, input: GlobInput) -> bool:
        return True

    def is_destructive(self, input: GlobInput) -> bool:
        return False

    def permission_subject(self, input: GlobInput) -> str:
        return input.path or "."

    async def check_permissions(self, input: GlobInput, context: ToolUseContext) -> PermissionResult:
        return check_path_access(input.path or str(context.working_directory), context)

    async def validate_input(self, input: GlobInput, context: ToolUseContext) -> ValidationResult:
        if input.path is not None:
            base = resolve_path(input.path, context)
            if not base.is_dir():
                return ValidationReject(f"Directory does not exist: {input.path}", code=1)
        return VALID

    async def call(self, input: GlobInput, context: ToolUseContext,
                   progress: Progress) -> ToolResult[dict[str, object]]:
        started = time.perf_counter()
        base = resolve_path(input.path, context) if input.path else context.working_directory
        code, out, err = await run_rg(["--files", "--hidden", "--glob", "!.git", "--glob", input.pattern,
                                       "--no-messages", "."], base)
        if code == 2 and not out:
            raise ToolExecutionError(f"Glob failed: {err.decode(errors='replace').strip()}")
        found: list[tuple[float, Path]] = []
        for rel in out.decode(errors="surrogateescape").splitlines():
            path = base / rel.removeprefix("./")
            try:
                mtime = os.stat(path).st_mtime
            except OSError:
                mtime = 0.0  # seeds: a stat failure degrades to mtime 0, it never fails the search
            found.append((mtime, path))
        found.sort(key=lambda item: (-item[0], str(item[1])))
        truncated = len(found) > MAX_GLOB_RESULTS
        names = [display_path(p, context) for _, p in found[:MAX_GLOB_RESULTS]]
        return ToolResult({
            "filenames": names,
            "numFiles": len(names),
            "truncated": truncated,
            "durationMs": round((time.perf_counter() - started) * 1000),
        })

    def map_result(self, output: dict[str, object]) -> str:
        names = output["filenames"]
        assert isinstance(names, list)
        if not names:
            return "No files found"
        text = "\n".join(str(n) for n in names)
        if output["truncated"]:
            text += "\n(Results are truncated. Consider using a more specific path or pattern.)"
        return text

    def summarize_input(self, input: GlobInput) -> str:
        return input.pattern + (f" in {input.path}" if input.path else "")
