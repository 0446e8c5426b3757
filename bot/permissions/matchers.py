"""How a rule's content covers a call, per tool: file paths, web domains, commands.

* File tools (Read, Edit, Write, NotebookEdit, Glob, Grep): the content is a gitignore-style path
  pattern (:mod:`bot.permissions.path_rules`), matched against the call's path resolved against
  the shell's working directory, with symlinks resolved. A deny or ask rule also matches the path
  as written (a symlink's own name); an allow rule only ever the resolved path, so a link cannot
  carry an allowed name to a file the rules do not allow.
* WebFetch: ``domain:host`` against the URL's host (``domain:*.host`` covers subdomains).
* Anything else: the content as a command pattern (exact, prefix, wildcard) on the subject.
  Bash is the exception the chain never sees: it matches its own content rules on every
  subcommand (``matches_own_rule_content``). Should a Bash tool ever not do that, its content
  allow rules match nothing here (fail closed), and its content deny rules still match.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from bot.permissions.chain import PermissionRequest
from bot.permissions.path_rules import compile_path_rule, resolve_subject
from bot.permissions.rules import DOMAIN_TOOLS, PATH_TOOLS, Rule, command_pattern, domain_of

#: Tools whose content rules need compound-command analysis to be allowed safely.
SHELL_TOOLS = frozenset({"Bash"})

_UNSET = object()


@lru_cache(maxsize=1_024)
def rule_base(file: str | None) -> Path | None:
    """What ``/x`` in a rule is relative to: the directory of the policy file that wrote it, or for a
    file inside ``.claude/`` or ``.github/`` (``.claude/settings.json``), the directory that holds
    that folder: the repository root. Rules from flags have no file: the workspace."""
    if file is None:
        return None
    parent = Path(os.path.abspath(file)).parent
    if parent.name in (".claude", ".github"):
        parent = parent.parent
    return parent.resolve(strict=False)


class RequestFacts:
    """What rules are matched against, computed once per call and only when a rule needs it."""

    __slots__ = ("_home", "_host", "_paths", "request")

    def __init__(self, request: PermissionRequest) -> None:
        self.request = request
        self._paths: object = _UNSET
        self._host: object = _UNSET
        self._home: str | None = None

    @property
    def home(self) -> str:
        """What ``~`` means for this call (read once, not once per rule)."""
        if self._home is None:
            self._home = os.path.expanduser("~")
        return self._home

    def paths(self) -> tuple[Path, Path] | None:
        """``(as written, resolved)``, both absolute, or ``None`` without a subject."""
        if self._paths is _UNSET:
            subject = self.request.subject
            if subject is None or subject == "" or "\x00" in subject:
                self._paths = None
            else:
                cwd = self.request.cwd or self.request.workspace
                written, resolved = resolve_subject(subject, cwd=cwd)
                # The same object when nothing was resolved away: one comparison, not one per rule.
                self._paths = (written, written) if written == resolved else (written, resolved)
        return self._paths  # type: ignore[return-value]

    def host(self) -> str | None:
        if self._host is _UNSET:
            self._host = _host_of(self.request.subject)
        return self._host  # type: ignore[return-value]


def content_covers(rule: Rule, facts: RequestFacts) -> bool:
    """Does ``rule``'s content (the rule names the call's tool) cover the call?"""
    assert rule.content is not None
    tool = facts.request.tool_name
    if tool in PATH_TOOLS:
        paths = facts.paths()
        if paths is None:
            return False
        written, resolved = paths
        pattern = compile_path_rule(
            rule.content, workspace=facts.request.workspace, rule_base=rule_base(rule.ref.file), home=facts.home
        )
        if pattern.matches(resolved):
            return True
        return rule.behavior != "allow" and written is not resolved and pattern.matches(written)
    if tool in DOMAIN_TOOLS:
        host = facts.host()
        if host is None:
            return False
        wanted = domain_of(rule.content)
        if wanted.startswith("*."):
            return host.endswith(wanted[1:])
        return host == wanted
    if tool in SHELL_TOOLS and rule.behavior == "allow":
        return False
    subject = facts.request.subject
    if subject is None:
        return False
    return command_pattern(rule.content).matches(subject)


def _host_of(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host.lower().rstrip(".")
