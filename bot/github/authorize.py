"""Who may start a run: the actor needs write, maintain or admin on the repository.

The first thing a triggered run does, before any checkout change or model call, is ask GitHub's
collaborator-permission endpoint about the actor. Its ``permission`` field is the legacy base role:
``admin`` and ``write`` (maintain shows as write) are allowed; ``read`` (triage shows as read),
``none`` and anything unexpected are refused. Bots were filtered by ``decide_trigger`` already;
a bot listed in ``allowed_bots`` still goes through this check like anyone else.

Fails closed: an unknown user, a failed lookup or a trigger without an actor is a refusal, with a
``kind`` that says which so the caller can choose to stay silent, reply, or fail loudly. The one
exception is ``schedule``: it has no actor, and it runs the workflow file from the default branch,
which only people with write access can change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from bot.errors import GitHubError, GitHubNotFound
from bot.github.api import CollaboratorPermission
from bot.github.events import Trigger

#: Legacy ``permission`` values that may trigger. ``maintain`` is listed for servers that report it
#: unmapped; GitHub.com maps it to ``write``.
ALLOWED_PERMISSIONS = frozenset({"admin", "maintain", "write"})
#: Trigger kinds that have no actor and are started by the workflow itself.
ACTORLESS_KINDS = frozenset({"schedule"})

RefusalKind = Literal["not_triggered", "no_actor", "insufficient_permission", "unknown_user", "check_failed"]


@dataclass(frozen=True, slots=True)
class Authorized:
    actor: str | None
    permission: str | None
    role_name: str | None
    reason: str

    @property
    def allowed(self) -> Literal[True]:
        return True


@dataclass(frozen=True, slots=True)
class Refused:
    actor: str | None
    kind: RefusalKind
    reason: str
    permission: str | None = None
    role_name: str | None = None

    @property
    def allowed(self) -> Literal[False]:
        return False


Authorization = Authorized | Refused


class PermissionSource(Protocol):
    """The one question authorization asks (``GitHubApi`` answers it)."""

    def collaborator_permission(self, login: str) -> CollaboratorPermission: ...


def decide(actor: str, answer: CollaboratorPermission, *, is_bot: bool = False) -> Authorization:
    """The decision for one answer of the collaborator-permission endpoint (pure)."""
    who = f"the bot {actor}" if is_bot else actor
    role = f" (role {answer.role_name})" if answer.role_name and answer.role_name != answer.permission else ""
    if answer.permission in ALLOWED_PERMISSIONS:
        return Authorized(
            actor, answer.permission, answer.role_name or None, f"{who} has {answer.permission} permission{role}"
        )
    return Refused(
        actor,
        "insufficient_permission",
        f"{who} has {answer.permission or 'no'} permission{role}; write, maintain or admin is needed",
        answer.permission or None,
        answer.role_name or None,
    )


def authorize(trigger: Trigger, source: PermissionSource) -> Authorization:
    """Check the trigger's actor against the repository. Never raises for a GitHub failure:
    it becomes ``Refused(kind="check_failed")``."""
    if not trigger.triggered:
        return Refused(trigger.actor, "not_triggered", f"nothing to authorize: {trigger.reason}")
    actor = trigger.actor
    if actor is None:
        if trigger.kind in ACTORLESS_KINDS:
            return Authorized(
                None, None, None, f"a {trigger.kind} run has no actor; the workflow on the default branch started it"
            )
        return Refused(None, "no_actor", f"the {trigger.event_name or trigger.kind} event names no actor to check")
    try:
        answer = source.collaborator_permission(actor)
    except GitHubNotFound:
        return Refused(actor, "unknown_user", f"GitHub knows no user {actor} for this repository (404)")
    except GitHubError as error:
        return Refused(actor, "check_failed", f"the permission of {actor} could not be checked: {error}")
    return decide(actor, answer, is_bot=trigger.actor_is_bot)
