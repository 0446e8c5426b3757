"""The permission context a run carries: mode, rules from every source, extra directories."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.permissions.rules import Behavior, Rule, rule_applies_to

#: The seeds' permission modes that make sense headless. ``dontAsk`` (refuse whatever is not
#: allowed) is what every headless run does anyway, so it is accepted and means ``default``.
PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")


@dataclass(frozen=True, slots=True)
class PermissionContext:
    mode: PermissionMode = "default"
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    additional_directories: tuple[Path, ...] = ()
    #: Seeds' SIMPLE mode: only Bash, Read and Edit are offered.
    simple_mode: bool = False
    #: Writes into `.git/` and `.github/workflows/` are denied unless the policy allows them.
    allow_git_dir_writes: bool = False
    allow_workflow_writes: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def rules(self, behavior: Behavior) -> tuple[Rule, ...]:
        match behavior:
            case "allow":
                return self.allow
            case "deny":
                return self.deny
            case "ask":
                return self.ask

    def blanket_rule(self, behavior: Behavior, tool_name: str, aliases: tuple[str, ...] = ()) -> Rule | None:
        """A rule with no content that names the whole tool (or, for MCP, its server; a ``Read`` or
        ``Edit`` rule names its whole family, see :func:`rule_applies_to`)."""
        for rule in self.rules(behavior):
            if rule.content is None and rule_applies_to(rule.tool, tool_name, aliases):
                return rule
        return None

    def is_blanket_denied(self, tool_name: str, aliases: tuple[str, ...] = ()) -> bool:
        return self.blanket_rule("deny", tool_name, aliases) is not None
