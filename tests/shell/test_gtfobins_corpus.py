"""The GTFOBins corpus (``corpus/gtfobins_attacks.jsonl`` and ``gtfobins_benign.jsonl``, written by
``corpus/make_gtfobins_corpus.py`` from GTFOBins' function table; the entries it leaves out are
counted per reason in ``gtfobins_skipped.json``): every unprivileged function entry is denied under
the prefix rule of the program it abuses, and an ordinary use of each program CI and agents run is
allowed under the same rule (at least 98%). Counts per function family are printed at the end of
the run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.permissions.decision import Allow
from tests.shell.test_corpus import SUMMARY, decide, load

MIN_BENIGN_RATE = 0.98


def test_the_cases_are_well_formed() -> None:
    for name in ("gtfobins_attacks.jsonl", "gtfobins_benign.jsonl"):
        cases = load(name)
        assert cases, name
        for case in cases:
            assert case["family"] and case["source"].startswith("GTFOBins ") and case["description"], case


def test_every_gtfobins_function_is_denied_under_the_rule_it_abuses(ws: Path) -> None:
    cases = load("gtfobins_attacks.jsonl")
    assert len(cases) >= 500
    allowed = []
    denied: Counter[str] = Counter()
    for case in cases:
        if isinstance(decide(case, ws), Allow):
            allowed.append(case)
        else:
            denied[case["family"]] += 1
    total = Counter(c["family"] for c in cases)
    SUMMARY["gtfobins attacks"] = "GTFOBins attacks: " + ", ".join(
        f"{family} {denied[family]}/{total[family]} denied" for family in sorted(total)
    )
    assert not allowed, "\n".join(f"{c['command']!r} under {c['allow']} ({c['source']})" for c in allowed)


def test_the_ordinary_use_of_each_program_is_allowed(ws: Path) -> None:
    cases = load("gtfobins_benign.jsonl")
    denied = [(c, decide(c, ws)) for c in cases]
    denied = [(c, d.reason) for c, d in denied if not isinstance(d, Allow)]
    SUMMARY["gtfobins benign"] = f"GTFOBins benign: {len(cases) - len(denied)}/{len(cases)} allowed" + (
        "; denied: " + "; ".join(repr(c["command"]) for c, _ in denied) if denied else ""
    )
    assert 1 - len(denied) / len(cases) >= MIN_BENIGN_RATE, "\n".join(f"{c['command']!r}: {r}" for c, r in denied)
