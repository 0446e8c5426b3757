"""Environment assignments in front of a command (seeds 4.6.2 step 3).

``NODE_ENV=prod npm run build`` is stripped to ``npm run build`` before matching rules, because
``NODE_ENV`` cannot change what ``npm`` executes. ``LD_PRELOAD=evil.so curl ...`` is not: such an
assignment keeps the command from matching any allow rule that does not spell it out.
"""

from __future__ import annotations

import re

#: The seeds' 32 variables known not to change which code runs (Claude Code's ``SAFE_ENV_VARS``,
#: with ``CI`` in place of an API-key variable: secrets never belong on a command line).
SAFE_ENV_VARS = frozenset(
    {
        # Go
        "GOEXPERIMENT",
        "GOOS",
        "GOARCH",
        "CGO_ENABLED",
        "GO111MODULE",
        # Rust
        "RUST_BACKTRACE",
        "RUST_LOG",
        # Node
        "NODE_ENV",
        # Python / pytest
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        "PYTEST_DEBUG",
        # CI marker
        "CI",
        # locale
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_TIME",
        "CHARSET",
        # terminal and colours
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "FORCE_COLOR",
        "TZ",
        "LS_COLORS",
        "LSCOLORS",
        "GREP_COLOR",
        "GREP_COLORS",
        "GCC_COLORS",
        # output format
        "TIME_STYLE",
        "BLOCK_SIZE",
        "BLOCKSIZE",
    }
)
assert len(SAFE_ENV_VARS) == 32


#: Beyond the seeds: a program's own colour switch (``CARGO_TERM_COLOR``, ``PY_COLORS``,
#: ``MYPY_FORCE_COLOR``, ``RICHGO_FORCE_COLOR``, ``CLICOLOR_FORCE``), which CI steps set before
#: nearly every build. Such a variable chooses whether output is coloured; no program reads one as
#: a program, a path or code. A ``$(…)`` in its value is judged as a command all the same.
_COLOUR_SWITCH = re.compile(r"^(?:[A-Z][A-Z0-9]*_)*(?:FORCE_)?(?:COLOU?RS?|CLICOLOR(?:_FORCE)?)$")


def is_safe_env_var(name: str) -> bool:
    return name in SAFE_ENV_VARS or _COLOUR_SWITCH.match(name) is not None


#: Variables that name the application's environment (``RAILS_ENV=test bundle exec rspec``): like
#: ``NODE_ENV``, they pick among the workspace's own configurations, but some frameworks load a
#: file by that name (``config/environments/$RAILS_ENV.rb``), so only a plain name is safe: a
#: value with a ``/`` or ``..`` could load a file from anywhere.
ENVIRONMENT_NAME_VARS = frozenset({"RAILS_ENV", "RACK_ENV", "MIX_ENV", "APP_ENV"})
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


#: ``DEBUG=1``, ``DEBUG=app:*``: a switch for the program's own logging or debug output.
_DEBUG_VALUE = re.compile(r"^[A-Za-z0-9_.:*,-]{1,64}$")


def is_safe_assignment(name: str, value: str, dynamic: bool = False) -> bool:
    """Is ``NAME=value`` in front of a command known not to change what it runs?"""
    if is_safe_env_var(name):
        return True
    if dynamic:
        return False
    if name == "DEBUG":
        return _DEBUG_VALUE.match(value) is not None
    return name in ENVIRONMENT_NAME_VARS and _PLAIN_NAME.match(value) is not None
