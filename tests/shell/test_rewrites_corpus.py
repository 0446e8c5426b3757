"""The hand-reviewed corpus of the families the option table cannot show (``corpus/rewrites_*.jsonl``,
each case naming the documentation or GTFOBins entry it comes from):

* ``manifest`` — a subcommand rewrites what a later allowed command runs (``npm pkg set scripts.x``,
  ``gh alias set x '!…'``, ``yarn set version``): a write of the manifest, or explicit;
* ``registry`` — a setting points later installs at another index (``pip config set
  global.index-url``, ``npm config set registry``, ``poetry source add``);
* ``template`` — a subcommand fetches a package or template and runs it (``npm init <pkg>``,
  ``cookiecutter gh:…``, ``copier --trust``);
* ``sends-file`` — a network client carries a file's content out (``http POST host @file``,
  ``socat FILE:x TCP:…``, ``curl -d @file``, ``nc host < file``): judged as a read of the file;
* ``runs`` — a network client's address starts a program (``socat … EXEC:sh``).

Every attack is denied under the rule it abuses; every benign form is allowed under its rule. The
counts per family are printed at the end of the run.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.permissions.decision import Allow
from tests.shell.test_corpus import SUMMARY, decide, load

FAMILIES = ("manifest", "registry", "template", "sends-file", "runs")


def test_the_cases_are_well_formed() -> None:
    for name in ("rewrites_attacks.jsonl", "rewrites_benign.jsonl"):
        for case in load(name):
            assert case["family"] in FAMILIES and case["source"] and case["description"], case


def test_every_rewrite_template_and_send_is_denied_under_the_rule_it_abuses(ws: Path) -> None:
    cases = load("rewrites_attacks.jsonl")
    allowed = []
    denied: Counter[str] = Counter()
    for case in cases:
        decision = decide(case, ws)
        if isinstance(decision, Allow):
            allowed.append(case)
        else:
            denied[case["family"]] += 1
            assert not any("evil" in s for s in getattr(decision, "suggestions", ())), (case, decision)
    total = Counter(c["family"] for c in cases)
    SUMMARY["rewrite attacks"] = "rewrite/template/send attacks: " + ", ".join(
        f"{family} {denied[family]}/{total[family]} denied" for family in FAMILIES
    )
    assert not allowed, "\n".join(f"{c['command']!r} under {c['allow']} ({c['source']})" for c in allowed)


def test_their_benign_forms_are_allowed(ws: Path) -> None:
    cases = load("rewrites_benign.jsonl")
    denied = []
    allowed: Counter[str] = Counter()
    for case in cases:
        decision = decide(case, ws)
        if isinstance(decision, Allow):
            allowed[case["family"]] += 1
        else:
            denied.append((case, decision.reason))
    total = Counter(c["family"] for c in cases)
    SUMMARY["rewrite benign"] = "rewrite/template/send benign forms: " + ", ".join(
        f"{family} {allowed[family]}/{total[family]} allowed" for family in FAMILIES
    )
    assert not denied, "\n".join(f"{c['command']!r} under {c['allow']}: {r}" for c, r in denied)
