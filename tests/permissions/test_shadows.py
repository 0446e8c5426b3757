"""Allow rules shadowed by a deny or ask rule are warned about, naming both rules; the guide's own
"allow more" example works over the preset it extends."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.permissions.decision import Allow, Deny
from bot.permissions.rules import make_rule
from bot.permissions.shadows import covers_all
from bot.permissions.stack import PolicyLayer, load_policy_stack
from bot.runtime.policy_checker import CheckInput, PolicyChecker

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def guide_policy() -> str:
    """The YAML policy of the getting-started guide's "Allow more" section, as printed there."""
    text = (ROOT / "docs" / "getting-started.md").read_text()
    section = text.split("## 4. Allow more", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_guides_allow_more_example_opens_its_domain_over_the_fix_preset(tmp_path: Path) -> None:
    policy = tmp_path / ".github" / "bot-policy.yml"
    policy.parent.mkdir()
    policy.write_text(guide_policy())
    assert "WebFetch(domain:docs.python.org)" in policy.read_text()
    merged = load_policy_stack([PolicyLayer("repository", path=str(policy))])
    assert not [w for w in merged.warnings if "never allows anything" in w], merged.warnings
    with PolicyChecker(workspace=tmp_path, layers=[PolicyLayer("repository", path=str(policy))]) as checker:
        opened = anyio.run(checker.check, CheckInput("WebFetch", {"url": "https://docs.python.org/3/", "prompt": "p"}))
        other = anyio.run(checker.check, CheckInput("WebFetch", {"url": "https://example.com/", "prompt": "p"}))
    assert isinstance(opened.decision, Allow) and opened.decision.rule is not None
    assert opened.decision.rule.text == "WebFetch(domain:docs.python.org)"
    assert isinstance(other.decision, Deny) and other.decision.source == "default"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_shadowed_allow_rule_is_warned_about_naming_both_rules(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        "repo.json",
        '{\n  "permissions": {\n    "allow": [\n      "WebSearch",\n      "Bash(git push origin main)",\n'
        '      "Bash(make docs)"\n    ]\n  },\n  "bot": {"extends": "fix"}\n}\n',
    )
    merged = load_policy_stack([PolicyLayer("repository", path=str(repo))])
    shadows = [w for w in merged.warnings if "never allows anything" in w]
    assert len(shadows) == 2, merged.warnings
    search, push = shadows
    assert f"`WebSearch` (repository, {repo}:4)" in search and "deny rule `WebSearch` (preset, " in search
    assert "(preset, fix.json:" in search and str(ROOT) not in search
    assert f"`Bash(git push origin main)` (repository, {repo}:5)" in push and "`Bash(git push *)`" in push


def test_policy_show_and_check_print_the_shadow_warning(tmp_path: Path) -> None:
    org = write(tmp_path, "org.json", '{"permissions": {"ask": ["Edit(src/**)"]}}\n')
    repo = write(tmp_path, "repo.json", '{"permissions": {"allow": ["Edit(src/app/**)"]}}\n')
    args = ["--org-policy", str(org), "--repo-policy", str(repo)]
    shown = runner.invoke(app, ["policy", "show", *args])
    assert shown.exit_code == 0, shown.output
    assert (
        "allow rule `Edit(src/app/**)`" in shown.stdout
        and "ask (a denial headless) rule `Edit(src/**)`" in shown.stdout
    )
    checked = runner.invoke(
        app,
        [
            "policy",
            "check",
            "Edit",
            '{"file_path": "src/app/x.py", "old_string": "a", "new_string": "b"}',
            *args,
            "-w",
            str(tmp_path),
        ],
    )
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.startswith("deny:")
    assert "warning: allow rule `Edit(src/app/**)`" in checked.stderr and "`Edit(src/**)`" in checked.stderr


def rule(text: str, behavior: str = "deny", file: str | None = None) -> object:
    return make_rule(text, behavior, "repository", file)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("strong", "allow", "shadowed"),
    [
        ("WebFetch", "WebFetch(domain:docs.python.org)", True),
        ("WebFetch(domain:*.python.org)", "WebFetch(domain:docs.python.org)", True),
        ("WebFetch(domain:python.org)", "WebFetch(domain:docs.python.org)", False),
        ("Read", "Glob(src/**)", True),
        ("Glob", "Read(src/**)", False),  # the Read rule still allows Read and Grep
        ("Edit", "Write", True),
        ("Read(src/**)", "Read(src/pkg/*.py)", True),
        ("Read(src/*.py)", "Read(src/pkg/*.py)", False),
        ("Read(src/**)", "Read(**/*.py)", False),
        ("Read(.env)", "Read(config/.env)", True),
        ("Read(build/)", "Read(build)", False),  # `build` may be a file
        ("Read(build/)", "Read(build/out/**)", True),
        ("Read(~/.ssh/**)", "Read(~/.ssh/config)", True),
        ("Bash(git push *)", "Bash(git push origin main)", True),
        ("Bash(git push:*)", "Bash(git push --force *)", True),
        ("Bash(git push *)", "Bash(git pushy)", False),
        ("Bash(git *)", "Bash", False),
        ("Bash(rm -rf *)", "Bash(rm -rf build)", True),
        ("Bash(*--force*)", "Bash(git push --force)", True),
        ("mcp__github", "mcp__github__list_issues", True),
        ("mcp__github__*", "mcp__github", True),
        ("mcp__github__delete_repo", "mcp__github", False),
    ],
)
def test_what_covers_what(strong: str, allow: str, shadowed: bool) -> None:
    assert covers_all(rule(strong), rule(allow, "allow")) is shadowed  # type: ignore[arg-type]


def test_the_same_relative_rule_from_files_in_different_folders_is_not_a_shadow(tmp_path: Path) -> None:
    strong = rule("Read(/docs/**)", file=str(tmp_path / "a" / "p.json"))
    allow = rule("Read(/docs/**)", "allow", file=str(tmp_path / "b" / "p.json"))
    assert not covers_all(strong, allow)  # type: ignore[arg-type]


def test_the_runs_summary_warns_about_a_shadowed_allow_rule(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text('{\n  "bot": {"extends": "fix"},\n  "permissions": {"allow": ["WebSearch"]}\n}\n')
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "run",
            "--local",
            "--repo",
            str(ROOT / "examples" / "demo-repo"),
            "--prompt",
            "Fix the failing test",
            "--replay",
            str(ROOT / "examples" / "demo.cassette.yaml"),
            "-o",
            str(out),
            "--policy",
            str(policy),
        ],
    )
    assert result.exit_code == 0, result.output
    comment = (out / "comment.md").read_text()
    assert "allow rule `WebSearch`" in comment and "the deny rule `WebSearch` (preset, fix.json:" in comment, comment
