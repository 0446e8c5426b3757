"""Permission-aware search: what a Read deny rule covers never leaks through Glob or Grep."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.interface.context import make_context
from bot.permissions.context import PermissionContext
from bot.permissions.decision import RuleRef
from bot.permissions.rules import Rule, make_rule
from bot.tools.search_filter import SearchFilter
from tests.tools.helpers import context_for, run_tool

SEARCH = ("Glob", "Grep")


@pytest.fixture
def files(workspace: Path) -> Path:
    for rel in (".env", "app/.env", "secrets/prod/key.txt", "certs/server.pem", "src/main.py", "notes.txt"):
        path = workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("API_KEY=hunter2\n")
    return workspace


def visible(workspace: Path, tmp_path: Path, deny: tuple[str, ...]) -> dict[str, set[str]]:
    """What each search shows, per mode, under these deny rules."""
    ctx = context_for(workspace, tmp_path / "scratch", allow=SEARCH, deny=deny)
    shown: dict[str, set[str]] = {}
    glob = run_tool(ctx, "Glob", {"pattern": "**/*"}).result.text
    shown["glob"] = set(glob.splitlines())
    files = run_tool(ctx, "Grep", {"pattern": "API_KEY"}).result.text
    shown["files"] = set(files.splitlines()[1:])
    content = run_tool(ctx, "Grep", {"pattern": "API_KEY", "output_mode": "content"}).result.text
    shown["content"] = {line.split(":")[0] for line in content.splitlines()}
    count = run_tool(ctx, "Grep", {"pattern": "API_KEY", "output_mode": "count"}).result.text
    shown["count"] = {line.split(":")[0] for line in count.split("\n\n")[0].splitlines()}
    return shown


ALL_FILES = {".env", "app/.env", "secrets/prod/key.txt", "certs/server.pem", "src/main.py", "notes.txt"}


@pytest.mark.parametrize(
    ("description", "deny", "hidden"),
    [
        ("no rules: everything shows", (), set()),
        ("a name rule hides the name at any depth", ("Read(.env)",), {".env", "app/.env"}),
        ("an anchored rule hides only there", ("Read(/.env)",), {".env"}),
        ("a directory rule hides everything below", ("Read(secrets/**)",), {"secrets/prod/key.txt"}),
        ("an extension rule", ("Read(*.pem)",), {"certs/server.pem"}),
        ("a rule naming the searching tools too", ("Grep(notes.txt)", "Glob(notes.txt)"), {"notes.txt"}),
        ("several rules", ("Read(.env)", "Read(secrets/**)"), {".env", "app/.env", "secrets/prod/key.txt"}),
    ],
)
def test_denied_files_never_show_in_any_search_mode(
    files: Path, tmp_path: Path, description: str, deny: tuple[str, ...], hidden: set[str]
) -> None:
    for mode, shown in visible(files, tmp_path, deny).items():
        assert shown == ALL_FILES - hidden, mode


def test_denied_file_contents_never_appear(files: Path, tmp_path: Path) -> None:
    (files / ".env").write_text("SECRET_VALUE_123\n")
    ctx = context_for(files, tmp_path / "s", allow=SEARCH, deny=("Read(.env)",))
    for mode in ("content", "files_with_matches", "count"):
        outcome = run_tool(
            ctx,
            "Grep",
            {"pattern": "SECRET_VALUE", "output_mode": mode, "-C": 2}
            if mode == "content"
            else {"pattern": "SECRET_VALUE", "output_mode": mode},
        )
        assert "SECRET_VALUE_123" not in outcome.result.text and ".env" not in outcome.result.text


def test_a_rule_from_a_policy_file_is_anchored_at_that_file(files: Path, tmp_path: Path) -> None:
    rule = make_rule("Read(/app/.env)", "deny", "projectSettings", file=str(files / ".claude" / "settings.json"))
    ctx = make_context(files, scratch_dir=tmp_path / "s", permission=PermissionContext(deny=(rule,)))
    search = SearchFilter(ctx, "Grep")
    assert search.hides(files / "app" / ".env") and not search.hides(files / ".env")


def test_allow_and_unrelated_rules_hide_nothing(files: Path, tmp_path: Path) -> None:
    ctx = context_for(files, tmp_path / "s", allow=("Read(.env)",), deny=("Bash(cat:*)", "Edit(src/**)", "Read"))
    assert not SearchFilter(ctx, "Grep").active


def test_a_pattern_that_cannot_be_compiled_hides_everything(files: Path, tmp_path: Path) -> None:
    # policy loading refuses such a rule; should one get through anyway, search fails closed
    rule = Rule(tool="Read", content="secrets/[oops", behavior="deny", ref=RuleRef("Read(secrets/[oops)", "test"))
    ctx = make_context(files, scratch_dir=tmp_path / "s", permission=PermissionContext(deny=(rule,)))
    search = SearchFilter(ctx, "Glob")
    assert search.active and search.hides(files / "src" / "main.py")
