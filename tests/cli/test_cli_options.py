"""The command line explains itself: every option of every command has help text, `--version`
prints the package's version, and a preset is spelled `--policy NAME` everywhere."""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from bot.cli import app

runner = CliRunner()


def _commands(command: Any, path: str = "bot") -> list[tuple[str, Any]]:
    # Typer ships its own copy of click: the tree is walked by attribute, not by click's classes.
    found = [(path, command)]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        found.extend(_commands(sub, f"{path} {name}"))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def test_the_tree_holds_every_subcommand() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {"bot run", "bot policy show", "bot policy check", "bot tools call", "bot mcp list"} <= paths


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_visible_option_has_help(path: str, command: Any) -> None:
    options = [p for p in command.params if p.param_type_name == "option"]
    lacking = ["/".join(p.opts) for p in options if not p.hidden and not (p.help or "").strip()]
    assert lacking == [], f"{path}: options without help: {', '.join(lacking)}"


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"bot {version('headless-bot')}"


@pytest.mark.parametrize("spelling", [["--policy", "maintenance"], ["--preset", "maintenance"]])
def test_policy_show_takes_a_preset_as_policy_name_and_the_old_preset_spelling(spelling: list[str]) -> None:
    result = runner.invoke(app, ["policy", "show", *spelling, "--json"])
    assert result.exit_code == 0, result.output
    files = json.loads(result.stdout)["files"]
    assert {"source": "preset", "file": "bot/_presets/maintenance.json"} in files


def test_the_old_preset_spelling_is_not_advertised() -> None:
    for sub in ("show", "check"):
        result = runner.invoke(app, ["policy", sub, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        assert "--preset" not in result.stdout
        assert "--policy" in result.stdout


def test_policy_check_takes_a_preset_name_as_policy() -> None:
    result = runner.invoke(app, ["policy", "check", "Bash", '{"command": "rm -rf /"}', "--policy", "fix", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["decision"] == "deny"


@pytest.mark.parametrize(
    "args",
    [
        *([*path.split()[1:], "--help"] for path, _ in COMMANDS if path != "bot"),
        ["tools", "call"],
        ["run", "--bogus"],
        ["policy", "nope"],
        ["tools", "list", "--json", "--bogus"],
        ["tools", "list", "--json"],
    ],
    ids=lambda args: " ".join(args),
)
def test_a_command_line_parses_as_in_the_whole_tree_with_only_its_group_built(args: list[str]) -> None:
    """``bot GROUP …`` builds that group alone (bot.cli.app_for: typer builds every command's
    parameters before parsing): help, results and usage errors are the whole tree's."""
    from bot.cli import app_for

    narrowed = app_for(args)
    assert narrowed is not app and [g.name for g in narrowed.registered_groups] == [args[0]]
    whole, alone = runner.invoke(app, args), runner.invoke(narrowed, args)
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["nope"], ["-x"]])
def test_the_root_options_and_unknown_names_get_the_whole_tree(args: list[str]) -> None:
    from bot.cli import app_for

    assert app_for(args) is app
