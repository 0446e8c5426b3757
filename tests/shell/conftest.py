"""Helpers for the Bash-analysis tests: a workspace with the shapes attacks use (a symlink out, a
``.git`` directory, a bare-repository-looking folder) and a one-call way to decide a command."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.interface.context import ToolUseContext, make_context
from bot.permissions.chain import PermissionRequest, decide_chain
from bot.permissions.context import PermissionContext
from bot.permissions.decision import Decision, PermissionResult
from bot.permissions.rules import make_rule
from bot.shell.api import check_bash_permissions, is_read_only_command


def build_workspace(root: Path) -> Path:
    ws = root / "ws"
    for sub in ("src", "tests", "docs", ".git/hooks", ".github/workflows", "sub/deeper", "evil"):
        (ws / sub).mkdir(parents=True, exist_ok=True)
    (ws / "README.md").write_text("# demo\n")
    (ws / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    # What deny rules and find guards protect: a secret, a second workflow, a loose object.
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "secrets").mkdir(exist_ok=True)
    (ws / "secrets" / "k").write_text("k\n")
    (ws / ".github" / "workflows" / "release.yml").write_text("on: push\n")
    (ws / ".git" / "objects" / "ab").mkdir(parents=True, exist_ok=True)
    (ws / ".git" / "objects" / "ab" / ("c" * 38)).write_text("x")
    # A git directory outside .git: what a worktree's or submodule's `.git` file points at.
    for sub in ("hooks", "objects", "refs"):
        (ws / "modgit" / sub).mkdir(parents=True, exist_ok=True)
    (ws / "modgit" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / "worktree").mkdir(exist_ok=True)
    (ws / "worktree" / ".git").write_text("gitdir: ../modgit\n")
    # The hatch scripts of mkdocs' pyproject.toml (its CI runs `hatch run style:lint` and the like).
    (ws / "pyproject.toml").write_text(
        '[tool.hatch.envs.test.scripts]\nwith-coverage = "pytest --cov"\n'
        '[tool.hatch.envs.integration.scripts]\ntest = "pytest tests/integration"\n'
        '[tool.hatch.envs.style.scripts]\nlint = "ruff check ."\nformat = "ruff format ."\n'
        '[tool.hatch.envs.types.scripts]\ncheck = "mypy src"\n'
        '[tool.hatch.envs.lint.scripts]\nmarkdown = "markdownlint docs"\n'
    )
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / "evil" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / "evil" / "config").write_text("[core]\n\tfsmonitor = sh -c id\n")
    os.symlink("/etc", ws / "link_to_etc")
    os.symlink(os.path.expanduser("~"), ws / "link_to_home")
    os.symlink("src", ws / "link_to_src")
    return ws.resolve()


def context_for(
    ws: Path,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    cwd: Path | None = None,
    scratch: Path | None = None,
    **permission: Any,
) -> ToolUseContext:
    perm = PermissionContext(
        allow=tuple(make_rule(r, "allow", "test") for r in allow),
        deny=tuple(make_rule(r, "deny", "test") for r in deny),
        ask=tuple(make_rule(r, "ask", "test") for r in ask),
        **permission,
    )
    ctx = make_context(ws, scratch_dir=scratch or ws.parent / "scratch", permission=perm)
    return ctx.with_(cwd=cwd) if cwd is not None else ctx


def case_context(case: dict[str, Any], ws: Path, cache: dict[str, ToolUseContext]) -> ToolUseContext:
    """The context of a corpus case (its ``allow``/``deny``/``ask`` rules and ``policy``, with a
    ``cwd`` below ``ws``); cases with the same policy share one, as a run's calls do."""
    key = json.dumps([str(ws), case["allow"], case["deny"], case["ask"], case.get("policy")], sort_keys=True)
    context = cache.get(key)
    if context is None:
        policy = dict(case.get("policy") or {})
        cwd = policy.pop("cwd", None)
        context = cache[key] = context_for(
            ws, case["allow"], case["deny"], case["ask"], cwd=ws / cwd if cwd else None, **policy
        )
    return context


def final_decision(command: str, ctx: ToolUseContext) -> Decision:
    """What the pipeline's stage 4 decides for a Bash call (the tool's check, then the chain)."""
    request = PermissionRequest(
        tool_name="Bash",
        input={"command": command},
        workspace=ctx.workspace,
        subject=command,
        cwd=ctx.working_directory,
        read_only=is_read_only_command(command),
        self_matching=True,
        tool_check=check_bash_permissions(command, ctx),
    )
    return decide_chain(request, ctx.permission)


@pytest.fixture(scope="session")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("shell"))


Check = Callable[..., PermissionResult]


@pytest.fixture
def check(ws: Path) -> Check:
    """``check("git status", allow=["Bash(git status:*)"])`` → the tool's permission result."""

    def run(
        command: str, allow: Sequence[str] = (), deny: Sequence[str] = (), ask: Sequence[str] = (), **kw: Any
    ) -> PermissionResult:
        return check_bash_permissions(command, context_for(ws, allow, deny, ask, **kw))

    return run


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the corpus counts after the run (``tests/shell/test_corpus.py`` fills them in)."""
    from tests.shell import test_corpus

    if test_corpus.SUMMARY:
        terminalreporter.write_sep("-", "Bash analysis corpus")
        for line in test_corpus.SUMMARY.values():
            terminalreporter.write_line(line)
