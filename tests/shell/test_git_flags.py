"""git's options read as git reads them: global options exactly (an unknown one makes the subcommand
unknown), subcommand options with bundles and abbreviations; ``git config`` writes behind a query
word."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.programs.git import git_subcommand_position
from tests.shell.conftest import Check

READ_ONLY = [
    "Bash(git status *)",
    "Bash(git diff *)",
    "Bash(git log *)",
    "Bash(git show *)",
    "Bash(git blame *)",
    "Bash(git ls-files *)",
    "Bash(ls *)",
]

CASES = [
    # global options (red team programs #1)
    ("--shallow-file takes a value", "git --shallow-file log push origin main", ["Bash(git log *)"], False),
    (
        "--shallow-file hides a config write",
        "git --shallow-file status config core.fsmonitor 'sh -c id'",
        READ_ONLY,
        False,
    ),
    (
        "--attr-source takes a value",
        "git --attr-source status config core.fsmonitor 'sh -c id'",
        ["Bash(git status *)"],
        False,
    ),
    ("--attr-source hides difftool", "git --attr-source log difftool -x 'sh -c id' HEAD", ["Bash(git log *)"], False),
    ("an unknown global option", "git --frobnicate log push origin main", ["Bash(git:*)"], False),
    ("an unknown global option spelled out", "git --frobnicate log", ["Bash(git --frobnicate log)"], True),
    ("-c glued to its value is not git's", "git -ccore.pager=less log", ["Bash(git:*)"], False),
    ("known global options are skipped", "git -C . --no-pager log -1", ["Bash(git log:*)"], True),
    ("--namespace takes a value", "git --namespace x log", ["Bash(git log *)"], True),
    (
        "--attr-source= with difftool spelled out, but not the command -x runs",
        "git --attr-source=HEAD difftool -x 'sh -c id' HEAD",
        ["Bash(git difftool *)"],
        False,
    ),
    (
        "--attr-source= with difftool and its -x command spelled out",
        "git --attr-source=HEAD difftool -x 'sh -c id' HEAD",
        ["Bash(git difftool -x sh -c id *)"],
        True,
    ),
    ("--version is a command", "git --version", ["Bash(git:*)"], True),
    # abbreviated long options (#2)
    ("fetch --upload-pa", "git fetch --upload-pa='sh -c id #' .", ["Bash(git fetch:*)"], False),
    ("ls-remote --upload-pa", "git ls-remote --upload-pa='sh -c id #' .", ["Bash(git ls-remote:*)"], False),
    ("clone --templat", "git clone --templat=evil evil sub/c2", ["Bash(git clone:*)"], False),
    ("init --templat", "git init --templat=evil sub/i", ["Bash(git init:*)"], False),
    (
        "clone --conf of an unsafe key",
        "git clone --conf=core.fsmonitor='sh -c id' evil sub/c3",
        ["Bash(git clone:*)"],
        False,
    ),
    (
        "clone --conf of a safe key",
        "git clone --conf=user.name=bot https://example.com/r.git sub/c",
        ["Bash(git clone:*)"],
        True,
    ),
    ("push --receive-p", "git push --receive-p='sh -c id #' .", ["Bash(git push:*)"], False),
    ("push --exe", "git push --exe='sh -c id #' .", ["Bash(git push:*)"], False),
    ("grep --open-files-in", "git grep --open-files-in='sh -c id #' foo", ["Bash(git grep:*)"], False),
    ("archive --outpu into .git", "git archive --outpu=.git/hooks/pre-commit HEAD", ["Bash(git archive:*)"], False),
    ("diff options are not read abbreviated", "git diff --ext-dif", ["Bash(git diff *)"], True),
    ("an option that only starts alike", "git log --exclude=refs/x --all --oneline", ["Bash(git log *)"], True),
    # bundles and attached values (#3)
    ("grep -iOcmd", "git grep -iOid foo", ["Bash(git grep:*)"], False),
    ("grep -in", "git grep -in TODO", ["Bash(git grep:*)"], True),
    ("grep -e pattern with an O", "git grep -e Options src", ["Bash(git grep:*)"], True),
    ("clone -qu", "git clone -qu 'sh -c id' evil sub/c4", ["Bash(git clone:*)"], False),
    ("commit -F through a link", "git commit -Flink_to_etc/passwd", ["Bash(git commit:*)"], False),
    ("commit -am", "git commit -am 'fix: x'", ["Bash(git commit:*)"], True),
    # files git writes or reads
    (
        "format-patch --output-directory into .git",
        "git format-patch --output-directory=.git/hooks -1",
        ["Bash(git format-patch:*)"],
        False,
    ),
    ("format-patch -o into .git", "git format-patch -o .git/hooks -1", ["Bash(git format-patch:*)"], False),
    ("format-patch -o in the workspace", "git format-patch -o patches -1", ["Bash(git format-patch:*)"], True),
    ("stash show --output into .git", "git stash show -p --output=.git/hooks/pre-commit", ["Bash(git stash:*)"], False),
    ("bundle create into .git", "git bundle create .git/hooks/pre-commit HEAD", ["Bash(git bundle:*)"], False),
    ("bundle create in the workspace", "git bundle create repo.bundle HEAD", ["Bash(git bundle:*)"], True),
    ("worktree add -b into .git", "git worktree add -b x .git/hooks/w", ["Bash(git worktree:*)"], False),
    ("worktree add -b in the workspace", "git worktree add -b x sub/w", ["Bash(git worktree:*)"], True),
    ("blame --contents through a link", "git blame --contents link_to_etc/passwd README.md", READ_ONLY, False),
    ("blame -L", "git blame -L 10,20 src/app.py", READ_ONLY, True),
    ("apply --unsafe-paths", "git apply --unsafe-paths p.diff", ["Bash(git apply:*)"], False),
    ("apply", "git apply fix.patch", ["Bash(git apply:*)"], True),
    # git config (#8)
    ("a value then get", "git config core.fsmonitor 'sh -c id' get", ["Bash(git config:*)"], False),
    ("a value then list", "git config core.fsmonitor 'sh -c id' list", ["Bash(git config:*)"], False),
    (
        "--replace-all then --get",
        "git config --replace-all core.fsmonitor 'sh -c id' --get",
        ["Bash(git config:*)"],
        False,
    ),
    ("set subcommand", "git config set core.pager 'sh -c id'", ["Bash(git config:*)"], False),
    ("--add abbreviated", "git config --ad core.hooksPath x", ["Bash(git config:*)"], False),
    ("--edit", "git config -e", ["Bash(git config:*)"], False),
    ("get subcommand", "git config get core.fsmonitor", ["Bash(git config:*)"], True),
    ("--get", "git config --get core.fsmonitor", ["Bash(git config:*)"], True),
    ("list subcommand", "git config list --show-origin", ["Bash(git config:*)"], True),
    (
        "--get-urlmatch of a safe key",
        "git config --get-urlmatch http.sslverify https://example.com",
        ["Bash(git config:*)"],
        True,
    ),
    ("set of a safe key", "git config set user.name bot", ["Bash(git config:*)"], True),
    ("a safe key", "git config user.email bot@example.com", ["Bash(git config:*)"], True),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_git_options_that_run_code_need_a_rule_that_spells_them_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


@pytest.mark.parametrize(
    ("description", "argv", "position"),
    [
        ("no option", ["git", "log"], 1),
        ("-C and -c", ["git", "-C", ".", "-c", "a.b=c", "log"], 5),
        ("an attached value", ["git", "--git-dir=x", "log"], 2),
        ("--shallow-file takes the next word", ["git", "--shallow-file", "log", "push"], 3),
        ("--attr-source takes the next word", ["git", "--attr-source", "HEAD", "status"], 3),
        ("--exec-path= is attached only", ["git", "--exec-path=.", "status"], 2),
        ("--help is the help command", ["git", "--help"], 1),
        ("an unknown option", ["git", "--bogus", "log"], None),
        ("-c glued", ["git", "-ccore.pager=x", "log"], None),
        ("options only", ["git", "--no-pager"], None),
    ],
)
def test_the_subcommand_is_found_past_known_global_options_only(
    description: str, argv: list[str], position: int | None
) -> None:
    assert git_subcommand_position(argv) == position, description
