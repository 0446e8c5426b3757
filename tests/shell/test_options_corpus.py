"""The option corpus (``corpus/options_attacks.jsonl``, ``corpus/options_benign.jsonl``, written by
``corpus/make_options_corpus.py`` from the option table): under a program's prefix rule, every
option that runs a command, names a program, loads code or configuration, or connects elsewhere is
denied with a hostile value, and allowed with an ordinary one under a rule that spells it out. The
denial never suggests a rule containing the hostile value. Counts per family are printed at the end
of the run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.permissions.decision import Allow
from tests.shell.test_corpus import SUMMARY, decide, load

FAMILIES = ("runs", "program", "loads", "connects")
#: The precision goal of the issue: at least 98% of benign forms allowed.
MIN_BENIGN_RATE = 0.98


def test_every_executing_option_is_denied_under_the_programs_prefix_rule(ws: Path) -> None:
    cases = load("options_attacks.jsonl")
    assert len(cases) >= 100
    allowed, suggested = [], []
    denied: Counter[str] = Counter()
    for case in cases:
        decision = decide(case, ws)
        if isinstance(decision, Allow):
            allowed.append(case)
            continue
        denied[case["family"]] += 1
        hostile = case["command"].split(" ", 2)[-1]
        if any("evil" in s for s in getattr(decision, "suggestions", ())):
            suggested.append((case["command"], decision.suggestions, hostile))
    total = Counter(c["family"] for c in cases)
    SUMMARY["option attacks"] = "option attacks: " + ", ".join(
        f"{family} {denied[family]}/{total[family]} denied" for family in FAMILIES
    )
    assert not allowed, "\n".join(f"{c['command']!r} under {c['allow']} ({c['source']})" for c in allowed)
    assert not suggested, suggested


def test_the_benign_form_of_each_is_allowed_under_a_rule_that_spells_it_out(ws: Path) -> None:
    cases = load("options_benign.jsonl")
    denied = []
    allowed: Counter[str] = Counter()
    for case in cases:
        decision = decide(case, ws)
        if isinstance(decision, Allow):
            allowed[case["family"]] += 1
        else:
            denied.append((case, decision.reason))
    total = Counter(c["family"] for c in cases)
    SUMMARY["option benign"] = (
        "option benign forms: "
        + ", ".join(f"{family} {allowed[family]}/{total[family]} allowed" for family in FAMILIES)
        + ("; denied: " + "; ".join(repr(c["command"]) for c, _ in denied) if denied else "")
    )
    assert 1 - len(denied) / len(cases) >= MIN_BENIGN_RATE, "\n".join(f"{c['command']!r}: {r}" for c, r in denied)


def test_the_corpus_is_the_one_the_table_makes() -> None:
    """The table and the analysis agree: every executing option the table has is in the corpus
    above (re-run ``tests/shell/corpus/make_options_corpus.py`` after regenerating the table)."""
    from tests.shell.corpus.make_options_corpus import cases

    attacks, benign = cases()
    assert [c["command"] for c in load("options_attacks.jsonl")] == [c["command"] for c in attacks]
    assert [c["command"] for c in load("options_benign.jsonl")] == [c["command"] for c in benign]
