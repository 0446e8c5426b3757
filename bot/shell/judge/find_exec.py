"""``find … -exec CMD {} +``: what ``{}`` may stand for, judged before ``CMD`` is judged as a
command of its own (:meth:`bot.shell.judge.command.Judge._inners`). The start points, the name
filters and the symbolic links below them decide whether a match can be a file outside the
workspace or one a Read deny rule covers (:mod:`bot.shell.programs.find` reads the expression)."""

from __future__ import annotations

from typing import Any

from bot.shell.judge.scan import Options
from bot.shell.judge.verdict import Verdict
from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import has_extractor, path_uses
from bot.shell.paths.resolve import check_path, within
from bot.shell.programs.find import links_out, name_filter, name_guard_problem, start_points
from bot.shell.programs.flags import program_facts
from bot.shell.programs.recursive_reads import denied_below


def find_matches(
    finder: tuple[tuple[str, ...], tuple[str | None, ...]], inner: tuple[Word, ...], options: Options, seen: Any
) -> Verdict | None:
    """``find ... -exec CMD {}``: what ``{}`` may be (:mod:`bot.shell.programs.find`)."""
    words, cwds = finder
    if "-files0-from" in words:
        return Verdict("ask", "find -files0-from reads its start points from a file or stdin")
    if not any("{}" in w.value for w in inner):
        return None
    program = inner[0].value.rsplit("/", 1)[-1]
    reads_only = (
        all(u.access == "read" for u in path_uses(inner) if "{}" in u.value)
        and has_extractor(program)
        and not program_facts(inner).in_place
    )  # `sed -i … {}` writes it
    shown = " ".join(w.value for w in inner)
    paths = options.paths
    if not reads_only:
        starts = [
            check_path(start, cwd, "read", paths, seen).path
            for cwd in cwds
            if cwd is not None
            for start in start_points(words)
        ]
        problem = name_guard_problem(words, starts)
        if problem is not None:
            return Verdict("ask", f"find runs `{shown}` on what it matches: {problem}")
    if program in ("rm", "unlink", "rmdir") and all(w.value == "{}" for w in inner if "{}" in w.value):
        return None  # removing a symbolic link does not follow it (`{}/` would)
    if options.denied_path is not None:  # `find . -name .env -exec cat {} +`
        for known in (c for c in cwds if c is not None):
            for start in start_points(words):
                rule = denied_below(check_path(start, known, "read", paths, seen).path, options.denied_path)
                if rule is not None:
                    return Verdict(
                        "ask",
                        f"find runs `{shown}` on what it matches, which may include files the deny rule `{rule}` covers"
                        if rule != "too many"
                        else f"find runs `{shown}` on too many files to check against the policy's Read deny rules",
                    )
    for cwd in cwds:
        if cwd is None:
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        starts = [check_path(start, cwd, "read", paths, seen).path for start in start_points(words)]
        found = links_out(starts, lambda target: any(within(target, root) for root in paths.roots), name_filter(words))
        if found == "too many":
            return Verdict(
                "ask",
                f"find runs `{shown}` on what it matches, and there are too many files "
                "to check for symbolic links leading out of the workspace",
            )
        if found is not None:
            return Verdict(
                "ask",
                f"find runs `{shown}` on what it matches, which includes {found}, a "
                "symbolic link leading out of the workspace",
            )
    return None


def placed_matches(argv: tuple[Word, ...], finder: tuple[tuple[str, ...], tuple[str | None, ...]]) -> tuple[Word, ...]:
    """``{}`` is a file below the start point: ``{}`` → ``START/{}`` (absolute), so its checks
    hold in ``-execdir``'s unknown directory too (what it may be is checked by
    :func:`find_matches`)."""
    words, cwds = finder
    cwd = cwds[0]
    if cwd is None:
        return argv
    start = start_points(words)[0]
    base = start if start.startswith("/") else f"{cwd.rstrip('/')}/{start}"
    return tuple(
        w._replace(value=w.value.replace("{}", f"{base.rstrip('/')}/{{}}")) if "{}" in w.value else w for w in argv
    )
