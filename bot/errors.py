"""Errors, sorted by who has to act on them.

::

    BotError
    ├── ToolError              the model sees it as an ``is_error`` tool_result and may retry
    │   ├── ToolInputError         the input was wrong (schema, validation, a missing file)
    │   └── ToolExecutionError     the call ran and failed (a command failed, a server errored)
    ├── RunError               ends the run; the outcome says which and keeps the work
    │   └── CanaryTripped          a decoy credential was seen: stop now, push and post nothing more
    ├── ConfigError            the operator must fix a file: names the file and the line
    ├── GitHubError            a GitHub API call failed (after retries); names the operation
    │   ├── GitHubNotFound         404: the repository, issue, PR or comment does not exist
    │   ├── GitHubAuthError        401/403: the token is missing, wrong or lacks a permission
    │   ├── GitHubRateLimited      a rate limit that retrying within our bounds did not clear
    │   ├── GitHubValidationError  422: GitHub refused the request's content
    │   └── GitHubUnavailable      5xx or no connection, after the retries
    └── GitError               a git command in the workspace failed (the message never holds a token)
        └── PushRejected           the remote refused the push; the local commit is kept

A tool raises ``ToolError`` (or any exception) and the pipeline turns it into data: the process
never crashes on a tool failure. ``ConfigError`` is raised before a run starts, never mid-call.
``classify_tool_error`` is the seeds' ``classifyToolError`` chain: a short, stable label for the
run log that never carries a path or a snippet of the input.
"""

from __future__ import annotations

import errno as _errno
from pathlib import Path


class BotError(Exception):
    """Root of every error this package raises on purpose."""


class ToolError(BotError):
    """A failure the model is told about. ``message`` is shown to the model verbatim."""

    #: A label for the run log that is safe to record (no paths, no input).
    telemetry_message: str | None = None

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class ToolInputError(ToolError):
    """The model's input was wrong; a corrected call may succeed."""

    telemetry_message = "ToolInputError"


class ToolExecutionError(ToolError):
    """The call ran and failed."""

    telemetry_message = "ToolExecutionError"


class RunError(BotError):
    """Ends the run. The work so far is kept and reported."""


class CanaryTripped(RunError):
    """A secret canary (a decoy credential, :mod:`bot.core.canary`) appeared in a tool's input or
    output or in something about to leave the process: whatever put it there read what it must not.
    Never turned into a tool result; the run ends at once, nothing more is pushed or posted. The
    message names the canary and where it was seen, never its value."""

    def __init__(self, label: str, where: str) -> None:
        super().__init__(
            f"secret canary tripped: {label} appeared in {where}; the run was stopped and nothing "
            "more is pushed or posted"
        )
        self.label = label
        self.where = where


def canary_tripped_in(exc: BaseException) -> CanaryTripped | None:
    """The :class:`CanaryTripped` inside ``exc`` — itself, inside (nested) exception groups, or the
    cause of an error a tool wrapped it in — or ``None``."""
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, CanaryTripped):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return None


class ConfigError(BotError):
    """A configuration file is wrong. The message names the file and, when known, the line."""

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")
        self.path = None if path is None else str(path)
        self.line = line
        self.detail = message


def classify_tool_error(error: object) -> str:
    """A stable, telemetry-safe label for an error (seeds 4.4, ``classifyToolError``).

    1. an error that carries its own ``telemetry_message``;
    2. an ``OSError`` with an errno: ``Error:ENOENT``;
    3. an exception whose class name is informative (longer than 3 characters);
    4. any other exception: ``Error``;
    5. not an exception at all: ``UnknownError``.
    """
    if not isinstance(error, BaseException):
        return "UnknownError"
    telemetry = getattr(error, "telemetry_message", None)
    if isinstance(telemetry, str) and telemetry:
        return telemetry
    if isinstance(error, OSError) and error.errno is not None:
        name = _errno.errorcode.get(error.errno)
        if name:
            return f"Error:{name}"
    name = type(error).__name__
    if len(name) > 3:
        return name
    return "Error"


# Stable wording for filesystem errors, so the model and the tests never see platform text.
_OS_ERROR_WORDING = {
    _errno.ENOENT: "no such file or directory",
    _errno.EACCES: "permission denied",
    _errno.EISDIR: "is a directory",
    _errno.ENOTDIR: "not a directory",
    _errno.EEXIST: "file exists",
    _errno.ELOOP: "too many levels of symbolic links",
    _errno.ENAMETOOLONG: "file name too long",
    _errno.ENOSPC: "no space left on device",
    _errno.EROFS: "read-only file system",
}


def describe_os_error(error: OSError, path: str | None = None) -> str:
    """``"<path>: no such file or directory"``, the same on every platform."""
    wording = _OS_ERROR_WORDING.get(error.errno or -1) or (error.strerror or type(error).__name__).lower()
    target = path if path is not None else error.filename
    return f"{target}: {wording}" if target else wording


class GitHubError(BotError):
    """A GitHub API call failed. ``operation`` names it (``create PR``), ``status`` is the HTTP status."""

    def __init__(self, message: str, *, operation: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.operation = operation
        self.status = status


class GitHubNotFound(GitHubError):
    pass


class GitHubAuthError(GitHubError):
    pass


class GitHubRateLimited(GitHubError):
    pass


class GitHubValidationError(GitHubError):
    pass


class GitHubUnavailable(GitHubError):
    pass


class GitError(BotError):
    """A git command in the workspace failed. Messages are scrubbed of credentials."""


class PushRejected(GitError):
    """The remote refused the push (non-fast-forward, protected branch, hook). The commit stays local."""

    def __init__(self, message: str, *, branch: str, commit: str | None = None) -> None:
        super().__init__(message)
        self.branch = branch
        self.commit = commit


def json_type_name(value: object) -> str:
    """What a decoded JSON/YAML value is, with its article, for error messages ("got a string")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict) or hasattr(value, "keys"):
        return "an object"
    return type(value).__name__


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups: task groups wrap what their bodies
    raise, and a setup failure should still be reported by its own type and message."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
