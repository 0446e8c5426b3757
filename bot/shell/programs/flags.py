"""Options that turn an ordinary program into a command runner or a file writer (beyond the seeds).

For each known program, :func:`program_facts` reports :class:`~bot.shell.programs.facts.ProgramFacts`:

* ``explicit`` — words no wildcard rule may approve, because they make the program run code the
  analysis cannot see: ``git -c core.pager=...``, ``git --upload-pack``, ``rg --pre``, ``tar
  --to-command``, ``rsync -e``, ``ssh -o ProxyCommand``, ``make --eval`` and ``SHELL=``, ``npm
  --script-shell``, ``apt-get -o APT::Update::Pre-Invoke``, ``python -c``, ``awk`` with ``system()``,
  ``sed`` outside the whitelist, ``grep -R`` (follows links out of the workspace), ``split --filter``,
  ``man -P``, ``npm install`` of a URL or a git repository (:mod:`bot.shell.programs.install_sources`)... A rule whose
  literal spells such a word out still approves it.
* ``paths`` — path arguments of options (``git -C``, ``curl -o``, ``make -f``) for the path checks;
* ``in_place`` — ``sed -i``: the file arguments are written;
* ``git_dirs`` — ``git -C``/``--git-dir``/``--work-tree``: git would read another repository's
  configuration (a bare repository's ``core.fsmonitor`` runs code), see :mod:`bot.shell.judge.command`.

Options are read the way each program's parser reads them (:mod:`bot.shell.programs.getopt`: bundles,
attached values, abbreviated long options). The knowledge is split by family: :mod:`git_flags`,
:mod:`interpreter_flags`, :mod:`package_flags`, :mod:`tool_flags`, :mod:`fetch_flags`,
:mod:`follow_links`; this module dispatches and knows the shell builtins.

Codex's execpolicy approaches this with per-program allow-lists of flags and argument types; here
the same knowledge decides what a *wildcard* may approve, and everything else still goes to the
maintainer's rules, so unknown-but-harmless flags do not break ordinary commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.shell.parse.syntax import DYN, Word
from bot.shell.programs.awk import awk_facts
from bot.shell.programs.checkers import CHECKERS, checker_facts
from bot.shell.programs.docker import docker_facts
from bot.shell.programs.escapes import escape_facts
from bot.shell.programs.everyday import (
    DPKG,
    SORT,
    ansible_facts,
    apt_facts,
    editor_facts,
    man_facts,
    named_flags,
    pager_facts,
    pytest_facts,
    rg_facts,
    rsync_facts,
    split_facts,
    ssh_facts,
    tar_facts,
    xargs_facts,
    zip_facts,
)
from bot.shell.programs.facts import NO_FACTS, ProgramFacts, exact_only, facts
from bot.shell.programs.fetchers import fetcher_facts
from bot.shell.programs.follow_links import follow_facts
from bot.shell.programs.getopt import options
from bot.shell.programs.git import (
    git_facts,
    git_subcommand_index,
    git_subcommand_position,
)
from bot.shell.programs.git_globals import GIT_GLOBAL_FLAGS, GIT_GLOBAL_VALUE
from bot.shell.programs.interpreters import interpreter_facts, interpreter_key
from bot.shell.programs.manifests import composer_facts, gh_facts, poetry_facts, template_facts
from bot.shell.programs.options.lookup import table_facts
from bot.shell.programs.packages import (
    make_facts,
    maven_facts,
    mypy_facts,
    npm_facts,
    pip_facts,
    tox_facts,
    uv_facts,
)
from bot.shell.programs.sed import sed_facts
from bot.shell.programs.senders import httpie_facts, socat_facts
from bot.shell.programs.toolchains import cargo_facts, go_facts

__all__ = [
    "GIT_GLOBAL_FLAGS",
    "GIT_GLOBAL_VALUE",
    "NO_FACTS",
    "REJECTED_BUILTINS",
    "ProgramFacts",
    "git_subcommand_index",
    "git_subcommand_position",
    "program_facts",
]

#: Shell builtins that change what later words mean or run code given as a string.
REJECTED_BUILTINS = frozenset(
    {"trap", "alias", "enable", "hash", "shopt", "bind", "complete", "compgen", "fc", "let", "coproc"}
)
_NAME_TAKING = frozenset(
    {
        "read",
        "mapfile",
        "readarray",
        "printf",
        "getopts",
        "unset",
        "wait",
        "test",
        "[",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
    }
)
_SAFE_SET_OPTIONS = frozenset(
    {"errexit", "pipefail", "nounset", "xtrace", "verbose", "noclobber", "noglob", "noexec", "errtrace", "functrace"}
)
_SET_FLAG = re.compile(r"^[-+][euxvfCBbhmnpPtTEH]+$")


def _builtin(program: str, argv: Sequence[Word]) -> ProgramFacts:
    if program in REJECTED_BUILTINS:
        return exact_only(argv, f"the builtin {program} changes how later commands run")
    if program == "set":
        values = [w.value for w in argv[1:]]
        k = 0
        while k < len(values):
            value = values[k]
            if value == "--":
                break
            if value[:1] in "-+" and value.endswith("o") and _SET_FLAG.match(value[:-1] or "-e"):
                # -o NAME, or a bundle ending in o (set -euo pipefail)
                if k + 1 >= len(values) or values[k + 1] not in _SAFE_SET_OPTIONS:
                    return ProgramFacts(((k + 1, "set -o with an option that changes parsing"),))
                k += 2
                continue
            if not _SET_FLAG.match(value):
                return ProgramFacts(((k + 1, f"set {value} changes how later commands are parsed"),))
            k += 1
        return NO_FACTS
    if program in ("declare", "typeset", "local", "readonly", "export") and any(
        w.value[:1] in "-+" and "i" in w.value[1:] for w in argv[1:]
    ):
        return exact_only(
            argv, f"{program} -i evaluates later assignments as arithmetic, which runs command substitutions"
        )
    if program in ("declare", "typeset", "local") and any(w.value[:1] in "-+" and "n" in w.value[1:] for w in argv[1:]):
        return exact_only(
            argv,
            f"{program} -n makes a name reference: assigning through it evaluates the "
            "subscript of the name it refers to",
        )
    if program in ("mapfile", "readarray") and any(
        option.name == "-C" for option in options([w.value for w in argv], "dnOsuCc")
    ):
        return exact_only(argv, f"{program} -C runs a callback given as code")
    if program in _NAME_TAKING and any("[" in w.value for w in argv[1:]):
        # `printf -v 'a[$(cmd)]'`, `read 'a[$(cmd)]'`: array subscripts are evaluated as arithmetic,
        # which runs command substitutions.
        return exact_only(argv, f"{program} with an array subscript evaluates it as code")
    if program in _NAME_TAKING and any(DYN in name.partition("=")[0] for name in _variable_names(program, argv)):
        # `x='a[$(cmd)]'; printf -v "$x" 1`: the name is only known at run time, and may be subscripted
        return exact_only(argv, f"{program} with a variable name only known at run time")
    return NO_FACTS


#: Short options with a value, per name-taking builtin (to find the names among the words).
_NAME_BUILTIN_VALUES = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "printf": "v", "wait": "p"}


def _variable_names(program: str, argv: Sequence[Word]) -> list[str]:
    """The words a name-taking builtin reads as variable names."""
    values = [w.value for w in argv]
    if program in ("test", "["):
        return [values[k + 1] for k in range(1, len(values) - 1) if values[k] in ("-v", "-R")]
    found = list(options(values, _NAME_BUILTIN_VALUES.get(program, "")))
    if program in ("printf", "wait"):
        return [o.value for o in found if o.name in ("-v", "-p") and o.value is not None]
    names = [o.word for o in found if not o.name]
    if program == "getopts":
        return names[1:2]
    if program == "read":
        names += [o.value for o in found if o.name == "-a" and o.value is not None]
    return names


def program_facts(argv: Sequence[Word], *, install_scripts: bool = True) -> ProgramFacts:
    """What the analysis must know about one program's options (see the module docstring): the
    hand-written knowledge of this module's families, joined with what the option table read from
    the program's documentation says (:mod:`bot.shell.programs.options.lookup`)."""
    known = _known_facts(argv, install_scripts)
    documented = table_facts(argv) if argv else None
    if documented is None:
        return known
    taken = {index for index, _ in known.explicit}
    explicit = known.explicit + tuple(e for e in documented.explicit if e[0] not in taken)
    seen = {use.pos for use in known.paths}
    paths = known.paths + tuple(use for use in documented.paths if use.pos not in seen)
    return known._replace(explicit=explicit, paths=paths)


def _known_facts(argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    if not argv:
        return NO_FACTS
    program = argv[0].value.rsplit("/", 1)[-1]
    handler = _HANDLERS.get(program)
    if handler is not None:
        return handler(program, argv, install_scripts)
    escaped = escape_facts(program, argv)
    if escaped is not None:
        return escaped
    key = interpreter_key(program)
    if key is not None:
        return interpreter_facts(program, key, argv, install_scripts)
    if program not in _BUILTINS:
        return NO_FACTS
    return _builtin(program, argv)


#: The builtins :func:`program_facts` may report something for.
_BUILTINS = REJECTED_BUILTINS | _NAME_TAKING | {"set"}

_Handler = Callable[[str, Sequence[Word], bool], ProgramFacts]


def _sed(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    sed = sed_facts(argv)
    return ProgramFacts(sed.unsafe, (), sed.in_place)


def _package_manager(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    if program == "bun" and len(argv) > 1 and argv[1].value in ("-e", "--eval", "-p", "--print"):
        return interpreter_facts(program, "bun", argv)
    return npm_facts(argv, install_scripts)


def _follows(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
    return facts(follow_facts(program, [w.value for w in argv]))


def _simple(function: Callable[[Sequence[Word]], ProgramFacts]) -> _Handler:
    def handler(program: str, argv: Sequence[Word], install_scripts: bool) -> ProgramFacts:
        return function(argv)

    return handler


#: The programs with options of their own, by name (the others are interpreters or builtins).
_HANDLERS: dict[str, _Handler] = {
    "git": _simple(git_facts),
    **dict.fromkeys(("sed", "gsed"), _sed),
    **dict.fromkeys(
        ("awk", "gawk", "mawk", "nawk"), lambda program, argv, scripts: ProgramFacts(tuple(awk_facts(argv)))
    ),
    **dict.fromkeys(("make", "gmake"), _simple(make_facts)),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), _package_manager),
    **dict.fromkeys(("pip", "pip3"), lambda program, argv, scripts: pip_facts(argv, 1, scripts)),
    **dict.fromkeys(("uv", "uvx"), lambda program, argv, scripts: uv_facts(argv, scripts)),
    **dict.fromkeys(("ssh", "scp", "sftp"), _simple(ssh_facts)),
    **dict.fromkeys(("tar", "gtar", "bsdtar"), _simple(tar_facts)),
    "rg": _simple(rg_facts),
    "rsync": _simple(rsync_facts),
    "sort": named_flags(SORT),
    **dict.fromkeys(("apt", "apt-get", "aptitude", "apt-cache"), _simple(apt_facts)),
    "dpkg": named_flags(DPKG),
    "cargo": _simple(cargo_facts),
    "go": _simple(go_facts),
    **dict.fromkeys(("curl", "wget"), fetcher_facts),
    "zip": _simple(zip_facts),
    **dict.fromkeys(
        ("vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "rvim", "rview", "evim", "nview"), _simple(editor_facts)
    ),
    "man": _simple(man_facts),
    **dict.fromkeys(("split", "gsplit"), _simple(split_facts)),
    **dict.fromkeys(("less", "more"), _simple(pager_facts)),
    **dict.fromkeys(("docker", "podman", "nerdctl"), _simple(docker_facts)),
    **dict.fromkeys(CHECKERS, _simple(checker_facts)),
    "xargs": _simple(xargs_facts),
    "mypy": _simple(mypy_facts),
    "tox": _simple(tox_facts),
    **dict.fromkeys(("pytest", "py.test"), _simple(pytest_facts)),
    **dict.fromkeys(("ansible", "ansible-playbook", "ansible-pull", "ansible-console"), _simple(ansible_facts)),
    **dict.fromkeys(("mvn", "mvnw", "mvnd"), _simple(maven_facts)),
    "gh": _simple(gh_facts),
    "poetry": _simple(poetry_facts),
    "composer": _simple(composer_facts),
    **dict.fromkeys(("cookiecutter", "copier"), _simple(template_facts)),
    **dict.fromkeys(("http", "https", "xh", "xhs"), _simple(httpie_facts)),
    "socat": _simple(socat_facts),
    **dict.fromkeys(("grep", "egrep", "fgrep", "find", "du", "ls", "tree", "cp", "chown", "chgrp", "chmod"), _follows),
}
