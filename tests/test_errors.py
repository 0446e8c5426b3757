"""classify_tool_error follows the seeds' chain; filesystem wording is stable."""

from __future__ import annotations

import errno

import pytest

from bot.errors import ConfigError, ToolExecutionError, classify_tool_error, describe_os_error


class Abc(Exception):
    pass


class TelemetrySafe(Exception):
    telemetry_message = "GitPushRejected"


@pytest.mark.parametrize(
    ("description", "error", "expected"),
    [
        ("an error with its own telemetry message", TelemetrySafe("/secret/path"), "GitPushRejected"),
        ("our tool errors carry one", ToolExecutionError("x"), "ToolExecutionError"),
        ("an OSError with errno", FileNotFoundError(errno.ENOENT, "nope"), "Error:ENOENT"),
        ("a permission error", PermissionError(errno.EACCES, "nope"), "Error:EACCES"),
        ("an informative class name", ValueError("x"), "ValueError"),
        ("a short (minified-looking) class name", Abc("x"), "Error"),
        ("not an exception at all", "a string", "UnknownError"),
        ("an OSError without errno falls back to its name", OSError("x"), "OSError"),
    ],
)
def test_classify_tool_error(description: str, error: object, expected: str) -> None:
    assert classify_tool_error(error) == expected, description


def test_filesystem_errors_use_stable_wording() -> None:
    assert (
        describe_os_error(FileNotFoundError(errno.ENOENT, "No such file", "a.txt"))
        == "a.txt: no such file or directory"
    )
    assert describe_os_error(IsADirectoryError(errno.EISDIR, "Is a dir"), "src") == "src: is a directory"


def test_config_errors_name_the_file_and_line() -> None:
    err = ConfigError("unknown key 'permisions'", path="policy.yml", line=3)
    assert str(err) == "policy.yml:3: unknown key 'permisions'"
    assert err.path == "policy.yml" and err.line == 3
