"""Everyday tools with an option that runs a program or reaches the host, read the getopt way:
bundles, attached values, abbreviated long options."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import Check

CASES = [
    # tar (red team programs #2, #3, #5)
    ("tar --to-comm", "tar --to-comm=sh -xf payload.tar", ["Bash(tar:*)"], False),
    (
        "tar --checkpoint-act",
        "tar -cf /dev/null README.md --checkpoint=1 --checkpoint-act=exec=sh",
        ["Bash(tar:*)"],
        False,
    ),
    ("tar --use-compress-prog", "tar --use-compress-prog=sh -cf x.tar src", ["Bash(tar:*)"], False),
    ("tar --info-scr", "tar --info-scr=./x.sh -cf x.tar src", ["Bash(tar:*)"], False),
    ("tar -I attached", "tar -xf x.tar -Ish", ["Bash(tar:*)"], False),
    ("tar -I in a bundle", "tar -xIsh -f x.tar", ["Bash(tar:*)"], False),
    ("tar -P in a bundle", "tar -xPf payload.tar", ["Bash(tar:*)"], False),
    ("tar --absolute-n", "tar -xf payload.tar --absolute-n", ["Bash(tar:*)"], False),
    ("tar old-style I", "tar xIf sh x.tar", ["Bash(tar:*)"], False),
    (
        "tar --transform when extracting",
        "tar -xf p.tar --transform='s,evil.sh,.git/hooks/pre-commit,'",
        ["Bash(tar:*)"],
        False,
    ),
    ("tar --xform when extracting", "tar -xf p.tar --xform='s,^,.github/workflows/,'", ["Bash(tar:*)"], False),
    (
        "tar --transform when creating",
        "tar -cf p.tar --mode=755 --transform='s,^,x/,' README.md",
        ["Bash(tar:*)"],
        True,
    ),
    ("tar extract into a folder", "tar -xzf dist.tgz -C build", ["Bash(tar:*)"], True),
    ("tar list", "tar -tvf x.tar", ["Bash(tar:*)"], True),
    ("tar --checkpoint is not --checkpoint-action", "tar --checkpoint=1 -cf x.tar src", ["Bash(tar:*)"], True),
    # rsync, sort, rg
    ("rsync -e in a bundle", "rsync -avze 'sh -c id' src host:dst", ["Bash(rsync:*)"], False),
    ("rsync --rs= (popt reads no abbreviation)", "rsync --rs='sh -c id' src host:y", ["Bash(rsync:*)"], True),
    ("rsync -av", "rsync -av src/ backup/", ["Bash(rsync:*)"], True),
    ("sort --compress-prog", "sort --compress-prog=sh -S 1 README.md", ["Bash(sort:*)"], False),
    ("sort --compress=", "sort --compress=sh README.md", ["Bash(sort:*)"], False),
    ("sort -u", "sort -u README.md", ["Bash(sort:*)"], True),
    ("rg -z in a bundle", "rg -iz foo", ["Bash(rg:*)"], False),
    ("rg -n", "rg -n 'fn main' src", ["Bash(rg:*)"], True),
    # ssh, scp, sftp (#3)
    ("ssh -F in a bundle", "ssh -qF./cfg x", ["Bash(ssh:*)"], False),
    ("ssh -I loads a library", "ssh -I ./evil.so x", ["Bash(ssh:*)"], False),
    ("ssh -o ProxyCommand in a bundle", "ssh -vo ProxyCommand=id x", ["Bash(ssh:*)"], False),
    ("ssh -E into .git", "ssh -E .git/hooks/pre-commit x", ["Bash(ssh:*)"], False),
    ("ssh UserKnownHostsFile into .git", "ssh -oUserKnownHostsFile=.git/hooks/pre-commit x", ["Bash(ssh:*)"], False),
    (
        "ssh UserKnownHostsFile=/dev/null",
        "ssh -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no d@h uptime",
        ["Bash(ssh:*)"],
        True,
    ),
    ("sftp -b runs batch commands", "sftp -b batch.txt host", ["Bash(sftp:*)"], False),
    ("scp -S", "scp -S ./evil README.md x:", ["Bash(scp:*)"], False),
    ("ssh -i", "ssh -i deploy_key deploy@example.com uptime", ["Bash(ssh:*)"], True),
    # GTFOBins (#6)
    ("zip -TT", "zip -TT 'sh -c id' x.zip README.md -T", ["Bash(zip:*)"], False),
    ("zip --unzip-command", "zip x.zip README.md -T --unzip-command='sh -c id'", ["Bash(zip:*)"], False),
    ("zip -TT attached", "zip x.zip README.md -T -TTsh", ["Bash(zip:*)"], False),
    ("zip -q", "zip -q out.zip README.md", ["Bash(zip:*)"], True),
    ("vim -c", "vim -c ':!id' -c ':q' README.md", ["Bash(vim:*)"], False),
    ("vim +cmd", "vim +'!id' +q README.md", ["Bash(vim:*)"], False),
    ("vi -es reads ex commands", "vi -es README.md", ["Bash(vi:*)"], False),
    ("vim -S", "vim -S ./evil.vim", ["Bash(vim:*)"], False),
    ("vim --cmd", "vim --cmd '!id' README.md", ["Bash(vim:*)"], False),
    ("nvim -l runs Lua", "nvim -l x.lua", ["Bash(nvim:*)"], False),
    ("vim +LINE", "vim +42 README.md", ["Bash(vim:*)"], True),
    ("vim a file", "vim -R README.md", ["Bash(vim:*)"], True),
    ("man -H attached", "man -H'sh -c id' ls", ["Bash(man:*)"], False),
    ("man -H in a bundle", "man -aHsh ls", ["Bash(man:*)"], False),
    ("man --config-file", "man --config-file=./x ls", ["Bash(man:*)"], False),
    ("man -l through a link", "man -l link_to_etc/passwd", ["Bash(man:*)"], False),
    # man-db starts no pager without a terminal, but the analysis does not see whether there is one.
    ("man -P", "man -P 'sh -c id' ls", ["Bash(man:*)"], False),
    ("man -P attached", "man -P'sh -c id' ls", ["Bash(man:*)"], False),
    ("man -P in a bundle", "man -aPid ls", ["Bash(man:*)"], False),
    ("man --pager=", "man --pager='sh -c id' ls", ["Bash(man:*)"], False),
    ("man --pager VALUE", "man --pager 'sh -c id' ls", ["Bash(man:*)"], False),
    ("man --pag= abbreviation", "man --pag=id ls", ["Bash(man:*)"], False),
    ("man -P spelled out by the rule", "man -P cat ls", ["Bash(man -P cat:*)"], True),
    ("a rule naming only the option does not approve any pager", "man -P 'sh -c id' ls", ["Bash(man -P:*)"], False),
    ("MANPAGER", "MANPAGER='sh -c id' man ls", ["Bash(man:*)"], False),
    ("PAGER", "PAGER='sh -c id' man ls", ["Bash(man:*)"], False),
    ("man -k", "man -k printf", ["Bash(man:*)"], True),
    # split (GNU coreutils)
    ("split --filter=", "split --filter='sh -c id' big.txt", ["Bash(split:*)"], False),
    ("split --filter VALUE", "split --filter 'sh -c id' big.txt", ["Bash(split:*)"], False),
    ("split --fil= abbreviation", "split --fil='sh -c id' big.txt", ["Bash(split:*)"], False),
    ("split --filter after other options", "split -l 10 -d --filter=id big.txt", ["Bash(split *)"], False),
    (
        "split --filter spelled out by the rule",
        "split -n 2 --filter='gzip > $FILE.gz' big.txt",
        ["Bash(split -n 2 --filter='gzip > $FILE.gz' big.txt)"],
        True,
    ),
    ("split -l", "split -l 1000 -d README.md part-", ["Bash(split:*)"], True),
    ("split --numeric-suffixes=", "split --numeric-suffixes=1 -n 3 README.md part-", ["Bash(split:*)"], True),
    ("man ls", "man ls", ["Bash(man:*)"], True),
    ("less +!cmd", "less '+!id' README.md", ["Bash(less:*)"], False),
    ("more +!cmd", "more '+!id' README.md", ["Bash(more:*)"], False),
    ("less +G", "less +G README.md", ["Bash(less:*)"], True),
    ("less -R", "less -R README.md", ["Bash(less:*)"], True),
    # docker (#3, #6)
    ("docker -v attached", "docker run -v/:/host alpine", ["Bash(docker run:*)"], False),
    ("docker --volume= outside", "docker run --volume=/etc:/x alpine", ["Bash(docker run:*)"], False),
    ("docker -v in a bundle", "docker run -itv /:/host alpine", ["Bash(docker run:*)"], False),
    ("docker --mount bind src=/", "docker run --mount type=bind,src=/,dst=/host alpine", ["Bash(docker run:*)"], False),
    (
        "docker --mount volume with a device",
        "docker run --mount type=volume,dst=/x,volume-opt=device=/etc alpine",
        ["Bash(docker run:*)"],
        False,
    ),
    ("docker --privileged", "docker run --privileged alpine", ["Bash(docker run:*)"], False),
    ("docker --pid=host", "docker run --pid=host alpine", ["Bash(docker run:*)"], False),
    ("docker --pid host", "docker run --pid host alpine", ["Bash(docker run:*)"], False),
    ("docker --cap-add", "docker run --cap-add=SYS_ADMIN alpine", ["Bash(docker run:*)"], False),
    ("docker --device", "docker run --device /dev/sda alpine", ["Bash(docker run:*)"], False),
    ("docker --security-opt", "docker run --security-opt seccomp=unconfined alpine", ["Bash(docker run:*)"], False),
    ("docker container run", "docker container run --privileged alpine", ["Bash(docker container:*)"], False),
    ("docker create", "docker create -v /:/host alpine", ["Bash(docker create:*)"], False),
    ("podman --privileged", "podman run --privileged alpine", ["Bash(podman run:*)"], False),
    ("docker --privileged=false", "docker run --privileged=false alpine", ["Bash(docker run:*)"], True),
    ("docker a workspace bind", "docker run --rm -v ./src:/src:ro alpine ls", ["Bash(docker run:*)"], True),
    ("docker a named volume", "docker run -v data:/data alpine", ["Bash(docker run:*)"], True),
    ("docker -v of a run-time path", 'docker run -v"$HOME":/h alpine', ["Bash(docker run:*)"], False),
    ("docker words after the image", "docker run --rm alpine echo --privileged", ["Bash(docker run:*)"], True),
    ("docker build", "docker build -t myapp:latest .", ["Bash(docker build:*)"], True),
    ("docker: a glob could expand to --privileged", "docker run * alpine", ["Bash(docker run:*)"], False),
    ("docker --detach is not --detach-keys", "docker run --detach --privileged alpine", ["Bash(docker run:*)"], False),
    ("docker --tls before run", "docker --tls run --privileged alpine", ["Bash(docker:*)"], False),
    # xargs (#3)
    ("xargs -a attached outside", "xargs -a/etc/passwd echo", ["Bash(xargs:*)", "Bash(echo:*)"], False),
    ("xargs -a through a link", "xargs -a link_to_etc/passwd echo", ["Bash(xargs:*)", "Bash(echo:*)"], False),
    ("xargs -a in a bundle", "xargs -0a link_to_etc/passwd echo", ["Bash(xargs:*)", "Bash(echo:*)"], False),
    ("xargs --arg= abbreviation", "xargs --arg=/etc/passwd echo", ["Bash(xargs:*)", "Bash(echo:*)"], False),
    ("xargs -a a workspace file", "xargs -a README.md echo", ["Bash(xargs:*)", "Bash(echo:*)"], True),
    # apt
    ("apt-get -o attached", "apt-get -oAPT::Update::Pre-Invoke::=id update", ["Bash(apt-get update:*)"], False),
    ("apt-get -y", "apt-get install -y jq", ["Bash(apt-get install:*)"], True),
    # pytest-cov TYPE:PATH values (red team round 3, item 8b)
    ("pytest --cov-report=xml:.git/config", "pytest --cov-report=xml:.git/config", ["Bash(pytest:*)"], False),
    ("pytest --cov-report xml:PATH separate", "pytest --cov-report xml:.git/config", ["Bash(pytest:*)"], False),
    ("pytest --cov-report=html into .git", "pytest --cov-report=html:.git/hooks", ["Bash(pytest:*)"], False),
    ("pytest --cov-report=json outside", "pytest --cov-report=json:/root/.bashrc", ["Bash(pytest:*)"], False),
    (
        "pytest --cov-report=json through a link",
        "pytest --cov=src --cov-report=json:link_to_home/.bashrc",
        ["Bash(pytest:*)"],
        False,
    ),
    (
        "pytest --cov-report=lcov into workflows",
        "pytest --cov-report=lcov:.github/workflows/ci.yml",
        ["Bash(pytest:*)"],
        False,
    ),
    ("pytest --cov-rep abbreviation", "pytest --cov-rep=xml:.git/config", ["Bash(pytest:*)"], False),
    ("py.test --cov-report", "py.test --cov-report=xml:.git/config", ["Bash(py.test:*)"], False),
    ("pytest --cov-report=xml:cov.xml", "pytest --cov=src --cov-report=xml:cov.xml", ["Bash(pytest:*)"], True),
    (
        "pytest --cov-report term-missing:skip-covered",
        "pytest --cov --cov-report term-missing:skip-covered",
        ["Bash(pytest:*)"],
        True,
    ),
    ("pytest --cov-report=xml", "pytest --cov=src --cov-report=xml", ["Bash(pytest:*)"], True),
    # ansible: modules that run commands (item 5)
    ("ansible -m shell", "ansible localhost -m shell -a 'git push'", ["Bash(ansible:*)"], False),
    ("ansible -m command", "ansible localhost -m command -a 'git push'", ["Bash(ansible:*)"], False),
    ("ansible -a with the default module (command)", "ansible all -a 'git push'", ["Bash(ansible:*)"], False),
    ("ansible -mraw attached", "ansible all -mraw -a id", ["Bash(ansible:*)"], False),
    ("ansible --module-name=script", "ansible all --module-name=script --args=./x.sh", ["Bash(ansible:*)"], False),
    (
        "ansible -e sets the interpreter",
        "ansible all -m ping -e ansible_python_interpreter=./evil",
        ["Bash(ansible:*)"],
        False,
    ),
    ("ansible -i an inventory script", "ansible all -i ./inv.py -m ping", ["Bash(ansible:*)"], False),
    ("ansible-playbook", "ansible-playbook site.yml", ["Bash(ansible:*)"], False),
    ("ansible-playbook under its own rule", "ansible-playbook site.yml", ["Bash(ansible-playbook:*)"], True),
    ("ansible -m ping", "ansible all -i localhost, -m ping", ["Bash(ansible:*)"], True),
    ("ansible --list-hosts", "ansible all --list-hosts", ["Bash(ansible:*)"], True),
    (
        "ansible -m shell spelled out",
        "ansible localhost -m shell -a id",
        ["Bash(ansible localhost -m shell -a id)"],
        True,
    ),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_tool_options_that_run_code_need_a_rule_that_spells_them_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)
