"""Stage 4 of the pipeline: the permission chain, headless (seeds 4.4 stage 4).

A pure function of facts about the call. The order, each link deciding or passing on:

1. a **deny rule** that covers the call, from any source → deny (deny beats everything, a hook's
   allow included; the organisation's deny is never overridden);
2. the **hook**'s decision: deny → deny; ask → deny (nobody to ask);
3. the **tool's own** ``check_permissions``: deny → deny; ask → deny;
4. an **ask rule** that covers the call → deny (headless);
5. **plan** mode and the call is not read-only → deny;
6. **bypassPermissions** mode → allow (the run log says so loudly);
7. the hook's **allow** → allow (it never overrides 1–5: Claude Code's documented behaviour);
8. the tool's own **allow** (Bash allows when every subcommand matched an allow rule) → allow;
9. an **allow rule** that covers the call → allow;
10. a **file-reading tool** (Read, Glob, Grep) whose path, as written and with symlinks resolved,
    is inside the workspace or an additional directory, and not inside a ``.git`` directory (it
    holds the checkout's persisted token) → allow. Claude Code asks for no rule to
    read its working directory, and a Claude Code settings file used as the policy must mean what
    it means there; deny and ask rules (1, 4) still apply, so ``Read(.env)`` keeps its force;
11. **acceptEdits** mode and the tool edits files (inside the workspace: the tool's own check
    confines paths) → allow;
12. otherwise → deny: no allow rule covers the call (deny-by-default). Everything that acts
    (Bash, Edit, Write, WebFetch, MCP tools) needs an allow rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

from bot.permissions.context import PermissionContext
from bot.permissions.decision import (
    Allow,
    Ask,
    Decision,
    Deny,
    Passthrough,
    PermissionResult,
    ask_to_deny,
)
from bot.permissions.path_rules import resolve_subject
from bot.permissions.rules import DOMAIN_TOOLS, READ_FAMILY, Rule, rule_names_tool


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """Everything the chain needs to know about one call. Pure data: no tool object, no I/O."""

    tool_name: str
    input: Mapping[str, Any]
    workspace: Path
    aliases: tuple[str, ...] = ()
    #: What rule contents are matched against (command, path, URL); ``None`` = tool rules only.
    subject: str | None = None
    #: Where a relative path subject is relative to (the shell's working directory); ``None`` =
    #: the workspace.
    cwd: Path | None = None
    read_only: bool = False
    edits_files: bool = False
    #: The tool's own check matched its content rules; the chain applies only whole-tool rules.
    self_matching: bool = False
    hook: Allow | Deny | Ask | None = None
    tool_check: PermissionResult = field(default_factory=Passthrough)


#: Does this rule (whose tool part already names the tool) cover this call?
ContentMatcher = Callable[[Rule, PermissionRequest], bool]
#: Does this rule cover this call — tool part and content both (the policy engine's matcher,
#: which knows rule families and per-tool content forms)?
RuleCovers = Callable[[Rule, PermissionRequest], bool]


class PermissionEngine(Protocol):
    """What the pipeline calls at stage 4. The policy layer provides the real one."""

    def decide(self, request: PermissionRequest, context: PermissionContext) -> Decision: ...


def simple_content_matcher(rule: Rule, request: PermissionRequest) -> bool:
    """Exact, ``prefix:*`` and ``prefix *`` matching on the subject, on word boundaries.

    Good enough for tests of the pipeline; the policy layer supplies per-tool matchers (paths,
    domains, compound shell commands).
    """
    if rule.content is None:
        return True
    subject = request.subject
    if subject is None:
        return False
    content = rule.content
    for suffix in (":*", " *"):
        if content.endswith(suffix):
            prefix = content[: -len(suffix)]
            return subject == prefix or subject.startswith(prefix + " ")
    return subject == content


def matching_rule(
    rules: tuple[Rule, ...], request: PermissionRequest, matcher: ContentMatcher, covers: RuleCovers | None = None
) -> Rule | None:
    """The first rule that covers the call (rules are ordered strongest source first)."""
    for rule in rules:
        if covers is not None:
            if covers(rule, request):
                return rule
            continue
        if not rule_names_tool(rule.tool, request.tool_name, request.aliases):
            continue
        if rule.content is None:
            return rule
        if not request.self_matching and matcher(rule, request):
            return rule
    return None


def decide_chain(
    request: PermissionRequest,
    context: PermissionContext,
    matcher: ContentMatcher = simple_content_matcher,
    *,
    covers: RuleCovers | None = None,
) -> Decision:
    """The headless chain described in the module docstring. Returns only Allow or Deny.

    ``covers``, when given, replaces the tool-name check plus ``matcher`` (the policy engine)."""
    name = request.tool_name
    deny_rule = matching_rule(context.deny, request, matcher, covers)
    if deny_rule is not None:
        return Deny(f"a deny rule forbids this {name} call", source="rule", rule=deny_rule.ref)

    match request.hook:
        case Deny() as deny:
            return deny
        case Ask() as ask:
            return ask_to_deny(ask)
        case _:
            pass

    match request.tool_check:
        case Deny() as deny:
            return deny
        case Ask() as ask:
            return ask_to_deny(ask)
        case _:
            pass

    ask_rule = matching_rule(context.ask, request, matcher, covers)
    if ask_rule is not None:
        return Deny(
            f"an ask rule requires approval for this {name} call", source="rule", rule=ask_rule.ref, was_ask=True
        )

    if context.mode == "plan" and not request.read_only:
        return Deny(f"plan mode allows only read-only calls, and this {name} call is not read-only", source="mode")
    if context.mode == "bypassPermissions":
        return Allow("bypassPermissions mode", source="mode")

    warnings = request.tool_check.warnings
    match request.hook:
        case Allow() as allow:
            return allow
        case _:
            pass
    match request.tool_check:
        case Allow() as allow:
            return allow
        case _:
            pass

    allow_rule = matching_rule(context.allow, request, matcher, covers)
    if allow_rule is not None:
        return Allow(f"allowed by rule `{allow_rule.text}`", source="rule", rule=allow_rule.ref, warnings=warnings)
    if reads_inside_workspace(request, context):
        return Allow(
            f"{name} reads inside the workspace (read-only file tools need no rule there)",
            source="workspace",
            warnings=warnings,
        )
    if context.mode == "acceptEdits" and request.edits_files:
        return Allow("acceptEdits mode allows edits inside the workspace", source="mode", warnings=warnings)
    reason = f"no allow rule covers this {name} call"
    if isinstance(request.tool_check, Passthrough) and request.tool_check.reason:
        reason = f"{reason} ({request.tool_check.reason})"
    return Deny(reason, source="default", suggestions=_suggest(request), warnings=warnings)


#: Not part of the read that needs no rule, at any depth: ``.git/config`` holds the token
#: actions/checkout persists (``http.<url>.extraheader``), which the sandbox hides from commands.
#: Reading git's internals takes a rule that names them (``Read(.git/**)``).
GIT_DIR_NAME = ".git"


def reads_inside_workspace(request: PermissionRequest, context: PermissionContext) -> bool:
    """Is this a read-only call of a file-reading tool whose path stays inside the workspace or an
    additional directory, both as written and with every symlink resolved (a link out of the
    workspace is outside)?"""
    if not request.read_only or request.subject is None or "\x00" in request.subject:
        return False
    if request.tool_name not in READ_FAMILY and not READ_FAMILY.intersection(request.aliases):
        return False
    written, resolved = resolve_subject(request.subject, cwd=request.cwd or request.workspace)
    roots = (request.workspace.resolve(strict=False), *context.additional_directories)
    for path in (written, resolved):
        root = next((r for r in roots if path == r or r in path.parents), None)
        if root is None or GIT_DIR_NAME in path.relative_to(root).parts:
            return False
    return True


def _suggest(request: PermissionRequest) -> tuple[str, ...]:
    """A rule that would allow this call, in the form the rule's tool understands."""
    if request.subject is None:
        return (request.tool_name,)
    if request.tool_name in DOMAIN_TOOLS:
        host = urlparse(request.subject if "://" in request.subject else f"https://{request.subject}").hostname
        return (f"{request.tool_name}(domain:{host})",) if host else (request.tool_name,)
    return (f"{request.tool_name}({request.subject})",)


class RuleEngine:
    """The chain over the context's rules with a pluggable content matcher."""

    def __init__(self, matcher: ContentMatcher = simple_content_matcher) -> None:
        self._matcher = matcher

    def decide(self, request: PermissionRequest, context: PermissionContext) -> Decision:
        return decide_chain(request, context, self._matcher)
