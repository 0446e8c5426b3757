"""Recursive options that follow symbolic links (red team paths #5): explicit, with the option found
in bundles and abbreviations; the recursion alone, or following alone, stays allowed."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.programs.follow_links import follow_facts
from tests.shell.conftest import Check

CASES = [
    ("grep -R", "grep -R password .", ["Bash(grep:*)"], False),
    ("grep -R in a bundle", "grep -inR password .", ["Bash(grep:*)"], False),
    ("grep --dereference-recursive", "grep --dereference-recursive token .", ["Bash(grep:*)"], False),
    ("grep --deref abbreviation", "grep --deref token .", ["Bash(grep:*)"], False),
    ("grep --binary is not --binary-files", "grep --binary -R x .", ["Bash(grep:*)"], False),
    ("grep -r", "grep -rn TODO src/", ["Bash(grep:*)"], True),
    ("grep -e -R is a pattern", "grep -e -R src/app.py", ["Bash(grep:*)"], True),
    ("rg -L", "rg -L password", ["Bash(rg:*)"], False),
    ("rg --follow", "rg --follow -uu BEGIN .", ["Bash(rg:*)"], False),
    ("rg -uuL bundle", "rg -uuL BEGIN .", ["Bash(rg:*)"], False),
    ("rg -n", "rg -n main src", ["Bash(rg:*)"], True),
    ("find -L", "find -L . -name id_rsa", ["Bash(find:*)"], False),
    ("find -H", "find -H . -name id_rsa", ["Bash(find:*)"], False),
    ("find -follow", "find . -follow -name '*.pem'", ["Bash(find:*)"], False),
    ("find", "find src -name '*.py'", ["Bash(find:*)"], True),
    ("du -L", "du -L -a .", ["Bash(du:*)"], False),
    ("du -sL bundle", "du -sL .", ["Bash(du:*)"], False),
    ("du --time is not --time-style", "du --time -L .", ["Bash(du:*)"], False),
    ("du -sh", "du -sh .", ["Bash(du:*)"], True),
    ("ls -LR", "ls -LR .", ["Bash(ls:*)"], False),
    ("ls -R -L", "ls -R -L src", ["Bash(ls:*)"], False),
    ("ls -L alone", "ls -L src", ["Bash(ls:*)"], True),
    ("ls -R alone", "ls -R src", ["Bash(ls:*)"], True),
    ("tree -l", "tree -l .", ["Bash(tree:*)"], False),
    ("tree -al", "tree -al .", ["Bash(tree:*)"], False),
    ("tree -L 2", "tree -L 2 src", ["Bash(tree:*)"], True),
    ("cp -rL", "cp -rL . backup", ["Bash(cp:*)"], False),
    ("cp -r --dereference", "cp -r --dereference . backup", ["Bash(cp:*)"], False),
    ("cp -aL", "cp -aL src backup", ["Bash(cp:*)"], False),
    ("cp -L alone", "cp -L README.md out.md", ["Bash(cp:*)"], True),
    ("cp -r", "cp -r templates/ out/", ["Bash(cp:*)"], True),
    ("tar -czhf", "tar -czhf out.tgz .", ["Bash(tar:*)"], False),
    ("tar old-style czhf", "tar czhf out.tgz .", ["Bash(tar:*)"], False),
    ("tar --dereference", "tar --dereference -czf out.tgz .", ["Bash(tar:*)"], False),
    ("tar -H is the format", "tar -H posix -czf out.tgz src", ["Bash(tar:*)"], True),
    ("tar -czf", "tar -czf out.tgz src", ["Bash(tar:*)"], True),
    ("zip -r follows by default", "zip -r out.zip .", ["Bash(zip:*)"], False),
    ("zip --recurse-paths", "zip --recurse-paths out.zip .", ["Bash(zip:*)"], False),
    ("zip -ry stores links", "zip -ry out.zip src", ["Bash(zip:*)"], True),
    ("zip -r --symlinks", "zip -r --symlinks out.zip src", ["Bash(zip:*)"], True),
    ("zip without recursion", "zip out.zip README.md", ["Bash(zip:*)"], True),
    ("rsync -aL", "rsync -aL . backup/", ["Bash(rsync:*)"], False),
    ("rsync --copy-links", "rsync -a --copy-links . backup/", ["Bash(rsync:*)"], False),
    ("rsync -k", "rsync -ak . backup/", ["Bash(rsync:*)"], False),
    ("rsync --copy-unsafe-links", "rsync -a --copy-unsafe-links . backup/", ["Bash(rsync:*)"], False),
    ("rsync --partial is not --partial-dir", "rsync -a --partial -L . backup/", ["Bash(rsync:*)"], False),
    ("rsync -av", "rsync -av src/ backup/", ["Bash(rsync:*)"], True),
    ("chown -RL", "chown -RL nobody .", ["Bash(chown:*)"], False),
    ("chgrp -R -L", "chgrp -R -L users .", ["Bash(chgrp:*)"], False),
    ("chmod -RL", "chmod -RL u+w .", ["Bash(chmod:*)"], False),
    ("chown -R", "chown -R 1000 src", ["Bash(chown:*)"], True),
    ("chmod -R", "chmod -R u+w src", ["Bash(chmod:*)"], True),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_following_links_while_recursing_needs_a_rule_that_spells_it_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


def test_the_reason_says_links_can_lead_out_of_the_workspace() -> None:
    [(index, reason)] = follow_facts("grep", ["grep", "-rn", "x", "-R", "."])
    assert index == 3
    assert "follows symbolic links" in reason and "out of the workspace" in reason
