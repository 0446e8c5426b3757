"""The policy's verification commands (``bot.verify``), run after the agent finished.

A failed verification makes the pull request a draft and the conclusion ``partial``. The commands
are trusted (they come from the policy) but run with the same secret-free environment as the
agent's own commands, and with a timeout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from bot.shell.env import build_child_env, policy_env_settings

#: Per verification command.
VERIFY_TIMEOUT_S = 600.0


async def run_verification(prepared: Any, workspace: Path, *, timeout_s: float = VERIFY_TIMEOUT_S
                           ) -> tuple[tuple[str, bool], ...]:
    commands = tuple(prepared.policy.setting("verify", ()) or ())
    if not commands:
        return ()
    extra = prepared.session.context.permission.extra
    env, passthrough, secret_names = policy_env_settings(extra)
    child = build_child_env(os.environ, policy_env=env, passthrough=passthrough, secret_names=secret_names)
    results = []
    for command in commands:
        ok = False
        with anyio.move_on_after(timeout_s):
            done = await anyio.run_process(["bash", "-c", command], cwd=workspace, env=child.env, check=False)
            ok = done.returncode == 0
        results.append((command, ok))
    return tuple(results)
