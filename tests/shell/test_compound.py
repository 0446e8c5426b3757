"""Compound commands: every subcommand must be allowed, any deny wins, at most 50 subcommands,
the directory and environment flow from one subcommand to the next, and what the decision says."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from bot.permissions.decision import Allow, Ask, Deny, Passthrough
from bot.shell.api import check_bash_permissions
from bot.shell.judge.command import MAX_SUBCOMMANDS
from bot.shell.parse import walk as ast_parse
from tests.shell.conftest import Check, context_for, final_decision

GIT = ["Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(ls:*)", "Bash(cat:*)", "Bash(make:*)"]


@pytest.mark.parametrize(
    ("description", "command", "allowed"),
    [
        ("all parts allowed with &&", "git status && git diff", True),
        ("all parts allowed with ||, ; and |", "git status || git log; git diff | cat", True),
        ("one part without a rule", "git status && curl example.com", False),
        ("chaining after an allowed prefix", "git status; rm -rf src", False),
        ("a newline is a separator", "git status\nrm -rf src", False),
        ("a background & is a separator", "git status & rm -rf src", False),
        ("a subshell is checked", "git status && (rm -rf src)", False),
        ("a group is checked", "{ git status; rm -rf src; }", False),
        ("negation is checked", "! rm -rf src", False),
        ("neutral commands need no rule", "cd src && ls && echo done", True),
        ("true/false/: are neutral", "true && false || :", True),
        ("set -euo pipefail is neutral", "set -euo pipefail; make test", True),
        ("set -k changes parsing", "set -k; make test", False),
    ],
)
def test_every_subcommand_must_be_allowed(check: Check, description: str, command: str, allowed: bool) -> None:
    result = check(command, allow=GIT)
    assert isinstance(result, Allow) is allowed, (description, result)


def test_a_deny_anywhere_denies_the_whole_command(check: Check) -> None:
    result = check("git status && rm -rf src && git diff", allow=[*GIT, "Bash(rm:*)"], deny=["Bash(rm -rf:*)"])
    assert isinstance(result, Deny)
    assert result.rule is not None and result.rule.text == "Bash(rm -rf:*)"


def test_more_than_50_subcommands_are_denied_even_when_each_is_harmless(check: Check) -> None:
    command = " && ".join(["true"] * MAX_SUBCOMMANDS) + " && curl example.com"
    result = check(command, allow=["Bash"], deny=["Bash(curl:*)"])
    assert isinstance(result, Deny)
    assert check(" && ".join(["true"] * MAX_SUBCOMMANDS), allow=["Bash"]).__class__ is Allow


def test_fifty_subcommands_after_the_cap_still_name_the_deny_rule(check: Check) -> None:
    command = " && ".join(["true"] * 60) + " && curl example.com"
    result = check(command, allow=["Bash"], deny=["Bash(curl:*)"])
    assert isinstance(result, Deny)
    assert result.rule is not None and result.rule.text == "Bash(curl:*)"


@pytest.mark.parametrize(
    ("description", "command", "allowed"),
    [
        ("cd into the workspace then read", "cd src && cat app.py", True),
        ("cd out of the workspace", "cd /etc && cat passwd", False),
        ("cd up and out", "cd .. && cat ws/README.md", False),
        ("cd then a path relative to the new directory", "cd src && cat ../README.md", True),
        ("cd inside a subshell does not leak", "(cd src) ; cat ../README.md", False),
        ("cd in a pipeline element does not leak", "cd src | true; cat ../README.md", False),
        ("cd - makes the directory unknown", "cd src && cd - && cat app.py", False),
        ("cd through a wrapper is refused", "builtin cd /etc && cat passwd", False),
        ("cd through eval is followed", "eval cd /etc; cat passwd", False),
        ("cd inside an if leaves the directory unknown", "if true; then cd src; fi; cat ../README.md", False),
        ("an if whose parts are allowed", "if [ -f Makefile ]; then make; else git status; fi", True),
        ("an if hiding a disallowed command", "if true; then rm -rf src; fi", False),
        ("a while loop reading lines", 'while read -r line; do echo "$line"; done < README.md', True),
        ("read into PATH taints", "read -r PATH < README.md; git status", False),
    ],
)
def test_the_directory_flows_through_the_command(check: Check, description: str, command: str, allowed: bool) -> None:
    result = check(command, allow=[*GIT, "Bash(eval:*)", "Bash(builtin:*)", "Bash(true)"])
    assert isinstance(result, Allow) is allowed, (description, result)


def test_the_working_directory_of_the_context_is_the_start(ws: Path) -> None:
    ctx = context_for(ws, allow=["Bash(cat:*)"], cwd=ws / "src")
    assert isinstance(check_bash_permissions("cat app.py", ctx), Allow)
    assert not isinstance(check_bash_permissions("cat ../../x", ctx), Allow)


@pytest.mark.parametrize(
    ("description", "command", "allowed"),
    [
        ("an unsafe export taints what follows", "export LD_PRELOAD=/tmp/x.so; ls", False),
        ("a PATH change taints what follows", "PATH=.:$PATH; git status", False),
        ("PS4 with xtrace taints even neutral commands", "export PS4='$(id)'; set -x; true", False),
        ("a safe export does not", "export NODE_ENV=test && make test", True),
        ("lower-case shell variables do not", "x=1; echo $x", True),
        ("declare -i is refused", "declare -i n=1; echo $n", False),
    ],
)
def test_assignments_flow_into_later_commands(check: Check, description: str, command: str, allowed: bool) -> None:
    result = check(command, allow=GIT)
    assert isinstance(result, Allow) is allowed, (description, result)


def test_an_allowed_compound_names_every_rule(check: Check) -> None:
    result = check("git status && make test", allow=GIT)
    assert isinstance(result, Allow)
    assert result.rule is not None and result.rule.text == "Bash(git status:*)"
    assert "Bash(make:*)" in result.reason


def test_an_unmatched_compound_suggests_up_to_five_rules(check: Check) -> None:
    command = " && ".join(f"tool{i} run x" for i in range(8))
    result = check(command, allow=[])
    assert isinstance(result, Ask)
    assert len(result.suggestions) == 5
    assert result.suggestions[0] == "Bash(tool0 run:*)"


def test_a_bare_bash_rule_lets_the_chain_decide(check: Check) -> None:
    assert isinstance(check("curl example.com", allow=["Bash"]), Allow)  # as `Bash(*)`
    assert isinstance(check("echo git push | sh", allow=["Bash"]), Passthrough)  # what it cannot see into
    assert isinstance(check("curl example.com", allow=["Bash(*)"]), Allow)
    assert isinstance(check("curl example.com", mode="bypassPermissions"), Passthrough)
    # ... but never past a security check or a hard limit
    assert isinstance(check("echo $(id)", allow=["Bash"]), Ask)
    assert isinstance(check("rm -rf /", allow=["Bash"]), Deny)


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("a script on stdin", "echo git push | sh"),
        ("a shell with options before -c", 'bash -ce "true; git push"'),
        ("a git alias defined inline", "git -c alias.p=push p"),
        ("coproc", "coproc git push"),
    ],
)
def test_with_deny_rules_a_bare_bash_rule_does_not_pass_what_cannot_be_seen_into(
    check: Check, description: str, command: str
) -> None:
    # Red team round 3: the chain would allow it by `Bash` while it may hide the denied command.
    result = check(command, allow=["Bash"], deny=["Bash(git push:*)"])
    assert not isinstance(result, (Allow, Passthrough)), (description, result)


def test_too_complex_commands_ask(check: Check) -> None:
    result = check("for f in *.py; do wc -l $f; break; done", allow=["Bash(wc:*)"])
    assert isinstance(result, Ask)
    assert "too complex" in result.reason


def test_the_fallback_without_a_parser_is_conservative(check: Check, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ast_parse, "_PARSER", None)
    ast_parse.clear_parse_cache()
    try:
        assert isinstance(check("git status --short", allow=GIT), Allow)
        assert isinstance(check("git status && rm -rf src", allow=GIT), Ask)
        assert isinstance(check("git status | cat", allow=GIT), Ask)
        assert isinstance(check("rm -rf /", allow=["Bash"]), Deny)
    finally:
        monkeypatch.undo()
        ast_parse.clear_parse_cache()


def test_the_best_effort_match_of_a_huge_command_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 60,000-character command once took 23 s here: every start word joined with all the rest.
    from bot.shell.api import _options
    from bot.shell.judge import decide
    from tests.shell.conftest import build_workspace

    joined: list[int] = []
    real = decide.canonical

    def counting(values: list[str]) -> tuple[str, list[int]]:
        joined.append(len(values))
        return real(values)

    monkeypatch.setattr(decide, "canonical", counting)
    ws = build_workspace(Path(tempfile.mkdtemp()))
    options, _ = _options(context_for(ws, ["Bash(*)"], ["Bash(git push:*)"]))
    assert decide.best_effort_rule("echo " + "a " * 30_000, options) is None
    assert len(joined) <= 2 * decide.BEST_EFFORT_STARTS
    assert max(joined) <= decide.BEST_EFFORT_WORDS


def test_a_trailing_redirection_belongs_to_the_last_command_of_a_list(ws: Path) -> None:
    # tree-sitter hangs `< ../README.md` on the whole `cd src && cat` list; bash on `cat` alone
    (ws / "src").mkdir(exist_ok=True)
    (ws / "README.md").write_text("x\n")
    rules = ["Bash(cd:*)", "Bash(cat:*)", "Bash(echo:*)", "Edit"]
    assert isinstance(final_decision("cd src && cat < ../README.md", context_for(ws, rules)), Allow)
    for attack in ("cd src && echo x > ../.git/hooks/pre-commit", "cd .github && echo x > workflows/ci.yml"):
        assert not isinstance(final_decision(attack, context_for(ws, rules)), Allow), attack
