"""The policy's verification commands (``bot.verify``), run after the agent finished.

A failed verification makes the pull request a draft and the conclusion ``partial``. The commands
are trusted (they come from the policy), but what they execute is the checkout the model changed —
a test suite's ``conftest.py`` is enough to run code. So they run exactly as a Bash command runs:
in the run's sandbox with the secret-free environment (:mod:`bot.shell.execute.confine`), with a timeout.
When the policy requires the sandbox and it cannot run, a verification fails rather than run bare.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.core.secrets import full_environ
from bot.shell.execute.confine import confine
from bot.shell.execute.env import build_child_env, policy_env_settings
from bot.shell.execute.process import find_shell, run_process
from bot.shell.sandbox.status import SandboxUnavailable

#: Per verification command.
VERIFY_TIMEOUT_S = 600.0


async def run_verification(
    prepared: Any, workspace: Path, *, timeout_s: float = VERIFY_TIMEOUT_S
) -> tuple[tuple[str, bool], ...]:
    commands = tuple(prepared.policy.setting("verify", ()) or ())
    if not commands:
        return ()
    context = prepared.session.context
    env, passthrough, secret_names = policy_env_settings(context.permission.extra)
    # What a Bash command gets: the allowlist of bot.shell.execute.env, never the bot's own environment.
    child = build_child_env(full_environ(), policy_env=env, passthrough=passthrough, secret_names=secret_names)
    results = []
    for command in commands:
        try:
            confined = await confine(context, [find_shell(child.env), "-c", command], child.env)
        except SandboxUnavailable:
            results.append((command, False))
            continue
        done = await run_process(confined.argv, cwd=workspace, env=confined.env, timeout_s=timeout_s)
        results.append((command, done.exit_code == 0 and not done.timed_out))
    return tuple(results)
