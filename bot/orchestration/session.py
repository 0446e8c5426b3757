"""Everything a run needs, built from trusted configuration: policy, tools, MCP, hooks, model.

Shared by the GitHub mode and the local mode. The caller says where trusted files come from
(:class:`TrustedFiles`): on GitHub that is the default branch (``git show origin/<default>:path``),
never a pull request's head; locally it is the working tree the maintainer points at.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.agent.client import ProviderConfig, make_model_client
from bot.agent.lifecycle import CommandLifecycle, LifecycleHooks, NoLifecycleHooks
from bot.agent.limits import RunLimits
from bot.agent.model import ModelClient
from bot.agent.prompts import INSTRUCTION_FILES, Instruction
from bot.agent.session import AgentSession
from bot.agent.thinking import thinking_for_run
from bot.agent.transcript import transcript_path_for
from bot.core.bounded import load_json
from bot.core.guard import GUARD_SERVICE, tool_redactor
from bot.core.host_git import GIT_SEAL_SERVICE
from bot.core.secrets import full_environ
from bot.core.services import Services
from bot.errors import ConfigError
from bot.interface.abort import AbortSignal
from bot.interface.context import make_context
from bot.interface.tool import AnyTool
from bot.permissions.engine import PolicyEngine
from bot.permissions.rules import domain_of
from bot.permissions.stack import (
    REPOSITORY_POLICY_CANDIDATES,
    EffectivePolicy,
    PolicyLayer,
    layer_for,
    load_policy_stack,
    preset_path,
)
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.hook_runner import CommandHookRunner, HookLogEntry, hooks_from_policy, make_hook_runner
from bot.runtime.pipeline import ToolPool
from bot.shell.execute.background import SERVICE_KEY as TASKS_SERVICE
from bot.shell.execute.background import BackgroundTasks
from bot.tools.agent_definitions import DEFAULT_MODEL_ALIASES, load_trusted_definitions
from bot.tools.ask_user import DEFAULT_MAX_QUESTIONS, QUESTION_SERVICE, AskUserQuestionTool, QuestionBox
from bot.tools.registry import all_base_tools

#: The model when neither the workflow nor the policy names one.
DEFAULT_MODEL = DEFAULT_MODEL_ALIASES["sonnet"]
#: The preset a run uses when nobody names a policy.
DEFAULT_PRESET = "fix"
MCP_CONFIG_PATH = ".mcp.json"


@dataclass(frozen=True, slots=True)
class TrustedFiles:
    """How to read a trusted file: ``read(path) -> text | None``, what to call it in messages, and
    ``list_dir(directory)``: the names of the files directly in a directory (agent definitions)."""

    read: Callable[[str], str | None]
    label: str
    list_dir: Callable[[str], Sequence[str]] = lambda directory: ()


def working_tree_files(root: Path) -> TrustedFiles:
    def read(path: str) -> str | None:
        target = root / path
        if not target.is_file() or target.is_symlink():
            return None
        return target.read_text(encoding="utf-8", errors="replace")

    def list_dir(directory: str) -> list[str]:
        folder = root / directory
        if not folder.is_dir() or folder.is_symlink():
            return []
        return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.is_symlink())

    return TrustedFiles(read, f"the working tree at {root}", list_dir)


@dataclass(frozen=True, slots=True)
class RunConfig:
    """What the workflow (or the command line) decided for this run."""

    workspace: Path
    scratch_dir: Path
    #: ``--policy`` values: files or preset names, the organisation/workflow layer.
    policies: Sequence[str] = ()
    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    model: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    timeout_minutes: float | None = None
    #: A trusted ``.mcp.json`` given by the workflow (read through :class:`TrustedFiles`).
    mcp_config: str | None = None
    provider: ProviderConfig = field(default_factory=ProviderConfig.from_env)
    #: Set when hook commands must not run at all.
    hooks_disabled_reason: str | None = None
    #: Files a pull request's head changes relative to the default branch: hooks that run one of
    #: them are not run (bot.runtime.hook_scripts).
    untrusted_paths: tuple[str, ...] = ()
    #: The run's secret guard (``bot.core.guard.SecretGuard``): tool calls are screened with it.
    guard: Any = None
    #: The workspace's git directory sealed before the model ran (``bot.core.host_git.GitDirSeal``).
    git_seal: Any = None
    #: The bot's environment with its secrets (resolving ``${VAR}`` in trusted config; never a child's).
    environ: Mapping[str, str] = field(default_factory=full_environ)
    #: Who AskUserQuestion asks (the requester of a comment-triggered run); ``None``: nobody can
    #: answer, the tool is left out (scheduled and dispatched runs).
    ask_requester: str | None = None
    #: Questions earlier runs of the same task asked: they count against ``bot.limits.max_questions``.
    questions_asked: int = 0


class PendingSandbox:
    """The sandbox's probe and self-test, under way while the first model request is out: the
    session's ``pending_setup``, which the loop awaits before it acts on a response
    (:class:`bot.agent.session.AgentSession`). Awaited, it is the sandbox's status as a service, its
    warnings added to the run's and reported once; when the policy requires a sandbox that cannot
    run, every await raises ``SandboxUnavailable`` and the run ends before any command.
    :meth:`close` (when the run's set-up is left) stops a test still running.

    ``begin`` begins the preparation: at :meth:`start` (the loop calls it once the first request is
    out: ``AgentSession.start_pending_setup``) or at the first await, whichever comes first."""

    def __init__(
        self,
        begin: Callable[[], Coroutine[Any, Any, Any]],
        warnings: list[str],
        on_warning: Callable[[str], None],
    ) -> None:
        self._begin = begin
        self._task: asyncio.Future[Any] | None = None
        self._warnings = warnings
        self._on_warning = on_warning
        self._reported = False

    def start(self) -> asyncio.Future[Any]:
        """Begin the preparation, if it has not begun."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._begin())
        return self._task

    @property
    def status(self) -> Any:
        """The ``SandboxStatus`` once the test has passed (or the policy let it fail), else None."""
        task = self._task
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    async def __call__(self) -> Services:
        from bot.shell.sandbox.status import SERVICE_KEY

        status = await asyncio.shield(self.start())  # a cancelled waiter leaves the test running
        if not self._reported:
            self._reported = True
            for warning in getattr(status, "warnings", ()):
                self._warnings.append(warning)
                self._on_warning(warning)
        return Services({SERVICE_KEY: status})

    async def close(self) -> None:
        task = self._task
        if task is None:  # never begun: nothing ran
            return
        if not task.done():
            task.cancel()
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved: a failure nobody awaited is no "never retrieved" warning


@dataclass(slots=True)
class PreparedRun:
    session: AgentSession
    policy: EffectivePolicy
    #: The trusted policy files that took part, with their text (hashed in the provenance line).
    policy_sources: list[tuple[str, str]]
    hook_log: list[HookLogEntry]
    #: The policy's, the hooks' and (once its self-test is done) the sandbox's warnings.
    warnings: list[str]
    mcp_states: list[dict[str, Any]] = field(default_factory=list)
    pending_sandbox: PendingSandbox | None = None

    @property
    def limits(self) -> RunLimits:
        return self.session.limits

    @property
    def sandbox(self) -> Any:
        """The sandbox's status once its self-test is done (:class:`PendingSandbox`)."""
        return None if self.pending_sandbox is None else self.pending_sandbox.status

    def image_hosts(self) -> tuple[str, ...]:
        """Hosts whose images posted Markdown may keep: the domains the policy lets WebFetch reach
        (the maintainer already trusts them with requests; GitHub's own are always kept)."""
        rules = self.session.context.permission.allow
        return tuple(dict.fromkeys(domain_of(r.content) for r in rules if r.tool == "WebFetch" and r.content))

    def hook_files(self) -> tuple[str, ...]:
        """The checkout's files the policy's hooks run (their changes are flagged in the comment)."""
        hooks = self.session.hooks
        return hooks.files() if isinstance(hooks, CommandHookRunner) else ()

    def run_log_notes(self) -> list[str]:
        """What the summary must say about the run's machinery: MCP servers that failed (their tools
        were absent) and hooks that failed without blocking (the call went on without them)."""
        notes = [
            f"MCP server `{s['name']}` {s['state']}: {s['reason']}; its tools were not available."
            for s in self.mcp_states
            if s.get("reason")
        ]
        notes += [
            f"{e.event} hook `{e.command}`: {e.outcome}"
            for e in self.hook_log
            if e.outcome.startswith(("non-blocking error", "not run"))
        ]
        notes = list(dict.fromkeys(notes))  # a hook skipped on every call is said once
        return notes


def policy_layers(config: RunConfig, trusted: TrustedFiles) -> tuple[list[PolicyLayer], list[tuple[str, str]]]:
    """Preset/organisation layers from the workflow, plus the repository's own policy (trusted copy)."""
    layers: list[PolicyLayer] = []
    sources: list[tuple[str, str]] = []
    repo_text: tuple[str, str] | None = None
    for path in REPOSITORY_POLICY_CANDIDATES:
        text = trusted.read(path)
        if text is not None:
            repo_text = (path, text)
            break
    names = list(config.policies) or ([] if repo_text else [DEFAULT_PRESET])
    for value in names:
        layer = layer_for(value, "organisation")
        if layer.preset is not None:
            text = preset_path(layer.preset).read_text(encoding="utf-8")  # ConfigError names known presets
            sources.append((f"preset:{layer.preset}", text))
        else:
            if not Path(value).is_file():
                raise ConfigError("no such policy file (nor a shipped preset of that name)", path=value)
            sources.append((value, Path(value).read_text(encoding="utf-8")))
        layers.append(layer)
    if repo_text is not None:  # precedence comes from the source, not from the order of layers
        layers.append(PolicyLayer("repository", path=repo_text[0], text=repo_text[1]))
        sources.append(repo_text)
    return layers, sources


def run_limits(config: RunConfig, policy: EffectivePolicy) -> RunLimits:
    turns = config.max_turns or policy.setting("limits.max_turns")
    budget = config.max_budget_usd if config.max_budget_usd is not None else policy.setting("limits.max_budget_usd")
    minutes = config.timeout_minutes or policy.setting("limits.timeout_minutes")
    window = policy.setting("limits.context_window")
    return RunLimits(
        max_turns=int(turns) if turns else None,
        max_budget_usd=float(budget) if budget is not None else None,
        wall_time_s=float(minutes) * 60 if minutes else None,
        context_window=int(window) if window else None,
    )


def question_box(config: RunConfig, policy: EffectivePolicy) -> QuestionBox | None:
    """The run's AskUserQuestion box, when someone can answer and the policy allows questions."""
    limit = policy.setting("limits.max_questions")
    limit = DEFAULT_MAX_QUESTIONS if limit is None else int(limit)
    if config.ask_requester is None or limit <= 0:
        return None
    return QuestionBox(limit=limit, asked_before=config.questions_asked, requester=config.ask_requester)


def instructions_from(trusted: TrustedFiles) -> tuple[Instruction, ...]:
    found = []
    for name in INSTRUCTION_FILES:
        text = trusted.read(name)
        if text is not None:
            found.append(Instruction(name, text))
    return tuple(found)


@asynccontextmanager
async def prepare_run(
    config: RunConfig,
    trusted: TrustedFiles,
    *,
    abort: AbortSignal,
    client: ModelClient | None = None,
    on_warning: Callable[[str], None] = lambda warning: None,
) -> AsyncIterator[PreparedRun]:
    """Load the policy, start MCP servers, assemble tools, build hooks and the model client.

    Raises :class:`ConfigError` for a bad policy or config file (before any model call). The
    sandbox's probe and self-test are still running when the run starts (:class:`PendingSandbox`):
    the agent loop waits for them before it acts on the first response, and the shell's
    ``SandboxUnavailable`` (the policy requires a sandbox that cannot run) ends the run there, before
    any command. Their warnings join ``warnings`` then, each also given to ``on_warning``.
    """
    layers, sources = policy_layers(config, trusted)
    policy = load_policy_stack(layers, allow=config.allow, deny=config.deny)
    warnings = list(policy.warnings)
    permission = policy.permission_context(config.workspace)
    async with AsyncExitStack() as stack:
        mcp_tools, mcp_states = await _start_mcp(stack, config, trusted, policy, permission)
        questions = question_box(config, policy)
        base_tools = None if questions is None else [*all_base_tools(), AskUserQuestionTool()]
        pool = ToolPool(assemble_tool_pool(permission, mcp_tools, base_tools))
        context = make_context(
            config.workspace, scratch_dir=config.scratch_dir, permission=permission, tools=pool.tools, abort=abort
        )
        if config.guard is not None:
            context.services[GUARD_SERVICE] = config.guard
        if questions is not None:
            context.services[QUESTION_SERVICE] = questions
        if config.git_seal is not None:
            context.services[GIT_SEAL_SERVICE] = config.git_seal
        session_id = str(uuid.uuid4())
        hook_log: list[HookLogEntry] = []
        hooks_config = hooks_from_policy(
            policy.hooks,
            disabled=bool(config.hooks_disabled_reason or (policy.hooks_disabled and policy.hooks_disabled.value)),
        )
        warnings.extend(hooks_config.warnings)
        if config.hooks_disabled_reason and policy.hooks:
            warnings.append(config.hooks_disabled_reason)
        hooks = make_hook_runner(
            hooks_config,
            context,
            session_id=session_id,
            transcript_path=transcript_path_for(context.scratch_dir, None),
            environ=config.environ,
            on_log=hook_log.append,
            untrusted_paths=config.untrusted_paths,
        )
        lifecycle: LifecycleHooks = (
            CommandLifecycle(hooks) if isinstance(hooks, CommandHookRunner) else NoLifecycleHooks()
        )
        tasks = await stack.enter_async_context(
            BackgroundTasks(context.scratch_dir / "tasks", redact=tool_redactor(context.services))
        )
        context.services[TASKS_SERVICE] = tasks
        # The sandbox's probe and self-test (about 0.1 s; some 40 ms of CPU: the sandbox's code, its
        # layout, the redactor's pattern) begin once the first model request is out and go on while
        # the model answers: off the request's way (AgentSession.start_pending_setup).
        sandbox = PendingSandbox(lambda: _prepare_sandbox(context, config.environ), warnings, on_warning)
        stack.push_async_callback(sandbox.close)
        policy_summary = await _policy_summary(layers, config)
        model = config.model or policy.setting("model") or DEFAULT_MODEL
        # Read now, before the model runs: from the default branch on GitHub, never the PR head.
        agents, agent_warnings = load_trusted_definitions(trusted.read, trusted.list_dir, trusted.label)
        warnings.extend(agent_warnings)
        session = AgentSession(
            context=context,
            pool=pool,
            agent_definitions=agents,
            client=client
            or make_model_client(
                config.provider, thinking=thinking_for_run(config.environ, policy.settings.get("thinking"))
            ),
            model=model,
            engine=PolicyEngine(),
            hooks=hooks,
            lifecycle=lifecycle,
            limits=run_limits(config, policy),
            instructions=instructions_from(trusted),
            session_id=session_id,
            policy_summary=policy_summary,
            pending_setup=sandbox,
            start_pending_setup=sandbox.start,
        )
        yield PreparedRun(session, policy, sources, hook_log, warnings, mcp_states, sandbox)


async def _policy_summary(layers: list[PolicyLayer], config: RunConfig) -> str:
    """The system prompt's account of the policy, computed from the engine (bot.explain.summary)."""
    from bot.explain.compute import explain_policy
    from bot.explain.summary import render_summary

    explanation = await explain_policy(
        layers, workspace=config.workspace, allow=config.allow, deny=config.deny, examples=False
    )
    return render_summary(explanation)


async def _start_mcp(
    stack: AsyncExitStack, config: RunConfig, trusted: TrustedFiles, policy: EffectivePolicy, permission: Any
) -> tuple[list[AnyTool], list[dict[str, Any]]]:
    """MCP servers from the workflow's config file and the policy's ``mcpServers``, if any."""
    raw_text = trusted.read(config.mcp_config) if config.mcp_config else None
    if config.mcp_config and raw_text is None:
        raise ConfigError(f"not found in {trusted.label}", path=config.mcp_config)
    if raw_text is None and not policy.mcp_servers:
        return [], []
    from bot.mcp import McpConfig, McpManager, bridge_tools, config_from_policy, parse_mcp_config

    servers: dict[str, Any] = {}
    if policy.mcp_servers:
        for server in config_from_policy(policy.mcp_servers, environ=config.environ):
            servers[server.name] = server
    if raw_text is not None and config.mcp_config:
        data = load_json(raw_text, source=config.mcp_config)  # bounded; ConfigError names the file and line
        for server in parse_mcp_config(data, source=config.mcp_config, environ=config.environ, text=raw_text):
            servers[server.name] = server  # the workflow's file wins over a policy's block of the same name
    manager = await stack.enter_async_context(
        McpManager(McpConfig(tuple(servers.values())), workspace=config.workspace, permission=permission)
    )
    return bridge_tools(manager), manager.describe()


async def _prepare_sandbox(context: Any, environ: Mapping[str, str]) -> Any:
    """Probe and self-test the sandbox before the first model call, so ``sandbox: required`` refuses
    the run up front (the Bash tool would otherwise refuse each command)."""
    from bot.shell.execute.env import build_child_env, policy_env_settings
    from bot.shell.sandbox.status import SERVICE_KEY, prepare_sandbox, sandbox_settings

    env, passthrough, secret_names = policy_env_settings(context.permission.extra)
    child = build_child_env(environ, policy_env=env, passthrough=passthrough, secret_names=secret_names)
    permission = context.permission
    status = await prepare_sandbox(
        sandbox_settings(permission.extra),
        workspace=context.workspace,
        scratch_dir=context.scratch_dir,
        env=child.env,
        additional_directories=permission.additional_directories,
        allow_git_dir_writes=permission.allow_git_dir_writes,
        allow_workflow_writes=permission.allow_workflow_writes,
        raise_if_required=True,
    )
    context.services[SERVICE_KEY] = status
    return status


def replaying(cassette: Path, config: RunConfig) -> tuple[AbstractContextManager[Any], RunConfig]:
    """``--replay``: the model's traffic comes from a vcrpy cassette; only the model's host is
    replayed (GitHub and MCP traffic pass through), and no real key is needed."""
    from urllib.parse import urlparse

    from bot.agent.replay import use_cassette

    base_url = config.provider.base_url or config.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    host = urlparse(base_url).hostname or "api.anthropic.com"
    provider = replace(config.provider, api_key=config.provider.api_key or "replay")
    return use_cassette(cassette, model_hosts=[host]), replace(config, provider=provider)
