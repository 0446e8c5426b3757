"""Rebuild the option table from the programs' own documentation, offline.

``python -m bot.shell.programs.options.generate`` reads, for every program of ``programs.json``, its manual
page as ``man`` renders it (``/usr/share/man``), or else its ``--help`` output when the program is
installed and has no page, and writes ``table.json``: every documented option, the value it takes,
its class (:mod:`bot.shell.programs.options.classify`), the words of documentation the class came from, and
the package and version the documentation belongs to. It prints what changed against the table in
the tree: re-running it after a package upgrade shows the new, removed and reclassified options.

``--programs`` first rewrites ``programs.json`` from the analysis' tables and the corpora
(:mod:`bot.shell.programs.options.programs`); ``--check`` only reports, and exits 1 when the table would
change.

Nothing here runs a command the workspace could influence: ``man`` and ``--help`` run from a
temporary directory with an environment built from an allowlist, stdin closed, a timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bot.shell.programs.options.classify import classify, overrides
from bot.shell.programs.options.manparse import DocOption, parse_help, parse_manual

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs.json"
TABLE = HERE / "table.json"
#: Long enough for ``man`` to format a large page (bash(1), git-config(1)) on a slow runner.
TIMEOUT_SECONDS = 20
#: ``--help`` of a program that waits or misbehaves is not worth more than this.
HELP_TIMEOUT_SECONDS = 5
#: Subcommand pages (``git-commit(1)``) are tabled as ``git commit`` for these programs.
SUBCOMMAND_PAGES = ("git",)
#: Programs whose global options are listed by a command of their own rather than ``--help``.
HELP_COMMANDS = {"kubectl": ("options",), "npm": ("help", "config")}
#: Programs documented in a page of another name.
PAGES = {"perl": "perlrun"}
#: Subcommands whose ``PROGRAM SUB --help`` is tabled as ``PROGRAM SUB`` (no page of their own):
#: the ones CI workflows and agent sessions run.
SUBCOMMAND_HELP: dict[str, tuple[str, ...]] = {
    "docker": (
        "run", "exec", "build", "create", "cp", "pull", "push", "login", "images", "ps", "logs", "inspect",
        "rm", "rmi", "start", "stop", "restart", "tag", "save", "load", "commit", "import", "export", "kill",
    ),
    "kubectl": (
        "get", "describe", "apply", "delete", "create", "exec", "logs", "port-forward", "run", "cp", "edit",
        "patch", "rollout", "scale", "config", "auth", "proxy", "debug", "attach", "top", "label", "annotate",
        "expose", "wait", "diff", "kustomize",
    ),
    "pip": (
        "install", "download", "wheel", "uninstall", "list", "show", "freeze", "config", "index", "cache",
        "hash", "check", "inspect",
    ),
    "cargo": (
        "build", "test", "run", "check", "clippy", "doc", "install", "publish", "fetch", "update", "add",
        "remove", "new", "init", "bench", "fmt", "metadata", "tree", "package", "vendor", "login",
    ),
}  # fmt: skip
#: Where tools installed outside the system's directories live on a maintainer's machine (rustup's
#: cargo and rustc, the project's virtual environment with pytest, ruff, mypy, rg): read-only
#: ``--help`` runs of the programs the analysis tables, never of a workspace's files.
TOOL_DIRS = (str(Path.home() / ".cargo" / "bin"), str(Path(sys.executable).parent))


def _environment(home: str) -> dict[str, str]:
    return {
        # the installed programs and TOOL_DIRS, nothing from a workspace
        "PATH": ":".join(("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", *TOOL_DIRS)),
        "HOME": home,  # a temporary one: no rc file of the operator's is read
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",  # English documentation, stable formatting
        "MANWIDTH": "200",  # an option's header on one line
        "MANPAGER": "cat",
        "PAGER": "cat",  # man prints instead of paging
        "TERM": "dumb",
        "NO_COLOR": "1",  # no escape sequences
    }


def _run(argv: list[str], env: dict[str, str], cwd: str, timeout: int) -> str | None:
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).decode("utf-8", "replace").replace(cwd, "~")  # defaults under HOME
    return re.sub(r".\x08", "", text)


def _package(path: str, env: dict[str, str], cwd: str) -> tuple[str, str]:
    """The Debian package that ships ``path`` and its version (``("", "")`` when none does)."""
    owner = _run(["dpkg-query", "-S", os.path.realpath(path)], env, cwd, TIMEOUT_SECONDS) or ""
    if ":" not in owner or "no path found" in owner:
        owner = _run(["dpkg-query", "-S", path], env, cwd, TIMEOUT_SECONDS) or ""
    if ":" not in owner or "no path found" in owner:
        return "", ""
    package = owner.split(":", 1)[0].split(",")[0].strip()
    version = _run(["dpkg-query", "-W", "-f=${Version}", package], env, cwd, TIMEOUT_SECONDS) or ""
    return package, version.strip()


def document(program: str, env: dict[str, str], cwd: str) -> tuple[dict[str, Any], list[DocOption]]:
    """Where ``program``'s documentation comes from, and its options."""
    page_name = PAGES.get(program, program.replace(" ", "-"))
    where = _run(["man", "-w", page_name], env, cwd, TIMEOUT_SECONDS)
    if where and where.strip().startswith("/") and "\n" not in where.strip():
        path = where.strip()
        text = _run(["man", "-P", "cat", page_name], env, cwd, TIMEOUT_SECONDS) or ""
        package, version = _package(path, env, cwd)
        return {"source": "man", "page": path, "package": package, "version": version}, parse_manual(text)
    base, _, sub = program.partition(" ")
    binary = shutil.which(base, path=env["PATH"]) if not sub or base in SUBCOMMAND_HELP else None
    if binary is not None:
        arguments = (sub, "--help") if sub else HELP_COMMANDS.get(program, ("--help",))
        text = _run([binary, *arguments], env, cwd, HELP_TIMEOUT_SECONDS) or ""
        if text.lstrip().lower().startswith("error"):
            return {"source": "none"}, []  # a shim with nothing behind it (rustup without a toolchain)
        package, version = _package(binary, env, cwd)
        if not version:
            first = (_run([binary, "--version"], env, cwd, HELP_TIMEOUT_SECONDS) or "").strip().splitlines()
            version = first[0][:80] if first else ""
        return {"source": "help", "binary": binary, "package": package, "version": version}, parse_help(text)
    return {"source": "none"}, []


def subcommands(program: str, env: dict[str, str], cwd: str) -> list[str]:
    """``git commit``, ``git log``…: the subcommand pages installed for ``program``."""
    found: set[str] = set()
    for directory in ("/usr/share/man/man1",):
        for entry in os.listdir(directory) if os.path.isdir(directory) else ():
            match = re.match(rf"^{re.escape(program)}-([a-z][a-z0-9-]*)\.1(?:\.gz)?$", entry)
            if match:
                found.add(f"{program} {match.group(1)}")
    return sorted(found)


def build(programs: list[str]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="option-table-") as home:
        env = _environment(home)
        names = list(programs)
        for program in SUBCOMMAND_PAGES:
            if program in programs:
                names.extend(subcommands(program, env, home))
        for program, subs in SUBCOMMAND_HELP.items():
            if program in programs:
                names.extend(f"{program} {sub}" for sub in subs)
        for program in names:
            meta, found = document(program, env, home)
            entries: dict[str, Any] = {}
            for option in found:
                for name in option.names:
                    if name in entries:
                        continue
                    kind, why = classify(program, name, option.value, option.description)
                    entries[name] = {"value": option.value, "class": kind, "why": why}
                    if option.optional:
                        entries[name]["optional"] = True
            for name, kind in overrides().get(program, {}).items():
                if name not in entries:  # reviewed, but not in the documentation installed here
                    entries[name] = {"value": "VALUE", "class": kind, "why": "overrides.json (undocumented here)"}
            table[program] = {**meta, "options": dict(sorted(entries.items()))}
    return table


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed, one line each, for the maintainer re-running the generator."""
    lines: list[str] = []
    for program in sorted(set(old) | set(new)):
        before = old.get(program, {})
        after = new.get(program, {})
        if before.get("version") != after.get("version"):
            lines.append(
                f"{program}: {before.get('version') or before.get('source')} -> "
                f"{after.get('version') or after.get('source')}"
            )
        old_options = before.get("options", {})
        new_options = after.get("options", {})
        for name in sorted(set(old_options) | set(new_options)):
            a, b = old_options.get(name), new_options.get(name)
            if a is None:
                lines.append(f"{program} {name}: new, {b['class']}")
            elif b is None:
                lines.append(f"{program} {name}: no longer documented (was {a['class']})")
            elif a["class"] != b["class"] or a["value"] != b["value"]:
                lines.append(f"{program} {name}: {a['class']} -> {b['class']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--programs", action="store_true", help="rewrite programs.json first")
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if the table would change")
    parser.add_argument("--root", type=Path, default=HERE.parents[3], help="the repository (for --programs)")
    parser.add_argument("--only", nargs="+", metavar="PROGRAM", help="rebuild these entries, keep the others")
    args = parser.parse_args(argv)
    if args.programs:
        from bot.shell.programs.options.programs import collect

        collected = collect(args.root)
        PROGRAMS.write_text(json.dumps(collected, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(collected)} programs -> {PROGRAMS}")
    programs = list(json.loads(PROGRAMS.read_text(encoding="utf-8")))
    old = json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.exists() else {}
    if args.only:
        wanted = set(args.only)
        rebuilt = build([p for p in programs if p in wanted])
        keep = {k: v for k, v in old.items() if k not in wanted and k.split(" ", 1)[0] not in wanted}
        new = dict(sorted({**keep, **rebuilt}.items()))
    else:
        new = build(programs)
    changes = diff(old, new)
    for line in changes:
        print(line)
    documented = sum(1 for entry in new.values() if entry["source"] != "none")
    options = sum(len(entry["options"]) for entry in new.values())
    print(f"{documented}/{len(new)} programs documented, {options} options, {len(changes)} changes")
    if args.check:
        return 1 if changes else 0
    TABLE.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
