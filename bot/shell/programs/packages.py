"""Build tools and package managers: options that run programs or move where they write.

``make --eval``/``-E`` and ``SHELL=``; ``npm --script-shell`` (npm reads abbreviations:
``--script-shel``), ``pnpm --config.KEY``, ``npm config set script-shell`` (options may come
anywhere), ``npm install -g`` (writes outside the workspace); ``pip``/``npm`` install scripts when
the policy forbids them; a package from outside the registry (a URL, a git repository:
:mod:`bot.shell.programs.install_sources`); ``mypy --python-executable``/``--install-types``;
``tox -x``/``--override``. ``go`` and ``cargo`` are in :mod:`bot.shell.programs.toolchains`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.launch.package_runners import runner_subcommand, subcommand_runner
from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.paths.resolve import Access
from bot.shell.programs.facts import NO_FACTS, Explicit, ProgramFacts, facts, path_use, program_name, stdin_code
from bot.shell.programs.getopt import long_name, options
from bot.shell.programs.install_sources import npm_sources, pip_sources
from bot.shell.programs.manifests import package_manager_writes, pip_config_facts, registry_key

_MAKE_SHELL_VARS = frozenset(
    {"SHELL", ".SHELLFLAGS", "MAKESHELL", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "MAKE", "MAKECMDGOALS"}
)
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_.,:/@%+=~-]*$")
_MAKE_PATHS = frozenset({"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"})
_MAKE_VALUE_NAMES = frozenset(
    {
        "--file",
        "--makefile",
        "--directory",
        "--include-dir",
        "--eval",
        "--old-file",
        "--new-file",
        "--what-if",
        "--assume-old",
        "--assume-new",
    }
)
_MAKE_FLAG_NAMES = frozenset(
    {
        "--always-make",
        "--environment-overrides",
        "--ignore-errors",
        "--keep-going",
        "--just-print",
        "--dry-run",
        "--question",
        "--silent",
        "--quiet",
        "--touch",
        "--version",
        "--print-directory",
        "--no-print-directory",
        "--warn-undefined-variables",
        "--trace",
        "--check-symlink-times",
        "--no-builtin-rules",
        "--no-builtin-variables",
        "--print-data-base",
        "--recon",
        "--stop",
        "--no-keep-going",
        "--help",
        "--jobs",
        "--load-average",
        "--output-sync",
        "--debug",
        "--shuffle",
        "--no-silent",
    }
)


def make_facts(argv: Sequence[Word]) -> ProgramFacts:
    explicit: Explicit = []
    paths: list[PathUse] = []
    for option in options(
        [w.value for w in argv], value_letters="CfIoWE", value_names=_MAKE_VALUE_NAMES, known_names=_MAKE_FLAG_NAMES
    ):
        if option.name in ("--eval", "-E"):
            explicit.append((option.at, "make --eval runs make code given on the command line"))
        elif option.name in ("-f", "--file", "--makefile") and (
            option.value in ("-", "/dev/stdin") or str(option.value).startswith("/dev/fd/")
        ):
            # recipes read from stdin: what a rule allowing make with any arguments grants, no narrower one
            return stdin_code(argv, "make reads its makefile from stdin")
        elif option.name in _MAKE_PATHS:
            use = path_use(argv, option.value_index, option.value, "read")
            if use is not None:
                paths.append(use)
        elif not option.name and "=" in option.word:
            var, _, assigned = option.word.partition("=")
            if var.rstrip(":+?") in _MAKE_SHELL_VARS or not _PLAIN_VALUE.match(assigned):
                explicit.append((option.at, f"make variable {var} reaches the shell that runs recipes"))
    return facts(explicit, paths)


_INSTALL_SUBCOMMANDS = frozenset(
    {
        "install",
        "i",
        "ci",
        "add",
        "rebuild",
        "update",
        "up",
        "upgrade",
        "install-test",
        "it",
        "install-ci-test",
        "isntall",
        "link",
        "ln",
    }
)
#: npm configuration that names a program, a configuration file or code to load (npm reads these
#: names only, ``script_shell`` is an unknown key; yarn's are compared without ``-``/``_`` and case:
#: ``scriptShell``, ``yarnPath``).
_NPM_EXEC_KEYS = frozenset(
    {
        "script-shell",
        "shell",
        "editor",
        "browser",
        "git",
        "viewer",
        "node-options",
        "init-module",
        "onload-script",
        "userconfig",
        "globalconfig",
        "node-gyp",
        "python",
        "prefix",
        "cache",
    }
)
_YARN_EXEC_KEYS = frozenset(
    {
        "scriptshell",
        "shell",
        "editor",
        "browser",
        "git",
        "nodeoptions",
        "yarnpath",
        "plugins",
        "injectenvironmentfiles",
        "prefix",
        "cachefolder",
        "globalfolder",
        "python",
        "userconfig",
        "globalconfig",
        "initmodule",
        "nodegyp",
    }
)
#: Options that change the program every script runs with.
_NPM_EXEC_OPTIONS = frozenset(
    {
        "--script-shell",
        "--node-options",
        "--onload-script",
        "--init-module",
        "--node-gyp",
        "--use-yarnrc",
        "--yarn-path",
    }
)
#: Options that name a program only some subcommands run (``npm test --shell=x`` uses no shell).
_NPM_COMMAND_PROGRAMS = {
    "--shell": frozenset({"exec", "x", "explore"}),
    "--editor": frozenset({"edit", "config", "c"}),
    "--browser": frozenset({"docs", "home", "bugs", "issues", "repo", "help", "fund"}),
    "--viewer": frozenset({"help"}),
    "--git": _INSTALL_SUBCOMMANDS | {"version", "publish", "exec", "x"},
}
_NPM_PATHS: dict[str, Access] = {
    "--prefix": "read",
    "-C": "read",
    "--dir": "read",
    "--cwd": "read",
    "--cache": "write",
    "--logs-dir": "write",
    "--cache-folder": "write",
    "--modules-folder": "write",
    "--store-dir": "write",
    "--userconfig": "read",
    "--globalconfig": "read",
}
#: The names abbreviations resolve against (``--global`` is itself, not ``--globalconfig``).
_NPM_NAMES = (
    _NPM_EXEC_OPTIONS
    | frozenset(_NPM_COMMAND_PROGRAMS)
    | frozenset(n for n in _NPM_PATHS if n.startswith("--"))
    | {"--global", "--location"}
)


#: npm's options that name a registry or a proxy (``--@scope:registry=URL`` too), compared whole:
#: npm reads ``--registry`` and ``--https-proxy`` abbreviated no more than other keys.
_NPM_FETCH_OPTIONS = frozenset({"--registry", "--proxy", "--https-proxy", "--http-proxy"})


def _fetches_elsewhere(written: str) -> bool:
    return written in _NPM_FETCH_OPTIONS or (written.startswith("--@") and written.endswith(":registry"))


def _normal_key(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def npm_facts(argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    """``npm``/``pnpm``/``yarn``/``bun``: options that change the program scripts run with, global
    installs, configuration writes, install scripts."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    program = program_name(argv)
    values = [w.value for w in argv]
    n = len(values)
    sub, _ = runner_subcommand(program, values)
    command = values[sub] if sub is not None else None
    installs = command in _INSTALL_SUBCOMMANDS or (program == "yarn" and command is None)
    for k in range(1, n):
        value = values[k]
        if value == "--":
            break  # the rest goes to the script
        written, eq, attached = value.partition("=")
        if written.startswith("--config."):
            explicit.append((k, f"{program} {written} sets configuration that can change which program runs"))
            continue
        if _fetches_elsewhere(written):
            # any subcommand that fetches (`ci`, `rebuild`, `audit fix`, bare `yarn`), not only `install`
            at = k if eq or k + 1 >= n else k + 1
            explicit.append((at, f"{program} {written} fetches packages from, or through, the place it names"))
            continue
        name = long_name(written, _NPM_NAMES) or written
        if name in _NPM_EXEC_OPTIONS:
            explicit.append((k, f"{program} {name} changes the program scripts run with"))
        elif name in _NPM_COMMAND_PROGRAMS:
            if command is None or command in _NPM_COMMAND_PROGRAMS[name]:
                explicit.append((k, f"{program} {name} names a program {program} {command or ''} runs"))
        elif name in _NPM_PATHS:
            target, index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
            access: Access = "write" if installs and name in ("--prefix", "-C", "--dir") else _NPM_PATHS[name]
            use = path_use(argv, index, target, access)
            if use is not None:
                paths.append(use)
        elif installs and (
            name in ("-g", "--global")
            or (name in ("--location", "-L") and "global" in (attached, *values[k + 1 : k + 2]))
        ):
            explicit.append((k, f"{program} {value}: a global install writes outside the workspace"))
    if command in ("config", "set", "c") and sub is not None:
        explicit.extend(_package_config(program, values, sub))
    if sub is not None:
        rewrites, manifests = package_manager_writes(program, argv, sub)
        explicit.extend(rewrites)
        paths.extend(manifests)
    if command in _SPEC_SUBCOMMANDS and sub is not None:
        from_sources, local = npm_sources(argv, values, sub)
        explicit.extend(from_sources)
        paths.extend(local)
    if installs and not install_scripts and "--ignore-scripts" not in values:
        explicit.append(
            (
                n - 1,
                f"{program} install runs package install scripts (the policy does not allow them; "
                "add --ignore-scripts)",
            )
        )
        return ProgramFacts(tuple(explicit), tuple(paths), exact_only=True)
    return facts(explicit, paths)


#: Subcommands whose words are package specs (``npm install <spec>``).
_SPEC_SUBCOMMANDS = frozenset({"install", "i", "add", "isntall", "install-test", "it", "update", "up", "upgrade"})
_CONFIG_VALUE_OPTIONS = frozenset({"-L", "--location", "--userconfig", "--globalconfig", "--workspace", "-w"})


def _package_config(program: str, values: Sequence[str], sub: int) -> Explicit:
    """``npm config set KEY VALUE``/``KEY=VALUE``... (``npm set`` too), options anywhere."""
    positionals: list[int] = []
    k = sub + 1
    while k < len(values):
        value = values[k]
        if value.startswith("-") and value != "-":
            k += 2 if value in _CONFIG_VALUE_OPTIONS else 1
            continue
        positionals.append(k)
        k += 1
    if values[sub] != "set":
        if not positionals:
            return []
        action = values[positionals[0]]
        if action != "set":
            return []
        positionals = positionals[1:]
    found: Explicit = []
    j = 0
    while j < len(positionals):
        at = positionals[j]
        key, eq, _ = values[at].partition("=")
        dangerous = _normal_key(key) in _YARN_EXEC_KEYS if program == "yarn" else key.lower() in _NPM_EXEC_KEYS
        if dangerous:
            found.append((at, f"{program} config {key} changes which program runs"))
        elif registry_key(key):
            found.append((at, f"{program} config {key} changes where later installs fetch from"))
        j += 1 if eq else 2
    return found


def pip_facts(argv: Sequence[Word], sub_at: int, install_scripts: bool = True) -> ProgramFacts:
    """``pip install``/``download``/``wheel``: packages from outside the index, and (when the policy
    forbids install scripts) a build from source."""
    values = [w.value for w in argv]
    if len(values) > sub_at and values[sub_at] == "config":
        return facts(pip_config_facts(argv, sub_at))
    if len(values) <= sub_at or values[sub_at] not in ("install", "download", "wheel"):
        return NO_FACTS
    explicit, paths = pip_sources(argv, values, sub_at)
    if install_scripts or ":all:" in values or "--only-binary=:all:" in values:
        return facts(explicit, paths)
    return ProgramFacts(
        (
            (
                len(argv) - 1,
                "pip install may build packages from source, running their setup code "
                "(the policy does not allow it; add --only-binary :all:)",
            ),
            *explicit,
        ),
        tuple(paths),
        exact_only=True,
    )


def uv_facts(argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    values = [w.value for w in argv]
    program = program_name(argv)
    if program == "uvx":
        return facts(_uv_python(argv, values, len(values), stop_at_positional=True))
    sub, _ = runner_subcommand("uv", values)
    launched = [i.start for i in subcommand_runner(argv)]
    explicit = _uv_python(
        argv, values, min(launched, default=len(values)), password=sub is not None and values[sub] == "publish"
    )
    if sub is not None and sub + 1 < len(argv) and values[sub] == "pip":
        pip = pip_facts(argv, sub + 1, install_scripts)
        if explicit and pip is not NO_FACTS:
            return pip._replace(explicit=(*explicit, *pip.explicit))
        if pip is not NO_FACTS:
            return pip
    paths: list[PathUse] = []
    for k, value in enumerate(values[1 : min(launched, default=len(values))], start=1):
        name, eq, _ = value.partition("=")
        if name in _UV_MIRRORS:
            # an interpreter downloaded from there runs every later `uv run`
            explicit.append((k if eq or k + 1 >= len(values) else k + 1, f"uv {name} downloads Python from elsewhere"))
    if sub is not None and values[sub] in _UV_SOURCED:
        from_sources, paths = pip_sources(argv, values[: min(launched, default=len(values))], sub)
        explicit.extend(from_sources)
    return facts(explicit, paths)


_UV_MIRRORS = frozenset({"--mirror", "--python-install-mirror", "--pypy-install-mirror", "--python-downloads-json-url"})
#: uv commands that resolve packages: their requirements and index options name where from.
_UV_SOURCED = frozenset({"add", "sync", "lock"})


#: A ``--python`` request that names no file: a version, an implementation, a specifier
#: (``3.12``, ``cpython@3.12``, ``pypy3.10``, ``>=3.11,<3.13``). A path (``./evil``, ``~/x``,
#: ``evil/bin/python``) is an interpreter that runs.
_PYTHON_REQUEST = re.compile(r"^[A-Za-z0-9@<>=!~.,*+_ -]*$")


def _uv_python(
    argv: Sequence[Word], values: list[str], stop: int, password: bool = False, stop_at_positional: bool = False
) -> Explicit:
    """uv's ``-p``/``--python`` naming an interpreter file (clap: ``-p X``, ``-pX``, ``-p=X``, in a
    bundle); ``uv publish -p`` is ``--password``. ``stop``: where the command ``uv run`` launches
    starts."""
    found: Explicit = []
    letters = "" if password else "p"
    for option in options(
        values[:stop],
        letters,
        ("--python",),
        ("--python-preference", "--python-platform", "--python-version", "--python-downloads"),
        stop_at_positional=stop_at_positional,
    ):
        if option.name not in ("-p", "--python") or option.value is None:
            continue
        request = option.value.removeprefix("=") if option.name == "-p" else option.value
        if not _PYTHON_REQUEST.match(request) or request.startswith((".", "~")):
            found.append((option.at, f"uv {option.name} {request} runs that file as the Python interpreter"))
    return found


#: Maven goals (``prefix:goal`` or ``group:artifact[:version]:goal``) that run a program or code
#: given on the command line: the exec plugin, antrun, the Groovy plugins, scripting:eval.
_MAVEN_RUNS = frozenset(
    {
        ("exec", "exec"),
        ("exec", "java"),
        ("antrun", "run"),
        ("groovy", "execute"),
        ("gmavenplus", "execute"),
        ("gplus", "execute"),
        ("scripting", "eval"),
    }
)


#: System properties that make maven load an extension jar, or settings, from where they say.
_MAVEN_LOADING_PROPERTIES = frozenset(
    {"maven.ext.class.path", "maven.settings", "org.apache.maven.user-settings", "org.apache.maven.global-settings"}
)


def maven_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``mvn exec:exec -Dexec.executable=git``: a goal of :data:`_MAVEN_RUNS` is explicit (the pom's
    own plugins are the project's, like a Makefile)."""
    explicit: Explicit = []
    for k, word in enumerate(argv[1:], start=1):
        key = word.value[2:].partition("=")[0] if word.value.startswith("-D") else ""
        if key in _MAVEN_LOADING_PROPERTIES:
            explicit.append((k, f"mvn -D{key} loads code or settings from the place it names"))
            continue
        parts = word.value.split(":")
        if word.value.startswith("-") or len(parts) < 2:
            continue
        plugin = parts[0] if len(parts) == 2 else parts[1]
        prefix = plugin.removeprefix("maven-").removesuffix("-plugin").removesuffix("-maven")
        if (prefix, parts[-1]) in _MAVEN_RUNS:
            explicit.append((k, f"the maven goal {word.value} runs a program or code given on the command line"))
    return facts(explicit)


_MYPY_EXEC = frozenset({"--python-executable", "--install-types"})
_MYPY_PATHS: dict[str, Access] = {"--config-file": "read", "--junit-xml": "write", "--cache-dir": "write"}


def mypy_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``mypy --python-executable X`` runs X, ``--install-types`` runs pip (argparse reads
    abbreviations); report options write files."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    n = len(values)
    for k in range(1, n):
        written, eq, attached = values[k].partition("=")
        if not written.startswith("--"):
            continue
        name = long_name(written, _MYPY_EXEC | frozenset(_MYPY_PATHS)) or written
        if name in _MYPY_EXEC:
            explicit.append((k, f"mypy {name} runs another program"))
            continue
        access = _MYPY_PATHS.get(name) or ("write" if name.endswith("-report") else None)
        if access is not None:
            target, index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
            use = path_use(argv, index, target, access)
            if use is not None:
                paths.append(use)
    return facts(explicit, paths)


def tox_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``tox -x KEY=VALUE``/``--override`` changes the configuration (``testenv.commands``)."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    seen_positional = False
    for option in options(
        values,
        value_letters="ecxmfnp",
        value_names={"--override", "--conf", "--workdir", "--root", "--installpkg"},
    ):
        if option.name == "":
            if option.word in ("exec", "e") and not seen_positional and "--" not in values[: option.at]:
                # `tox exec -- CMD` runs CMD in an environment: the rule must spell out what it runs
                explicit.append((option.at, "tox exec runs the command it is given"))
            seen_positional = True
        elif option.name in ("-x", "--override"):
            explicit.append((option.at, "tox --override changes the commands tox runs"))
        elif option.name == "--installpkg" and option.value and "://" in option.value and option.value_index:
            explicit.append((option.value_index, "tox --installpkg URL installs a package from outside the registry"))
        elif option.name in ("-c", "--conf", "--root", "--installpkg"):
            use = path_use(argv, option.value_index, option.value, "read")
            if use is not None:
                paths.append(use)
        elif option.name == "--workdir":
            use = path_use(argv, option.value_index, option.value, "write")
            if use is not None:
                paths.append(use)
    return facts(explicit, paths)
