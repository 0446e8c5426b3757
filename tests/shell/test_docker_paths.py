"""``docker run``/``docker exec``: the container's command and ``--workdir`` name places in the
container's filesystem, not the host's; what reaches the host (mounts, ``--privileged``,
``--env-file``) still counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision


@pytest.mark.parametrize(
    "command",
    [
        'docker run --rm -v "$PWD":/app -w /app node:20 npm test',
        "docker run --rm -v /work/x:/app --workdir=/app node:20 ls /app /etc",
        "docker exec -w /app web npm test -- /app/tests",
    ],
)
def test_a_containers_paths_are_not_host_paths(ws: Path, command: str) -> None:
    rules = ["Bash(docker run:*)", "Bash(docker exec:*)", "Edit"]
    command = command.replace("/work/x", str(ws))
    assert isinstance(final_decision(command, context_for(ws, rules)), Allow)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("docker run --rm -v /etc:/host alpine cat /host/shadow", "a host path mounted"),
        ("docker run --rm -v $PWD/..:/w alpine ls", "the workspace's parent mounted"),
        ("docker exec --privileged web sh", "a privileged exec"),
        ("docker exec --env-file ~/.aws/credentials web env", "a host file read into the environment"),
        ("docker run --rm -v $PWD/.git:/g alpine true", "the repository's .git mounted writable"),
    ],
)
def test_what_reaches_the_host_still_counts(ws: Path, command: str, why: str) -> None:
    rules = ["Bash(docker run:*)", "Bash(docker exec:*)", "Edit"]
    assert not isinstance(final_decision(command, context_for(ws, rules)), Allow), why
