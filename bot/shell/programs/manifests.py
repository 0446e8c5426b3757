"""Subcommands that change what a later allowed command runs, and subcommands that fetch a
template and run it.

A project's manifest and its tools' configuration decide what ``npm test``, ``composer test`` or
``pip install`` do next. A subcommand that rewrites them is judged as what it is:

* a write of the manifest (``npm pkg set scripts.test=…``, ``npm set-script``, ``composer config
  scripts.x …``, ``yarn set version``): the same write checks an Edit of that file gets (an Edit
  rule or acceptEdits, and no deny rule on the file), because the model could make the same change
  with the Edit tool — and without that permission it can make neither;
* an explicit word (only a rule that spells it out approves it) when the change points later
  commands at a place or a program the analysis cannot see: a package index or registry
  (``pip config set global.index-url``, ``npm config set registry``, ``poetry source add``), a
  shell alias (``gh alias set x '!…'``), an editor or pager (``gh config set editor``), code
  fetched and loaded (``yarn plugin import URL``, ``gh extension install``);
* template fetchers run a package or a repository's hooks: ``npm init <pkg>``/``npm create``
  run ``create-<pkg>`` from the registry (``yarn``/``pnpm``/``bun create`` the same), and
  ``cookiecutter``/``copier`` run the hooks and tasks of a template that is not a directory of
  the workspace.

Each function takes the argument values and the index of the subcommand, and returns the
explicit words and the paths written.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.use import PathUse
from bot.shell.programs.facts import Explicit, ProgramFacts, facts

#: Where a template or a plugin comes from when it is not a local directory: a URL, an ``scp``-like
#: git address, or a hosting shortcut (``gh:user/repo`` of cookiecutter and copier).
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@|git\+|gh:|gl:|bb:|github:|gitlab:|bitbucket:)", re.I)


def _positionals(values: Sequence[str], start: int, with_value: Collection[str] = ()) -> list[int]:
    """Indexes of the words from ``start`` that are not options (nor an option's separate value)."""
    found: list[int] = []
    k = start
    while k < len(values):
        value = values[k]
        if value == "--":
            found.extend(range(k + 1, len(values)))
            break
        if value.startswith("-") and value != "-":
            k += 2 if value in with_value else 1
            continue
        found.append(k)
        k += 1
    return found


def _written(argv: Sequence[Word], at: int, directory: str | None, name: str) -> PathUse:
    return PathUse(at, posixpath.join(directory, name) if directory else name, "write", argv[at])


# --- npm, pnpm, yarn, bun ----------------------------------------------------------------------

#: npm subcommands that read the words after them as ``key=value`` or keys of ``package.json``.
_PKG_WRITES = frozenset({"set", "delete", "fix"})
#: The configuration keys that send later installs elsewhere (compared without ``-``/``_``/case;
#: ``@scope:registry`` ends with ``registry``).
_REGISTRY_KEYS = frozenset(
    {
        "registry",
        "proxy",
        "httpsproxy",
        "httpproxy",
        "noproxy",
        "npmregistryserver",
        "npmscopes",
        "unsafehttpwhitelist",
        "cafile",
        "strictssl",
        "enablestrictssl",
    }
)
#: Options of npm's that take a separate value and may come after the subcommand.
_NPM_VALUE_OPTIONS = frozenset({"-w", "--workspace", "-C", "--prefix", "--dir", "-L", "--location"})
_CREATE = frozenset({"init", "create", "innit"})


def _npm_directory(values: Sequence[str]) -> tuple[str | None, bool]:
    """The directory whose ``package.json`` npm changes (``--prefix``, ``-C``), and whether a
    workspace option makes it some other package's (``-w``, ``--workspaces``)."""
    directory: str | None = None
    other = False
    for k, value in enumerate(values):
        name, eq, attached = value.partition("=")
        if name in ("--prefix", "-C", "--dir", "--cwd"):
            directory = attached if eq else (values[k + 1] if k + 1 < len(values) else None)
        elif name in ("-w", "--workspace", "--workspaces", "-ws"):
            other = True
    return directory, other


def registry_key(key: str) -> bool:
    """A configuration key that decides where later installs fetch from (``registry``,
    ``@scope:registry``, ``npmScopes.x.npmRegistryServer``, proxies, certificate checks)."""
    last = re.split(r"[.:]", key.lower())[-1].replace("-", "").replace("_", "")
    return last in _REGISTRY_KEYS or key.lower().lstrip("@").split(":", 1)[0].startswith("npmscopes")


def package_manager_writes(program: str, argv: Sequence[Word], sub: int) -> tuple[Explicit, list[PathUse]]:
    """``npm pkg set``, ``npm set-script``, ``npm init <pkg>``, ``yarn set version``, ``yarn
    plugin import``, ``yarn/pnpm/bun create``."""
    values = [w.value for w in argv]
    command = values[sub]
    rest = _positionals(values, sub + 1, _NPM_VALUE_OPTIONS)
    explicit: Explicit = []
    paths: list[PathUse] = []
    directory, other = _npm_directory(values)
    if program in ("npm", "pnpm") and command in ("pkg", "set-script"):
        action = values[rest[0]] if rest else ""
        if command == "set-script" or action in _PKG_WRITES:
            if other:
                explicit.append((sub, f"{program} {command} with a workspace option rewrites another package.json"))
            else:
                paths.append(_written(argv, sub, directory, "package.json"))
    elif command in _CREATE or (program == "bun" and command == "create"):
        if rest:
            at = rest[0]
            explicit.append(
                (at, f"{program} {command} {values[at]} fetches the package or template it names and runs it")
            )
    elif program == "yarn" and command == "set" and rest and values[rest[0]] == "version":
        spec = values[rest[1]] if len(rest) > 1 else ""
        if _REMOTE.match(spec) or "/" in spec or spec.endswith((".js", ".cjs")):
            explicit.append((rest[1], f"yarn set version {spec} makes every later yarn command run that file"))
        else:
            paths.append(_written(argv, sub, directory, ".yarnrc.yml"))
    elif program == "yarn" and command == "policies" and rest and values[rest[0]] == "set-version":
        paths.append(_written(argv, sub, directory, ".yarnrc"))
    elif program == "yarn" and command == "plugin" and rest and values[rest[0]] in ("import", "add"):
        at = rest[1] if len(rest) > 1 else rest[0]
        explicit.append((at, f"yarn plugin import {values[at]} loads that code into every later yarn command"))
    return explicit, paths


# --- pip, poetry, composer ---------------------------------------------------------------------

#: pip settings that decide where packages come from or go, or which program runs.
_PIP_KEYS = frozenset(
    {
        "index-url",
        "extra-index-url",
        "find-links",
        "trusted-host",
        "proxy",
        "cert",
        "client-cert",
        "target",
        "prefix",
        "root",
        "src",
        "editor",
        "constraint",
        "requirement",
        "config-settings",
        "global-option",
        "build-option",
        "install-option",
    }
)


def pip_config_facts(argv: Sequence[Word], sub: int) -> Explicit:
    """``pip config set global.index-url URL`` (and ``edit``, which runs an editor)."""
    values = [w.value for w in argv]
    rest = _positionals(values, sub + 1, {"--editor"})
    if not rest:
        return []
    action = values[rest[0]]
    if action == "edit" or any(v.partition("=")[0] == "--editor" for v in values[sub:]):
        return [(rest[0], "pip config edit runs an editor")]
    if action in ("set", "unset") and len(rest) > 1:
        key = values[rest[1]].rsplit(".", 1)[-1].lower().replace("_", "-")
        if key in _PIP_KEYS:
            return [(rest[1], f"pip config {action} {values[rest[1]]} changes where later installs fetch from")]
    return []


def poetry_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``poetry source add NAME URL``, ``poetry config repositories.x URL`` (and certificates,
    credentials, where environments live)."""
    values = [w.value for w in argv]
    rest = _positionals(values, 1, {"-C", "--directory", "-P", "--project"})
    if len(rest) < 2:
        return facts([])
    command, action = values[rest[0]], values[rest[1]]
    if command == "source" and action == "add":
        return facts([(rest[1], "poetry source add points later installs at another package index")])
    if command == "config" and "--unset" not in values:
        key = action.lower()
        if key.startswith(("repositories.", "certificates.", "http-basic.", "pypi-token.")) or key in (
            "virtualenvs.path",
            "cache-dir",
            "virtualenvs.options.system-site-packages",
        ):
            return facts([(rest[1], f"poetry config {action} changes where later commands fetch from or run")])
    if command == "self" and action in ("add", "install", "update"):
        return facts([(rest[1], "poetry self add installs a plugin into every later poetry command")])
    if command == "add":
        return facts(remote_specs("poetry add", values, rest[1:]))
    return facts([])


def remote_specs(what: str, values: Sequence[str], positions: Sequence[int]) -> Explicit:
    """The dependency words (``git+https://…``, ``https://…/x.whl``, ``x @ https://…``, ``git@host:r``)
    that add code from outside the registry: the next install fetches them and runs their build."""
    return [
        (k, f"{what} {values[k]} adds a dependency from outside the registry")
        for k in positions
        if _REMOTE.match(values[k]) or "://" in values[k]
    ]


def composer_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``composer config scripts.x CMD`` writes ``composer.json``; ``repositories``/``repo`` point
    later installs elsewhere; ``--global`` writes outside the workspace."""
    values = [w.value for w in argv]
    rest = _positionals(values, 1, {"-d", "--working-dir"})
    if not rest or values[rest[0]] != "config" or len(rest) < 3:
        return facts([])
    at = rest[0]
    key = values[rest[1]].lower()
    if "--global" in values or "-g" in values:
        return facts([(at, "composer config --global changes every later composer command")])
    if key.startswith(("repositories", "repo")) or key in ("bin-dir", "vendor-dir", "cafile", "secure-http"):
        return facts([(rest[1], f"composer config {key} changes where later installs fetch from or write")])
    directory = None
    for k, value in enumerate(values):
        name, eq, attached = value.partition("=")
        if name in ("-d", "--working-dir"):
            directory = attached if eq else (values[k + 1] if k + 1 < len(values) else None)
    return facts([], [_written(argv, at, directory, "composer.json")])


# --- gh -----------------------------------------------------------------------------------------

_GH_PROGRAM_KEYS = frozenset({"editor", "pager", "browser", "http_unix_socket"})


def gh_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``gh alias set NAME '!cmd'`` (or ``--shell``), ``gh config set editor|pager|browser``,
    ``gh extension install`` (runs the extension's code on every later ``gh NAME``)."""
    values = [w.value for w in argv]
    rest = _positionals(values, 1, {"-R", "--repo", "-h", "--host", "--hostname"})
    if len(rest) < 2:
        return facts([])
    command, action = values[rest[0]], values[rest[1]]
    if command == "alias" and action in ("set", "import"):
        if action == "import" or "--shell" in values or "-s" in values:
            return facts([(rest[1], f"gh alias {action} defines a shell alias")])
        expansion = values[rest[3]] if len(rest) > 3 else ""
        if expansion.startswith("!"):
            return facts([(rest[3], "gh alias set with '!' runs the expansion in a shell")])
    if command == "config" and action == "set" and len(rest) > 2 and values[rest[2]] in _GH_PROGRAM_KEYS:
        return facts([(rest[2], f"gh config set {values[rest[2]]} names a program gh runs")])
    if command in ("extension", "extensions", "ext") and action in ("install", "upgrade", "exec"):
        return facts([(rest[1], f"gh extension {action} runs code fetched from a repository")])
    if command == "api" or (command == "workflow" and action == "run"):
        # (`gh workflow run -F key=@file` reads the file as `gh api -F` does)
        return facts([], _gh_api_files(argv, values))
    if (command, action) in (("repo", "clone"), ("repo", "fork")) and "--" in values:
        return _gh_git_flags(argv, values, action)
    return facts([])


def _gh_git_flags(argv: Sequence[Word], values: Sequence[str], action: str) -> ProgramFacts:
    """``gh repo clone REPO -- --upload-pack=CMD`` hands the words after ``--`` to ``git clone``:
    they are judged as git's options (``-c core.fsmonitor=…``, ``-u``, ``--template``)."""
    from bot.shell.programs.git import git_facts

    dash = values.index("--")
    git_argv = [Word("git", "git"), Word("clone", "clone"), *argv[dash + 1 :]]
    found = git_facts(git_argv)
    shift = dash - 1  # git_argv[2] is argv[dash + 1]
    explicit = [(k + shift, f"gh repo {action} -- {reason}") for k, reason in found.explicit if k >= 2]
    return facts(explicit)


def _gh_api_files(argv: Sequence[Word], values: Sequence[str]) -> list[PathUse]:
    """``gh api -F key=@file`` sends the file's content; ``--input FILE`` sends the file as the body."""
    found: list[PathUse] = []
    for k, value in enumerate(values):
        name, eq, attached = value.partition("=")
        if value in ("-F", "--field"):
            at, field = k + 1, values[k + 1] if k + 1 < len(values) else ""
        elif name == "--field" and eq:
            at, field = k, attached
        elif value.startswith("-F") and not value.startswith("--"):
            at, field = k, value[2:]
        else:
            at, field = k, ""
        if field:
            content = field.split("=", 1)[1] if "=" in field else ""
            if content.startswith("@") and content[1:] not in ("", "-") and at < len(argv):
                found.append(PathUse(at, content[1:], "read", argv[at]))
        if name == "--input":
            at, target = (k, attached) if eq else (k + 1, values[k + 1] if k + 1 < len(values) else "")
            if target and target != "-" and at < len(argv):
                found.append(PathUse(at, target, "read", argv[at]))
    return found


# --- cookiecutter, copier -----------------------------------------------------------------------

_TEMPLATE_VALUE_OPTIONS = frozenset(
    {"--checkout", "-c", "--directory", "-o", "--output-dir", "--config-file", "--replay-file", "-d", "--data"}
)


def template_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``cookiecutter TEMPLATE`` and ``copier copy|recopy|update``: a template from elsewhere runs its
    hooks (cookiecutter always, copier's tasks with ``--trust``)."""
    values = [w.value for w in argv]
    program = values[0].rsplit("/", 1)[-1]
    explicit: Explicit = []
    rest = _positionals(values, 1, _TEMPLATE_VALUE_OPTIONS | {"-a", "--answers-file", "-r", "--vcs-ref"})
    if program == "copier":
        for k, value in enumerate(values):
            if value in ("--trust", "--UNSAFE"):
                explicit.append((k, f"copier {value} runs the template's tasks and migrations"))
        rest = rest[1:] if rest and values[rest[0]] in ("copy", "recopy", "update", "create") else rest
    if rest and (_REMOTE.match(values[rest[0]]) or values[rest[0]].lower().endswith(".zip")):
        explicit.append((rest[0], f"{program} {values[rest[0]]}: a template from outside the workspace runs its hooks"))
    for k, value in enumerate(values):
        name = value.partition("=")[0]
        if name in ("--config-file", "--replay-file"):
            explicit.append((k, f"{program} {name} loads settings that can name another template"))
    return facts(explicit)
