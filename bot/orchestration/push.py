"""Getting the run's commits onto the remote when the first push is refused.

Three refusals happen in practice, and each has its answer:

* a hook or the server fails once (a pre-receive hook timing out, a 5xx behind the git endpoint):
  the same push is tried again, a few times;
* someone pushed to the branch while the run worked (non-fast-forward): the remote branch is
  fetched and the run's commits are rebased onto it when that is clean, then pushed;
* the branch refuses the run for good (a protected branch, a rebase that conflicts, a hook that
  always declines): the work is pushed to a fresh branch, and the report says so.

The work is never discarded: when every push fails, :class:`~bot.errors.PushRejected` carries
the commit, which stays in the checkout and the run's diff.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import PushRejected
from bot.orchestration.git import GitWorkspace, PushBehind

#: Further pushes of the same branch after a refusal that is not a non-fast-forward: a hook that
#: failed once passes on the next try; a protected branch refuses every time (three tries cost
#: a few seconds, not minutes).
PUSH_RETRIES = 2
#: Seconds before the n-th retry: n times this (a transient failure usually clears within seconds).
PUSH_RETRY_WAIT_S = 1.0
#: Rebases after someone pushed in between: a branch that keeps moving gets the fresh branch.
MAX_REBASES = 2


@dataclass(frozen=True, slots=True)
class Pushed:
    """Where the work went: ``branch`` (the requested one, or the fresh one) at ``commit``."""

    branch: str
    commit: str
    #: What the report says about how it got there (a rebase, a fresh branch).
    notes: tuple[str, ...] = ()

    def moved_from(self, requested: str) -> bool:
        return self.branch != requested


def fresh_branch_name(branch: str, commit: str) -> str:
    """The branch the work goes to when ``branch`` refuses it: named after it and the commit."""
    return f"{branch}-{commit[:8]}"


def push_work(git: GitWorkspace, branch: str, *, sleep: Callable[[float], None] = time.sleep) -> Pushed:
    """Push ``HEAD`` to ``branch``, recovering as the module docstring says. Raises
    :class:`PushRejected` when the fresh branch is refused too (the message names both refusals)."""
    notes: list[str] = []
    refusal: PushRejected | None = None
    retries = rebases = 0
    while True:
        try:
            git.push(branch)
            return Pushed(branch, git.head_sha(), tuple(notes))
        except PushBehind as exc:
            refusal = exc
            if rebases < MAX_REBASES and git.rebase_onto_remote(branch):
                rebases += 1
                notes.append(
                    f"`{branch}` gained commits while the run worked; the run's commits were rebased onto them."
                )
                continue
            break
        except PushRejected as exc:
            refusal = exc
            if retries < PUSH_RETRIES:
                retries += 1
                sleep(PUSH_RETRY_WAIT_S * retries)
                continue
            break
    fresh = fresh_branch_name(branch, git.head_sha())
    reason = _reason(refusal, branch)
    try:
        git.push(fresh)
    except PushRejected as again:
        raise PushRejected(
            f"{refusal}; the fresh branch `{fresh}` was refused too ({again})", branch=branch, commit=again.commit
        ) from again
    notes.append(f"The push to `{branch}` was refused ({reason}); the work is on the new branch `{fresh}` instead.")
    return Pushed(fresh, git.head_sha(), tuple(notes))


def _reason(refusal: PushRejected | None, branch: str) -> str:
    if isinstance(refusal, PushBehind):
        return "it gained commits that conflict with the run's"
    found = _DETAIL.search(str(refusal))
    detail = " ".join(found.group(1).split()) if found else str(refusal)
    return f"{PUSH_RETRIES + 1} times: {detail[:300]}"


#: The remote's words inside :meth:`GitWorkspace.push`'s message.
_DETAIL = re.compile(r"was rejected \((.*)\): the remote refused it", re.DOTALL)


__all__ = ["MAX_REBASES", "PUSH_RETRIES", "PUSH_RETRY_WAIT_S", "Pushed", "fresh_branch_name", "push_work"]
