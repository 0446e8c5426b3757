"""Checkers that only read their operands: ``actionlint .github/workflows/ci.yml``,
``yamllint .github/``, ``shellcheck scripts/*.sh``, ``yq '.jobs' .github/workflows/ci.yml``.

A program the analysis has no extractor for has every argument checked as a place it may write
(:mod:`bot.shell.paths.fallback`), so linting a workflow is refused as a write into
``.github/workflows/``. The programs here are documented never to write their operands; each has the
options it is read with listed, and **only a command whose every option is listed** is read this
way. Any other option (``yq -i``, ``actionlint -shellcheck CMD``, ``zizmor --fix``, a newer
release's unknown one) makes the command need a rule that spells it out (:func:`checker_facts`),
and so does a ``yq`` expression that reads files or the environment (``load``, ``env``) or writes
(``split_doc`` with ``-s``). Reads still go through the path checks: outside the workspace, or under
a Read deny rule, they are refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from bot.shell.parse.syntax import DYN, Word
from bot.shell.paths.use import PathUse
from bot.shell.programs.facts import NO_FACTS, ProgramFacts


class Checker(NamedTuple):
    #: Options without a value.
    flags: frozenset[str]
    #: Options with a value (``-c FILE``, ``--format=X``); a value that is a file is read.
    values: frozenset[str]
    #: The first operand is an expression, not a file (``yq '.jobs' file``).
    expression_first: bool = False
    #: First words that select a mode without changing what is read (``yq eval``).
    modes: frozenset[str] = frozenset()
    #: Options that name a program, harmless with an empty value, which turns it off
    #: (``actionlint -shellcheck=``).
    off_when_empty: frozenset[str] = frozenset()


def _f(text: str) -> frozenset[str]:
    return frozenset(text.split())


CHECKERS: dict[str, Checker] = {
    # actionlint(1) / `actionlint -h` 1.7: -shellcheck and -pyflakes name programs, -init-config writes.
    "actionlint": Checker(
        _f("-color -no-color -oneline -verbose -debug -version -h -help --help"),
        _f("-format -ignore -config-file -stdin-filename"),
        off_when_empty=_f("-shellcheck -pyflakes"),
    ),
    # yamllint --help 1.3x
    "yamllint": Checker(
        _f("-s --strict --no-warnings -v --version -h --help --list-files"),
        _f("-c --config-file -f --format"),  # -d/--config-data: inline configuration (`extends: /etc/x`)
    ),
    # shellcheck(1) 0.9
    "shellcheck": Checker(
        _f("-a --check-sourced -x --external-sources --norc --list-optional -V --version -h --help --color"),
        _f(
            "-C -S --severity -s --shell -e --exclude -i --include -f --format -o --enable -P --source-path -W "
            "--wiki-link-count --rcfile"
        ),
    ),
    # hadolint --help 2.12
    "hadolint": Checker(
        _f("--no-color --no-fail --strict-labels --disable-ignore-pragma -V --version -h --help --verbose"),
        _f(
            "-f --format -c --config --ignore -t --failure-threshold --trusted-registry --require-label "
            "--error --warning --info --style --file-path-in-report"
        ),
    ),
    # zizmor --help 1.x: --fix writes, --gh-token/--gh-hostname reach the API.
    "zizmor": Checker(
        _f(
            "-p --pedantic -v --verbose -q --quiet -o --offline --no-online-audits --no-progress -h --help -V "
            "--version --no-exit-codes"
        ),
        _f("--format --min-severity --min-confidence --persona --config --color"),
    ),
    # yq: mikefarah's (Go) and the jq wrapper Debian ships; -i/--in-place/--inplace write.
    "yq": Checker(
        _f(
            "-e --exit-status -C --colors -M --no-colors -n --null-input -P --prettyPrint -N --no-doc -r "
            "--unwrapScalar -y --yaml-output -Y --yaml-roundtrip -c --compact-output -S --sort-keys -j --tojson "
            "-R --raw-input -V --version -h --help"
        ),  # not -s: mikefarah's --split-exp writes a file per result
        _f("-o --output-format -p --input-format -I --indent --arg --argjson"),
        expression_first=True,
        modes=_f("e eval ea eval-all"),
    ),
}


def checker_reads(argv: Sequence[Word]) -> list[PathUse] | None:
    """The operands (and option values) ``argv`` reads, or ``None`` when an option is not one the
    program is known to be read with."""
    program = argv[0].value.rsplit("/", 1)[-1]
    checker = CHECKERS.get(program)
    if checker is None:
        return None
    uses: list[PathUse] = []
    k = 1
    if checker.modes and k < len(argv) and argv[k].value in checker.modes:
        k += 1
    expression_pending = checker.expression_first
    options_over = False
    while k < len(argv):
        word = argv[k]
        value = word.value
        if DYN in value:
            return None  # known only at run time
        if not options_over and value == "--":
            options_over = True
        elif not options_over and value.startswith("-") and value != "-":
            name, eq, attached = value.partition("=")
            if name in checker.values:
                if eq:
                    uses.append(PathUse(k, attached, "read", word))
                elif k + 1 < len(argv):
                    k += 1
                    uses.append(PathUse(k, argv[k].value, "read", argv[k]))
            elif value not in checker.flags:
                return None
        elif expression_pending:
            expression_pending = False
        else:
            uses.append(PathUse(k, value, "read", word))
        k += 1
    return uses


#: What a local zizmor input looks like (``.``, ``.github/workflows/``, ``ci.yml``).
_LOCAL_INPUT = re.compile(r"^\.|\.github|\.ya?ml\Z")
#: yq expression words that read a file or the environment, or write.
_YQ_REACHES = re.compile(r"load|env|ENV|split|input_filename|include|import|eval")


def checker_facts(argv: Sequence[Word]) -> ProgramFacts:
    """An option the checker is not known to be read with, or a ``yq`` expression that reaches
    beyond its input, needs a rule that spells it out."""
    program = argv[0].value.rsplit("/", 1)[-1]
    checker = CHECKERS.get(program)
    if checker is None:
        return NO_FACTS
    k = 1
    if checker.modes and k < len(argv) and argv[k].value in checker.modes:
        k += 1
    expression_pending = checker.expression_first
    while k < len(argv):
        value = argv[k].value
        if value == "--":
            break
        if value.startswith("-") and value != "-":
            name, eq, _ = value.partition("=")
            if name in checker.values:
                k += 1 if eq else 2
                continue
            if value not in checker.flags and not (eq and not _ and name in checker.off_when_empty):
                return ProgramFacts(((k, f"{program} {name} is not an option it is known to only read with"),))
        elif expression_pending:
            expression_pending = False
            if _YQ_REACHES.search(value):
                return ProgramFacts(((k, f"{program}'s expression reads files or the environment, or writes"),))
        elif program == "zizmor" and not _LOCAL_INPUT.search(value):
            # `zizmor owner/repo` audits a repository it fetches
            return ProgramFacts(((k, f"zizmor {value}: an input that is not a workflow file or directory here"),))
        k += 1
    return NO_FACTS
