"""Commands that only read, which need no allow rule: ``ls``, ``cat README.md``, ``git status``,
``pytest 2>&1 | tail -30``'s ``tail``.

Claude Code lets read-only commands into its working directory unasked, as it does Read, Glob and
Grep; a headless run does the same (policies/README.md, "Reading the workspace needs no allow
rule"). What such a command reads has already been judged like a Read by then: the path checks run
before any rule is looked at (a word known only at run time, a second operand
that ``uniq`` writes, included), so a path outside the workspace or under a ``Read`` deny rule is
refused as it would be under a rule, and ``.git`` internals need a rule that names them. A write (a
redirection to a file, ``sort -o``, ``sed -i``, ``find -delete``) is still an edit, and a deny or
ask rule on the command still applies first.

Only a command the policy's user wrote at the top of the compound counts (``pytest | tail -30``,
``cd src && ls``): a program launched by another (``nohup sh -c 'cat x'``, ``find -exec cat``,
``xargs cat``) takes the launcher's rule, as before, so no rule's meaning widens. The one
exception is ``git ls-files | xargs wc -l`` with the listing proven plain now
(:mod:`bot.shell.paths.listings`): xargs then appends exactly those files. ``tee FILE``
(:func:`tees`) is ``> FILE`` that also prints, and needs what the redirection needs.

The programs are fewer than :mod:`bot.shell.judge.read_only` counts as read-only (that list decides
concurrency and plan mode, where a mistake costs a serialised call): here a program is listed only
when no operand or option of it writes, runs, sends or changes the host, beyond the options that
classification and the option table already refuse. Left out on purpose: ``env``, ``command`` and
``type`` (they launch or resolve programs), ``less``/``more`` (``LESSOPEN`` runs a preprocessor,
``!`` a shell), ``xxd`` (its second operand is an output file the path checks do not know), ``date`` and
``hostname`` (they set the clock and the name), ``ps``, ``lsof``, ``ss`` (other processes),
``tput``; ``awk`` (``ARGV[ARGC++]`` opens files no word names), ``tree`` (``-H -R`` writes
HTML into every directory, ``--hintro`` reads any file), ``file`` (``-C`` compiles magic files);
``id``, ``whoami``, ``uname`` and the like (what a probe runs to learn where it landed,
never what a task needs); and every search tool with a program-running option (``rg --pre``, ``fd -x``, ``ack
--pager``): ``rg``, ``fd`` and ``ack`` need a rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.judge.read_only import GIT_READ_ONLY, category
from bot.shell.parse.syntax import Word
from bot.shell.paths.resolve import within

#: Programs whose every documented operand is read, and none of whose options the table marks as
#: running, loading, connecting or writing without ``category`` refusing it.
READERS = frozenset(
    {
        # list and inspect
        "ls",
        "du",
        "stat",
        "wc",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "pwd",
        # read and filter
        "cat",
        "head",
        "tail",
        "tac",
        "nl",
        "cut",
        "sort",
        "uniq",
        "tr",
        "rev",
        "fold",
        "fmt",
        "column",
        "paste",
        "comm",
        "od",
        "hexdump",
        "strings",
        "diff",
        "cmp",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "cksum",
        "base64",
        "jq",
        "sed",
        "seq",
        "expr",
        "numfmt",
        "test",
        "[",
        # search
        "grep",
        "egrep",
        "fgrep",
        "find",
        "which",
    }
)


def reads_only(argv: Sequence[Word], cwd: str | None, roots: Sequence[str]) -> bool:
    """Does this simple command only read, run from ``cwd`` (the directory the judge tracked)?"""
    if not argv or cwd is None or _in_git_directory(cwd, roots):
        return False  # `cd .git && cat config`: where it runs is git's internals
    program = argv[0].value
    if "/" in program:  # ./cat is whatever the workspace put there
        return False
    if any(_may_name_git_internals(w) or w.value.startswith("--files0-from") for w in argv[1:]):
        return False  # (`wc --files0-from=-` reads the names of what it counts from stdin)
    if program == "git":
        return _git_reads_only(argv) and category(argv) is not None
    if program == "jq" and any(_JQ_MODULES.search(w.value) for w in argv[1:]):
        return False  # `import "x" as $d` loads x.json from wherever the name leads
    return program in READERS and category(argv) is not None


_JQ_MODULES = re.compile(r"\b(?:import|include)\b|^-L|^--library-path")


def _in_git_directory(cwd: str, roots: Sequence[str]) -> bool:
    root = next((r for r in roots if within(cwd, r)), None)
    return root is not None and ".git" in cwd[len(root) :].split("/")


#: ``tee``'s options that change neither what it writes nor where.
_TEE_OPTIONS = frozenset({"-a", "--append", "-i", "--ignore-interrupts", "-p"})
_TERMINAL = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null"})


def tees(argv: Sequence[Word], cwd: str | None, roots: Sequence[str], edits_allowed: bool) -> bool:
    """``npm run build 2>&1 | tee build.log``: ``tee FILE`` is ``> FILE`` that also prints, so it
    needs what the redirection needs — an edit the policy allows (its files were judged as writes:
    never ``.git/``, the workflows or outside the workspace) — and no rule of its own; to the
    terminal (``tee /dev/stderr``) it needs nothing."""
    if not argv or argv[0].value != "tee" or cwd is None or _in_git_directory(cwd, roots):
        return False
    operands = []
    for word in argv[1:]:
        value = word.value
        if value.startswith("-") and value != "-":
            if value.partition("=")[0] not in (*_TEE_OPTIONS, "--output-error"):
                return False
        elif word.glob or word.dynamic:
            return False  # `tee modgi?/config`: what a pattern matches is no named file
        else:
            operands.append(value)
    return all(o in _TERMINAL for o in operands) or edits_allowed


def _may_name_git_internals(word: Word) -> bool:
    """As for Read, git's internals (``.git/config`` holds the token actions/checkout persists)
    need a rule that names them: a word with a ``.git`` component, or a glob that may match one
    (``.g*/config``; bash's ``*`` skips dot-files unless the pattern's part starts with a dot)."""
    value = word.value.replace("\\", "/")
    if ".git" in value.split("=")[-1].split("/") or ".git" in value.split("/"):
        return True
    return word.glob and (value.startswith(".") or "/." in value)


#: Global options of git that change nothing but the output (agents write ``git --no-pager diff``).
_GIT_OUTPUT_ONLY = frozenset({"--no-pager", "-P", "--no-optional-locks"})


def _git_reads_only(argv: Sequence[Word]) -> bool:
    """``git status``, ``git log``, ``git diff``...: the subcommands that never write, with no
    option before them but the pager's (``-c``, ``-C``, ``--git-dir`` take a rule that spells
    them out)."""
    index = 1
    while index < len(argv) and argv[index].value in _GIT_OUTPUT_ONLY:
        index += 1
    if index >= len(argv) or argv[index].value not in GIT_READ_ONLY:
        return False
    # `git reflog expire`, `git reflog delete` rewrite the reflog; only listing it reads
    return argv[index].value != "reflog" or len(argv) == index + 1 or argv[index + 1].value == "show"
