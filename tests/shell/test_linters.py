"""Checkers that only read their operands (``actionlint``, ``yamllint``, ``shellcheck``,
``hadolint``, ``zizmor``, ``yq``) lint workflow files under their prefix rule; an option not known
to be read-only leaves them to the check of every argument as a possible write."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import context_for, final_decision

RULES = [f"Bash({p}:*)" for p in ("actionlint", "yamllint", "shellcheck", "hadolint", "zizmor", "yq")]


@pytest.mark.parametrize(
    "command",
    [
        "actionlint .github/workflows/ci.yml",
        "actionlint -color -format '{{json .}}'",
        "yamllint -c .yamllint .github/workflows/",
        "yamllint -s .github/workflows/ci.yml",
        "shellcheck -x -S warning scripts/a.sh .github/workflows/x.sh",
        "hadolint --ignore DL3008 Dockerfile",
        "zizmor --min-severity medium .github/workflows/",
        "yq '.jobs' .github/workflows/ci.yml",
        "yq e '.on' .github/workflows/ci.yml",
        "yq -o json '.jobs' .github/workflows/ci.yml",
    ],
)
def test_a_checker_reads_workflow_files_under_its_rule(ws: Path, command: str) -> None:
    assert isinstance(final_decision(command, context_for(ws, RULES)), Allow)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("yq -i '.on = \"push\"' .github/workflows/ci.yml", "yq -i writes the workflow"),
        ("yq --inplace '.x=1' .github/workflows/ci.yml", "the long form"),
        ("yq --in-place '.x=1' .github/workflows/ci.yml", "the jq wrapper's spelling"),
        ("yq -iy '.a=1' .github/workflows/ci.yml", "a bundle holding -i"),
        ("zizmor --fix .github/workflows/", "zizmor --fix writes"),
        ("actionlint -shellcheck /tmp/evil .github/workflows/ci.yml", "an option not known to be read-only"),
        ("yamllint -c /etc/shadow x.yml", "a read outside the workspace"),
        ("shellcheck ~/.ssh/id_rsa", "a read outside the workspace"),
        ("yq '.' ~/.aws/credentials", "a read outside the workspace"),
        ("hadolint --config ~/.ssh/config Dockerfile", "an option's file outside the workspace"),
        ("yq '.x' .github/workflows/ci.yml > .github/workflows/ci.yml", "a redirection still writes"),
    ],
)
def test_what_writes_or_reads_elsewhere_still_counts(ws: Path, command: str, why: str) -> None:
    assert not isinstance(final_decision(command, context_for(ws, RULES)), Allow), why
