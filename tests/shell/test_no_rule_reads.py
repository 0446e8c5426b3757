"""Commands that only read the workspace need no rule (bot.shell.judge.no_rule), as Read, Glob and
Grep need none; everything such a command could be turned into still needs one. Each attack below
is a command that a plain "read-only programs need no rule" would let through."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("ls -la", []),
        ("cat README.md", []),
        ("head -n 20 src/app.py", []),
        ("grep -rn TODO src | head", []),
        ("find . -name '*.py' | sort", []),
        ("wc -l src/*.py", []),
        ("git status", []),
        ("git log --oneline -5", []),
        ("git --no-pager diff --stat", []),
        ("sort -u README.md | uniq -c", []),
        ("cd src && ls", []),
        ("jq .name package.json", []),
        ("test -f README.md && echo yes", []),
        # The everyday shapes of an agent: an allowed command, then a filter of its output.
        ("pytest -q 2>&1 | tail -30", ["Bash(pytest:*)"]),
        ("npm test 2>&1 | head -80", ["Bash(npm test:*)"]),
        ("python -m pytest tests 2>&1 | grep -E 'FAILED|passed'", ["Bash(python -m pytest:*)"]),
        ("cargo test 2>&1 | tail -n 50; git status --short", ["Bash(cargo test:*)"]),
    ],
)
def test_reading_the_workspace_needs_no_rule(ws: Path, command: str, rules: list[str]) -> None:
    decision = final_decision(command, context_for(ws, rules))
    assert isinstance(decision, Allow), (command, decision)


@pytest.mark.parametrize(
    ("command", "rules", "deny", "why"),
    [
        ("cat .git/config", [], [], "git's internals need a rule that names them, as for Read"),
        ("cat src/../.git/config", [], [], "the same, through a parent step"),
        ("cat .gi*/config", [], [], "a glob that can match .git"),
        ("ls .git", [], [], "listing git's internals"),
        ("cat /etc/passwd", [], [], "outside the workspace"),
        ("cat ../outside", [], [], "outside the workspace, relative"),
        ("cat < /etc/passwd", [], [], "outside the workspace, by redirection"),
        ("cat .env", [], ["Read(.env)"], "a Read deny rule"),
        ("grep -r SECRET .env", [], ["Read(.env)"], "a Read deny rule, through grep"),
        ("cat README.md", [], ["Bash(cat:*)"], "a Bash deny rule on the program"),
        ("cat README.md > out.txt", [], [], "a redirection writes"),
        ("sort -o out.txt README.md", [], [], "an option writes"),
        ("uniq README.md out.txt", [], [], "uniq's second operand is written"),
        ("xxd README.md out.bin", [], [], "xxd's second operand is written"),
        ("sed -i s/a/b/ README.md", [], [], "sed -i edits"),
        ("sed 's/a/b/e' README.md", [], [], "sed's e flag runs the pattern space"),
        ("awk 'BEGIN{system(\"touch x\")}'", [], [], "awk's system()"),
        ("find . -exec touch {} +", [], [], "find -exec"),
        ("find . -delete", [], [], "find -delete"),
        ("./cat README.md", [], [], "a program from the workspace"),
        ("cat $HOME/.ssh/id_rsa", [], [], "a word known only at run time"),
        ("git -c core.pager=touch log", [], [], "git -c can run a program"),
        ("git diff --ext-diff", [], [], "an external diff runs a program"),
        ("git log --output=x", [], [], "git log writes with --output"),
        ("cd evil && git status", [], [], "a bare repository's config runs core.fsmonitor"),
        ("id", [], [], "what a probe runs, not a task"),
        ("whoami && uname -a", [], [], "the same"),
        ("env", [], [], "env launches programs"),
        ("less README.md", [], [], "LESSOPEN runs a preprocessor"),
        ("rg --pre ./x.sh TODO", [], [], "rg --pre runs a program per file"),
        ("nohup sh -c 'cat README.md'", ["Bash(nohup:*)"], [], "a launched reader takes the launcher's rule"),
        ("git diff --name-only | xargs cat", [], [], "xargs appends what an unknown listing prints"),
        ("echo test && ls && touch pwned", ["Bash(echo *)"], [], "a chain still needs every part"),
        ("cat README.md | sh", [], [], "what reads the output may run it"),
        ("cd .git && cat config", [], [], "where it runs is git's internals"),
        ("pushd .git && cat config", [], [], "the same, by pushd"),
        ("cd src/../.git && grep -r token .", [], [], "the same, through a parent step"),
        ("awk 'BEGIN{ARGV[ARGC++]=\".env\"} 1'", [], ["Read(.env)"], "awk opens what ARGV holds at run time"),
        ("tree --hintro=.env -H .", [], ["Read(.env)"], "tree pastes a file into its HTML"),
        ("tree -R -H .", [], [], "tree writes 00Tree.html into every directory"),
        ("file -C", [], [], "file compiles magic files"),
        ("git reflog expire --expire=now --all", [], [], "rewrites the reflog"),
        ("git reflog delete HEAD@{0}", [], [], "the same"),
        ("jq -n 'import \"link_to_etc/x\" as $d; $d'", [], [], "jq loads a module file from where the name leads"),
        ("printf '/etc\\0' | wc --files0-from=-", [], [], "names read from stdin"),
        ("git show :0:.env", [], ["Read(.env)"], "a stage of the index holds the denied file"),
        ("git cat-file -p :2:.env", [], ["Read(.env)"], "the same"),
    ],
)
def test_what_a_read_could_be_turned_into_still_needs_a_rule(
    ws: Path, command: str, rules: list[str], deny: list[str], why: str
) -> None:
    decision = final_decision(command, context_for(ws, rules, deny=deny))
    assert not isinstance(decision, Allow), (command, why)


def test_the_reason_says_no_rule_was_needed(ws: Path) -> None:
    decision = final_decision("git status", context_for(ws, []))
    assert isinstance(decision, Allow) and "no rule needed" in decision.reason and decision.rule is None


def _repository(tmp_path: Path, names: list[str]) -> Path:
    import subprocess

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x\n")
    subprocess.run(["git", "add", "--", *names], cwd=repo, env=env, check=True)
    return repo


def test_a_reader_fed_by_a_plain_listing_needs_no_rule(tmp_path: Path) -> None:
    repo = _repository(tmp_path, ["README.md", "src/app.py"])
    for command in ("git ls-files | xargs wc -l", "git ls-files -z | xargs -0 grep -n TODO"):
        assert isinstance(final_decision(command, context_for(repo, [])), Allow), command


@pytest.mark.parametrize(
    ("command", "names", "deny", "why"),
    [
        ("git ls-files | xargs cat", ["README.md", ".env"], ["Read(.env)"], "the listing prints a Read-denied file"),
        ("git ls-files | xargs wc", ["README.md", "--files0-from=x"], [], "a listed name is an option"),
        ("git ls-files | xargs rm", ["README.md"], [], "rm is no reader"),
        ("git ls-files | xargs -I{} sh -c 'cat {}'", ["README.md"], [], "xargs runs a shell"),
        ("git ls-files | xargs id", ["README.md"], [], "not a reader"),
        ("git ls-files | ./xargs cat", ["README.md"], [], "the workspace's own xargs"),
        ("git ls-files | evil/xargs wc", ["README.md"], [], "the same, deeper"),
    ],
)
def test_a_listing_does_not_make_every_xargs_command_a_read(
    tmp_path: Path, command: str, names: list[str], deny: list[str], why: str
) -> None:
    repo = _repository(tmp_path, names)
    assert not isinstance(final_decision(command, context_for(repo, [], deny=deny)), Allow), why


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("npm run build 2>&1 | tee build.log", ["Bash(npm run:*)", "Edit"]),
        ("pytest -q | tee -a results.txt", ["Bash(pytest:*)", "Edit"]),
        ("gofmt -l . | tee /dev/stderr | wc -l", ["Bash(gofmt -l:*)"]),
    ],
)
def test_tee_needs_what_a_redirection_needs(ws: Path, command: str, rules: list[str]) -> None:
    assert isinstance(final_decision(command, context_for(ws, rules)), Allow), command


@pytest.mark.parametrize(
    ("command", "rules", "deny"),
    [
        ("npm run build 2>&1 | tee build.log", ["Bash(npm run:*)"], []),  # no edits allowed
        ("echo x | tee .git/config", ["Edit"], []),
        ("echo x | tee .github/workflows/x.yml", ["Edit"], []),
        ("echo x | tee /etc/x", ["Edit"], []),
        ("echo x | tee out.txt", ["Edit"], ["Edit(out.txt)"]),
        ("cd .git && echo x | tee config", ["Edit"], []),
        ("echo '[core]' | tee -a modgi?/config", ["Edit"], []),  # a git directory, by a pattern
        ("echo x | tee m*/HEAD", ["Edit"], []),
    ],
)
def test_tee_writes_nothing_a_redirection_could_not(ws: Path, command: str, rules: list[str], deny: list[str]) -> None:
    assert not isinstance(final_decision(command, context_for(ws, rules, deny=deny)), Allow), command


def test_a_tracked_file_replaced_by_a_directory_is_no_plain_listing(tmp_path: Path) -> None:
    repo = _repository(tmp_path, ["README.md", "notes"])
    (repo / "notes").unlink()
    (repo / "notes").mkdir()
    (repo / "notes" / ".env").write_text("SECRET=1\n")
    command = "git ls-files | xargs grep -r SECRET"
    assert not isinstance(final_decision(command, context_for(repo, [], deny=["Read(**/.env)"])), Allow)
