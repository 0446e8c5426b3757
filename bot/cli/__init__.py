"""The command line: parse flags, then call one function. No logic lives here.

Each subcommand group lives in its own module and is registered below.
Exit codes: 0 when the command did its job (a tool call that returned an ``is_error`` result
included), 2 for usage errors (bad flags, bad JSON, a bad rule or config file), 1 otherwise.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from bot.cli.fleet import fleet_app
from bot.cli.mcp import mcp_app
from bot.cli.policy import policy_app
from bot.cli.run import run_app
from bot.cli.tools import tools_app

#: The command groups, in the order ``bot --help`` lists them.
GROUPS: dict[str, typer.Typer] = {
    "tools": tools_app,
    "policy": policy_app,
    "mcp": mcp_app,
    "run": run_app,
    "fleet": fleet_app,
}


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"bot {version('headless-bot')}")
        raise typer.Exit(0)


def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """A headless coding-agent runner for GitHub and CI."""


def build_app(groups: Sequence[str] = tuple(GROUPS)) -> typer.Typer:
    """The command line with these command groups (:data:`app` has them all)."""
    built = typer.Typer(
        name="bot",
        help="A headless coding-agent runner for GitHub and CI.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        # Plain help and usage errors (click's format): Rich's panels cost more to import than the
        # rest of `bot --help` together. Every sub-app says the same, or its help would bring Rich back.
        rich_markup_mode=None,
    )
    built.callback()(_root)
    for name in groups:
        built.add_typer(GROUPS[name], name=name)
    return built


app = build_app()


def app_for(args: Sequence[str]) -> typer.Typer:
    """The command line for ``bot ARGS``: only the group ``ARGS`` names, when it names one. Typer
    builds the click command of every group and command it holds (their parameters from the
    functions' signatures) before parsing, some 20 ms; the named group's alone is a tenth of that.
    The group parses, answers and fails exactly as in the whole tree; anything else (the root's
    own options, ``--help``, a name that is no group) gets the whole tree."""
    return build_app((args[0],)) if args and args[0] in GROUPS else app


#: Pydantic runs every plugin an installed distribution registers on each model it builds (tool
#: inputs, policy files, the SDK's messages); finding them scans every distribution's entry points,
#: about 40 ms of a start-up. The bot installs none, and code that watches what it validates has
#: no business running because a package in the environment asked: off unless the operator sets
#: the variable (to ``""`` to run them all, or to the names to skip).
PYDANTIC_PLUGINS_SWITCH = "PYDANTIC_DISABLE_PLUGINS"


#: New objects the collector lets accumulate before it looks for cycles (Python's default: 700).
#: Start-up makes some 40,000 objects that live until exit (modules, classes, functions, pydantic
#: schemas); at 700 the collector walks them about 90 times while they are made and frees nothing
#: (35 ms of a `bot tools call Read`). At this size a one-shot command runs no collection, and a
#: long run still collects, every 100,000 objects (a few megabytes of garbage at most).
GC_FIRST_GENERATION = 100_000


def main() -> None:
    # Before anything else runs: nothing is imported later from a directory the job named
    # (PYTHONPATH=src is the workspace, which the model writes: bot.core.import_path); the secrets
    # leave os.environ (bot.core.secrets) and the process becomes non-dumpable, so no child reads
    # them from its environment or our /proc/<pid>/environ.
    from bot.core.import_path import confine_import_path
    from bot.core.secrets import capture_process_secrets
    from bot.shell.execute.env import protect_own_environ

    confine_import_path()
    capture_process_secrets()
    protect_own_environ()
    os.environ.setdefault(PYDANTIC_PLUGINS_SWITCH, "__all__")
    gc.set_threshold(GC_FIRST_GENERATION, *gc.get_threshold()[1:])
    try:
        app_for(sys.argv[1:])()
    finally:
        # What is alive now stays alive until the process ends. Frozen, the interpreter's last
        # collections at exit skip it: they took 70-100 ms after a tool call and half a second
        # after a run (the SDK's objects). Files are closed and atexit handlers (temporary
        # directories among them) run as before; only cycles left at exit are not walked.
        gc.freeze()
