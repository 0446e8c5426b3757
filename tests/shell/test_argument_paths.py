"""Arguments of programs without a path extractor (``bot.shell.paths.fallback``): any word that
resolves into ``.git/`` or ``.github/workflows/`` is a protected write, one outside is outside, the
rest adds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.permissions.decision import Allow, Deny
from bot.shell.parse.syntax import literal
from bot.shell.paths.fallback import path_like_arguments
from bot.shell.paths.resolve import check_path, path_policy
from tests.shell.conftest import Check


#: The judge still runs these only when the command's text holds ``/``, ``~`` or ``..``: relative
#: words such as ``.git`` and ``link_to_home`` are checked once it runs them for every command.
def _candidates(argv: list[str], known: frozenset[int] = frozenset()) -> list[tuple[str, str]]:
    return [(u.value, u.access) for u in path_like_arguments([literal(a) for a in argv], set(known))]


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("a relative operand", ["pytest", "tests/"], [("tests/", "argument")]),
        ("--opt=value", ["pytest", "--basetemp=.git"], [(".git", "argument")]),
        ("a bare option adds nothing", ["pytest", "-q", "--lf"], []),
        (
            "a separate option value is a word like any",
            ["go", "test", "-c", "-o", ".git/hooks/x"],
            [("test", "argument"), (".git/hooks/x", "argument")],
        ),
        (
            "Go's single-dash -opt=value",
            ["go", "test", "-coverprofile=.git/config"],
            [("test", "argument"), (".git/config", "argument")],
        ),
        (
            "nested option values",
            ["go", "test", "-ldflags=-extldflags=-fuse-ld=/tmp/evil"],
            [("test", "argument"), ("/tmp/evil", "argument")],
        ),
        (
            "a value attached to a short option",
            ["cc", "-o.git/x", "-I/usr/include"],
            [(".git/x", "argument"), ("/usr/include", "argument")],
        ),
        ("a value attached to a bundle", ["tool", "-Dt.git/hooks"], [(".git/hooks", "argument")]),
        ("-O2 is no path", ["cc", "-O2", "-Wall"], []),
        ("NAME=value", ["make", "test", "PYTHON=/tmp/evil"], [("test", "argument"), ("/tmp/evil", "argument")]),
        ("key=value inside an option", ["pytest", "-o", "cache_dir=.git/hooks"], [(".git/hooks", "argument")]),
        ("key=value inside --opt=", ["pytest", "--override-ini=cache_dir=.git"], [(".git", "argument")]),
        (
            "a key=value list",
            ["docker", "run", "--mount", "type=bind,src=/,dst=/host", "alpine"],
            [
                ("run", "argument"),
                ("bind", "argument"),
                ("/", "argument"),
                ("/host", "argument"),
                ("alpine", "argument"),
            ],
        ),
        (
            "host:container mounts",
            ["docker", "run", "-v/:/host", "alpine"],
            [("run", "argument"), ("/", "argument"), ("alpine", "argument")],
        ),
        (
            "URLs are skipped",
            ["git", "clone", "https://example.com/x.git", "x"],
            [("clone", "argument"), ("x", "argument")],
        ),
        ("run-time values are skipped", ["pytest", "\ue000"], []),
        ("known positions are skipped", ["pytest", "a", "b"], [("b", "argument")]),
        (
            "an exclusion's value is only read",
            ["flake8", "--exclude=.git,build", "."],
            [(".git,build", "read"), (".", "argument")],
        ),
        (
            "an exclusion's separate value",
            ["black", "--extend-exclude", ".git", "."],
            [(".git", "read"), (".", "argument")],
        ),
        (
            "git diff pathspecs are only read",
            ["git", "diff", "--", ".github/workflows/ci.yml"],
            [("diff", "argument"), (".github/workflows/ci.yml", "read")],
        ),
        (
            "git add pathspecs are only read",
            ["git", "-C", ".", "add", ".github/workflows/ci.yml"],
            [("add", "argument"), (".github/workflows/ci.yml", "read")],
        ),
        (
            "where git runs is the judge's; -c values are words",
            ["git", "--git-dir=.git", "--work-tree", ".", "-c", "a.b=.git", "status"],
            [(".git", "argument"), ("status", "argument")],
        ),
        (
            "git log --output's value is written",
            ["git", "log", "--output", ".git/hooks/x"],
            [("log", "argument"), (".git/hooks/x", "argument")],
        ),
        (
            "git format-patch writes",
            ["git", "format-patch", "--output-directory=.git/hooks"],
            [("format-patch", "argument"), (".git/hooks", "argument")],
        ),
        (
            "an unknown git global option: no command is trusted",
            ["git", "--weird", "diff", ".git"],
            [("diff", "argument"), (".git", "argument")],
        ),
    ],
)
def test_words_that_could_be_paths(description: str, argv: list[str], expected: list[tuple[str, str]]) -> None:
    known = frozenset({1}) if description == "known positions are skipped" else frozenset()
    assert _candidates(argv, known) == expected, description


@pytest.mark.parametrize(
    ("description", "argv", "kinds"),
    [
        ("pytest deleting .git", ["pytest", "--basetemp=.git"], {"protected"}),
        ("a report into a hook", ["pytest", "--junitxml=.git/hooks/pre-commit"], {"protected"}),
        ("a workflow written by a linter", ["ruff", "check", "-o", ".github/workflows/x.yml"], {"ok", "protected"}),
        ("tests collected through a link out", ["pytest", "link_to_home/"], {"outside"}),
        ("a make variable pointing outside", ["make", "test", "PYTHON=/tmp/evil"], {"ok", "outside"}),
        ("ordinary arguments", ["pytest", "-q", "tests/", "-k", "smoke"], {"ok"}),
        ("go packages", ["go", "test", "./...", "-run=TestX"], {"ok"}),
        ("npm scripts", ["npm", "run", "build", "--if-present"], {"ok"}),
        ("flake8 leaving .git out", ["flake8", "--exclude=.git,__pycache__", "."], {"ok"}),
        ("reviewing a workflow change", ["git", "diff", "origin/main", "--", ".github/workflows/ci.yml"], {"ok"}),
    ],
)
def test_what_the_arguments_resolve_to(ws: Path, description: str, argv: list[str], kinds: set[str]) -> None:
    policy = path_policy((str(ws),), "/root", False, False)
    uses = path_like_arguments([literal(a) for a in argv], set())
    assert {check_path(u.value, str(ws), u.access, policy).kind for u in uses} == kinds, description


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("a report into .git", "pytest --junitxml=.git/hooks/pre-commit", ["Bash(pytest:*)", "Edit"]),
        ("a report into the workflows", "pytest --junit-xml=.github/workflows/x.yml", ["Bash(pytest:*)", "Edit"]),
        ("a cache dir into .git", "pytest -o cache_dir=.git/hooks", ["Bash(pytest:*)", "Edit"]),
        ("a Go test binary as a hook", "go test -c -o .git/hooks/pre-commit ./...", ["Bash(go test:*)", "Edit"]),
        ("a cover profile over the config", "go test -coverprofile=.git/config ./...", ["Bash(go test:*)", "Edit"]),
        ("ruff output into the workflows", "ruff check -o .github/workflows/x.yml", ["Bash(ruff check:*)", "Edit"]),
        ("mypy report into a hook", "mypy --junit-xml=.git/hooks/pre-commit src", ["Bash(mypy:*)", "Edit"]),
        ("format-patch into hooks", "git format-patch --output-directory=.git/hooks -1", ["Bash(git format-patch:*)"]),
        ("git bundle into hooks", "git bundle create .git/hooks/pre-commit HEAD", ["Bash(git bundle:*)"]),
        ("a worktree inside .git", "git worktree add -b x .git/hooks/w", ["Bash(git worktree:*)"]),
        ("tests through a link out", "pytest link_to_home/", ["Bash(pytest:*)"]),
        ("a make variable outside", "make test PYTHON=/tmp/evil", ["Bash(make test:*)"]),
        ("blame contents through a link", "git blame --contents link_to_etc/passwd README.md", ["Bash(git blame *)"]),
        ("a docker mount of the root", "docker run --mount type=bind,src=/,dst=/host alpine", ["Bash(docker run:*)"]),
        pytest.param("pytest deleting .git", "pytest --basetemp=.git", ["Bash(pytest:*)", "Edit"]),
        pytest.param(
            "a pytest cache in .git",
            "python -m pytest -p no:cacheprovider --override-ini=cache_dir=.git",
            ["Bash(python -m pytest:*)", "Edit"],
        ),
        ("cargo installing into .git", "cargo install --root .git x", ["Bash(cargo install:*)"]),
        ("tox working in .git", "tox --workdir .git", ["Bash(tox:*)", "Edit"]),
        (
            "discovering tests through a link",
            "python -m unittest discover -s link_to_home",
            ["Bash(python -m unittest:*)"],
        ),
    ],
)
def test_arguments_of_unknown_programs_are_checked(
    check: Check, description: str, command: str, allow: list[str]
) -> None:
    assert not isinstance(check(command, allow=allow), Allow), description


def test_a_protected_argument_is_a_denial(check: Check) -> None:
    assert isinstance(check("pytest --junitxml=.git/config", allow=["Bash(pytest:*)", "Edit"]), Deny)


@pytest.mark.parametrize(
    ("description", "command", "allow"),
    [
        ("pytest on a directory", "pytest tests/", ["Bash(pytest:*)"]),
        ("go on every package", "go test ./...", ["Bash(go test:*)"]),
        ("make", "make test", ["Bash(make test:*)"]),
        ("npm", "npm run build", ["Bash(npm run:*)"]),
        ("flake8 leaving .git out", "flake8 --exclude=.git,__pycache__,build .", ["Bash(flake8:*)"]),
        ("reviewing a workflow change", "git diff origin/main -- .github/workflows/ci.yml", ["Bash(git diff:*)"]),
        ("staging a workflow", "git add .github/workflows/ci.yml", ["Bash(git add:*)"]),
        ("cmake with definitions", "cmake -B build -DCMAKE_BUILD_TYPE=Release", ["Bash(cmake:*)"]),
        ("a coverage file in the workspace", "go test -coverprofile=coverage.out ./...", ["Bash(go test:*)", "Edit"]),
    ],
)
def test_ordinary_arguments_stay_allowed(check: Check, description: str, command: str, allow: list[str]) -> None:
    assert isinstance(check(command, allow=allow), Allow), description
