"""A model-written ignore file cannot hang the bot's own process through Glob.

``classify_rule`` (bot/tools/files/parent_ignores.py) checks each segment of an anchored rule in an
ignore file above the search root against the root's own path. Checked with a backtracking regex
(``*`` as ``[^/]{0,}``), a segment like ``*a*a*a…*c`` against a directory named ``aaaa…`` tried
every way of splitting the name (16 stars on 40 letters: hours). The ignore files between the
workspace and the root are read too and the model writes them: Write ``.gitignore``, Write
``aaa…a/x.txt``, Glob with ``path: aaa…a``. Found by a red-team pass; the segment is now matched in
linear time and the files are read off the event loop's thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NAME = "a" * 40
RULE = "/" + "*a" * 16 + "*c/x\n"


def test_a_crafted_gitignore_above_the_glob_root_does_not_hang_the_bot(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / NAME).mkdir(parents=True)
    (workspace / NAME / "x.txt").write_text("x\n")
    (workspace / ".gitignore").write_text(RULE)
    bot = Path(sys.executable).parent / "bot"
    call = json.dumps({"pattern": "*.txt", "path": NAME})
    try:
        done = subprocess.run(
            [str(bot), "tools", "call", "Glob", call, "--allow", "Glob"],
            cwd=workspace,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("Glob did not answer in 20 s: the ignore rule's regex is backtracking") from None
    assert "x.txt" in done.stdout, done.stdout + done.stderr
