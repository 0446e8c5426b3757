"""Run every benchmark script in this folder, one after the other, and print their figures.

python bench/run.py [name ...]     # e.g. python bench/run.py pipeline search
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    wanted = set(sys.argv[1:])
    scripts = sorted(p for p in HERE.glob("*.py") if not p.name.startswith(("_", "run")))
    failed = 0
    for script in scripts:
        if wanted and script.stem not in wanted:
            continue
        print(f"\n=== {script.stem}", flush=True)
        failed += subprocess.run([sys.executable, str(script)], check=False).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
