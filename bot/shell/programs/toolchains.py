"""The compilers' build drivers, ``go`` and ``cargo``: options that run another program
(``-toolexec``, ``-exec``, ``-vettool``, ``--config`` with a runner), change where they write, or
load settings (``go env -w``, unstable ``-Z`` flags).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.paths.resolve import Access
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use

_GO_EXEC = frozenset({"toolexec", "exec", "vettool"})


_GO_PATHS: dict[str, Access] = {
    "o": "write",
    "coverprofile": "write",
    "cpuprofile": "write",
    "memprofile": "write",
    "blockprofile": "write",
    "mutexprofile": "write",
    "trace": "write",
    "outputdir": "write",
    "pkgdir": "write",
    "overlay": "read",
    "modfile": "read",
    "C": "read",
    "fuzzcachedir": "write",
    "gocoverdir": "write",
    "testlogfile": "write",
}


_GO_VALUE = (
    _GO_EXEC
    | frozenset(_GO_PATHS)
    | frozenset(
        {
            "p",
            "asmflags",
            "buildmode",
            "compiler",
            "gccgoflags",
            "gcflags",
            "installsuffix",
            "ldflags",
            "mod",
            "pgo",
            "tags",
            "run",
            "bench",
            "count",
            "cpu",
            "timeout",
            "parallel",
            "covermode",
            "coverpkg",
            "shuffle",
            "skip",
            "list",
            "benchtime",
            "fuzz",
            "fuzztime",
            "fuzzminimizetime",
            "benchmem",
            "memprofilerate",
            "blockprofilerate",
            "mutexprofilefraction",
            "failfast",
            "json",
            "v",
            "short",
            "paniconexit0",
        }
    )
)


#: Test flags that take no value (the test binary's flag package reads ``-test.v``, ``-test.short``).
_GO_BOOL = frozenset({"benchmem", "failfast", "json", "v", "short", "paniconexit0"})


#: ``go env -w`` keys that cannot make go run another program (``GOFLAGS=-toolexec=``, ``CC=`` can).
_GO_ENV_SAFE = frozenset(
    {
        "GOTOOLCHAIN",
        "GO111MODULE",
        "GOOS",
        "GOARCH",
        "GOAMD64",
        "GOARM",
        "GOARM64",
        "GO386",
        "GOMIPS",
        "GOMIPS64",
        "GOPPC64",
        "GORISCV64",
        "GOWASM",
        "CGO_ENABLED",
        "GODEBUG",
        "GOTELEMETRY",
        "GOENV",
    }
)


#: ``go run example.com/x/cmd@v1``: a package path whose first element is a domain, at a version —
#: fetched through the module proxy and run (``./cmd/x`` and ``main.go`` are the workspace's).
_REMOTE_PACKAGE = re.compile(r"^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/[^@\s]*@\S+$")


def go_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``go``: ``-toolexec``/``-exec``/``-vettool`` run a program, so does an external linker in
    ``-ldflags``; ``go env -w`` changes the environment of every later go command. ``go test``
    flags may be written with the test binary's ``test.`` prefix (``-test.coverprofile=x``), and
    the words after ``-args`` go to the test binary, which writes the files its ``-test.*`` flags
    name too."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    n = len(values)
    first = 3 if n > 2 and values[1] == "-C" else (2 if n > 1 and values[1].startswith("-C=") else 1)
    command = values[first] if first < n else ""
    to_binary = False
    k = 1
    while k < n:
        value = values[k]
        if value in ("-args", "--args"):
            to_binary = True  # the rest goes to the test binary
            k += 1
            continue
        if not value.startswith("-") or value == "-":
            if command == "run" and k > first and not to_binary and _REMOTE_PACKAGE.match(value):
                explicit.append((k, f"go run {value} fetches a module from elsewhere and runs it"))
                to_binary = True  # (the words after it are the program's arguments)
            k += 1
            continue
        name, eq, attached = value.lstrip("-").partition("=")
        name = name.removeprefix("test.")
        target, index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
        if to_binary:
            if name in _GO_PATHS:
                use = path_use(argv, index, target, _GO_PATHS[name])
                if use is not None:
                    paths.append(use)
            k += 2 if not eq and name in _GO_VALUE and name not in _GO_BOOL else 1
            continue
        if command == "env" and name in ("w", "u"):
            if name == "w":
                for j in range(k + 1, n):
                    key = values[j].partition("=")[0]
                    if not values[j].startswith("-") and key not in _GO_ENV_SAFE:
                        explicit.append((j, f"go env -w {key} changes what every later go command runs"))
        elif name in _GO_EXEC:
            explicit.append((k, f"go -{name} runs another program"))
        elif name == "ldflags" and target is not None and "extld" in target:
            explicit.append((k, "go -ldflags with an external linker runs another program"))
        elif name in _GO_PATHS:
            use = path_use(argv, index, target, _GO_PATHS[name])
            if use is not None:
                paths.append(use)
        k += 2 if not eq and name in _GO_VALUE and name not in _GO_BOOL else 1
    return facts(explicit, paths)


_CARGO_PATHS: dict[str, Access] = {
    "--target-dir": "write",
    "--artifact-dir": "write",
    "--root": "write",
    "--manifest-path": "read",
    "--lockfile-path": "read",
}


#: Unstable cargo features that change what is built or resolved, not which programs run
#: (``-Zhost-config``, ``-Ztarget-applies-to-host``… can set a linker or runner: not listed).
_CARGO_SAFE_UNSTABLE = frozenset(
    {
        "build-std",
        "build-std-features",
        "minimal-versions",
        "direct-minimal-versions",
        "panic-abort-tests",
        "avoid-dev-deps",
        "no-index-update",
        "unstable-options",
        "doctest-xcompile",
        "sparse-registry",
        "features",
    }
)


#: ``cargo install``/``cargo add`` options that name where the crate comes from (``--registry NAME``
#: names one of the project's configured registries, and stays).
_CARGO_SOURCES = frozenset({"--git", "--index"})


def cargo_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``cargo --config`` can set a runner or a linker; ``-Z`` enables unstable behaviour
    (``-Zhost-config``)."""
    explicit: Explicit = []
    paths: list[PathUse] = []
    values = [w.value for w in argv]
    n = len(values)
    for k in range(1, n):
        value = values[k]
        if value == "--":
            break  # the rest goes to the test binary
        if value.startswith("-Z"):
            feature = value[2:] if len(value) > 2 else (values[k + 1] if k + 1 < n else "")
            if feature.split("=", 1)[0] not in _CARGO_SAFE_UNSTABLE:
                explicit.append((k, "cargo -Z enables unstable options that can run programs"))
            continue
        written, eq, attached = value.partition("=")
        # (clap does not read abbreviations: `--target` is not `--target-dir`)
        name = written if written == "--config" or written in _CARGO_PATHS else None
        if written in _CARGO_SOURCES:
            # a crate from a repository or an index the rule does not name: its build script runs
            target_at = k if eq or k + 1 >= n else k + 1
            explicit.append((target_at, f"cargo {written} fetches a crate from outside the registry"))
        elif name == "--config":
            explicit.append((k, "cargo --config can set a runner or a linker"))
        elif name is not None:
            target, index = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < n else (None, None))
            use = path_use(argv, index, target, _CARGO_PATHS[name])
            if use is not None:
                paths.append(use)
    return facts(explicit, paths)
