"""Which programs the option table covers, and where each name came from.

Three sources, merged by :func:`collect` into ``programs.json`` (``python -m
bot.shell.programs.options.generate --programs`` rewrites it):

* ``analysis:<table>`` — every program a table of the shell analysis names (the per-program
  handlers, interpreters, shells, launchers, wrappers, runners, readers, writers, archivers);
* ``corpus:<source>`` — the programs of the benign corpus (real CI workflows, Makefiles and agent
  sessions, each case naming where it came from), behind their launchers and wrappers, and the
  programs its allow rules name;
* ``workflows:<file>`` — the programs the repository's own workflows and policy expectation files
  run, and ``ci-survey`` — programs found in public GitHub workflow and setup scripts that the
  corpus does not yet use (``shellcheck``, ``helm``, ``terraform``…, listed in ``CI_SURVEY``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

#: Programs seen in public workflow and setup scripts (GitHub code search over ``.github/workflows``
#: and ``.devcontainer`` scripts: johnko/bga, wavefrontHQ/helm, ponko2/actions, starter-workflows),
#: with the names of the common Debian tools those scripts call.
CI_SURVEY = (
    "shellcheck",
    "shfmt",
    "yamllint",
    "yq",
    "jq",
    "kubectl",
    "helm",
    "kustomize",
    "terraform",
    "tofu",
    "trivy",
    "gh",
    "unzip",
    "gpg",
    "lsb_release",
    "install",
    "tee",
    "sha256sum",
    "md5sum",
    "base64",
    "openssl",
    "ssh-keygen",
    "ssh-keyscan",
    "ssh-agent",
    "ssh-add",
    "gcc",
    "g++",
    "cc",
    "clang",
    "ld",
    "ar",
    "strip",
    "objdump",
    "nm",
    "readelf",
    "gdb",
    "strace",
    "ltrace",
    "cmake",
    "ninja",
    "meson",
    "autoconf",
    "automake",
    "pkg-config",
    "ccache",
    "diff",
    "patch",
    "cmp",
    "comm",
    "join",
    "paste",
    "tr",
    "uniq",
    "column",
    "fold",
    "fmt",
    "nl",
    "expand",
    "unexpand",
    "od",
    "hexdump",
    "xxd",
    "strings",
    "iconv",
    "date",
    "sleep",
    "env",
    "printenv",
    "uname",
    "hostname",
    "whoami",
    "id",
    "groups",
    "nproc",
    "df",
    "free",
    "ps",
    "kill",
    "pgrep",
    "pkill",
    "top",
    "lsof",
    "netstat",
    "ss",
    "ip",
    "ping",
    "dig",
    "nslookup",
    "host",
    "nc",
    "socat",
    "telnet",
    "ftp",
    "sftp",
    "scp",
    "rsync",
    "ssh",
    "curl",
    "wget",
    "aria2c",
    "git-lfs",
    "svn",
    "hg",
    "docker",
    "podman",
    "buildah",
    "skopeo",
    "crane",
    "kind",
    "minikube",
    "aws",
    "gcloud",
    "az",
    "ansible",
    "ansible-playbook",
    "vagrant",
    "packer",
    "consul",
    "vault",
    "psql",
    "mysql",
    "sqlite3",
    "redis-cli",
    "mongo",
    "mongosh",
    "zip",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "zstd",
    "7z",
    "cpio",
    "ar",
    "file",
    "stat",
    "realpath",
    "readlink",
    "dirname",
    "basename",
    "mktemp",
    "chmod",
    "chown",
    "ln",
    "touch",
    "mkdir",
    "rmdir",
    "cp",
    "mv",
    "rm",
    "find",
    "xargs",
    "parallel",
    "watch",
    "timeout",
    "nice",
    "nohup",
    "flock",
    "script",
    "expect",
    "bc",
    "dc",
    "seq",
    "yes",
    "shuf",
    "tac",
    "rev",
    "split",
    "csplit",
    "truncate",
    "dd",
    "sync",
    "mount",
    "umount",
    "losetup",
    "systemctl",
    "journalctl",
    "service",
    "crontab",
    "at",
    "su",
    "sudo",
    "useradd",
    "usermod",
    "passwd",
    "chroot",
    "ldd",
    "locale",
    "localedef",
    "update-alternatives",
    "dpkg",
    "dpkg-deb",
    "apt",
    "apt-get",
    "apt-cache",
    "snap",
    "brew",
    "pipx",
    "conda",
    "mamba",
    "virtualenv",
    "pyenv",
    "nvm",
    "rbenv",
    "gem",
    "bundle",
    "rake",
    "composer",
    "php",
    "perl",
    "ruby",
    "lua",
    "Rscript",
    "julia",
    "java",
    "javac",
    "jar",
    "gradle",
    "mvn",
    "sbt",
    "dotnet",
    "go",
    "gofmt",
    "cargo",
    "rustc",
    "rustup",
    "node",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "deno",
    "bun",
    "tsc",
    "eslint",
    "prettier",
    "jest",
    "vitest",
    "mocha",
    "webpack",
    "vite",
    "esbuild",
    "black",
    "isort",
    "flake8",
    "pylint",
    "ruff",
    "mypy",
    "pyright",
    "pytest",
    "tox",
    "nox",
    "coverage",
    "pre-commit",
    "sphinx-build",
    "mkdocs",
    "twine",
    "hatch",
    "poetry",
    "pdm",
    "uv",
    "pip",
    "python3",
    "make",
    "vim",
    "nano",
    "emacs",
    "ed",
    "less",
    "more",
    "man",
    "info",
    "tmux",
    "screen",
    "sqlite3",
    "pandoc",
    "doxygen",
    "graphviz",
    "dot",
    "convert",
    "ffmpeg",
    "awk",
    "sed",
    "grep",
    "cut",
    "sort",
    "head",
    "tail",
    "wc",
    "cat",
    "ls",
    "tree",
    "du",
    "echo",
    "printf",
    "tar",
    "zcat",
    "zgrep",
    "bzcat",
    "xzcat",
    "lz4",
    "pigz",
    "busybox",
    "valgrind",
    "perf",
    "time",
    "hyperfine",
    "entr",
    "inotifywait",
)

_ANALYSIS_TABLES = (
    ("bot.shell.programs.flags", "_HANDLERS"),
    ("bot.shell.programs.interpreters", "INTERPRETERS"),
    ("bot.shell.launch.wrappers", "SHELLS"),
    ("bot.shell.launch.wrappers", "OPAQUE_LAUNCHERS"),
    ("bot.shell.launch.wrappers", "PRIVILEGE"),
    ("bot.shell.launch.wrappers", "_HANDLERS"),
    ("bot.shell.launch.launchers", "LAUNCHERS"),
    ("bot.shell.launch.package_runners", "SUBCOMMAND_RUNNERS"),
    ("bot.shell.launch.package_runners", "GLOBAL_OPTIONS"),
    ("bot.shell.launch.package_runners", "VERSION_MANAGERS"),
    ("bot.shell.judge.read_only", "SEARCH_COMMANDS"),
    ("bot.shell.judge.read_only", "READ_COMMANDS"),
    ("bot.shell.judge.read_only", "LIST_COMMANDS"),
    ("bot.shell.programs.kinds", "WRITER_PROGRAMS"),
    ("bot.shell.programs.kinds", "GLOB_SENSITIVE"),
    ("bot.shell.paths.arguments", "SPECS"),
    ("bot.shell.programs.archives", "ARCHIVE_EXTRACTORS"),
    ("bot.shell.programs.follow_links", "SPECS"),
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9._+-]*$")
_RULE_PROGRAM = re.compile(r"^Bash\(([^\s:*()]+)")


def analysis_programs() -> Iterator[tuple[str, str]]:
    """``(program, source)`` for every program a table of the analysis names."""
    import importlib

    for module_name, attribute in _ANALYSIS_TABLES:
        table: Iterable[object] = getattr(importlib.import_module(module_name), attribute)
        for name in table:
            if isinstance(name, str) and _NAME.match(name):
                yield name, f"analysis:{module_name.rsplit('.', 1)[-1]}.{attribute}"


def command_programs(command: str) -> list[str]:
    """The programs a command runs: each simple command's program and, behind launchers and
    wrappers (``sudo``, ``timeout``, ``npx``, ``uv run``), the programs they launch."""
    from bot.shell.launch.wrappers import unwrap
    from bot.shell.parse.syntax import Parsed, SimpleCommand, Word
    from bot.shell.parse.walk import parse_command

    outcome = parse_command(command)
    if not isinstance(outcome, Parsed):
        return []
    found: list[str] = []

    def visit(argv: tuple[Word, ...], depth: int) -> None:
        if not argv or depth > 4:
            return
        name = argv[0].value.rsplit("/", 1)[-1]
        if _NAME.match(name) and (argv[0].value.startswith("/") or "/" not in argv[0].value):  # not ./build
            found.append(name)
        for inner in unwrap(argv):
            if inner.argv is not None:
                visit(tuple(inner.argv), depth + 1)
            elif inner.script is not None:
                found.extend(command_programs(inner.script))

    for item in outcome.items:
        if isinstance(item, SimpleCommand):
            visit(item.argv, 0)
    return found


def corpus_programs(corpus: Path) -> Iterator[tuple[str, str]]:
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            case = json.loads(line)
            source = "corpus:" + str(case["source"]).split()[0]
            for program in command_programs(case["command"]):
                yield program, source
            for rule in case["allow"]:
                match = _RULE_PROGRAM.match(rule)
                if match and _NAME.match(match.group(1)):
                    yield match.group(1), source


def workflow_programs(root: Path) -> Iterator[tuple[str, str]]:
    """Programs in the repository's workflow ``run:`` steps and Bash policy expectation files."""
    for path in sorted((root / "workflows").glob("*.yml")) + sorted((root / "action.yml").parent.glob("action.yml")):
        for match in re.finditer(r"^\s*(?:-\s*)?run:\s*(?:\|\s*)?(.*)$", path.read_text(encoding="utf-8"), re.M):
            for program in command_programs(match.group(1)):
                yield program, f"workflows:{path.relative_to(root)}"
    for path in sorted((root / "policies").glob("*.bash.expect.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                command = case.get("input", {}).get("command", "")
                for program in command_programs(command):
                    yield program, f"workflows:{path.relative_to(root)}"


def collect(root: Path) -> dict[str, list[str]]:
    """Every program, with its sources, sorted by name."""
    sources: dict[str, set[str]] = {}
    streams: list[Iterable[tuple[str, str]]] = [
        analysis_programs(),
        corpus_programs(root / "tests" / "shell" / "corpus" / "benign.jsonl"),
        workflow_programs(root),
        ((name, "ci-survey") for name in CI_SURVEY),
    ]
    for stream in streams:
        for program, source in stream:
            sources.setdefault(program, set()).add(source)
    return {program: sorted(found) for program, found in sorted(sources.items())}
