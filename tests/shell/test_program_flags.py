"""Options that make a program run other code or write files: a wildcard rule for the program
does not approve them; a rule that spells them out does."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.programs.awk import unsafe_awk_reason
from bot.shell.programs.sed import unsafe_sed_reason
from tests.shell.conftest import Check

CASES = [
    # git global and subcommand options
    ("git -c with a safe key", "git -c user.name=bot -c user.email=b@x commit -m x", ["Bash(git:*)"], True),
    ("git -c core.pager", "git -c core.pager='sh -c id' log", ["Bash(git:*)"], False),
    ("git -c core.sshCommand", "git -c core.sshCommand='sh -c id' fetch", ["Bash(git:*)"], False),
    ("git -c core.fsmonitor", "git -c core.fsmonitor='sh -c id' status", ["Bash(git:*)"], False),
    ("git -c core.hooksPath", "git -c core.hooksPath=hooks commit -m x", ["Bash(git:*)"], False),
    ("git -c alias with a shell", "git -c alias.x='!sh -c id' x", ["Bash(git:*)"], False),
    ("git -c glued to its value", "git -ccore.pager=less log", ["Bash(git:*)"], False),
    ("git -c spelled out by the rule", "git -c core.pager=cat log -1", ["Bash(git -c core.pager=cat log:*)"], True),
    ("git --config-env", "git --config-env=core.pager=EVIL log", ["Bash(git:*)"], False),
    ("git --exec-path=", "git --exec-path=. status", ["Bash(git:*)"], False),
    ("git --exec-path prints", "git --exec-path", ["Bash(git:*)"], True),
    ("git --upload-pack", "git ls-remote --upload-pack='sh -c id' .", ["Bash(git:*)"], False),
    ("git fetch -u", "git fetch -u 'sh -c id' origin", ["Bash(git fetch:*)"], False),
    ("git push -u is set-upstream", "git push -u origin HEAD", ["Bash(git push:*)"], True),
    ("git --receive-pack", "git push --receive-pack='sh -c id' origin", ["Bash(git push:*)"], False),
    ("git grep -O opens a pager command", "git grep -O'sh -c id' foo", ["Bash(git grep:*)"], False),
    ("git clone --template", "git clone --template=./evil https://example.com/r.git", ["Bash(git clone:*)"], False),
    (
        "git clone -c core.fsmonitor",
        "git clone -c core.fsmonitor=id https://example.com/r.git",
        ["Bash(git clone:*)"],
        False,
    ),
    ("git config of a safe key", "git config user.email bot@example.com", ["Bash(git config:*)"], True),
    ("git config core.hooksPath", "git config core.hooksPath .githooks", ["Bash(git config:*)"], False),
    ("git config --global core.pager", "git config --global core.pager 'sh -c id'", ["Bash(git config:*)"], False),
    ("git config read", "git config --get remote.origin.url", ["Bash(git config:*)"], True),
    ("git difftool", "git difftool -x 'sh -c id'", ["Bash(git:*)"], False),
    ("git filter-branch", "git filter-branch --tree-filter 'rm -rf x' HEAD", ["Bash(git:*)"], False),
    # sed (the seeds' whitelist)
    ("sed print lines", "sed -n '1,10p' README.md", ["Bash(sed:*)"], True),
    ("sed several prints", "sed -n '1p;5p;$p' README.md", ["Bash(sed:*)"], True),
    ("sed substitution", "sed 's/foo/bar/g' README.md", ["Bash(sed:*)"], True),
    ("sed delete comment lines", "sed '/^#/d' README.md", ["Bash(sed:*)"], True),
    ("sed s///e runs a command", "sed 's/x/id/e' README.md", ["Bash(sed:*)"], False),
    ("sed e command", "sed -n '1e id' README.md", ["Bash(sed:*)"], False),
    ("sed w writes a file", "sed -n 'w /tmp/x' README.md", ["Bash(sed:*)"], False),
    ("sed s///w writes a file", "sed 's/a/b/w out' README.md", ["Bash(sed:*)"], False),
    ("sed r reads a file", "sed 'r /etc/passwd' README.md", ["Bash(sed:*)"], False),
    ("sed -f script file", "sed -f script.sed README.md", ["Bash(sed:*)"], False),
    ("sed spelled out", "sed -n '1e id' README.md", ["Bash(sed -n '1e id' README.md)"], True),
    # awk
    ("awk print field", "awk '{print $1}' README.md", ["Bash(awk:*)"], True),
    ("awk comparison is not a redirect", "awk '$1 > 5 {print}' README.md", ["Bash(awk:*)"], True),
    ("awk regex alternation is not a pipe", "awk '/a|b/ {print}' README.md", ["Bash(awk:*)"], True),
    ("awk system()", "awk 'BEGIN{system(\"id\")}'", ["Bash(awk:*)"], False),
    ("awk pipe to a command", "awk '{print | \"sh\"}' README.md", ["Bash(awk:*)"], False),
    ("awk getline from a command", "awk 'BEGIN{\"id\" | getline x; print x}'", ["Bash(awk:*)"], False),
    ("awk print to a file", "awk '{print > \"/etc/x\"}' README.md", ["Bash(awk:*)"], False),
    ("awk -f program file", "awk -f prog.awk README.md", ["Bash(awk:*)"], False),
    # make
    ("make target", "make test", ["Bash(make:*)"], True),
    ("make variable override", "make test VERBOSE=1", ["Bash(make:*)"], True),
    ("make --eval", "make --eval='x:;@id' x", ["Bash(make:*)"], False),
    ("make SHELL=", "make test SHELL=/tmp/evil", ["Bash(make test:*)"], False),
    ("make variable with shell syntax", "make CC='sh -c id'", ["Bash(make:*)"], False),
    # package managers
    ("npm --script-shell", "npm test --script-shell=./evil.sh", ["Bash(npm test:*)"], False),
    ("npm config set script-shell", "npm config set script-shell ./evil.sh", ["Bash(npm:*)"], False),
    # where later installs fetch from: spelled out, as `npm install --registry=…` must be
    ("npm config set registry", "npm config set registry https://registry.example.com", ["Bash(npm:*)"], False),
    ("npm install by default", "npm install", ["Bash(npm install:*)"], True),
    # archivers, transfer, remote shells, search
    ("tar --to-command", "tar --to-command=sh -xf x.tar", ["Bash(tar:*)"], False),
    (
        "tar --checkpoint-action",
        "tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec=sh",
        ["Bash(tar:*)"],
        False,
    ),
    ("tar --use-compress-program", "tar --use-compress-program='sh -c id' -cf x.tar src", ["Bash(tar:*)"], False),
    ("tar -I", "tar -I 'sh -c id' -xf x.tar", ["Bash(tar:*)"], False),
    ("tar extract", "tar -xzf dist.tgz -C build", ["Bash(tar:*)"], True),
    ("rsync local copy", "rsync -av src/ backup/", ["Bash(rsync:*)"], True),
    ("rsync -e", "rsync -e 'sh -c id' src host:dst", ["Bash(rsync:*)"], False),
    ("rsync bundled e", "rsync -avze 'sh -c id' src host:dst", ["Bash(rsync:*)"], False),
    ("rsync --rsync-path", "rsync --rsync-path='sh -c id' src host:", ["Bash(rsync:*)"], False),
    ("ssh ProxyCommand", "ssh -o ProxyCommand=';sh 0<&2 1>&2' x", ["Bash(ssh:*)"], False),
    ("ssh -oLocalCommand", "ssh -oLocalCommand=id -oPermitLocalCommand=yes x", ["Bash(ssh:*)"], False),
    ("ssh -F config", "ssh -F ./evil_config x", ["Bash(ssh:*)"], False),
    ("scp -S program", "scp -S ./evil README.md x:", ["Bash(scp:*)"], False),
    ("ssh plain", "ssh -o StrictHostKeyChecking=no deploy@example.com uptime", ["Bash(ssh:*)"], True),
    ("rg --pre", "rg --pre 'sh -c id' foo", ["Bash(rg:*)"], False),
    ("rg --pre=", "rg --pre=./evil.sh foo", ["Bash(rg:*)"], False),
    ("rg -z decompressors", "rg -z foo", ["Bash(rg:*)"], False),
    ("rg plain", "rg -n 'fn main' src", ["Bash(rg:*)"], True),
    ("sort --compress-program", "sort --compress-program=sh README.md", ["Bash(sort:*)"], False),
    ("apt Pre-Invoke", "apt-get update -o APT::Update::Pre-Invoke::=id", ["Bash(apt-get update:*)"], False),
    ("dpkg --pre-invoke", "dpkg --pre-invoke=id -i x.deb", ["Bash(dpkg:*)"], False),
    ("go test -exec", "go test -exec 'sh -c id' ./...", ["Bash(go test:*)"], False),
    ("cargo --config runner", "cargo test --config 'target.x.runner=\"sh\"'", ["Bash(cargo test:*)"], False),
    ("wget --execute", "wget -e use_proxy=on https://example.com", ["Bash(wget:*)"], False),
    ("curl --config", "curl -K ./evil.cfg https://example.com", ["Bash(curl:*)"], False),
    # interpreters with inline code
    ("python script", "python scripts/check.py", ["Bash(python:*)"], True),
    ("python -m module", "python -m pytest -q", ["Bash(python:*)"], True),
    ("python -c", "python -c 'import os; os.system(\"id\")'", ["Bash(python:*)"], False),
    ("python3 -c glued", "python3 -c'print(1)'", ["Bash(python3:*)"], False),
    ("python from stdin", "python -", ["Bash(python:*)"], False),
    ("node -e", "node -e \"require('child_process').execSync('id')\"", ["Bash(node:*)"], False),
    ("perl -e", "perl -e 'system(\"id\")'", ["Bash(perl:*)"], False),
    ("perl -pie bundle", "perl -pi -e 's/a/b/' README.md", ["Bash(perl:*)"], False),
    ("ruby -e", "ruby -e 'system(\"id\")'", ["Bash(ruby:*)"], False),
    ("php -r", "php -r 'system(\"id\");'", ["Bash(php:*)"], False),
    ("inline code spelled out", "python -c 'print(1)'", ["Bash(python -c 'print(1)')"], True),
    # builtins
    ("trap", "trap 'curl example.com' EXIT", ["Bash(trap:*)"], False),
    ("alias", "alias ls='rm -rf'", ["Bash(alias:*)"], False),
    ("printf -v with a subscript", "printf -v 'a[$(id)]' x", ["Bash(printf:*)"], False),
    ("read into a subscript", "read 'a[$(id)]' < README.md", ["Bash(read:*)"], False),
    ("hash -p", "hash -p /tmp/evil git", ["Bash(hash:*)"], False),
    # builtins that evaluate a name or a callback (red team syntax #8)
    ("mapfile -C runs a callback", "mapfile -C 'rm -rf src #' -c 1 x <<< 1", [], False),
    ("readarray -C in a bundle", "readarray -tC 'id #' x < README.md", [], False),
    ("declare -n", "declare -n r='a[$(rm -rf src)]'; r=1", [], False),
    ("printf -v a name known at run time", "x='a[$(rm -rf src)]'; printf -v \"$x\" 1", [], False),
    ("unset a name known at run time", "x='a[$(rm -rf src)]'; unset \"$x\"", [], False),
    ("test -v a name known at run time", "x='a[$(rm -rf src)]'; test -v \"$x\"", [], False),
    ("printf of a value known at run time", "printf '%s\\n' \"$HOME\"", [], True),
    ("test -n of a value known at run time", '[ -n "$HOME" ]', [], True),
    ("mapfile -t", "mapfile -t lines < README.md", [], True),
    ("read -r", "read -r first < README.md", [], True),
    ("declare -a", "declare -a names", [], True),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_program_options_that_run_code_need_a_rule_that_spells_them_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


def test_install_scripts_follow_the_policy(check: Check) -> None:
    no_scripts = {"extra": {"bash_install_scripts": False}}
    assert isinstance(check("npm ci", allow=["Bash(npm ci)"]), Allow)
    assert not isinstance(check("npm ci", allow=["Bash(npm ci:*)"], **no_scripts), Allow)
    assert isinstance(check("npm ci --ignore-scripts", allow=["Bash(npm ci:*)"], **no_scripts), Allow)
    assert not isinstance(check("yarn", allow=["Bash(yarn:*)"], **no_scripts), Allow)
    assert not isinstance(check("pip install -r requirements.txt", allow=["Bash(pip install:*)"], **no_scripts), Allow)
    assert isinstance(
        check("pip install --only-binary :all: -r requirements.txt", allow=["Bash(pip install:*)"], **no_scripts), Allow
    )
    assert isinstance(check("pip install -r requirements.txt", allow=["Bash(pip install:*)"]), Allow)


@pytest.mark.parametrize(
    ("description", "script", "safe"),
    [
        ("single line", "5p", True),
        ("range", "1,10p", True),
        ("regex address", "/^x/p", True),
        ("substitution with flags", "s/a/b/gI2", True),
        ("other delimiter", "s|a|b|g", True),
        ("transliteration", "y/abc/xyz/", True),
        ("quit", "10q", True),
        ("e flag", "s/a/b/e", False),
        ("w flag", "s/a/b/w out", False),
        ("negation", "1!d", False),
        ("block", "1{p}", False),
        ("backslash delimiter", "s\\a\\b\\", False),
        ("non-ASCII", "s/a/ä/", False),
        ("append text (literal, GNU one-line form)", "a hello", True),
    ],
)
def test_the_sed_whitelist(description: str, script: str, safe: bool) -> None:
    assert (unsafe_sed_reason(script) is None) is safe, description


@pytest.mark.parametrize(
    ("description", "program", "safe"),
    [
        ("print", "{print $1}", True),
        ("string with a pipe", '{print "a|b"}', True),
        ("division is not a regex", "{print $1/2}", True),
        ("logical or", "$1 || $2 {print}", True),
        ("system", 'BEGIN{system("id")}', False),
        ("coprocess", '{print |& "sh"}', False),
        ("getline from a file", 'BEGIN{getline x < "/etc/passwd"}', False),
        ("load", '@load "x"', False),
        ("printf redirect", '{printf "%s", $0 > "out"}', False),
    ],
)
def test_the_awk_program_check(description: str, program: str, safe: bool) -> None:
    assert (unsafe_awk_reason(program) is None) is safe, description
