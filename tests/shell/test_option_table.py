"""The option table covers every program of the list and every option their documentation on this
machine has, each with a class; re-running the generator shows what changed."""

from __future__ import annotations

import json
import tempfile
from typing import Any

import pytest

from bot.shell.programs.flags import _HANDLERS
from bot.shell.programs.options import generate
from bot.shell.programs.options.classes import CLASSES
from bot.shell.programs.options.classify import classify
from bot.shell.programs.options.manparse import parse_help, parse_manual

TABLE: dict[str, Any] = json.loads(generate.TABLE.read_text(encoding="utf-8"))
PROGRAMS: dict[str, list[str]] = json.loads(generate.PROGRAMS.read_text(encoding="utf-8"))
#: The programs the analysis has hand-written option knowledge for: their documentation must be
#: in the table, option for option.
HANDLED = sorted(program for program in _HANDLERS if TABLE.get(program, {}).get("source") in ("man", "help"))


def test_the_list_has_at_least_300_programs_each_with_where_it_came_from() -> None:
    assert len(PROGRAMS) >= 300
    assert all(sources for sources in PROGRAMS.values())
    assert {s.split(":")[0] for sources in PROGRAMS.values() for s in sources} >= {"analysis", "corpus", "ci-survey"}


def test_every_program_of_the_list_has_an_entry_and_every_option_a_class() -> None:
    assert set(PROGRAMS) <= set(TABLE)
    for program, entry in TABLE.items():
        assert entry["source"] in ("man", "help", "none"), program
        if entry["source"] != "none":
            assert "version" in entry, program
        for name, option in entry["options"].items():
            assert option["class"] in CLASSES, (program, name)
            assert option["why"], (program, name)


def test_the_analysis_programs_are_documented_here() -> None:
    assert len(HANDLED) >= 40, HANDLED


@pytest.mark.parametrize("program", HANDLED)
def test_every_documented_option_of_a_program_the_analysis_handles_is_classified(program: str) -> None:
    """Fails when the installed documentation has an option the table does not: the package was
    upgraded, or the table was edited by hand. Re-run ``python -m bot.shell.programs.options.generate``."""
    entry = TABLE[program]
    with tempfile.TemporaryDirectory() as home:
        meta, found = generate.document(program, generate.sources.environment(home), home)
    if meta["source"] == "none":
        pytest.skip(f"{program} is not documented on this machine")
    if not entry.get("version"):
        # A page a scratch environment installed without a package (tox's in a venv's share/man):
        # nothing tells whether this machine's documentation is the one the table was made from.
        pytest.skip(f"the table records no version for {program}'s documentation")
    if meta.get("version") != entry.get("version"):
        # Another machine's package: what changed is for the generator's diff to show, not a failure here.
        pytest.skip(
            f"{program}'s documentation is {meta.get('version')}, the table was made from "
            f"{entry.get('version')}: run `python -m bot.shell.programs.options.generate --check` to see the diff"
        )
    documented = {name for option in found for name in option.names}
    missing = sorted(documented - set(entry["options"]))
    assert not missing, f"{program}: documented options the table does not classify: {missing}"


@pytest.mark.parametrize(
    ("description", "program", "name", "value", "text", "expected"),
    [
        ("a command value", "tar", "--to-command", "COMMAND", "Pipe extracted files to COMMAND.", "runs"),
        ("a program value", "sort", "--compress-program", "PROG", "compress temporaries with PROG", "program"),
        ("a config file", "curl", "--config", "<file>", "Specify a text file to read curl arguments from.", "loads"),
        ("a proxy", "pip", "--proxy", "<proxy>", "Specify a proxy in the form scheme://...", "connects"),
        ("an output file", "wget", "--output-file", "logfile", "Log all messages to logfile.", "writes"),
        ("a file read", "grep", "--file", "FILE", "Obtain patterns from FILE, one per line.", "reads"),
        ("a flag is inert whatever its name", "tar", "--exec-flag", "", "Execute things.", "inert"),
        (
            "a timeout is data",
            "curl",
            "--connect-timeout",
            "<fractional seconds>",
            "Maximum time allowed to connect",
            "inert",
        ),
        ("a negation is inert", "git", "--no-pager", "", "Do not pipe Git output into a pager.", "inert"),
        ("the description names the filter", "xyz", "-Z", "ARG", "run ARG as the filter program", "program"),
    ],
)
def test_the_rules_classify_by_name_value_and_description(
    description: str, program: str, name: str, value: str, text: str, expected: str
) -> None:
    assert classify(program, name, value, text)[0] == expected, description


def test_a_rendered_page_and_help_output_are_read_option_by_option() -> None:
    page = (
        "OPTIONS\n       -I, --use-compress-program=COMMAND\n              Filter data through COMMAND.\n\n"
        "       --color[=WHEN]\n              Colorize.\n       -v     Verbose.\n"
    )
    found = parse_manual(page)
    assert found[0].names == ("-I", "--use-compress-program") and found[0].value == "COMMAND"
    assert found[1].names == ("--color",) and found[1].optional
    assert found[2].names == ("-v",) and found[2].value == "" and found[2].description == "Verbose."
    found = parse_help("  -H, --host list      Daemon socket to connect to\n      --tls   Use TLS\n")
    assert found[0].names == ("-H", "--host") and found[0].value == "list"
    assert found[1].names == ("--tls",) and found[1].value == ""
    # kubectl shows a flag with its default, a valued option with its default value
    found = parse_help("    -A, --all-namespaces=false:\n\tList across namespaces.\n    --chunk-size=500:\n\tChunks.\n")
    assert found[0].names == ("-A", "--all-namespaces") and found[0].value == ""
    assert found[1].names == ("--chunk-size",) and found[1].value == "500"


def test_subcommands_without_pages_are_tabled_from_their_help() -> None:
    for program, subs in generate.SUBCOMMAND_HELP.items():
        if TABLE.get(program, {}).get("source") == "none":
            continue  # not installed where the table was made
        assert all(f"{program} {sub}" in TABLE for sub in subs), program
    assert TABLE["docker run"]["options"]["--health-cmd"]["class"] == "runs"
    assert TABLE["pip install"]["options"]["--trusted-host"]["class"] == "connects"


def test_rerunning_the_generator_reports_what_changed() -> None:
    old = {
        "tar": {
            "source": "man",
            "version": "1.34",
            "options": {
                "--to-command": {"value": "COMMAND", "class": "runs", "why": "x"},
                "--old": {"value": "", "class": "inert", "why": "x"},
            },
        }
    }
    new = {
        "tar": {
            "source": "man",
            "version": "1.35",
            "options": {
                "--to-command": {"value": "COMMAND", "class": "runs", "why": "x"},
                "--new-hook": {"value": "CMD", "class": "runs", "why": "x"},
            },
        }
    }
    assert generate.diff(old, new) == [
        "tar: 1.34 -> 1.35",
        "tar --new-hook: new, runs",
        "tar --old: no longer documented (was inert)",
    ]
