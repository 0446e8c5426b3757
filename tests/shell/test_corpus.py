"""The measured corpus: published bypasses must all be denied under the rule they abuse, and real
CI/Makefile/agent commands must be allowed under theirs (fewer than 2% denied).

``corpus/attacks.jsonl`` and ``corpus/benign.jsonl``: one case a line — the command, the policy
(``allow``/``deny``/``ask`` rules and optional ``policy`` fields), a description and a source. Each
case goes through the Bash tool's check *and* the headless permission chain, as the pipeline runs
them. The counts are printed at the end of the test run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import case_context, final_decision

CORPUS = Path(__file__).parent / "corpus"
#: The precision goal of the issue: fewer than 2% of benign commands denied.
MAX_BENIGN_DENIAL_RATE = 0.02
SUMMARY: dict[str, str] = {}


def load(name: str) -> list[dict[str, Any]]:
    with (CORPUS / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


_CONTEXTS: dict[str, Any] = {}


def decide(case: dict[str, Any], ws: Path) -> Any:
    """The pipeline's decision; cases with the same policy share one context, as a run's calls do."""
    ctx = case_context(case, ws, _CONTEXTS)
    return final_decision(case["command"], ctx)


def test_the_corpus_files_are_well_formed() -> None:
    for name in ("attacks.jsonl", "benign.jsonl"):
        cases = load(name)
        assert cases, name
        for case in cases:
            assert set(case) >= {"command", "allow", "deny", "ask", "description", "source"}, case
            assert case["source"], case


def test_no_published_bypass_is_allowed(ws: Path) -> None:
    cases = load("attacks.jsonl")
    allowed = [c for c in cases if isinstance(decide(c, ws), Allow)]
    SUMMARY["attacks"] = f"attack corpus: {len(cases) - len(allowed)}/{len(cases)} denied, {len(allowed)} allowed"
    assert not allowed, "\n".join(f"{c['command']!r} under {c['allow']} ({c['source']})" for c in allowed)


def test_real_commands_are_allowed_under_their_rules(ws: Path) -> None:
    cases = load("benign.jsonl")
    denied = []
    for case in cases:
        decision = decide(case, ws)
        if not isinstance(decision, Allow):
            denied.append((case, decision.reason))
    rate = len(denied) / len(cases)
    SUMMARY["benign"] = (
        f"benign corpus: {len(cases) - len(denied)}/{len(cases)} allowed, {len(denied)} denied "
        f"({rate:.1%}): " + "; ".join(repr(c["command"]) for c, _ in denied)
    )
    assert rate < MAX_BENIGN_DENIAL_RATE, "\n".join(f"{c['command']!r}: {reason}" for c, reason in denied)


@pytest.mark.parametrize("name", ["attacks.jsonl", "benign.jsonl"])
def test_every_case_names_its_rules_correctly(name: str) -> None:
    from bot.permissions.rules import make_rule

    for case in load(name):
        for behaviour in ("allow", "deny", "ask"):
            for text in case[behaviour]:
                make_rule(text, behaviour, "corpus")
