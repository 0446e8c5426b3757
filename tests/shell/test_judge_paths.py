"""The shell state a compound leaves to its later commands, and what globs and find reach
(red-team findings: each attack got through before the check it names)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        # a cd that may not run, or may fail, leaves the shell in either place
        ("a skipped cd", "false && cd src; cat ../x", ["Bash(cat:*)"]),
        ("a failing cd then a climb", "cd nosuch; cd ..; rm -rf ws", ["Bash(rm:*)"]),
        ("a cd into a file", "cd src/app.py || cat ../x", ["Bash(cat:*)"]),
        # physical cd resolves the link before `..`
        ("cd -P through a link", "cd -P link_to_etc/.. && cat etc/shadow", ["Bash(cat:*)"]),
        ("cd -LP: the last letter wins", "cd -LP link_to_etc/.. && cat etc/shadow", ["Bash(cat:*)"]),
        ("set -P first", "set -P; cd link_to_etc/..; cat etc/shadow", ["Bash(cat:*)"]),
        ("set -o physical first", "set -o physical; cd link_to_etc/..; cat etc/shadow", ["Bash(cat:*)"]),
        # variables that steer what follows
        ("CDPATH on the cd", "CDPATH=/ cd etc && cat shadow", ["Bash(cat:*)"]),
        ("printf -v sets CDPATH", "printf -v CDPATH /; cd etc; cat shadow", ["Bash(cat:*)"]),
        ("printf -v with the name attached", "printf -vHOME %s .; git status", ["Bash(git status)"]),
        ("wait -p sets a variable", "wait -p PATH; git status", ["Bash(git status)"]),
        (
            "an exported lower-case npm setting",
            "export npm_config_script_shell=./evil.sh; npm test",
            ["Bash(npm test:*)"],
        ),
        (
            "export of a variable set before",
            "npm_config_script_shell=./evil.sh; export npm_config_script_shell; npm test",
            ["Bash(npm test:*)"],
        ),
        ("declare -x of a variable set before", "x=1; declare -x npm_config_x; npm test", ["Bash(npm test:*)"]),
        # links made earlier in the same command
        ("a link, then through it", "ln -s /etc h && cat h/passwd", ["Bash(ln:*)", "Bash(cat:*)"]),
        (
            "a link to ., then climbing through it",
            "ln -s . h && cat h/h/h/../../../../etc/passwd",
            ["Bash(ln:*)", "Bash(cat:*)"],
        ),
        ("a link, then `..` through it", "ln -s . h && rm -rf h/../ws", ["Bash(ln:*)", "Bash(rm:*)"]),
        ("a renamed link", "mv link_to_home h && cat h/.ssh/id_rsa", ["Bash(mv:*)", "Bash(cat:*)"]),
        ("a copied link", "cp -a link_to_etc x; cat x/shadow", ["Bash(cp:*)", "Bash(cat:*)"]),
        ("an extracted archive", "tar -xf x.tar && cat x/shadow", ["Bash(tar:*)", "Bash(cat:*)"]),
        ("a link, then a glob that may match it", "ln -s /etc e1 && cat e*/passwd", ["Bash(ln:*)", "Bash(cat:*)"]),
        ("a link, then cd into it", "ln -s /etc e && cd e && cat passwd", ["Bash(ln:*)", "Bash(cat:*)"]),
        # globs: what the wildcard reaches
        ("a glob through a link to home", "rm -rf */", ["Bash(rm:*)"]),
        ("a glob through a link out", "cat */shadow", ["Bash(cat:*)"]),
        ("a glob into .git", "rm .gi?/config", ["Bash(rm:*)"]),
        ("a bracket glob into .git", "rm -f .[g]it/HEAD", ["Bash(rm:*)"]),
        ("dot files include .git", "rm -rf .*", ["Bash(rm:*)"]),
        ("a glob into workflows", "rm -rf .github/work*", ["Bash(rm:*)"]),
        ("a wildcard reaching through a link, whatever the rest finds", "cat */.ssh/id_rsa", ["Bash(cat:*)"]),
        ("a bracket reaching through a link", "cat link_to_hom[e]/.ssh/id_rsa", ["Bash(cat:*)"]),
        ("a wildcard reaching into .git for a delete", "rm -f .gi[t]/index", ["Bash(rm:*)"]),
        # archives write where their members say
        ("tar extracting into the repository root", "tar xf payload.tar", ["Bash(tar:*)"]),
        ("unzip into the repository root", "unzip p.zip", ["Bash(unzip:*)"]),
        # find: what {} may be
        ("find -delete without a name test", "find . -delete", ["Bash(find:*)", "Bash(rm:*)"]),
        ("find -exec on a name in .git", "find . -name config -exec cp payload {} \\;", ["Bash(find:*)", "Bash(cp:*)"]),
        ("find -exec with -o routing", "find . -name '*.pyc' -o -exec rm {} +", ["Bash(find:*)", "Bash(rm:*)"]),
        ("find -exec with a negation", "find . ! -name '*.md' -delete", ["Bash(find:*)", "Bash(rm:*)"]),
        ("find -exec through a link out", "find . -exec cat {} +", ["Bash(find:*)", "Bash(cat:*)"]),
        ("find chmod on everything", "find . -name '*' -exec chmod 777 {} +", ["Bash(find:*)", "Bash(chmod:*)"]),
        (
            "find -execdir runs elsewhere",
            "find . -name hooks -execdir tee hooks/pre-commit \\;",
            ["Bash(find:*)", "Bash(tee:*)"],
        ),
        # round 2
        (
            "find: a -name after the action guards nothing",
            "find . -exec cp README.md {} \\; -name '*.pyc'",
            ["Bash(find:*)", "Bash(cp:*)"],
        ),
        ("find: -name swallowed by -printf", "find . -printf -name -delete", ["Bash(find:*)", "Bash(rm:*)"]),
        (
            "find: a pattern GNU reads differently",
            "find . -name 'confi[^x]' -exec cp README.md {} \\;",
            ["Bash(find:*)", "Bash(cp:*)"],
        ),
        (
            "find: start points from stdin",
            "printf '/etc\\0' | find -files0-from - -name shadow",
            ["Bash(find:*)", "Bash(printf:*)"],
        ),
        (
            "find -exec rm through a matched link",
            "find . -name link_to_home -exec rm -rf {}/ \\;",
            ["Bash(find:*)", "Bash(rm:*)"],
        ),
        (
            "find from a directory the shell may be in",
            "cd nosuch; find . -name link_to_home -exec cat {}/x \\;",
            ["Bash(find:*)", "Bash(cat:*)"],
        ),
        ("an equivalence class into .git", "rm -rf .[[=g=]]it", ["Bash(rm:*)"]),
        ("an equivalence class through a link", "cat link_to_[[=e=]]tc/shadow", ["Bash(cat:*)"]),
        ("a range Python refuses", "rm -rf .gi[z-a]", ["Bash(rm:*)"]),
        ("an abbreviated tar --extract into the repository", "tar --ext -f a.tar", ["Bash(tar:*)"]),
        (
            "git writes the tree, then a path below it",
            "git checkout other && cat src/app.py",
            ["Bash(git checkout:*)", "Bash(cat:*)"],
        ),
        (
            "git apply, then through what it made",
            "git apply p.diff && cp README.md lnk/config",
            ["Bash(git apply:*)", "Bash(cp:*)"],
        ),
        (
            "python -m tarfile extracts, then a path below",
            "python -m tarfile -e a.tar && cat lnk/shadow",
            ["Bash(python -m tarfile:*)", "Bash(cat:*)"],
        ),
        ("cmake -E tar extracts into the repository", "cmake -E tar xf a.tar", ["Bash(cmake:*)"]),
        (
            "a background job beside an extraction",
            "(sleep 1; cat sub/lnk/shadow) & tar -xf a.tar -C sub",
            ["Bash(tar:*)", "Bash(cat:*)", "Bash(sleep:*)"],
        ),
        ("one-letter long option abbreviation", "sort --o=.git/config README.md", ["Bash(sort:*)"]),
        ("a hook in the git directory a .git file points at", "cp x modgit/hooks/pre-commit", ["Bash(cp:*)"]),
        ("the config of that git directory", "tee modgit/config", ["Bash(tee:*)"]),
    ],
)
def test_attacks_are_not_allowed(check: Check, description: str, command: str, allow: list[str]) -> None:
    result = check(command, allow=allow, mode="acceptEdits")
    assert not isinstance(result, Allow), (description, result)


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("cd in an && chain", "cd src && cat ../README.md", ["Bash(cat:*)"]),
        ("logical cd through a link and back", "cd link_to_src/.. && cat README.md", ["Bash(cat:*)"]),
        ("cd then a sequence without climbing", "cd src; cat app.py", ["Bash(cat:*)"]),
        ("a plain lower-case shell variable", "x=1; npm test", ["Bash(npm test:*)"]),
        ("export of a safe variable", "export CI=1; npm test", ["Bash(npm test:*)"]),
        ("printf without -v", "printf '%s\\n' hi", []),
        (
            "a link, then something else",
            "ln -s ../README.md docs/README.md && cat src/app.py",
            ["Bash(ln:*)", "Bash(cat:*)"],
        ),
        ("a glob inside the workspace", "rm -rf src/*", ["Bash(rm:*)"]),
        ("a glob that matches nothing", "cat *.rs", ["Bash(cat:*)"]),
        ("a wildcard in plain directories", "cat src/*/x.py", ["Bash(cat:*)"]),
        ("tar extracting into a subdirectory", "tar -xzf vendor.tgz -C vendor", ["Bash(tar:*)"]),
        ("unzip into a subdirectory", "unzip -o fixtures.zip -d tests/data", ["Bash(unzip:*)"]),
        ("tar listing", "tar -tzf vendor.tgz", ["Bash(tar:*)"]),
        ("reading .git through a glob", "cat .gi?/HEAD", ["Bash(cat:*)"]),
        ("find -delete with a name test", "find . -name '*.pyc' -delete", ["Bash(find:*)", "Bash(rm:*)"]),
        (
            "find -exec rm on __pycache__",
            "find . -name '__pycache__' -type d -prune -exec rm -rf {} +",
            ["Bash(find:*)", "Bash(rm:*)"],
        ),
        (
            "find -exec reading below a start without links",
            "find src -name '*.py' -exec cat {} +",
            ["Bash(find:*)", "Bash(cat:*)"],
        ),
        ("find -execdir reading", "find src -execdir grep -H x {} +", ["Bash(find:*)", "Bash(grep:*)"]),
        (
            "a new branch at the same commit",
            "git checkout -b feature && git add src/app.py",
            ["Bash(git checkout:*)", "Bash(git add:*)"],
        ),
        ("git status after a pull touches no path", "git pull && git status", ["Bash(git pull:*)", "Bash(git status)"]),
        (
            "find with the name test first and -type after",
            "find . -name '*.pyc' -type f -delete",
            ["Bash(find:*)", "Bash(rm:*)"],
        ),
    ],
)
def test_close_benign_commands_stay_allowed(check: Check, description: str, command: str, allow: list[str]) -> None:
    result = check(command, allow=allow, mode="acceptEdits")
    assert isinstance(result, Allow), (description, result)


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("a workflow by its real name", "find . -name ci.yml -delete"),
        ("loose objects by the length of their names", "find . -name '??????????????????????????????????????' -delete"),
    ],
)
def test_find_guards_see_the_names_really_in_git_and_workflows(check: Check, description: str, command: str) -> None:
    assert not isinstance(check(command, allow=["Bash(find:*)", "Bash(rm:*)"]), Allow), description
