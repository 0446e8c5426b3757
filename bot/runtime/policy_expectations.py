"""``bot policy test``: expectation files, policy-as-code for CI.

An expectation file is JSON lines like a batch check plus ``"expect": "allow" | "deny"``. A line
without ``"policy"`` is checked against the policy file next to it with the same name:
``fix.expect.jsonl`` and ``fix.bash.expect.jsonl`` both test ``fix.json`` (or ``.yaml``/``.toml``).
Relative ``policy`` and ``workspace`` paths are relative to the expectation file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.permissions.documents import FORMATS
from bot.runtime.policy_checker import CheckOutcome, PolicyChecker, parse_check_line

EXPECT_SUFFIX = ".expect.jsonl"


@dataclass(frozen=True, slots=True)
class Mismatch:
    file: str
    line: int
    call: str
    expected: str
    got: str
    reason: str

    def describe(self) -> str:
        return f"FAIL {self.file}:{self.line}: {self.call}: expected {self.expected}, got {self.got} — {self.reason}"


@dataclass(slots=True)
class TestReport:
    passed: int = 0
    failed: int = 0
    files: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and bool(self.files)

    def summary(self) -> str:
        return f"{self.passed} passed, {self.failed} failed"


def expectation_files(paths: Sequence[Path]) -> list[Path]:
    """Files given, and ``*.expect.jsonl`` under directories given (recursively), sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob(f"*{EXPECT_SUFFIX}")))
        else:
            found.append(path)
    return found


def default_policy_for(expect_file: Path) -> Path | None:
    """``a.b.expect.jsonl`` → ``a.b.json``, else ``a.json`` (first existing, any policy format), as an
    absolute path."""
    name = expect_file.name.removesuffix(EXPECT_SUFFIX)
    parts = name.split(".")
    while parts:
        for suffix in FORMATS:
            candidate = expect_file.parent / (".".join(parts) + suffix)
            if candidate.is_file():
                return candidate.resolve()
        parts.pop()
    return None


async def run_expectations(files: Sequence[Path], *, workspace: Path) -> TestReport:
    report = TestReport()
    for file in files:
        report.files.append(str(file))
        default = default_policy_for(file)
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            report.failed += 1
            report.mismatches.append(Mismatch(str(file), 0, "(file)", "readable", "error", str(exc)))
            continue
        with PolicyChecker(workspace=workspace, base_dir=file.parent) as checker:
            for number, raw in enumerate(lines, start=1):
                if not raw.strip():
                    continue
                await _check_line(checker, report, file, number, raw, default)
    return report


async def _check_line(
    checker: PolicyChecker, report: TestReport, file: Path, number: int, raw: str, default: Path | None
) -> None:
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("a line must be a JSON object")
        expected = data.get("expect")
        if expected not in ("allow", "deny"):
            raise ValueError('"expect" must be "allow" or "deny"')
        item = parse_check_line(data)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        report.failed += 1
        report.mismatches.append(Mismatch(str(file), number, raw.strip()[:80], "a valid line", "error", str(exc)))
        return
    if not item.policies and default is not None:
        item = replace(item, policies=(str(default),))
    outcome: CheckOutcome = await checker.check(item)
    got = "allow" if outcome.allowed else "deny"
    if got == expected and not outcome.error:
        report.passed += 1
        return
    report.failed += 1
    call = f"{item.tool} {json.dumps(item.input, ensure_ascii=False)}"
    report.mismatches.append(
        Mismatch(str(file), number, call[:160], str(expected), "error" if outcome.error else got, outcome.reason)
    )
