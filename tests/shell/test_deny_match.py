"""Deny and ask rules hold for every spelling of what they name (red team round 3)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.judge.deny_match import loosely_matches
from tests.shell.conftest import Check


@pytest.mark.parametrize(
    ("description", "command", "allow", "deny"),
    [
        ("rm flags in another order", "rm -fr src", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("rm -R", "rm -Rf src", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("rm flags apart", "rm -r -f src", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("rm long flags", "rm --recursive --force src", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("rm flags after the operand", "rm src -rf", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("git push -f", "git push -f", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("--force at the end", "git push origin main --force", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("an abbreviated --force-with-lease", "git push --force-w", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("a + refspec", "git push origin +main", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("--mirror", "git push --mirror", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("git reset --har", "git reset --har HEAD~1", ["Bash(git:*)"], ["Bash(git reset --hard:*)"]),
        ("--hard after the commit", "git reset HEAD~1 --hard", ["Bash(git:*)"], ["Bash(git reset --hard:*)"]),
        (
            "kubectl global option first",
            "kubectl -n prod delete pod x",
            ["Bash(kubectl:*)"],
            ["Bash(kubectl delete:*)"],
        ),
        ("terraform -chdir", "terraform -chdir=infra apply", ["Bash(terraform:*)"], ["Bash(terraform apply:*)"]),
        ("gh pr -R", "gh pr -R o/r merge 1", ["Bash(gh:*)"], ["Bash(gh pr merge:*)"]),
        ("npm global option first", "npm --silent publish", ["Bash(npm:*)"], ["Bash(npm publish:*)"]),
        ("npm abbreviation", "npm pub", ["Bash(npm:*)"], ["Bash(npm publish:*)"]),
        ("cargo toolchain first", "cargo +nightly publish", ["Bash(cargo:*)"], ["Bash(cargo publish:*)"]),
        ("a globbed program", "/usr/bin/g?t push", ["Bash(*)"], ["Bash(git push:*)"]),
        ("a globbed rm", "/bin/r? -rf src", ["Bash(*)"], ["Bash(rm -rf:*)"]),
        ("a globbed subcommand, whatever is on disk", "git pu?h", ["Bash(git:*)"], ["Bash(git push:*)"]),
        ("a globbed directory and program", "/usr/*/gi? push", ["Bash(*)"], ["Bash(git push:*)"]),
        ("a globbed program under a program-wide rule", "/usr/bin/sud? id", ["Bash(*)"], ["Bash(sudo:*)"]),
        # round 4: programs' own aliases
        ("docker container remove", "docker container remove -f c1", ["Bash"], ["Bash(docker rm -f:*)"]),
        ("docker image remove", "docker image remove -f img", ["Bash"], ["Bash(docker rmi:*)"]),
        ("npm i", "npm i left-pad", ["Bash"], ["Bash(npm install:*)"]),
        ("npm t", "npm t", ["Bash"], ["Bash(npm test:*)"]),
        ("npm run-script", "npm run-script deploy", ["Bash"], ["Bash(npm run deploy:*)"]),
        ("kubectl TYPE/NAME", "kubectl delete pods/x", ["Bash"], ["Bash(kubectl delete pod:*)"]),
        ("git branch -d -f is -D", "git branch --delete --force main", ["Bash"], ["Bash(git branch -D:*)"]),
        ("an abbreviated --recursive", "chmod --recu 777 src", ["Bash"], ["Bash(chmod -R:*)"]),
        ("rm --interactive=never is -f", "rm -r --interactive=never src", ["Bash"], ["Bash(rm -rf:*)"]),
        ("a refspec's destination", "git push origin HEAD:main", ["Bash"], ["Bash(git push origin main:*)"]),
        ("a forced refspec", "git push origin +HEAD:main", ["Bash"], ["Bash(git push origin main:*)"]),
        ("an empty source deletes", "git push origin :main", ["Bash"], ["Bash(git push --delete:*)"]),
        ("chmod copying bits", "chmod u=rwx,g=u,o=u f", ["Bash"], ["Bash(chmod 777:*)"]),
        ("chmod with leading zeros", "chmod 0777 x", ["Bash(chmod:*)"], ["Bash(chmod 777:*)"]),
        ("chmod with a sticky bit", "chmod 1777 x", ["Bash(chmod:*)"], ["Bash(chmod 777:*)"]),
        ("chmod symbolic", "chmod a+rwx x", ["Bash(chmod:*)"], ["Bash(chmod 777:*)"]),
        ("chmod symbolic per class", "chmod u=rwx,g=rwx,o=rwx x", ["Bash(chmod:*)"], ["Bash(chmod 777:*)"]),
    ],
)
def test_deny_rules_catch_other_spellings(
    check: Check, description: str, command: str, allow: list[str], deny: list[str]
) -> None:
    assert not isinstance(check(command, allow=allow, deny=deny), Allow), description


@pytest.mark.parametrize(
    ("description", "command", "allow", "deny"),
    [
        ("rm without -f", "rm -r src", ["Bash(rm:*)"], ["Bash(rm -rf:*)"]),
        ("a plain push", "git push origin main", ["Bash(git push:*)"], ["Bash(git push --force:*)"]),
        ("another npm command", "npm test", ["Bash(npm:*)"], ["Bash(npm publish:*)"]),
        ("a soft reset", "git reset --soft HEAD~1", ["Bash(git:*)"], ["Bash(git reset --hard:*)"]),
        ("another mode", "chmod 755 x", ["Bash(chmod:*)"], ["Bash(chmod 777:*)"]),
        ("another branch", "git push origin HEAD:feature", ["Bash"], ["Bash(git push origin main:*)"]),
    ],
)
def test_other_commands_stay_allowed(
    check: Check, description: str, command: str, allow: list[str], deny: list[str]
) -> None:
    assert isinstance(check(command, allow=allow, deny=deny), Allow), description


def test_an_ask_rule_holds_for_declarations(check: Check) -> None:
    assert not isinstance(check("export X=1", allow=["Bash(*)"], ask=["Bash(export:*)"]), Allow)


def test_a_wildcard_rule_is_not_loosened() -> None:
    assert not loosely_matches(["git", "push", "*--force*"], ["git", "push", "-f"], "git")
