"""Paths outside the workspace that an allow rule grants, as in Claude Code: ``Read(//etc/**)``
lets the file tools read ``/etc``, ``Edit(~/.cache/tool/**)`` lets them write there.

This answers only the file tools' confinement (where a tool may reach at all); the chain still
decides the call, so deny and ask rules keep their force and the call needs an allow rule that
covers it. What counts as a grant, and why:

* a rule with a path pattern — a bare ``Read`` or ``Edit`` was written to mean "the project", and
  the presets carry one: it must not open the whole filesystem;
* an anchored pattern (``//abs``, ``~/``, ``/`` from the policy file's folder, ``../x``) — an
  unanchored one (``*.md``, ``.env``) names a file *in the project* at any depth, not every such
  file on the machine;
* reads by a rule of the Read family (Read, Glob, Grep), writes by one of the Edit family;
* the path with every symlink resolved, so a link in a granted directory leads nowhere new.
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.permissions.context import PermissionContext
from bot.permissions.matchers import rule_base
from bot.permissions.path_rules import PathRuleError, compile_path_rule, literal_root
from bot.permissions.rules import EDIT_FAMILY, READ_FAMILY, Rule


def granting_rule(
    permission: PermissionContext, resolved: Path, *, write: bool, workspace: Path, home: str | None = None
) -> Rule | None:
    """The allow rule that grants the file tools this resolved path outside the workspace, or ``None``."""
    family = EDIT_FAMILY if write else READ_FAMILY
    home = os.path.expanduser("~") if home is None else home
    for rule in permission.allow:
        if rule.content is None or rule.tool not in family:
            continue
        base = rule_base(rule.ref.file)
        try:
            if literal_root(rule.content, workspace=workspace, rule_base=base, home=home) is None:
                continue
            pattern = compile_path_rule(rule.content, workspace=workspace, rule_base=base, home=home)
        except PathRuleError:
            continue
        if pattern.matches(resolved):
            return rule
    return None
