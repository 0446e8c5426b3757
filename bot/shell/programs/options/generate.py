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
import sys
import tempfile
from pathlib import Path
from typing import Any

from bot.shell.programs.options import sources
from bot.shell.programs.options.classify import classify, overrides
from bot.shell.programs.options.manparse import DocOption, parse_config_page, parse_help, parse_manual

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs.json"
TABLE = HERE / "table.json"
#: Subcommand pages (``git-commit(1)``) are tabled as ``git commit`` for these programs.
SUBCOMMAND_PAGES = ("git", "npm")
#: Programs whose global options are listed by a command of their own rather than ``--help``.
HELP_COMMANDS = {"kubectl": ("options",)}
#: Programs documented in a page of another name: npm's global options are its configuration
#: parameters, config(7) in npm's own pages.
PAGES = {"perl": "perlrun", "npm": "config"}
#: Programs whose pages list options as configuration parameters (``registry``, ``Type: URL``)
#: rather than option tags (:func:`~bot.shell.programs.options.manparse.parse_config_page`).
CONFIG_PAGES = ("npm",)
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


def document(
    program: str, env: dict[str, str], cwd: str, man_dir: str | None = None
) -> tuple[dict[str, Any], list[DocOption]]:
    """Where ``program``'s documentation comes from, and its options: its manual page (in
    ``man_dir`` only, for a program that ships its pages there), else its ``--help``."""
    base, _, sub = program.partition(" ")
    man_dir = man_dir or sources.own_man_dir(base, env)
    page_name = PAGES.get(program, program.replace(" ", "-"))
    where_to_look = ["-M", man_dir] if man_dir else []
    where = sources.run(["man", *where_to_look, "-w", page_name], env, cwd, sources.TIMEOUT_SECONDS)
    if where and where.strip().startswith("/") and "\n" not in where.strip():
        path = where.strip()
        text = sources.run(["man", *where_to_look, "-P", "cat", page_name], env, cwd, sources.TIMEOUT_SECONDS) or ""
        package, version = sources.package(path, env, cwd)
        found = parse_config_page(text) if base in CONFIG_PAGES else parse_manual(text)
        return {"source": "man", "page": path, "package": package, "version": version}, found
    binary = shutil.which(base, path=env["PATH"]) if not sub or base in SUBCOMMAND_HELP else None
    if binary is not None:
        arguments = (sub, "--help") if sub else HELP_COMMANDS.get(program, ("--help",))
        text = sources.run([binary, *arguments], env, cwd, sources.HELP_TIMEOUT_SECONDS) or ""
        if text.lstrip().lower().startswith("error"):
            return {"source": "none"}, []  # a shim with nothing behind it (rustup without a toolchain)
        package, version = sources.package(binary, env, cwd)
        if not version:
            first = (sources.run([binary, "--version"], env, cwd, sources.HELP_TIMEOUT_SECONDS) or "").strip()
            version = first.splitlines()[0][:80] if first else ""
        return {"source": "help", "binary": binary, "package": package, "version": version}, parse_help(text)
    return {"source": "none"}, []


def subcommands(program: str, env: dict[str, str]) -> list[str]:
    """``git commit``, ``npm install``…: the subcommand pages installed for ``program``."""
    found: set[str] = set()
    directory = os.path.join(sources.own_man_dir(program, env) or "/usr/share/man", "man1")
    for entry in os.listdir(directory) if os.path.isdir(directory) else ():
        match = re.match(rf"^{re.escape(program)}-([a-z][a-z0-9-]*)\.1(?:\.gz)?$", entry)
        if match:
            found.add(f"{program} {match.group(1)}")
    return sorted(found)


def build(programs: list[str], tool_dirs: tuple[str, ...] = ()) -> dict[str, Any]:
    table: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="option-table-") as home:
        env = sources.environment(home, tool_dirs)
        names = list(programs)
        for program in SUBCOMMAND_PAGES:
            if program in programs:
                names.extend(subcommands(program, env))
        for program, subs in SUBCOMMAND_HELP.items():
            if program in programs:
                names.extend(f"{program} {sub}" for sub in subs)
        for program in dict.fromkeys(names):
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
    parser.add_argument(
        "--tool-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="also look for programs here (a scratch venv's bin/, node_modules/.bin); repeatable",
    )
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
        rebuilt = build([p for p in programs if p in wanted], tuple(args.tool_dir))
        keep = {k: v for k, v in old.items() if k not in wanted and k.split(" ", 1)[0] not in wanted}
        new = dict(sorted({**keep, **rebuilt}.items()))
    else:
        new = build(programs, tuple(args.tool_dir))
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
