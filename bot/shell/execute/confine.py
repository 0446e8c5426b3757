"""The bot's own commands (verification, hooks) run the way the model's Bash commands run.

Trust model. A verification command (``bot.verify``) or a hook command comes from the trusted
policy, but what it executes lives in the checkout — a test suite's ``conftest.py``, a script a
hook names — and the model (or a pull request's head) may have rewritten it. So these commands get
exactly what a sandboxed Bash command gets: the run's sandbox (the same decision, the same mounts,
no network unless the policy allows it) and the secret-free environment built from an allowlist
(:mod:`bot.shell.execute.env`). When the policy requires the sandbox and it cannot run, they do not run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.interface.context import ToolUseContext
from bot.shell.sandbox.status import Refused, Sandboxed, SandboxUnavailable, decide_sandbox, ensure_sandbox


@dataclass(frozen=True, slots=True)
class Confined:
    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    #: Why the command is not sandboxed (the policy turns the sandbox off...), for the run log.
    note: str = ""


async def confine(context: ToolUseContext, inner: Sequence[str], env: Mapping[str, str]) -> Confined:
    """The command line and environment that run ``inner`` as a Bash command would run. Raises
    :class:`SandboxUnavailable` when the policy requires a sandbox that cannot run here."""
    status = await ensure_sandbox(context, env)
    choice = decide_sandbox(status.settings, available=status.available, unavailable_reason=status.reason)
    if isinstance(choice, Refused):
        raise SandboxUnavailable(choice.reason)
    child = dict(env)
    sandboxed = isinstance(choice, Sandboxed)
    if sandboxed:
        child["TMPDIR"] = "/tmp"  # the run's own /tmp inside the sandbox
    argv = status.launch_argv(choice, list(inner), cwd=context.workspace)
    return Confined(argv, child, sandboxed, "" if sandboxed else getattr(choice, "reason", ""))


__all__ = ["Confined", "confine"]
