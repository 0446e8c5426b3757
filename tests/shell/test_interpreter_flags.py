"""Interpreters: inline code found in bundles and after options with values, stdin programs, and the
standard modules that run code given as arguments."""

from __future__ import annotations

import pytest

from bot.permissions.decision import Allow
from tests.shell.conftest import Check

CASES = [
    # python: bundles and options with values (red team programs #3)
    ("python -Ic", "python -Ic 'import os'", ["Bash(python:*)"], False),
    ("python -Sc", "python -Sc 'import os'", ["Bash(python:*)"], False),
    ("python -W VALUE -c", "python -W ignore -c 'import os'", ["Bash(python:*)"], False),
    ("python -X VALUE -c", "python -X dev -c 'import os'", ["Bash(python:*)"], False),
    ("python -c attached after options", "python -X importtime -W error -c1", ["Bash(python:*)"], False),
    ("python -i reads stdin after the script", "python -i x.py", ["Bash(python:*)"], False),
    ("python -W VALUE script", "python -W ignore scripts/check.py", ["Bash(python:*)"], True),
    ("python -u script", "python3 -u scripts/check.py --strict", ["Bash(python3:*)"], True),
    ("python -Im module", "python -Im pytest -q", ["Bash(python:*)"], True),
    ("python --version", "python3 --version", ["Bash(python3:*)"], True),
    ("python -V", "python -V", ["Bash(python:*)"], True),
    # python -m (#6)
    ("-m timeit", "python -m timeit 'import os; os.system(\"id\")'", ["Bash(python:*)"], False),
    ("-m pdb -c", "python -m pdb -c 'import os' x.py", ["Bash(python:*)"], False),
    ("-m code reads stdin", "python -m code", ["Bash(python:*)"], False),
    ("-m runpy of timeit", "python -m runpy timeit 'import os'", ["Bash(python:*)"], False),
    ("-m runpy of a module", "python -m runpy x", ["Bash(python:*)"], True),
    ("-m cProfile -o into .git", "python -m cProfile -o .git/hooks/pre-commit x.py", ["Bash(python:*)"], False),
    ("-m cProfile", "python -m cProfile -s time x.py", ["Bash(python:*)"], True),
    ("-m trace --file into .git", "python -m trace --file=.git/x --count x.py", ["Bash(python:*)"], False),
    ("-m zipfile -e into .git", "python -m zipfile -e p.zip .git/hooks", ["Bash(python:*)"], False),
    ("-m tarfile -e into a folder", "python -m tarfile -e p.tar out", ["Bash(python:*)"], True),
    ("-m http.server -d through a link", "python3 -m http.server -d link_to_home", ["Bash(python3:*)"], False),
    ("-m http.server", "python -m http.server", ["Bash(python:*)"], True),
    (
        "-m unittest discover -s through a link",
        "python -m unittest discover -s link_to_home",
        ["Bash(python -m unittest:*)"],
        False,
    ),
    # node
    ("node -pe", "node -pe 1", ["Bash(node:*)"], False),
    ("node --print", "node --print 1", ["Bash(node:*)"], False),
    (
        "node --import data:",
        "node --import 'data:text/javascript,import(\"child_process\")' app.js",
        ["Bash(node:*)"],
        False,
    ),
    (
        "node --experimental-loader=data:",
        "node --experimental-loader=data:text/javascript,x app.js",
        ["Bash(node:*)"],
        False,
    ),
    ("node -e after an option the analysis does not know", "node --frobnicate x -e 1", ["Bash(node:*)"], False),
    ("node --env-file through a link", "node --env-file=link_to_home/.env app.js", ["Bash(node:*)"], False),
    ("node -r data: (require rejects it)", "node -r data:text/javascript,1 app.js", ["Bash(node:*)"], True),
    ("node -r a workspace module", "node -r ./evil.js app.js", ["Bash(node:*)"], True),
    ("node --run a package script", "node --run test", ["Bash(node:*)"], True),
    ("node with a flag and a script", "node --no-warnings scripts/build.js", ["Bash(node:*)"], True),
    ("node --version", "node --version", ["Bash(node:*)"], True),
    # other interpreters
    ("ruby -ne", "ruby -ne 'print' README.md", ["Bash(ruby:*)"], False),
    ("ruby --disable VALUE -e", "ruby --disable gems -e 1", ["Bash(ruby:*)"], False),
    ("ruby -w script", "ruby -w x.rb", ["Bash(ruby:*)"], True),
    ("perl -lane", "perl -lane 'print' README.md", ["Bash(perl:*)"], False),
    ("php -a reads stdin", "php -a", ["Bash(php:*)"], False),
    ("php -f script", "php -f x.php", ["Bash(php:*)"], True),
    ("pwsh -Com abbreviation", "pwsh -Com 'id'", ["Bash(pwsh:*)"], False),
    ("pwsh -c after a value", "pwsh -ex bypass -c id", ["Bash(pwsh:*)"], False),
    ("pwsh -File", "pwsh -File x.ps1", ["Bash(pwsh:*)"], True),
    ("deno repl reads stdin", "deno repl", ["Bash(deno:*)"], False),
    ("deno run", "deno run x.ts", ["Bash(deno:*)"], True),
    # python -m pytest: pytest-cov TYPE:PATH values (red team round 3, item 8b)
    (
        "python -m pytest --cov-report=lcov into workflows",
        "python -m pytest --cov-report=lcov:.github/workflows/ci.yml",
        ["Bash(python -m pytest:*)"],
        False,
    ),
    (
        "python3 -m pytest --cov-report=html into .git",
        "python3 -m pytest --cov=. --cov-report=html:.git/hooks",
        ["Bash(python3 -m pytest:*)"],
        False,
    ),
    (
        "python -m pytest --cov-report=xml:cov.xml",
        "python -m pytest --cov-report=xml:cov.xml",
        ["Bash(python -m pytest:*)"],
        True,
    ),
]


@pytest.mark.parametrize(("description", "command", "allow", "allowed"), CASES)
def test_inline_code_needs_a_rule_that_spells_it_out(
    check: Check, description: str, command: str, allow: list[str], allowed: bool
) -> None:
    result = check(command, allow=[*allow, "Edit"])
    assert isinstance(result, Allow) is allowed, (description, result)


def test_python_m_pip_follows_the_install_script_policy(check: Check) -> None:
    no_scripts = {"extra": {"bash_install_scripts": False}}
    assert not isinstance(check("python -Im pip install x", allow=["Bash(python:*)"], **no_scripts), Allow)
    assert isinstance(check("python -Im pip install x", allow=["Bash(python:*)"]), Allow)
