"""Package runners: the runner subcommand found past the program's global options; an option the
analysis does not know before it makes the command opaque (red team programs #7)."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from bot.shell.launch.package_runners import runner_subcommand
from tests.shell.conftest import Check

CASES = [
    ("npm --yes exec", "npm --yes exec -- sh -c id", ["Bash(npm:*)"], False),
    ("npm -y exec", "npm -y exec -- sh -c id", ["Bash(npm:*)"], False),
    ("npm --yes true exec", "npm --yes true exec -- sh -c id", ["Bash(npm:*)"], False),
    ("npm -c before exec", "npm -c 'sh -c id' exec", ["Bash(npm:*)"], False),
    ("npm -c before test (only exec reads it)", "npm -c 'id' test", ["Bash(npm:*)"], True),
    (
        "npm: an unknown option before exec",
        "npm --frobnicate exec -- eslint .",
        ["Bash(npm:*)", "Bash(eslint:*)"],
        False,
    ),
    ("pnpm --silent exec", "pnpm --silent exec sh -c id", ["Bash(pnpm:*)"], False),
    ("pnpm --filter VALUE exec", "pnpm --filter x exec sh", ["Bash(pnpm:*)"], False),
    ("pnpm -c exec", "pnpm -c exec 'sh -c id'", ["Bash(pnpm:*)"], False),
    ("yarn --silent exec", "yarn --silent exec sh -c id", ["Bash(yarn:*)"], False),
    ("uv --quiet run", "uv --quiet run sh -c id", ["Bash(uv:*)"], False),
    ("uv --directory VALUE run", "uv --directory . run sh -c id", ["Bash(uv:*)"], False),
    ("poetry -q run", "poetry -q run sh -c id", ["Bash(poetry:*)"], False),
    ("poetry -C VALUE run", "poetry -C . run sh -c id", ["Bash(poetry:*)"], False),
    ("bundle --verbose exec", "bundle --verbose exec sh -c id", ["Bash(bundle:*)"], False),
    ("conda -v run", "conda -v run -n base sh -c id", ["Bash(conda:*)"], False),
    ("pipenv -q run", "pipenv -q run sh -c id", ["Bash(pipenv:*)"], False),
    ("hatch -v run", "hatch -v run sh -c id", ["Bash(hatch:*)"], False),
    ("pdm -v run", "pdm -v run sh -c id", ["Bash(pdm:*)"], False),
    ("npm explore -- CMD", "npm explore lodash -- sh -c id", ["Bash(npm explore:*)"], False),
    ("npm explore starts a shell", "npm explore lodash", ["Bash(npm explore:*)"], False),
    ("npm explore an allowed command", "npm explore lodash -- echo hi", ["Bash(npm explore:*)"], True),
    ("yarn node -e", "yarn node -e 'x'", ["Bash(yarn node:*)"], False),
    ("yarn node a script", "yarn node scripts/build.js", ["Bash(yarn node:*)", "Bash(node:*)"], True),
    ("uv --directory through a link", "uv --directory link_to_home run cat .ssh/id_rsa", ["Bash(cat:*)"], False),
    ("uv run --directory through a link", "uv run --directory link_to_home cat .ssh/id_rsa", ["Bash(cat:*)"], False),
    ("poetry -C outside", "poetry -C /tmp run cat x", ["Bash(cat:*)"], False),
    (
        "npm --prefix then -c",
        "npm --prefix link_to_home exec -c 'cat .ssh/id_rsa'",
        ["Bash(npm:*)", "Bash(cat:*)"],
        False,
    ),
    ("uv --directory in the workspace", "uv --directory src run cat app.py", ["Bash(cat:*)"], True),
    ("npm --silent test", "npm --silent test", ["Bash(npm:*)"], True),
    ("pnpm -r build", "pnpm -r build", ["Bash(pnpm:*)"], True),
    ("uv --quiet run an allowed tool", "uv --quiet run pytest -q", ["Bash(pytest:*)"], True),
    ("poetry -C . run an allowed tool", "poetry -C . run pytest", ["Bash(pytest:*)"], True),
    ("yarn --cwd VALUE build", "yarn --cwd web build", ["Bash(yarn:*)"], True),
    ("npm --version", "npm --version", ["Bash(npm:*)"], True),
    ("npm exec of an allowed tool", "npm exec -- eslint .", ["Bash(eslint:*)"], True),
    # version managers: the command they run is opaque
    ("rustup run", "rustup run stable sh -c id", ["Bash(rustup:*)"], False),
    ("rustup run of an allowed tool", "rustup run stable make test", ["Bash(rustup:*)", "Bash(make test:*)"], False),
    ("rustup run spelled out", "rustup run stable make test", ["Bash(rustup run stable make test)"], True),
    ("rustup -v run", "rustup -v run stable sh -c id", ["Bash(rustup:*)"], False),
    ("rustup: an unknown option before run", "rustup --frob run stable sh -c id", ["Bash(rustup:*)"], False),
    ("rustup target add", "rustup target add wasm32-wasi", ["Bash(rustup:*)"], True),
    ("rustup -V", "rustup -V", ["Bash(rustup:*)"], True),
    ("pyenv exec", "pyenv exec sh -c id", ["Bash(pyenv:*)"], False),
    ("pyenv versions", "pyenv versions", ["Bash(pyenv:*)"], True),
    ("mise x", "mise x node@20 -- sh -c id", ["Bash(mise:*)"], False),
    ("mise install", "mise install", ["Bash(mise:*)"], True),
    ("asdf exec", "asdf exec sh -c id", ["Bash(asdf:*)"], False),
    ("volta run", "volta run --node 20 sh -c id", ["Bash(volta:*)"], False),
    ("pixi run", "pixi run sh -c id", ["Bash(pixi:*)"], False),
    ("opam exec", "opam exec -- sh -c id", ["Bash(opam:*)"], False),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_a_runner_behind_global_options_launches_a_command_judged_on_its_own(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


@pytest.mark.parametrize(
    ("description", "argv", "expected"),
    [
        ("no option", ["npm", "exec", "x"], (1, None)),
        ("a flag", ["npm", "--yes", "exec"], (2, None)),
        ("an option with a value", ["uv", "--directory", ".", "run"], (3, None)),
        ("an attached value", ["npm", "--loglevel=warn", "test"], (2, None)),
        ("a bundle of known letters", ["poetry", "-vvv", "run"], (2, None)),
        ("an unknown option", ["npm", "--frobnicate", "exec"], (None, 1)),
        ("an unknown option with an attached value", ["npm", "--frobnicate=1", "exec"], (2, None)),
        ("options only", ["npm", "--version"], (None, None)),
    ],
)
def test_runner_subcommand(description: str, argv: list[str], expected: tuple[int | None, int | None]) -> None:
    assert runner_subcommand(argv[0], argv) == expected, description
