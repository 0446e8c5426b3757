"""Helpers shared by the benchmark scripts (not a test: machines are shared and noisy, so each
figure is printed next to a baseline measured in the same run)."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

# Runnable as `python bench/x.py` from a checkout without installing the bench folder.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def report(name: str, value: float, unit: str, *, baseline: float | None = None, target: str = "") -> None:
    ratio = f"  ratio {value / baseline:.2f}×" if baseline else ""
    goal = f"  (target {target})" if target else ""
    print(f"{name:<48} {value:>12.3f} {unit}{ratio}{goal}")
