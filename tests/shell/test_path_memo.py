"""``lstat`` results are remembered within one decision and never across decisions: a directory that
``cd`` checked is not examined again for the paths below it, and a symbolic link that appears
between two calls is seen by the second."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from bot.permissions.decision import Allow
from bot.shell.api import check_bash_permissions
from bot.shell.paths.resolve import check_path, path_policy, resolve_below_root
from tests.shell.conftest import build_workspace, context_for


def _count_lstat(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    calls: Counter[str] = Counter()
    real = os.lstat

    def counting(path: str | os.PathLike[str], *args: object, **kwargs: object) -> os.stat_result:
        calls[os.fspath(path)] += 1
        return real(path)

    monkeypatch.setattr(os, "lstat", counting)
    return calls


def test_a_decision_examines_each_directory_once(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context_for(ws, ["Bash(cat:*)", "Bash(wc:*)"])
    calls = _count_lstat(monkeypatch)
    result = check_bash_permissions("cd src && cat app.py && wc -l app.py", ctx)
    assert isinstance(result, Allow), result
    assert calls[str(ws / "src")] == 1
    assert calls[str(ws / "src" / "app.py")] == 1


def test_a_symbolic_link_that_appears_between_decisions_is_seen(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path)
    ctx = context_for(ws, ["Bash(cat:*)"])
    assert isinstance(check_bash_permissions("cat later/passwd", ctx), Allow)
    (ws / "later").symlink_to("/etc")
    assert not isinstance(check_bash_permissions("cat later/passwd", ctx), Allow)


def test_resolving_with_a_memory_asks_the_filesystem_once(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, int] = {}
    target = str(ws / "src" / "app.py")
    assert resolve_below_root(target, str(ws), seen) == target
    assert set(seen) == {str(ws / "src"), target}
    calls = _count_lstat(monkeypatch)
    assert resolve_below_root(target, str(ws), seen) == target
    assert resolve_below_root(str(ws / "link_to_etc" / "passwd"), str(ws), seen) == "/etc/passwd"
    assert calls[str(ws / "src")] == 0 and calls[target] == 0


def test_a_remembered_missing_component_stops_the_walk(ws: Path) -> None:
    seen: dict[str, int] = {}
    missing = str(ws / "nowhere" / "x")
    assert resolve_below_root(missing, str(ws), seen) == missing
    assert seen == {str(ws / "nowhere"): -1}
    policy = path_policy((str(ws),), "/root", False, False)
    assert check_path("nowhere/x", str(ws), "read", policy, seen).kind == "ok"
    assert check_path("link_to_etc/passwd", str(ws), "read", policy, seen).kind == "outside"


def test_climbing_paths_use_the_memory_and_never_look_above_the_root(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = path_policy((str(ws),), "/root", False, False)
    seen: dict[str, int] = {}
    calls = _count_lstat(monkeypatch)
    assert check_path("link_to_src/../README.md", str(ws), "read", policy, seen).kind == "ok"
    assert check_path("link_to_src/../README.md", str(ws), "read", policy, seen).kind == "ok"
    assert calls[str(ws / "link_to_src")] == 1 and calls[str(ws / "README.md")] == 1
    assert not any(calls[str(parent)] for parent in (ws, *ws.parents))
