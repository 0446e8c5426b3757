"""Package runners: ``npx x``, ``npm exec x``, ``uv run x``, ``poetry run x``, ``bundle exec x``...

The runner subcommand may follow global options (``npm --yes exec``, ``uv --directory . run``,
``poetry -C . run``): they are skipped with a table per program. An option the table does not know
could take the next word as its value, so the subcommand is not known: the command is *opaque*
(only a rule that spells it out approves it) rather than read as ``npm --foo`` + ``exec``.

Version managers (``rustup run TOOLCHAIN``, ``pyenv exec``, ``mise x``, ``volta run``...) and secret
injectors (``doppler run``, ``op run``, ``aws-vault exec``) launch commands too; their subcommands are
not read yet, so what they run is opaque (:data:`VERSION_MANAGERS`; ``mise run``/``npm run`` tasks
come from the project, like a Makefile).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.launch.inner import Handler, Inner, skip_options, transparent_at
from bot.shell.parse.syntax import Word

_RUNNER_VALUE = frozenset(
    {
        "-p",
        "--package",
        "--with",
        "--python",
        "--project",
        "--directory",
        "--env-file",
        "--extra",
        "--group",
        "--index",
        "--from",
        "-n",
        "--name",
        "--prefix",
        "--cwd",
        "--filter",
        "-w",
        "--workspace",
    }
)

#: ``program → subcommands that run a command``.
SUBCOMMAND_RUNNERS: dict[str, frozenset[str]] = {
    "npm": frozenset({"exec", "x"}),
    "pnpm": frozenset({"dlx", "exec"}),
    "yarn": frozenset({"dlx", "exec"}),
    "bun": frozenset({"x"}),
    "uv": frozenset({"run"}),
    "poetry": frozenset({"run"}),
    "pipenv": frozenset({"run"}),
    "pdm": frozenset({"run"}),
    "hatch": frozenset({"run"}),
    "bundle": frozenset({"exec"}),
    "conda": frozenset({"run"}),
    "mamba": frozenset({"run"}),
    "pipx": frozenset({"run"}),
    "direnv": frozenset({"exec"}),
    "rye": frozenset({"run"}),
}

_F = frozenset
_HELP = _F({"-h", "--help", "--version"})
#: ``program → (flags, options with a value)`` that may come before the subcommand.
GLOBAL_OPTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "npm": (
        _HELP
        | _F(
            {
                "-v",
                "-y",
                "--yes",
                "--no-yes",
                "-s",
                "--silent",
                "-q",
                "--quiet",
                "-d",
                "-dd",
                "-ddd",
                "--verbose",
                "-g",
                "--global",
                "-ws",
                "--workspaces",
                "--include-workspace-root",
                "--no-workspaces",
                "--offline",
                "--prefer-offline",
                "--prefer-online",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--foreground-scripts",
                "--json",
                "--parseable",
                "--long",
                "--dry-run",
                "-f",
                "--force",
                "--legacy-peer-deps",
                "--no-progress",
                "--no-color",
                "--no-update-notifier",
                "--usage",
            }
        ),
        _F(
            {
                "--prefix",
                "-C",
                "-w",
                "--workspace",
                "--loglevel",
                "--registry",
                "--cache",
                "--userconfig",
                "--globalconfig",
                "--location",
                "-L",
                "--logs-dir",
                "--script-shell",
                "--node-options",
                "--otp",
                "--tag",
                "--omit",
                "--include",
                "--before",
                "--install-strategy",
                "--scope",
                "-c",
                "--call",
            }
        ),
    ),
    "pnpm": (
        _HELP
        | _F(
            {
                "-v",
                "-r",
                "--recursive",
                "-w",
                "--workspace-root",
                "-s",
                "--silent",
                "--stream",
                "--parallel",
                "--aggregate-output",
                "--no-bail",
                "--reverse",
                "--use-stderr",
                "--color",
                "--no-color",
                "--frozen-lockfile",
                "--offline",
                "--prefer-offline",
                "--ignore-scripts",
                "--fail-if-no-match",
                "--include-workspace-root",
            }
        ),
        _F(
            {
                "-C",
                "--dir",
                "--filter",
                "-F",
                "--filter-prod",
                "--reporter",
                "--loglevel",
                "--workspace-concurrency",
                "--test-pattern",
                "--changed-files-ignore-pattern",
                "--store-dir",
            }
        ),
    ),
    "yarn": (
        _HELP
        | _F(
            {
                "-v",
                "-s",
                "--silent",
                "--verbose",
                "--offline",
                "--prefer-offline",
                "--frozen-lockfile",
                "--pure-lockfile",
                "--production",
                "--prod",
                "--ignore-scripts",
                "--ignore-engines",
                "--no-lockfile",
                "--non-interactive",
                "--no-progress",
                "--no-default-rc",
                "--json",
                "--check-files",
                "--force",
                "--flat",
                "--immutable",
            }
        ),
        _F(
            {
                "--cwd",
                "--mutex",
                "--cache-folder",
                "--modules-folder",
                "--network-timeout",
                "--registry",
                "--link-folder",
                "--global-folder",
                "--use-yarnrc",
                "--preferred-cache-folder",
                "--network-concurrency",
                "--otp",
            }
        ),
    ),
    "bun": (_HELP | _F({"-v", "--silent", "-b", "--bun", "--revision"}), _F({"--cwd", "-c", "--config", "--env-file"})),
    "uv": (
        _HELP
        | _F(
            {
                "-V",
                "-q",
                "--quiet",
                "-v",
                "--verbose",
                "-n",
                "--no-cache",
                "--offline",
                "--no-progress",
                "--native-tls",
                "--preview",
                "--no-preview",
                "--no-config",
                "--managed-python",
                "--no-managed-python",
                "--no-python-downloads",
                "--frozen",
                "--locked",
                "--isolated",
            }
        ),
        _F({"--cache-dir", "--directory", "--project", "--color", "--config-file", "--allow-insecure-host"}),
    ),
    "poetry": (
        _HELP
        | _F(
            {
                "-V",
                "-q",
                "--quiet",
                "-v",
                "-vv",
                "-vvv",
                "--verbose",
                "-n",
                "--no-interaction",
                "--ansi",
                "--no-ansi",
                "--no-plugins",
                "--no-cache",
            }
        ),
        _F({"-C", "--directory", "-P", "--project"}),
    ),
    "pipenv": (_HELP | _F({"-q", "--quiet", "-v", "--verbose", "--site-packages", "--clear"}), _F({"--python"})),
    "pdm": (
        _HELP | _F({"-V", "-v", "-vv", "--verbose", "-q", "--quiet", "-I", "--ignore-python", "--pep582"}),
        _F({"-c", "--config", "-p", "--project"}),
    ),
    "hatch": (
        _HELP | _F({"-v", "--verbose", "-q", "--quiet", "--color", "--no-color", "--interactive", "--no-interactive"}),
        _F({"-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"}),
    ),
    "bundle": (_HELP | _F({"-v", "-V", "--verbose", "--no-color"}), _F({"--retry"})),
    "conda": (
        _HELP
        | _F(
            {"-V", "-v", "--verbose", "-q", "--quiet", "--json", "--debug", "--no-plugins", "--offline", "-y", "--yes"}
        ),
        _F(),
    ),
    "pipx": (_HELP | _F({"-v", "--verbose", "-q", "--quiet"}), _F()),
    "direnv": (_HELP, _F()),
    "rye": (_HELP | _F({"-V", "-v", "--verbose", "-q", "--quiet"}), _F()),
}
GLOBAL_OPTIONS["mamba"] = GLOBAL_OPTIONS["conda"]

#: Version managers and environment runners whose command-running subcommands are not read: the
#: command they run is opaque (only a rule spelling it out approves ``rustup run stable sh -c id``).
VERSION_MANAGERS: dict[str, frozenset[str]] = {
    "rustup": _F({"run"}),
    "pyenv": _F({"exec"}),
    "rbenv": _F({"exec"}),
    "nodenv": _F({"exec"}),
    "goenv": _F({"exec"}),
    "jenv": _F({"exec"}),
    "plenv": _F({"exec"}),
    "asdf": _F({"exec", "env"}),
    "mise": _F({"exec", "x"}),
    "rtx": _F({"exec", "x"}),
    "volta": _F({"run"}),
    "fnm": _F({"exec"}),
    "opam": _F({"exec"}),
    "pixi": _F({"run", "r", "exec", "x"}),
    "devbox": _F({"run"}),
    "micromamba": _F({"run"}),
    "nvm": _F({"exec", "run"}),
    "proto": _F({"run"}),
    "aqua": _F({"exec"}),
    "guix": _F({"shell", "environment"}),
    "flox": _F({"activate"}),
    # secret injectors run the command with secrets in its environment:
    # `doppler run -- cmd`, `aws-vault exec PROFILE -- cmd`
    "doppler": _F({"run"}),
    "op": _F({"run"}),
    "aws-vault": _F({"exec"}),
    "infisical": _F({"run"}),
    "dotenvx": _F({"run"}),
    "chamber": _F({"exec"}),
    "sops": _F({"exec-env", "exec-file"}),
}
_VERBOSE = _HELP | _F({"-V", "-v", "--verbose", "-q", "--quiet"})
GLOBAL_OPTIONS.update({program: (_VERBOSE, _F()) for program in VERSION_MANAGERS if program not in GLOBAL_OPTIONS})
#: The single letters of each program's short flags (``poetry -vvv``, ``npm -dd``).
_FLAG_LETTERS = {
    program: frozenset(f[1] for f in flags if len(f) == 2 and f[0] == "-")
    for program, (flags, _) in GLOBAL_OPTIONS.items()
}


def runner_subcommand(program: str, values: Sequence[str]) -> tuple[int | None, int | None]:
    """``(index of the subcommand, index of an unknown leading option)`` for a program of
    :data:`GLOBAL_OPTIONS`; both ``None`` when there are only options."""
    flags, with_value = GLOBAL_OPTIONS.get(program, (_HELP, _F()))
    letters = _FLAG_LETTERS.get(program, _F())
    i, n = 1, len(values)
    while i < n:
        value = values[i]
        if value == "--" or not value.startswith("-") or value == "-":
            return (i if value != "--" else (i + 1 if i + 1 < n else None)), None
        name, eq, _ = value.partition("=")
        if name in with_value:
            i += 1 if eq else 2
        elif value in flags or eq or (not value.startswith("--") and set(value[1:]) <= letters):
            i += 1
            if i < n and values[i] in ("true", "false") and not eq:
                i += 1  # nopt reads `--yes true` as one option
        else:
            return None, i
    return None, None


#: Options that make the runner start its command in another directory.
_CHDIR_OPTIONS = frozenset({"--directory", "--cwd", "-C", "--dir", "--prefix"})


def _chdir(argv: Sequence[Word], start: int, stop: int) -> Word | None:
    """The directory a ``--directory``/``--cwd``/``-C``... option among ``argv[start:stop]`` names."""
    found: Word | None = None
    k = start
    while k < stop:
        name, eq, attached = argv[k].value.partition("=")
        if name in _CHDIR_OPTIONS:
            if eq:
                found = Word(attached, argv[k].text, argv[k].quoted, argv[k].dynamic)
            elif k + 1 < len(argv):
                found = argv[k + 1]
                k += 1
        k += 1
    return found


def runner(skip: int, chdir: Word | None = None) -> Handler:
    """``npx x``, ``uv run x``, ``poetry run x``, ``bundle exec x``: skip ``skip`` words, then options.
    A directory option (before the subcommand: ``chdir``) is where the command runs."""

    def handler(argv: Sequence[Word]) -> list[Inner]:
        if len(argv) <= skip:
            return []
        i = skip_options(argv, skip, _RUNNER_VALUE)
        where = _chdir(argv, skip, i) or chdir
        for k in range(skip, len(argv)):
            value = argv[k].value
            script = None
            if value in ("-c", "--call", "--shell-mode") and k + 1 < len(argv):
                script, at = argv[k + 1].value, k + 1
            elif value.startswith("--call="):
                script, at = value.split("=", 1)[1], k
            if script is not None:
                if where is not None:
                    return [Inner("opaque", k, reason="a command string run in another directory")]
                return [Inner("transparent", at, script=script)]
            if not value.startswith("-"):
                break
        return transparent_at(argv, i, chdir=where)

    return handler


def subcommand_runner(argv: Sequence[Word]) -> list[Inner]:
    program = argv[0].value.rsplit("/", 1)[-1]
    values = [w.value for w in argv]
    sub, unknown = runner_subcommand(program, values)
    if unknown is not None:
        return [
            Inner(
                "opaque",
                unknown,
                reason=f"{program} {values[unknown]}: an option the analysis does not know comes before the subcommand",
            )
        ]
    if sub is None:
        return []
    command = values[sub]
    n = len(values)
    if command in SUBCOMMAND_RUNNERS[program]:
        if program == "direnv":  # direnv exec DIR cmd
            return transparent_at(argv, sub + 2, chdir=argv[sub + 1] if sub + 1 < n else None)
        where = _chdir(argv, 1, sub)
        for k in range(1, sub):  # `npm -c CMD exec`: the call given before the subcommand
            script = (
                values[k + 1]
                if values[k] in ("-c", "--call") and k + 1 < sub
                else (values[k].split("=", 1)[1] if values[k].startswith("--call=") else None)
            )
            if script is not None:
                if where is not None:
                    return [Inner("opaque", k, reason="a command string run in another directory")]
                return [Inner("transparent", k + 1 if values[k] in ("-c", "--call") else k, script=script)]
        if program == "hatch":
            # `hatch run +py=310 -type=x env:script`: matrix selectors come before the command.
            k = sub + 1
            while k < n and (values[k].startswith("+") or _HATCH_EXCLUDE.match(values[k])):
                k += 1
            return transparent_at(argv, k, chdir=where)
        return runner(sub + 1, where)(argv)
    if program == "uv" and command == "tool" and sub + 1 < n and values[sub + 1] == "run":
        return runner(sub + 2, _chdir(argv, 1, sub))(argv)
    if program == "yarn" and command == "node":
        return transparent_at(argv, sub)  # `yarn node ARGS` runs `node ARGS`
    if program == "npm" and command == "explore":
        return _npm_explore(argv, sub)
    return []


def version_manager(argv: Sequence[Word]) -> list[Inner]:
    """``rustup run``, ``pyenv exec``, ``mise x``...: the command is opaque. An option the table does
    not know before the subcommand hides where it starts: opaque if a running subcommand follows."""
    program = argv[0].value.rsplit("/", 1)[-1]
    values = [w.value for w in argv]
    runs = VERSION_MANAGERS[program]
    sub, unknown = runner_subcommand(program, values)
    if unknown is not None:
        if runs.isdisjoint(values[unknown:]):
            return []
        sub = unknown
    elif sub is None or values[sub] not in runs:
        return []
    return [Inner("opaque", sub, reason=f"{program} {values[sub]} runs a command the analysis does not read")]


_HATCH_EXCLUDE = re.compile(r"-[A-Za-z_][\w-]*=")


def _npm_explore(argv: Sequence[Word], sub: int) -> list[Inner]:
    """``npm explore PKG [-- CMD...]`` runs CMD (joined into one shell command) in the package's
    directory, or an interactive shell reading stdin."""
    words = [w.value for w in argv[sub + 1 :]]
    positionals = [k for k, w in enumerate(words) if not w.startswith("-")]
    if "--" in words:
        start = words.index("--") + 1
    elif positionals:
        start = positionals[0] + 1
    else:
        start = len(words)
    if start >= len(words):
        return [Inner("opaque", sub, reason="npm explore without a command starts a shell", from_stdin=True)]
    return [Inner("transparent", sub + 1 + start, script=" ".join(words[start:]))]
