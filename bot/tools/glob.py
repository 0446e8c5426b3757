"""Glob: file names matching a pattern, newest first (seeds 8.4.1), backed by ``rg --files``.

``rg --files`` honours ``.gitignore`` (hidden files are listed, version-control directories are
not). At most ``MAX_GLOB_RESULTS`` paths, relative to the workspace, with a truncation flag.
Permission-aware: a file a ``Read`` deny rule covers is never listed. Concurrency-safe and
read-only.

A pattern's leading literal directories become the search root (``src/**/*.py`` walks ``src``
only; ``/abs/dir/*.py`` walks ``/abs/dir``), so that root is what the confinement check sees.
The rest of the pattern is matched relative to that root. A directory named explicitly — as
``path`` or as the pattern's literal prefix — is searched even if ``.gitignore`` ignores it (as
rg searches the paths it is given); inside it, ignore rules hold. rg's ``--glob`` would override
``.gitignore``, so name patterns go to rg as a file type instead (:mod:`bot.tools.files.globs`).
rg is told to pass over the ignore files above the root (``--no-ignore-parent``: it then matches
no entry against them) when their rules either cannot match under it or ignore names; in that
case the files shown, and the one after them, are checked against those names, and should one of
them match, rg lists again with them (:mod:`bot.tools.files.parent_ignores`).
Paths are stat'ed for their mtime as rg prints them, while it is still walking — rg with more
walker threads than it would pick on a small machine (:data:`bot.tools.ripgrep.MIN_WALK_THREADS`)
and in a session of its own, so that the stat loop keeps pace with it (:func:`stream_rg`). Only
the newest hundred become ``str``, and deny rules are asked about those only
(:meth:`bot.tools.files.newest.NewestFiles.newest`). bench/search.py measures all this.
"""

from __future__ import annotations

import os
import time
from pathlib import Path, PurePosixPath

import anyio
from pydantic import Field

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.decision import PermissionResult
from bot.tools.files.globs import FileSelection, select_files
from bot.tools.files.newest import NewestFiles, Visible
from bot.tools.files.parent_ignores import KEEP, ParentRules, parent_rules
from bot.tools.paths import check_path_access, is_within, resolve_path
from bot.tools.ripgrep import stream_rg, vcs_exclusion_args, walk_threads
from bot.tools.search_filter import SearchFilter

#: Seeds 8.4.1: ``globLimits.maxResults`` default.
MAX_GLOB_RESULTS = 100

_GLOB_META = frozenset("*?[{")


class GlobInput(ToolInput):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py" or "src/**/*.ts"')
    path: str | None = Field(
        default=None,
        description='The directory to search in. Omit it to search the workspace (do not pass null or "undefined").',
    )


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
        # The directory searched, not only `path`: a pattern's literal prefix moves the root
        # (`path: src`, `pattern: ../secrets/*` searches `secrets`), so rules see where it goes.
        return glob_subject(input.path, input.pattern)

    async def check_permissions(self, input: GlobInput, context: ToolUseContext) -> PermissionResult:
        base, _ = glob_root(input, context)
        return check_path_access(str(base), context)

    async def validate_input(self, input: GlobInput, context: ToolUseContext) -> ValidationResult:
        if not input.pattern.strip():
            return ValidationReject("The pattern is empty", code=2)
        if input.path is not None:
            base = resolve_path(input.path, context)
            if not base.is_dir():
                return ValidationReject(f"Directory does not exist: {input.path}", code=1)
        return VALID

    async def call(
        self, input: GlobInput, context: ToolUseContext, progress: Progress
    ) -> ToolResult[dict[str, object]]:
        started = time.perf_counter()
        base, pattern = glob_root(input, context)
        if not base.is_dir():  # the pattern's literal prefix names no directory: nothing matches
            return ToolResult(_glob_output([], False, started))
        search_filter = SearchFilter(context, self.name)
        # Files read off the event loop's thread: the watchdog and signal handlers keep running.
        parents = await anyio.to_thread.run_sync(parent_rules, base, context.workspace)
        page = await _newest_matches(base, pattern, context, search_filter, parents)
        if page is None:  # a file to show may be one an ignore rule above the root hides: rg decides
            page = await _newest_matches(base, pattern, context, search_filter, KEEP)
            assert page is not None
        names, truncated = page
        return ToolResult(_glob_output(names, truncated, started))

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


def glob_root(input: GlobInput, context: ToolUseContext) -> tuple[Path, str]:
    """The directory to walk and the pattern relative to it.

    Leading literal segments of the pattern (``src/``, ``../lib/``, an absolute ``/x/y/``) move
    into the root, so the root is what confinement checks and rg walks only what it must.
    """
    base = resolve_path(input.path, context) if input.path else context.working_directory
    pattern = input.pattern.strip()
    anchored = False
    if pattern.startswith("/"):
        base, pattern, anchored = Path("/"), pattern.lstrip("/"), True
    parts = PurePosixPath(pattern).parts if pattern else ()
    literal: list[str] = []
    for part in parts[:-1]:  # the last segment always stays a pattern (it names files)
        if _GLOB_META & set(part) or part.startswith("!"):
            break
        literal.append(part)
    if literal:
        base = resolve_path(os.path.join(base, *literal), context)
        pattern, anchored = "/".join(parts[len(literal) :]), True
    if anchored and not pattern.startswith("**/"):
        pattern = "/" + pattern  # anchored at the new root: `src/*.py` is not `src/**/*.py`
    return base, pattern


def glob_subject(path: str | None, pattern: str) -> str:
    """The directory a Glob searches, as written (for the permission rules): ``path`` (or ``.``)
    joined with the pattern's leading literal directories, or those alone for an absolute
    pattern — the textual twin of :func:`glob_root`."""
    base = path or "."
    pattern = pattern.strip()
    if pattern.startswith("/"):
        base, pattern = "/", pattern.lstrip("/")
    parts = PurePosixPath(pattern).parts if pattern else ()
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_META & set(part) or part.startswith("!"):
            break
        literal.append(part)
    return os.path.join(base, *literal) if literal else base


async def _newest_matches(
    base: Path, pattern: str, context: ToolUseContext, search_filter: SearchFilter, parents: ParentRules
) -> tuple[list[str], bool] | None:
    """The newest ``MAX_GLOB_RESULTS`` files that ``pattern`` matches under ``base`` and deny
    rules let through, displayable, and whether there are more; ``None`` when rg skipped the
    ignore files above ``base`` and one of those files (or the one after them) may be one they
    hide."""
    args, prefix, selection = glob_command(base, pattern, context, parents)
    with NewestFiles(base) as found:
        collector = _Collector(base, found, selection, search_filter)
        # NUL-separated: a file name may hold a newline (it never holds a NUL).
        run = await stream_rg(args, base, collector.add, own_session=True, separator=b"\0")
        allowed = visible = collector.visible
        unsure = False
        if parents.names is not None:

            def shown(raw: bytes) -> bool:  # asked for the page and the one after it, newest first
                nonlocal unsure
                if allowed is not None and not allowed(raw):
                    return False
                unsure = unsure or parents.may_hide(raw)
                return True

            visible = shown
        newest, truncated = found.newest(MAX_GLOB_RESULTS, visible)
        if unsure:
            return None
        if run.code == 2 and not newest:  # an error and nothing to show
            raise ToolExecutionError(f"Glob failed: {run.error_text}")
        return [prefix + os.fsdecode(n) for n in newest], truncated


def glob_command(
    base: Path, pattern: str, context: ToolUseContext, parents: ParentRules | None = None
) -> tuple[list[str], str, FileSelection]:
    """rg's arguments (run in ``base``), the prefix that makes its paths displayable (relative to
    the workspace, or absolute outside it), and the selection for globs rg cannot apply.
    ``parents``: the ignore rules above ``base`` (read from there when not given)."""
    selection = select_files([pattern])
    if parents is None:
        parents = parent_rules(base, context.workspace)
    args = [
        "--files",
        "--null",
        "--hidden",
        *vcs_exclusion_args(),
        *selection.rg_args,
        *(["--no-ignore-parent"] if parents.skippable else []),
        "--no-messages",
        "--threads",
        str(walk_threads()),
    ]
    return args, display_prefix(base, context), selection


def display_prefix(base: Path, context: ToolUseContext) -> str:
    if base == context.workspace:
        return ""
    if is_within(base, context.workspace):
        return f"{base.relative_to(context.workspace)}/"
    return f"{base}/"


class _Collector:
    """Takes paths as rg prints them (relative to the root): drops what the selection does not
    want, stats the rest. Deny rules are asked later, through :meth:`visible`, and only for the
    newest paths: a denied file is never shown nor counted, but the filter does not run on
    every match."""

    __slots__ = ("base", "filter", "found", "selection")

    def __init__(self, base: Path, found: NewestFiles, selection: FileSelection, search_filter: SearchFilter) -> None:
        self.base = f"{base}/" if str(base) != "/" else "/"
        self.found = found
        self.selection = selection
        self.filter = search_filter

    def add(self, lines: list[bytes]) -> bool:
        if self.selection.path_patterns:
            wants = self.selection.wants
            lines = [raw for raw in lines if wants(os.fsdecode(raw))]
        self.found.add_all(lines)
        return True

    @property
    def visible(self) -> Visible | None:
        """What deny rules let through (``None``: everything)."""
        return self._shown if self.filter.active else None

    def _shown(self, raw: bytes) -> bool:
        return not self.filter.hides(self.base + os.fsdecode(raw))


def _glob_output(names: list[str], truncated: bool, started: float) -> dict[str, object]:
    return {
        "filenames": names,
        "numFiles": len(names),
        "truncated": truncated,
        "durationMs": round((time.perf_counter() - started) * 1000),
    }


__all__ = ["MAX_GLOB_RESULTS", "GlobInput", "GlobTool", "display_prefix", "glob_command", "glob_root", "glob_subject"]
