"""A ``for`` loop over words the command spells out is judged as its body written out once per
item; every other loop, and every body unrolling cannot follow, keeps the seeds' answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from bot.shell.judge.loops import unroll_for
from tests.shell.conftest import context_for, final_decision

RULES = ["Bash(echo:*)", "Bash(python -m py_compile:*)", "Bash(cd:*)", "Bash(npm test:*)", "Bash(wc:*)"]
RULES += ["Bash(rm:*)", "Bash(cat:*)", "Bash(git:*)", "Edit"]


@pytest.mark.parametrize(
    "command",
    [
        'for f in src/*.py; do echo "$f"; done',
        'for f in src/*.py tests/*.py; do python -m py_compile "$f"; done',
        "for d in pkg1 pkg2; do (cd $d && npm test); done",
        'for f in *.md; do wc -l "$f"; done',
        "for f in a b\ndo\n  rm -f build/$f.o\ndone",
    ],
)
def test_a_loop_over_spelled_out_items_is_judged_as_its_rounds(ws: Path, command: str) -> None:
    for folder in ("src", "tests", "pkg1", "pkg2", "build"):
        (ws / folder).mkdir(exist_ok=True)
    assert isinstance(final_decision(command, context_for(ws, RULES)), Allow)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ('for f in .g*; do rm -rf "$f"; done', "a glob item reaches .git"),
        ("for f in .git; do rm -rf $f; done", "an item is .git"),
        ("for f in 'x .git'; do rm -rf $f; done", "a quoted item bash splits in a bare $f"),
        ('for f in x; do rm -rf "$f" .git; done', "the body itself"),
        ('for f in /etc/shadow; do cat "$f"; done', "an item outside the workspace"),
        ("for c in id; do $c; done", "an item is the program"),
        ("for f in a; do echo $f; done; rm -rf .git", "the loop is not the whole command"),
        ("for f in $(ls); do rm $f; done", "items known only at run time"),
        ("for f in a; do f=.git; rm -rf $f; done", "the variable assigned in the body"),
        ("for f in a; do read f; rm -rf $f; done", "the variable read in the body"),
        ("for f in a; do rm -rf ${f%a}.git; done", "an expansion form unrolling does not follow"),
        ('for f in ~/.ssh/*; do cat "$f"; done', "a glob outside the workspace"),
        ('for f in .github/workflows/*; do echo x > "$f"; done', "writing the workflows"),
        ("for f in a; do git push --force; done", "the body needs its rules"),
        ('for f in *.py; do mv "$f" "$f.bak"; done', "a glob inside a larger word"),
        ("for ((i=0; i<3; i++)); do rm -rf .git; done", "the C-style loop"),
    ],
)
def test_anything_else_keeps_its_answer(ws: Path, command: str, why: str) -> None:
    rules = [*RULES, "Bash(mv:*)"]
    decision = final_decision(command, context_for(ws, rules, deny=["Bash(git push:*)"]))
    assert not isinstance(decision, Allow), why


def test_the_rounds_are_the_body_with_the_item_in_place() -> None:
    assert unroll_for('for f in a b; do mv "$f" "$f.bak"; done') == 'mv a "a.bak"\nmv b "b.bak"'
    assert unroll_for("for t in pytest ruff; do $t .; done") == "pytest .\nruff ."
    assert unroll_for("for f in 'x y'; do rm \"$f\"; done") == "rm 'x y'"
    assert unroll_for("for f; do echo $f; done") is None  # the positional parameters


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        (
            'for f in src/*.py; do python3 -m py_compile "$f" || echo "FAILED: $f"; done',
            ["Bash(python3 -m py_compile:*)"],
        ),
        ('for f in *.md; do echo "== $f"; head -3 "$f"; done', []),
    ],
)
def test_a_glob_item_inside_a_longer_word_is_each_file_it_matches(ws: Path, command: str, rules: list[str]) -> None:
    assert isinstance(final_decision(command, context_for(ws, rules)), Allow), command


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ('for f in link_to_etc/*; do echo "x $f"; cat "$f"; done', "a match through a link out"),
        ('for f in nomatch*.zz; do echo "x $f"; done', "no match: bash keeps the pattern"),
        ('for f in src/*.py; do echo "x $f"; cat "$f"; done', "the same shape with a match under a Read deny"),
    ],
)
def test_a_glob_item_is_expanded_only_to_what_it_safely_matches(ws: Path, command: str, why: str) -> None:
    decision = final_decision(command, context_for(ws, [], deny=["Read(src/**)"]))
    assert not isinstance(decision, Allow), why
