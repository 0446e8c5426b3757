"""Destructive-command warnings (seeds 4.6.5): information on the decision, never a decision."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.api import destructive_warnings
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "command", "warning"),
    [
        ("reset --hard", "git reset --hard HEAD~1", "git reset --hard may discard uncommitted changes"),
        ("push --force", "git push --force origin main", "git push --force may overwrite remote history"),
        ("push -f", "git push -f", "git push --force may overwrite remote history"),
        ("push with a +refspec", "git push origin +main", "git push --force may overwrite remote history"),
        ("force-with-lease", "git push --force-with-lease", "git push --force may overwrite remote history"),
        ("--no-verify", "git commit --no-verify -m x", "--no-verify may skip safety hooks"),
        ("commit -n", "git commit -nm x", "--no-verify may skip safety hooks"),
        ("amend", "git commit --amend --no-edit", "git commit --amend may rewrite the last commit"),
        ("rm -rf", "rm -rf build", "rm -rf may recursively force-remove files"),
        ("rm -r -f", "rm -r -f build", "rm -rf may recursively force-remove files"),
        ("rm --recursive --force", "rm --recursive --force build", "rm -rf may recursively force-remove files"),
        ("behind a wrapper", "sudo rm -fr /tmp/x", "rm -rf may recursively force-remove files"),
        ("drop table", "psql -c 'DROP TABLE users'", "DROP/TRUNCATE may drop or truncate database objects"),
        ("truncate", "mysql -e 'truncate table logs'", "DROP/TRUNCATE may drop or truncate database objects"),
        ("delete without where", "sqlite3 db 'DELETE FROM users;'", "DELETE FROM without WHERE may delete all rows"),
        ("kubectl delete", "kubectl delete pod x", "kubectl delete may delete Kubernetes resources"),
        (
            "terraform destroy",
            "terraform destroy -auto-approve",
            "terraform destroy may destroy Terraform infrastructure",
        ),
        ("git clean -fd", "git clean -fd", "git clean -f may permanently delete untracked files"),
    ],
)
def test_a_destructive_command_is_flagged(description: str, command: str, warning: str) -> None:
    assert warning in destructive_warnings(command), description


@pytest.mark.parametrize(
    ("description", "command"),
    [
        ("plain push", "git push origin HEAD"),
        ("plain commit", "git commit -m 'fix'"),
        ("soft reset", "git reset --soft HEAD~1"),
        ("rm without -r", "rm -f build.log"),
        ("delete with where", "sqlite3 db 'DELETE FROM users WHERE id = 1;'"),
        ("kubectl get", "kubectl get pods"),
    ],
)
def test_an_ordinary_command_is_not_flagged(description: str, command: str) -> None:
    assert destructive_warnings(command) == (), description


def test_warnings_ride_on_the_decision_without_changing_it(check: Check) -> None:
    result = check("git push --force origin main", allow=["Bash(git push:*)"])
    assert isinstance(result, Allow)
    assert result.warnings == ("git push --force may overwrite remote history",)
