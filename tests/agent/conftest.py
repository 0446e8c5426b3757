"""A harness for the agent loop: a workspace, the real tool pool, the real model client over a
cassette (vcrpy) or a paced replay, a recording event sink, and retries that never sleep."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import httpx2
import pytest

from bot.agent.events import EventLog
from bot.agent.lifecycle import LifecycleHooks, NoLifecycleHooks
from bot.agent.limits import RunLimits
from bot.agent.loop import run_agent
from bot.agent.outcome import AgentOutcome
from bot.agent.prompts import AgentTask, Environment
from bot.agent.retry import RetryPolicy
from bot.agent.session import AgentSession
from bot.interface.context import make_context
from bot.interface.tool import AnyTool
from bot.permissions.context import PermissionContext, PermissionMode
from bot.permissions.engine import PolicyEngine
from bot.permissions.rules import make_rule
from bot.runtime.assembly import assemble_tool_pool
from bot.runtime.pipeline import ToolPool
from bot.testing.model import model_client, use_cassette
from bot.testing.replay import CapturingTransport
from tests.cassettes.scripts import cassette_path

MODEL = "claude-sonnet-5-5"
TODAY = date(2026, 11, 30)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class NoSleep:
    """The retry policy's sleep: records the waits, never waits."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@dataclass
class Harness:
    workspace: Path
    scratch: Path
    events: EventLog = field(default_factory=EventLog)
    sleep: NoSleep = field(default_factory=NoSleep)
    capture: CapturingTransport = field(default_factory=CapturingTransport)

    def write(self, relative: str, text: str) -> Path:
        path = self.workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def session(
        self,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        mode: PermissionMode = "default",
        limits: RunLimits | None = None,
        extra_tools: Sequence[AnyTool] = (),
        transport: httpx2.AsyncBaseTransport | None = None,
        tool_search: bool = True,
        lifecycle: LifecycleHooks | None = None,
        **kwargs: Any,
    ) -> AgentSession:
        permission = PermissionContext(
            mode=mode,
            allow=tuple(make_rule(r, "allow", "policySettings", "policy.yaml", i + 1) for i, r in enumerate(allow)),
            deny=tuple(make_rule(r, "deny", "policySettings", "policy.yaml", 100 + i) for i, r in enumerate(deny)),
        )
        context = make_context(self.workspace, scratch_dir=self.scratch, permission=permission)
        pool = ToolPool(assemble_tool_pool(permission, mcp_tools=extra_tools))
        kwargs.setdefault("retry", RetryPolicy(sleep=self.sleep))
        return AgentSession(
            context=context,
            pool=pool,
            model=MODEL,
            client=model_client(transport or self.capture, tool_search=tool_search),
            engine=PolicyEngine(),
            limits=limits or RunLimits(),
            environment=Environment(self.workspace, "Linux 6.1", TODAY),
            lifecycle=lifecycle or NoLifecycleHooks(),
            **kwargs,
        )

    async def run(
        self, cassette: str, session: AgentSession, prompt: str = "Do the task.", *, by_model: bool = False
    ) -> tuple[AgentOutcome, Any]:
        with use_cassette(cassette_path(cassette), by_model=by_model) as cass:
            outcome = await run_agent(AgentTask(prompt, nonce="c0ffee00"), session, self.events)
        return outcome, cass

    def request(self, index: int) -> dict[str, Any]:
        return self.capture.request_json(index)


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Harness(workspace.resolve(), (tmp_path / "scratch").resolve())


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def git_repo(harness: Harness) -> Callable[..., None]:
    """Make the workspace a git repository with one commit of the given files."""

    def init(**files: str) -> None:
        for name, text in files.items():
            harness.write(name, text)
        git(harness.workspace, "init", "-q", "-b", "main")
        git(harness.workspace, "config", "user.email", "bot@example.com")
        git(harness.workspace, "config", "user.name", "bot")
        git(harness.workspace, "add", "-A")
        git(harness.workspace, "commit", "-q", "-m", "initial")

    return init
