"""The README's demo as the local-mode tests run it: `bot run --local` on the demo repository."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from bot.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-repo"
CASSETTE = ROOT / "examples" / "demo.cassette.yaml"
PROMPT = "Fix the failing test"


def run_demo(out: Path, *extra: str, repo: Path = DEMO, cassette: Path = CASSETTE, prompt: str = PROMPT) -> Result:
    """``bot run --local --repo REPO --prompt PROMPT --replay CASSETTE -o OUT [EXTRA…]``."""
    args = ["run", "--local", "--repo", str(repo), "--prompt", prompt, "--replay", str(cassette), "-o", str(out)]
    return CliRunner().invoke(app, [*args, *extra])
