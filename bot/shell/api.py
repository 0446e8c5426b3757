"""The shell layer's public contract, used by the Bash tool and by policy checks.

* :func:`check_bash_permissions` — the Bash tool's ``check_permissions``: parses the command,
  runs the security checks, splits compound commands, matches every subcommand against the
  context's ``Bash(...)`` rules (deny/ask/allow), handles wrapper programs and path arguments.
  Returns ``Allow`` (every subcommand allowed, with the rule), ``Deny``/``Ask`` (with the rule or
  the check id and suggestions), or ``Passthrough`` (nothing matched: the chain denies by default).
* :func:`is_read_only_command` / :func:`is_concurrency_safe_command` — seeds 4.6.8 / 11.1.
* :func:`interpret_exit_code` — seeds 4.6.7 command semantics (``grep`` 1 = no match, not an error).

The first versions below are deliberately conservative (fail-closed); the Bash-analysis work
replaces their bodies, never their signatures.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from bot.permissions.decision import Allow, Ask, Deny, Passthrough, PermissionResult
from bot.tools.context import ToolUseContext

_METACHARACTERS = frozenset(";&|<>$`(){}\n\\*?[]!~#'\"")


def check_bash_permissions(command: str, context: ToolUseContext) -> PermissionResult:
    for rule in context.permission.deny:
        if rule.tool == "Bash" and rule.content is not None and command.strip().startswith(rule.content.rstrip(":*")):
            return Deny(f"a deny rule forbids `{command}`", source="rule", rule=rule.ref)
    if any(c in _METACHARACTERS for c in command):
        return Ask("the command uses shell syntax this analysis does not judge yet", source="tool")
    for rule in context.permission.allow:
        if rule.tool == "Bash" and rule.content == command.strip():
            return Allow(f"allowed by rule `{rule.text}`", source="rule", rule=rule.ref)
    return Passthrough()


def is_read_only_command(command: str) -> bool:
    return False


def is_concurrency_safe_command(command: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class ExitInterpretation:
    is_error: bool
    #: A note for the model, e.g. "No matches found" for grep's exit code 1.
    message: str | None = None


def interpret_exit_code(command: str, exit_code: int, stdout: str = "", stderr: str = "") -> ExitInterpretation:
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = []
    if exit_code == 0:
        return ExitInterpretation(False)
    return ExitInterpretation(True, f"Command {argv[0] if argv else ''} exited with code {exit_code}".strip())
