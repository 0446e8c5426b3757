"""Grep: regex search of file contents, backed by ripgrep (seeds 8.4.2).

Three output modes: ``files_with_matches`` (default; newest first, stat failures sort as mtime
0), ``content`` (matching lines, with ``-n``/``-A``/``-B``/``-C``) and ``count``. Results are paged
by the seeds' ``applyHeadLimit``: ``head_limit`` defaults to 250 and ``0`` means unlimited;
``offset`` skips entries first. Lines longer than 500 columns are elided by rg
(``--max-columns 500``), version-control directories are never searched, ``.gitignore`` is
honoured (the ``glob`` filter does not override it: see :mod:`bot.tools.files.globs`), and a file
a ``Read`` deny rule covers never shows up. Concurrency-safe and read-only.

rg runs in the search directory, so its paths are short; they are shown relative to the
workspace. In ``content`` mode rg is stopped as soon as the requested page is full.

A file name may hold a newline, so rg's output is never split on newlines before the path is
known: paths end with a NUL (``--null``; in ``files_with_matches`` mode the NUL ends the record,
elsewhere a line is ``path NUL rest``, and a line without a NUL is the beginning of a path cut by
a newline in it), and the context separator starts with a NUL (no path is empty). rg's notices
about binary files carry no NUL, so a line like one may also be the beginning of a crafted file
name: a content line is shown only when every path it may belong to is visible
(:func:`content_line_paths`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress
from bot.interface.tool import VALID, Tool, ToolInput, ToolResult, ValidationReject, ValidationResult
from bot.permissions.decision import PermissionResult
from bot.tools.coercion import SemanticBool, SemanticInt
from bot.tools.files.globs import FileSelection, select_files, split_globs
from bot.tools.files.newest import NewestFiles
from bot.tools.glob import display_prefix
from bot.tools.paths import check_path_access, resolve_path
from bot.tools.ripgrep import stream_rg, vcs_exclusion_args
from bot.tools.search_filter import SearchFilter

#: Seeds 8.4.2: ``DEFAULT_HEAD_LIMIT``.
DEFAULT_HEAD_LIMIT = 250
#: Seeds 8.4.2: lines longer than this are elided by rg.
MAX_COLUMNS = 500

OutputMode = Literal["content", "files_with_matches", "count"]
_LINE_NUMBER = re.compile(rb"\d+([:-])")
#: rg's ``--context-separator`` (rg expands the escape): a NUL first, which no path starts with.
CONTEXT_SEPARATOR_ARG = "\\x00--"
_CONTEXT_SEPARATOR = b"--"
#: rg's notices about a binary file (content mode only): ``path: …`` without a NUL after the path.
_BINARY_NOTICE = re.compile(
    rb": (?:WARNING: stopped searching binary file after match|binary file matches) "
    rb'\(found "\\0" byte around offset \d+\)\Z'
)


class GrepInput(ToolInput):
    model_config = ConfigDict(extra="forbid", frozen=True, serialize_by_alias=True)

    pattern: str = Field(description="The regular expression to search for (ripgrep syntax)")
    path: str | None = Field(default=None, description="File or directory to search in (default: the workspace)")
    glob: str | None = Field(
        default=None, description='Only files matching these globs, e.g. "*.js" or "*.{ts,tsx}"; "!pattern" excludes'
    )
    output_mode: OutputMode | None = Field(
        default=None,
        description='"content" shows matching lines; "files_with_matches" (default) file paths; '
        '"count" match counts per file',
    )
    before: SemanticInt | None = Field(
        default=None, alias="-B", ge=0, description="Lines of context before each match (content mode)"
    )
    after: SemanticInt | None = Field(
        default=None, alias="-A", ge=0, description="Lines of context after each match (content mode)"
    )
    context: SemanticInt | None = Field(
        default=None, alias="-C", ge=0, description="Lines of context before and after each match (content mode)"
    )
    line_numbers: SemanticBool | None = Field(
        default=None, alias="-n", description="Show line numbers (content mode; default true)"
    )
    ignore_case: SemanticBool | None = Field(default=None, alias="-i", description="Case-insensitive search")
    file_type: str | None = Field(
        default=None, alias="type", description="ripgrep file type, e.g. py, js, rust (faster than glob)"
    )
    head_limit: SemanticInt | None = Field(
        default=None, ge=0, description="At most this many lines/files/entries (default 250; 0 = unlimited)"
    )
    offset: SemanticInt | None = Field(
        default=None, ge=0, description="Skip this many lines/files/entries first (default 0)"
    )
    multiline: SemanticBool | None = Field(default=None, description="Let patterns span lines; . matches newlines")

    @property
    def mode(self) -> OutputMode:
        return self.output_mode or "files_with_matches"


@dataclass(frozen=True, slots=True)
class HeadLimit:
    """The seeds' ``applyHeadLimit`` as data: where the page starts and how long it is (``None``:
    unlimited)."""

    offset: int
    limit: int | None

    @classmethod
    def of(cls, head_limit: int | None, offset: int | None) -> HeadLimit:
        if head_limit == 0:
            return cls(offset or 0, None)
        return cls(offset or 0, DEFAULT_HEAD_LIMIT if head_limit is None else head_limit)

    @property
    def stop_after(self) -> int | None:
        """Entries to collect before we know the page is full and more exist."""
        return None if self.limit is None else self.offset + self.limit + 1


def apply_head_limit(items: list[Any], head: HeadLimit) -> tuple[list[Any], bool]:
    """(the page, whether entries past it were cut) — seeds 8.4.2."""
    if head.limit is None:
        return items[head.offset :], False
    return items[head.offset : head.offset + head.limit], len(items) - head.offset > head.limit


class GrepTool(Tool[GrepInput, dict[str, Any]]):
    """Searches file contents with regular expressions (ripgrep). Use it instead of grep or rg in
    Bash. output_mode "files_with_matches" (default) lists files, newest first; "content" shows
    matching lines (with -n, -A, -B, -C); "count" counts matches per file. Filter with glob or
    type. Results are limited to 250 entries by default: page with offset, or head_limit=0 for all.
    Use multiline for patterns that span lines."""

    name = "Grep"
    search_hint = "search file contents regex ripgrep find text code"
    max_result_chars = 20_000  # seeds 4.8
    input_model = GrepInput

    def is_concurrency_safe(self, input: GrepInput) -> bool:
        return True  # reads only

    def is_read_only(self, input: GrepInput) -> bool:
        return True

    def is_destructive(self, input: GrepInput) -> bool:
        return False

    def permission_subject(self, input: GrepInput) -> str:
        return input.path or "."

    def observable_input(self, input: GrepInput, context: ToolUseContext) -> dict[str, object]:
        data = input.model_dump(mode="json", exclude_none=True, by_alias=True)
        data["path"] = str(resolve_path(input.path, context) if input.path else context.working_directory)
        return data

    async def check_permissions(self, input: GrepInput, context: ToolUseContext) -> PermissionResult:
        return check_path_access(input.path or str(context.working_directory), context)

    async def validate_input(self, input: GrepInput, context: ToolUseContext) -> ValidationResult:
        if input.pattern == "":
            return ValidationReject("The pattern is empty", code=2)
        if input.path is not None and not resolve_path(input.path, context).exists():
            return ValidationReject(
                f"{input.path}: no such file or directory (current working directory: {context.working_directory})",
                code=1,
            )
        return VALID

    async def call(self, input: GrepInput, context: ToolUseContext, progress: Progress) -> ToolResult[dict[str, Any]]:
        started = time.perf_counter()
        target = resolve_path(input.path, context) if input.path else context.working_directory
        cwd, name = (target.parent, target.name) if target.is_file() else (target, None)
        selection = select_files(split_globs(input.glob or ""))
        args = grep_command(input, selection, name)
        head = HeadLimit.of(input.head_limit, input.offset)
        with NewestFiles(cwd) as newest:
            collector = _Collector(
                input.mode,
                cwd,
                display_prefix(cwd, context),
                selection,
                SearchFilter(context, self.name),
                head,
                newest,
                numbered=input.line_numbers is not False,
            )
            run = await stream_rg(
                args, cwd, collector.add, separator=b"\0" if input.mode == "files_with_matches" else b"\n"
            )
            if not run.stopped and run.code == 2 and collector.empty:
                raise ToolExecutionError(f"Grep failed: {run.error_text or 'ripgrep exited with an error'}")
            data = collector.result(head, run.stopped)
        data["durationMs"] = round((time.perf_counter() - started) * 1000)
        return ToolResult(data)

    def map_result(self, output: dict[str, Any]) -> str:
        return format_grep_result(output)

    def summarize_input(self, input: GrepInput) -> str:
        return input.pattern + (f" in {input.path}" if input.path else "") + (f" ({input.glob})" if input.glob else "")


def grep_command(input: GrepInput, selection: FileSelection, single_file: str | None) -> list[str]:
    """The rg arguments for a search run in the search directory (or a file's directory)."""
    args = ["--hidden", *vcs_exclusion_args(), "--max-columns", str(MAX_COLUMNS), "--color", "never", "--no-messages"]
    if input.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if input.ignore_case:
        args.append("--ignore-case")
    match input.mode:
        case "files_with_matches":
            args += ["--files-with-matches", "--null"]
        case "count":
            args += ["--count", "--with-filename", "--null"]
        case "content":
            args += ["--with-filename", "--null", "--no-heading", "--context-separator", CONTEXT_SEPARATOR_ARG]
            if input.line_numbers is not False:
                args.append("--line-number")
            if input.context is not None:
                args += ["--context", str(input.context)]
            else:
                if input.before is not None:
                    args += ["--before-context", str(input.before)]
                if input.after is not None:
                    args += ["--after-context", str(input.after)]
    if input.file_type:
        args += ["--type", input.file_type]
    args += selection.rg_args
    args += ["--regexp", input.pattern]
    if single_file is not None:
        args += ["--", single_file]
    return args


@dataclass(slots=True)
class _Collector:
    """Consumes rg's lines for one output mode: selection, deny filter, paging, early stop."""

    mode: OutputMode
    cwd: Path
    prefix: str
    selection: FileSelection
    filter: SearchFilter
    head: HeadLimit
    newest: NewestFiles
    numbered: bool = True
    lines: list[str] = field(default_factory=list)
    counts: list[tuple[str, int]] = field(default_factory=list)
    #: Lines without a NUL since the last record: a path cut by newlines, or rg's binary notices.
    pending: list[bytes] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (len(self.newest) or self.lines or self.counts)

    def _visible(self, rel: str) -> bool:
        if self.selection.path_patterns and not self.selection.wants(rel):
            return False
        return not (self.filter.active and self.filter.hides(os.path.join(self.cwd, rel)))

    def add(self, raw_lines: list[bytes]) -> bool:
        match self.mode:
            case "files_with_matches":
                self._add_files(raw_lines)
                return True
            case "count":
                self._add_counts(raw_lines)
                return True
            case "content":
                return self._add_content(raw_lines)

    def _add_files(self, raw_lines: list[bytes]) -> None:
        if self.filter.active or self.selection.path_patterns:
            raw_lines = [raw for raw in raw_lines if self._visible(os.fsdecode(raw))]
        self.newest.add_all(raw_lines)  # mtimes for the newest-first order (seeds 8.4.2)

    def _add_counts(self, raw_lines: list[bytes]) -> None:
        for raw in raw_lines:
            path, sep, number = raw.partition(b"\x00")  # a path never holds a NUL
            if not sep:  # the path goes on after a newline in it (count mode prints no notices)
                self.pending.append(raw)
                continue
            if self.pending:
                path = b"\n".join([*self.pending, path])
                self.pending.clear()
            rel = os.fsdecode(path)
            if number.isdigit() and self._visible(rel):
                self.counts.append((self.prefix + rel, int(number)))

    def _add_content(self, raw_lines: list[bytes]) -> bool:
        checking = self.filter.active or bool(self.selection.path_patterns)
        stop = self.head.stop_after
        out = self.lines
        for raw in raw_lines:
            path, sep, rest = raw.partition(b"\x00")  # a path never holds a NUL
            if not sep:  # a path cut by a newline in it, or a binary notice: known at the next NUL
                self.pending.append(raw)
                continue
            if self.pending:
                paths = content_line_paths(self.pending, path, rest)
                self.pending.clear()
                if not paths:  # the context separator after a binary notice
                    if out and out[-1] != "--":
                        out.append("--")
                    continue
                rels = [os.fsdecode(p) for p in paths]
                if not all(self._visible(r) for r in rels):
                    continue
                rel = rels[0]
            elif not path:  # the context separator
                if rest == _CONTEXT_SEPARATOR and out and out[-1] != "--":
                    out.append("--")
                continue
            else:
                rel = os.fsdecode(path)
                if checking and not self._visible(rel):
                    continue
            m = _LINE_NUMBER.match(rest) if self.numbered else None
            joiner = ":" if m is None or m.group(1) == b":" else "-"
            out.append(f"{self.prefix}{rel}{joiner}{rest.decode('utf-8', errors='replace')}")
            if stop is not None and len(out) >= stop:
                return False
        return True

    def result(self, head: HeadLimit, stopped: bool) -> dict[str, Any]:
        match self.mode:
            case "files_with_matches":
                total = len(self.newest)
                names = [self.prefix + os.fsdecode(n) for n in self.newest.page(head.offset, head.limit)]
                cut = head.limit is not None and total - head.offset > head.limit
                return {
                    "mode": self.mode,
                    "filenames": names,
                    "numFiles": len(names),
                    "totalFiles": total,
                    **_page(head, cut),
                }
            case "count":
                entries, cut = apply_head_limit(self.counts, head)
                return {
                    "mode": self.mode,
                    "counts": [f"{p}:{n}" for p, n in entries],
                    "numFiles": len(self.counts),
                    "numMatches": sum(n for _, n in self.counts),
                    **_page(head, cut),
                }
            case "content":
                if self.lines and self.lines[-1] == "--":
                    self.lines.pop()
                shown, cut = apply_head_limit(self.lines, head)
                return {
                    "mode": self.mode,
                    "content": "\n".join(shown),
                    "numLines": len(shown),
                    **_page(head, cut or stopped),
                }


def content_line_paths(pending: list[bytes], path: bytes, rest: bytes) -> list[bytes]:
    """The paths a content line ``path NUL rest`` may belong to, the likeliest first, after the
    NUL-less lines ``pending``; empty when it is the context separator.

    A pending line is a piece of the path (a file name holding a newline) or rg's notice about
    a binary file (``name: binary file matches (…)``) — or a piece of a file name crafted to look
    like one. Every reading in which the notices may be notices is returned: the caller shows
    the line only if all are visible, under the first (the one that takes notices for notices).
    """
    starts = [0] + [i + 1 for i, line in enumerate(pending) if _BINARY_NOTICE.search(line)]
    if not path and rest == _CONTEXT_SEPARATOR and starts[-1] == len(pending):
        return []  # notices, then the separator: no content shown, nothing to check
    paths = [b"\n".join([*pending[start:], path]) for start in reversed(starts)]
    return [p for p in paths if p]


def _page(head: HeadLimit, cut: bool) -> dict[str, Any]:
    return {"appliedLimit": head.limit if cut else None, "appliedOffset": head.offset or None, "truncated": cut}


def format_grep_result(output: dict[str, Any]) -> str:
    """The text the model reads."""
    offset = output.get("appliedOffset") or 0
    more = ""
    if output.get("truncated"):
        more = (
            f"\n\n[Results limited to {output['appliedLimit']} entries from offset {offset}. Pass "
            f"offset={offset + output['appliedLimit']} for the next page, or narrow the search.]"
        )
    elif offset:
        more = f"\n\n[Entries from offset {offset}.]"
    match output["mode"]:
        case "files_with_matches":
            names = output["filenames"]
            if not output["totalFiles"]:
                return "No files found"
            total = output["totalFiles"]
            head = f"Found {total} file{'s' if total != 1 else ''}"
            return head + ("\n" + "\n".join(names) if names else "") + more
        case "count":
            if not output["numFiles"]:
                return "No matches found"
            matches, files = output["numMatches"], output["numFiles"]
            summary = (
                f"\n\nFound {matches} total occurrence{'s' if matches != 1 else ''} across {files} "
                f"file{'s' if files != 1 else ''}."
            )
            return "\n".join(output["counts"]) + summary + more
        case _:
            content = output["content"]
            return (content or "No matches found") + more
