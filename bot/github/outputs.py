"""What a run leaves for the workflow: step outputs, the job summary, masks for secret values.

Writes to the files GitHub Actions names in ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY``, and
prints ``::add-mask::`` commands so the runner hides secret values from the log.
"""

from __future__ import annotations

import os
import secrets as _secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO


def write_outputs(values: Mapping[str, str], env: Mapping[str, str] | None = None) -> bool:
    """Append ``name<<DELIM`` blocks to ``$GITHUB_OUTPUT``. Returns False outside Actions."""
    target = (os.environ if env is None else env).get("GITHUB_OUTPUT")
    if not target:
        return False
    with Path(target).open("a", encoding="utf-8") as f:
        for name, value in values.items():
            delimiter = f"ghadelimiter_{_secrets.token_hex(8)}"
            f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return True


def write_step_summary(markdown: str, env: Mapping[str, str] | None = None) -> bool:
    target = (os.environ if env is None else env).get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    with Path(target).open("a", encoding="utf-8") as f:
        f.write(markdown.rstrip() + "\n")
    return True


def mask(values: Iterable[str], out: TextIO) -> None:
    """``::add-mask::`` every secret value (each line of a multi-line one), before anything is logged."""
    for value in values:
        for line in value.splitlines():
            if len(line.strip()) >= 4:
                out.write(f"::add-mask::{line.strip()}\n")
    out.flush()
