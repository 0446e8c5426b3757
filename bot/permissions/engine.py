"""The policy engine: the :class:`~bot.permissions.chain.PermissionEngine` every run uses.

It is :func:`~bot.permissions.chain.decide_chain` (the headless order: deny rules, hook, the
tool's own check, ask rules, mode, allows, deny-by-default) with the real rule matching of
:mod:`bot.permissions.matchers`: rule families (``Read`` rules apply to Glob and Grep, ``Edit``
rules to Write), path patterns, domains, MCP names. A rule whose content cannot be evaluated
fails closed: it counts as matching when it denies or asks, and as not matching when it allows.
"""

from __future__ import annotations

from bot.permissions.chain import PermissionRequest, decide_chain
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Decision
from bot.permissions.matchers import RequestFacts, content_covers
from bot.permissions.rules import Rule, rule_applies_to


class PolicyEngine:
    """Stateless; one instance serves a whole run (and every line of a batch check)."""

    def decide(self, request: PermissionRequest, context: PermissionContext) -> Decision:
        facts = RequestFacts(request)

        def covers(rule: Rule, req: PermissionRequest) -> bool:
            if not rule_applies_to(rule.tool, req.tool_name, req.aliases):
                return False
            if rule.content is None:
                return True
            if req.self_matching:
                return False
            try:
                return content_covers(rule, facts)
            except (ValueError, OSError):
                return rule.behavior != "allow"

        return decide_chain(request, context, covers=covers)
