"""The provenance line of a report: who asked, which policy files (by hash), which model and limits;
and the report's paths as a reader knows them (relative to the repository, never the runner's).

Every policy file that took part is listed, what it ``extends`` included: a repository policy that
extends the ``fix`` preset shows the preset's hash beside its own, so a change to either shows.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from bot.agent.limits import RunLimits
from bot.orchestration.render import DenialView, Provenance, RunReport
from bot.orchestration.session import PreparedRun
from bot.permissions.stack import PRESETS_DIR


def with_policy(base: Provenance, prepared: PreparedRun, root: Path | None = None) -> Provenance:
    """``base`` (who asked, the run's link) plus what the prepared run was built from."""
    return replace(
        base,
        policy_files=policy_hashes(prepared, root),
        model=prepared.session.model,
        limits=shown_limits(prepared.limits),
    )


def policy_hashes(prepared: PreparedRun, root: Path | None = None) -> tuple[tuple[str, str], ...]:
    """(label, sha256) of every policy file that took part, weakest first. The texts the run read
    (the trusted copies) are hashed as read; a file reached only through ``extends`` (a shipped
    preset, a file beside the workflow's policy) is hashed as it is on disk, outside the workspace."""
    read = {label: text for label, text in prepared.policy_sources}
    out: list[tuple[str, str]] = []
    for file in prepared.policy.files:
        label = policy_label(file.path, file.source)
        if any(label == shown for shown, _ in out):
            continue
        text = read.get(file.path, read.get(label))
        if text is None:
            try:
                text = Path(file.path).read_text(encoding="utf-8")
            except OSError:
                continue
        out.append((label, hashlib.sha256(text.encode()).hexdigest()))
    for label, text in prepared.policy_sources:  # anything the stack did not list (it lists all today)
        if not any(relative_path(label, root) == shown for shown, _ in out):
            out.append((relative_path(label, root), hashlib.sha256(text.encode()).hexdigest()))
    return tuple((relative_path(label, root), digest) for label, digest in out)


def policy_label(path: str, source: str) -> str:
    """``preset:fix`` for a shipped preset, else the file's path."""
    if source == "preset" or _inside(Path(path), PRESETS_DIR):
        return f"preset:{Path(path).stem}"
    return path


def shown_limits(limits: RunLimits) -> tuple[tuple[str, str], ...]:
    """The limits that are set, as the provenance line shows them."""
    shown = []
    for name in ("max_turns", "max_budget_usd", "wall_time_s"):
        value = getattr(limits, name, None)
        if value is not None:
            shown.append((name, f"{value:g}" if isinstance(value, float) else str(value)))
    return tuple(shown)


# ----- paths as the reader knows them ---------------------------------------------------------------


def relative_path(path: str, root: Path | None) -> str:
    """``path`` relative to the repository when it lies inside it; a path elsewhere on the runner
    (a workflow's policy file, a temporary directory) by its name only: the runner's layout means
    nothing to a reader and tells an attacker where things are."""
    if not os.path.isabs(path):
        return path
    if root is not None and _inside(Path(path), root):
        return Path(path).resolve().relative_to(root.resolve()).as_posix() or "."
    return f"…/{Path(path).name}"


def relative_text(text: str, roots: Iterable[Path]) -> str:
    """``text`` with every absolute mention of ``roots`` (the repository, the output directory)
    made relative: ``/home/runner/work/app/app/src/x.py`` becomes ``src/x.py``."""
    for root in sorted({r.resolve() for r in roots}, key=lambda r: -len(str(r))):
        prefix = str(root)
        if len(prefix) <= 1:
            continue
        text = text.replace(prefix + os.sep, "").replace(prefix, ".")
    return text


def relative_report(report: RunReport, root: Path | None, output_dir: Path | None = None) -> RunReport:
    """The report with the runner's absolute paths made relative in every text a person reads
    (not in the diff: file contents are shown as they are)."""
    roots = [r for r in (root, output_dir) if r is not None]
    if not roots:
        return report

    def rel(text: str) -> str:
        return relative_text(text, roots)

    def opt(text: str | None) -> str | None:
        return None if text is None else rel(text)

    provenance = report.provenance
    return replace(
        report,
        headline=rel(report.headline),
        summary=rel(report.summary),
        notes=tuple(rel(n) for n in report.notes),
        context=tuple(rel(c) for c in report.context),
        artifact_hint=opt(report.artifact_hint),
        calls=tuple(replace(c, summary=rel(c.summary)) for c in report.calls),
        denials=tuple(_denial(d, rel, opt) for d in report.denials),
        provenance=replace(
            provenance, policy_files=tuple((relative_path(p, root), d) for p, d in provenance.policy_files)
        ),
    )


def _denial(d: DenialView, rel: Callable[[str], str], opt: Callable[[str | None], str | None]) -> DenialView:
    return replace(d, input_summary=rel(d.input_summary), reason=rel(d.reason), where=opt(d.where))


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


__all__ = [
    "policy_hashes",
    "policy_label",
    "relative_path",
    "relative_report",
    "relative_text",
    "shown_limits",
    "with_policy",
]
