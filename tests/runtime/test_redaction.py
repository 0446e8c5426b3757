"""Tool results are redacted before the model sees them: every tool, at one place in the pipeline,
with real files and the real tools; and each redacted result is counted for the run's summary."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest

from bot.core.guard import GUARD_SERVICE, SecretGuard
from bot.errors import ToolExecutionError
from bot.interface.context import ToolUseContext
from bot.interface.messages import Progress, ToolUseBlock
from bot.interface.tool import Tool, ToolInput, ToolResult
from bot.permissions.engine import PolicyEngine
from bot.runtime.pipeline import ToolCallOutcome, ToolPool, ToolRunner
from bot.runtime.results import TOOL_RESULTS_DIR
from bot.tools.registry import all_base_tools
from tests.tools.helpers import context_for

# Not shaped like any well-known token: only knowing the value finds it.
TOKEN = "tok3n-Value-0f-the-run-42x"
MARK = "[REDACTED:GITHUB_TOKEN]"


def checkout_config(token: str = TOKEN) -> str:
    header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return (
        '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://github.com/o/r\n'
        f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {header}\n'
    )


class LeakInput(ToolInput):
    what: str


class LeakyTool(Tool[LeakInput, Any]):
    """Stands for an MCP tool: returns content blocks the way a server's result is bridged."""

    name = "mcp__leaky__get"
    input_model = LeakInput
    max_result_chars = 1_000

    def is_read_only(self, input: LeakInput) -> bool:
        return True

    async def call(self, input: LeakInput, context: ToolUseContext, progress: Progress) -> ToolResult[Any]:
        image = base64.b64encode(b"\x89PNG" + TOKEN.encode()).decode()
        match input.what:
            case "blocks":
                return ToolResult(
                    [
                        {"type": "text", "text": f"token: {TOKEN[::-1]}"},
                        {"type": "resource", "resource": {"uri": "file:///x", "text": f"hex {TOKEN.encode().hex()}"}},
                        {"type": "search_result", "title": "t", "content": [{"type": "text", "text": f"in {TOKEN}"}]},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
                    ]
                )
            case "error":
                raise ToolExecutionError(f"the server failed: Authorization: {TOKEN}")
            case "large":
                return ToolResult(("filler line\n" * 200) + f"found {TOKEN}\n")
            case _:
                return ToolResult("nothing to see")


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> SecretGuard:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return SecretGuard()


def context(workspace: Path, tmp_path: Path, guard: SecretGuard, *allow: str) -> ToolUseContext:
    ctx = context_for(
        workspace, tmp_path / "scratch", allow=allow or ("Read", "Grep", "Glob", "Bash", "mcp__leaky"), sandbox="off"
    )
    ctx.services[GUARD_SERVICE] = guard
    return ctx


def run(ctx: ToolUseContext, name: str, raw: dict[str, Any], tool_use_id: str = "toolu_1") -> ToolCallOutcome:
    pool = ToolPool([*all_base_tools(), LeakyTool()])

    async def main() -> ToolCallOutcome:
        return await ToolRunner(pool, PolicyEngine()).run(ToolUseBlock(tool_use_id, name, raw), ctx)

    return anyio.run(main)


def assert_no_token(text: str) -> None:
    header = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    for form in (TOKEN, TOKEN[::-1], TOKEN.encode().hex(), header, header[24:40]):
        assert form not in text


def test_the_persisted_checkout_credential_read_with_read_reaches_the_model_redacted(
    workspace: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(checkout_config())
    outcome = run(context(workspace, tmp_path, guard), "Read", {"file_path": str(workspace / ".git" / "config")})
    assert not outcome.result.is_error, outcome.result.text
    assert "extraheader = AUTHORIZATION: basic" in outcome.result.text
    assert_no_token(outcome.result.text)
    assert outcome.record.redacted
    assert guard.counter.tool_results == 1


def test_the_persisted_checkout_credential_found_with_grep_reaches_the_model_redacted(
    workspace: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(checkout_config())
    outcome = run(
        context(workspace, tmp_path, guard),
        "Grep",
        {"pattern": "extraheader", "path": str(workspace / ".git" / "config"), "output_mode": "content"},
    )
    assert not outcome.result.is_error, outcome.result.text
    assert "extraheader" in outcome.result.text
    assert_no_token(outcome.result.text)


def test_an_encoded_secret_in_a_file_is_redacted_from_read(workspace: Path, tmp_path: Path, guard: SecretGuard) -> None:
    (workspace / "notes.txt").write_text(
        f"reversed {TOKEN[::-1]}\nhex {TOKEN.encode().hex().upper()}\nzero-width {TOKEN[:4]}\u200b{TOKEN[4:]}\n"
    )
    outcome = run(context(workspace, tmp_path, guard), "Read", {"file_path": str(workspace / "notes.txt")})
    assert outcome.result.text.count(MARK) == 3
    assert_no_token(outcome.result.text)


def test_a_file_name_holding_a_secret_is_redacted_from_glob(
    workspace: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    (workspace / f"dump-{TOKEN.encode().hex()}.txt").write_text("x")
    outcome = run(context(workspace, tmp_path, guard), "Glob", {"pattern": "*.txt"})
    assert MARK in outcome.result.text
    assert_no_token(outcome.result.text)


def test_bash_output_is_redacted_in_every_form(workspace: Path, tmp_path: Path, guard: SecretGuard) -> None:
    (workspace / "leak.txt").write_text(f"{TOKEN[::-1]}\n")
    outcome = run(context(workspace, tmp_path, guard), "Bash", {"command": "cat leak.txt; echo done"})
    assert MARK in outcome.result.text
    assert_no_token(outcome.result.text)


def test_content_blocks_and_nested_content_are_redacted_and_images_left_alone(
    workspace: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    outcome = run(context(workspace, tmp_path, guard), "mcp__leaky__get", {"what": "blocks"})
    blocks = outcome.result.content
    assert isinstance(blocks, list)
    text, resource, search, image = blocks
    assert text == {"type": "text", "text": f"token: {MARK}"}
    assert resource["resource"] == {"uri": "file:///x", "text": f"hex {MARK}"}
    assert search["content"] == [{"type": "text", "text": f"in {MARK}"}]
    assert image["source"]["data"] == base64.b64encode(b"\x89PNG" + TOKEN.encode()).decode()
    assert guard.counter.tool_results == 1


def test_an_error_result_is_redacted_too(workspace: Path, tmp_path: Path, guard: SecretGuard) -> None:
    outcome = run(context(workspace, tmp_path, guard), "mcp__leaky__get", {"what": "error"})
    assert outcome.result.is_error
    assert MARK in outcome.result.text
    assert_no_token(outcome.result.text)


def test_a_large_result_is_redacted_before_it_is_persisted(workspace: Path, tmp_path: Path, guard: SecretGuard) -> None:
    outcome = run(context(workspace, tmp_path, guard), "mcp__leaky__get", {"what": "large"})
    assert "<persisted-output>" in outcome.result.text
    [saved] = (tmp_path / "scratch" / TOOL_RESULTS_DIR).iterdir()
    assert MARK in saved.read_text()
    assert_no_token(saved.read_text())


def test_each_redacted_result_is_counted_once_for_the_summary(
    workspace: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    (workspace / "a.txt").write_text(f"{TOKEN} and {TOKEN} again\n")
    ctx = context(workspace, tmp_path, guard)
    run(ctx, "Read", {"file_path": str(workspace / "a.txt")}, "toolu_1")
    run(ctx, "mcp__leaky__get", {"what": "blocks"}, "toolu_2")
    clean = run(ctx, "mcp__leaky__get", {"what": "nothing"}, "toolu_3")
    assert not clean.record.redacted
    assert guard.counter.tool_results == 2
    assert guard.counter.summary() == (
        "2 tool results had secrets redacted before the model saw them (Read, mcp__leaky__get)"
    )


def test_without_a_guard_on_the_context_the_process_secrets_are_still_redacted(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    (workspace / "a.txt").write_text(f"{TOKEN[::-1]}\n")
    ctx = context_for(workspace, tmp_path / "scratch", allow=("Read",))
    outcome = run(ctx, "Read", {"file_path": str(workspace / "a.txt")})
    assert MARK in outcome.result.text
