"""Which commands a rule for a project-environment runner approves: ``Bash(uv run:*)`` and
``uv run pytest -q``.

:mod:`bot.shell.launch.wrappers` keeps a prefix rule for a launcher from approving what it launches
(``Bash(timeout:*)`` never approves ``timeout 5 rm -rf x``). A runner of the project's environment
(``uv run``, ``poetry run``, ``bundle exec``) is the exception users write rules for: it puts the
project's tools on ``PATH`` and runs one, so ``Bash(uv run:*)`` means "the project's tools through
uv". It approves a launched command when that command is one of the project's test, lint, type,
format and build tools (:data:`PROJECT_TOOLS`), judged in full as under its own ``Bash(tool:*)``
rule, and the runner's own words choose nothing but the environment (:data:`RUNNER_OPTIONS`: no
``--with`` package, no ``--index``, no ``--env-file``). Anything else through the runner — a network
client, a shell, a script by path, ``rm`` — still needs a rule that spells it out.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Runners that put the project's environment on ``PATH`` and run a command in it, and nothing
#: more: ``pipenv run`` is not one (it loads ``.env`` into the command's environment, past a
#: ``Read(.env)`` deny rule), nor are runners whose defaults were not checked (``pdm``, ``rye``).
ENV_RUNNERS = frozenset(
    {
        ("uv", "run"),
        ("poetry", "run"),
        ("bundle", "exec"),
    }
)

#: The project's own checkers and test runners: they run the project's code and configuration,
#: which the workspace holds anyway, and none of them launches other commands, publishes, serves or
#: fetches. Left out on purpose: ``tox``/``nox`` (``tox exec -- CMD``), ``coverage`` but for
#: ``coverage run -m TOOL`` and its reports (``coverage run -m ANY`` runs any code), ``rake``
#: (``-g`` loads rakefiles from home), ``mkdocs`` (``gh-deploy`` pushes, ``serve`` listens),
#: ``maturin`` (``publish``), ``sphinx-build`` (``linkcheck``), ``alembic`` (databases),
#: ``jekyll``, ``cucumber --publish``. An interpreter counts only as ``python -m
#: TOOL`` (``python gtfo.py`` runs whatever was written).
PROJECT_TOOLS = frozenset(
    {
        # Python
        "pytest",
        "py.test",
        "ruff",
        "mypy",
        "pyright",
        "black",
        "isort",
        "flake8",
        "pylint",
        "bandit",
        "pydocstyle",
        "pycodestyle",
        "pyflakes",
        "vulture",
        # Ruby
        "rspec",
        "rubocop",
        "standardrb",
        "minitest",
    }
)

#: Runner options that choose among the project's own environments, with their value when they
#: take one; any other option (a package, an index, a file of variables, another directory) needs
#: a rule that spells it out.
RUNNER_OPTIONS: dict[str, bool] = {
    "--frozen": False,
    "--locked": False,
    "--no-sync": False,
    "--offline": False,
    "-q": False,
    "--quiet": False,
    "--dev": False,
    "--no-dev": False,
    "--only-dev": False,
    "--all-extras": False,
    "--all-groups": False,
    "--group": True,
    "--extra": True,
    "--only-group": True,
}


_INTERPRETERS = frozenset({"python", "python3"})


def runs_project_tool(outer: Sequence[str], inner_start: int, inner: Sequence[str]) -> bool:
    """``outer`` is the runner layer's words, ``inner_start`` where the launched command
    (``inner``, its words) starts."""
    if tuple(outer[:2]) not in ENV_RUNNERS or not inner:
        return False
    tool = inner[0]
    if tool in _INTERPRETERS and len(inner) > 2 and inner[1] == "-m":
        tool = inner[2]
    if tool == "coverage" and not _coverage_of_a_tool(inner):
        return False
    if tool not in PROJECT_TOOLS and tool != "coverage":
        return False
    k = 2
    while k < inner_start:
        name, eq, _ = outer[k].partition("=")
        if name not in RUNNER_OPTIONS:
            return False
        k += 2 if RUNNER_OPTIONS[name] and not eq else 1
    return k == inner_start


#: ``coverage`` subcommands that read its data file and report (writes go through the path checks).
_COVERAGE_REPORTS = frozenset({"report", "xml", "html", "json", "lcov", "combine", "erase", "debug"})


def _coverage_of_a_tool(inner: Sequence[str]) -> bool:
    """``coverage run -m pytest``, ``coverage report``: coverage of a project tool, or its report;
    not ``coverage run -m ANY`` or ``coverage run script.py``, which run any code."""
    if len(inner) < 2:
        return False
    if inner[1] in _COVERAGE_REPORTS:
        return True
    if inner[1] != "run":
        return False
    for k in range(2, len(inner) - 1):
        word = inner[k]
        if word == "-m":
            return inner[k + 1] in PROJECT_TOOLS
        attached = word.startswith("--") and "=" in word  # `--source=src`: its value in the word
        if not attached and word not in ("--branch", "--parallel-mode", "-p"):
            return False  # an option whose value may be the next word, or a script
    return False
