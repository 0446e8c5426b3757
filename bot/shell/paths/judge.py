"""The path half of judging a simple command (seeds 4.6.5): path arguments, redirections, ``cd``,
and arguments only known at run time. The judge (:class:`bot.shell.judge.command.Judge`) owns one
:class:`PathJudge` per decision: it carries what the earlier commands of a compound did to the
file system (links they may have made, the ``lstat`` memo), which a later command's paths depend on."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from bot.shell.judge.prefixes import exact_suggestion
from bot.shell.judge.scan import Layer, Options, Scan
from bot.shell.judge.verdict import ALLOW_NEUTRAL, State, Verdict
from bot.shell.parse.syntax import DYN, WORD_DYNAMIC, WORD_GLOB, Redirect, Word
from bot.shell.paths.arguments import PathUse, has_extractor, path_like_arguments, path_uses
from bot.shell.paths.globbing import expand as expand_glob
from bot.shell.paths.link_makers import is_extraction
from bot.shell.paths.listings import READERS
from bot.shell.paths.resolve import (
    Access,
    CdResult,
    assume_directory,
    change_directory,
    check_path,
    expand,
    glob_base,
    join,
)
from bot.shell.programs.flags import NO_FACTS, program_facts
from bot.shell.programs.kinds import GLOB_SENSITIVE, OUTPUT_ONLY, WRITER_PROGRAMS
from bot.shell.programs.recursive_reads import (
    denied_below,
    packs_working_directory,
    reads_recursively,
    skips_hidden,
)

#: Programs that may unlink or rename onto a target rather than write into it.
_REPLACERS = WRITER_PROGRAMS | {"install", "rsync"}
#: Devices written into without making a file.
_OUTPUTS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})


class PathJudge:
    """The path checks of one decision, and what earlier commands of the compound left behind."""

    def __init__(self, options: Options) -> None:
        self.options = options
        #: ``lstat`` results of this decision (see :func:`~bot.shell.paths.resolve.resolve_below_root`).
        self.seen: dict[str, int] = {}
        #: Where each ``cd`` looked at lands (its path use and the ``cd`` itself ask the same), as
        #: long as :attr:`seen` only holds what the file system says (see :meth:`assume_directory`).
        self._landings: dict[tuple[str, str, str, bool], CdResult] = {}
        #: Paths earlier commands of the compound create (``ln``, ``cp``, ``tar -x``...): any of them
        #: may be a symbolic link by the time a later command uses it.
        self.created: list[str] = []
        #: Directories below which earlier commands (archives, git) may have written links.
        self.created_trees: list[str] = []
        #: Paths the current command writes (recorded into :attr:`created` for link-making programs).
        self.writes: list[str] = []
        #: The compound is an ``&&`` chain: what follows a ``cd`` runs only if it succeeded.
        self.chained = True
        #: Some part of the compound runs alongside another (``|``, ``&``): what one writes, the
        #: other may see at any moment.
        self.concurrent = False
        #: An earlier command of the compound may have written files (any program but ``cd`` and
        #: the like, or a redirection): a repository may exist by the time a later git runs.
        self.wrote_before = False
        #: The compound is ``LISTING | xargs READER``, and the listing prints only plain, regular,
        #: readable workspace files now (:func:`bot.shell.paths.listings.plain_listing`).
        self.listing_reader = False
        #: The current command's stdin is text written in the command (a heredoc or herestring
        #: without run-time parts) or a file (checked as a read): not another program's output.
        self.stdin_written = False

    def assume_directory(self, path: str) -> None:
        """``path`` will be a plain directory for the later commands of this decision
        (:func:`~bot.shell.paths.resolve.assume_directory`): where a ``cd`` lands may change."""
        assume_directory(path, self.seen)
        self._landings.clear()

    def change_directory(self, value: str, cwd: str, pwd: str, physical: bool) -> CdResult:
        """:func:`~bot.shell.paths.resolve.change_directory`, once per decision and question."""
        key = (value, cwd, pwd, physical)
        found = self._landings.get(key)
        if found is None:
            found = self._landings[key] = change_directory(value, cwd, pwd, physical, self.options.paths, self.seen)
        return found

    def arguments(self, scan: Scan, argv: tuple[Word, ...]) -> Verdict | None:
        needs_edit = False
        options = self.options
        for layer in scan.layers:
            words = layer.words
            program = layer.program
            facts = program_facts(words, install_scripts=options.install_scripts)
            if facts is not NO_FACTS:
                for index, reason in facts.explicit:
                    scan.explicit.setdefault(layer.start + index, reason)
                if facts.exact_only:
                    first = not scan.exact_only
                    scan.exact_only = True
                    same = first or scan.stdin_interpreter == program
                    if facts.stdin_code and self.stdin_written and same:
                        scan.stdin_interpreter = program
                    else:
                        scan.stdin_interpreter = ""
            uses = path_uses(words)
            if self.listing_reader and program in READERS and words and words[-1].text == "<stdin>":
                # the workspace files a plain listing prints (see bot.shell.paths.listings)
                words = words[:-1]
                uses = [u for u in uses if u.pos < len(words)]
            if facts.in_place:
                uses = [PathUse(u.pos, u.value, "write", u.word) for u in uses]
                needs_edit = True
            if facts.paths:
                uses.extend(facts.paths)
            if program not in OUTPUT_ONLY and not has_extractor(program):
                # Every argument: `pytest --basetemp=.git` names no slash, `link_to_home` is a link.
                uses.extend(path_like_arguments(words, {u.pos for u in uses}.union(facts.elsewhere)))
            if any(map(WORD_DYNAMIC, words)) or any(map(WORD_GLOB, words)):
                verdict = self._run_time_words(program, words, uses, argv)
                if verdict is not None:
                    return verdict
            if is_extraction(layer.values):
                where = _extraction_into_repository(uses, layer)
                if where is not None:
                    scan.explicit.setdefault(
                        layer.start + len(words) - 1,
                        f"{program} writes where the archive's members say, into {where}, "
                        "which holds .git/ or .github/ (extract into a subdirectory)",
                    )
            if program == "git" and self.options.denied_path is not None and layer.cwd is not None:
                denial = self._git_object_paths(words, layer.cwd)
                if denial is not None:
                    return denial
            if self.options.denied_path is not None and layer.cwd is not None and reads_recursively(layer.values):
                denial = self._recursive_denial(uses, layer)
                if denial is not None:
                    return denial
            if program == "find" and any(w.value == "-files0-from" for w in words):
                scan.explicit.setdefault(
                    layer.start + len(words) - 1, "find -files0-from reads its start points from a file or stdin"
                )
            for use in uses:
                outcome = self._path(use, layer, program, scan)
                if outcome == "edit":
                    needs_edit = True
                elif outcome is not None:
                    return outcome
            if facts.git_dirs or program == "git":
                verdict = self._git_location(facts.git_dirs, layer)
                if verdict is not None:
                    return verdict
        if needs_edit and not options.edits_allowed:
            return Verdict(
                "ask",
                "the command writes files and the policy does not allow edits "
                "(add an Edit rule or use acceptEdits mode)",
            )
        return None

    @staticmethod
    def _run_time_words(
        program: str, words: tuple[Word, ...], uses: list[PathUse], argv: tuple[Word, ...]
    ) -> Verdict | None:
        """Arguments only known at run time (``$VAR``), and globs that could expand into a flag."""
        path_positions = {u.pos for u in uses}
        for offset, word in enumerate(words[1:], start=1):
            if word.dynamic:
                verdict = _dynamic_argument(program, word, offset in path_positions or has_extractor(program))
                if verdict is not None:
                    return verdict
            if word.glob and program in GLOB_SENSITIVE and _may_expand_to_option(word.value, program, offset):
                return Verdict(
                    "ask",
                    f"the glob {word.text!r} could expand to a file named like a {program} option",
                    suggestions=exact_suggestion([w.value for w in argv]),
                )
        return None

    def _path(self, use: PathUse, layer: Layer, program: str, scan: Scan) -> Verdict | Literal["edit"] | None:
        value = use.value
        if DYN in value:
            return Verdict("ask", f"the path {use.word.text!r} is only known at run time")
        absolute = value.startswith(("/", "~"))
        if absolute or not layer.others:
            # one directory to check from (the common case, without building the list of them)
            if layer.cwd is None and not absolute:
                return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
            if not use.word.glob and not self.created and not self.created_trees:
                # (what _path_from comes to for a plain word when nothing earlier made a path)
                return self._classify(value, layer.cwd or "/", use.access, layer, program, scan, use)
            return self._path_from(use, layer.cwd or "/", layer, program, scan)
        cwds = (layer.cwd, *layer.others)
        edit = False
        for cwd in cwds:
            if cwd is None and not value.startswith(("/", "~")):
                return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
            outcome = self._path_from(use, cwd or "/", layer, program, scan)
            if outcome == "edit":
                edit = True
            elif outcome is not None:
                return outcome
        return "edit" if edit else None

    def _path_from(
        self, use: PathUse, cwd: str, layer: Layer, program: str, scan: Scan
    ) -> Verdict | Literal["edit"] | None:
        value = use.value
        access = use.access
        if use.word.glob:
            base = glob_base(value)
            if base is None:
                return Verdict("ask", f"the glob {use.word.text!r} can climb out of its directory")
            matched = self._glob_matches(use, cwd, base)
            if isinstance(matched, Verdict):
                return matched
            for match in matched:  # what the wildcard reaches beyond its directory
                outcome = self._classify(match, cwd, access, layer, program, scan, use)
                if outcome != "edit" and outcome is not None:
                    return outcome
            value = base
            access = "purge" if access in ("delete", "purge") else access
        # A word of a program without a path extractor is only maybe a path: a plain word
        # (`git pull && git status`) is not taken as one below a tree written earlier.
        if self.created or self.created_trees:
            created = self._created_on_the_way(value, cwd, trees=access != "argument" or "/" in value)
            if created is not None:
                return created
        return self._classify(value, cwd, access, layer, program, scan, use)

    def _classify(
        self, value: str, cwd: str, access: Access, layer: Layer, program: str, scan: Scan, use: PathUse
    ) -> Verdict | Literal["edit"] | None:
        if access == "cd":  # (what check_path answers for a cd, remembered for the cd itself)
            verdict = self.change_directory(value, cwd, cwd, False).verdict
        else:
            verdict = check_path(value, cwd, access, self.options.paths, self.seen)
        if self.options.denied_path is not None and verdict.kind in ("ok", "outside"):
            denial = self._denied(value, cwd, verdict.path, access)
            if denial is not None:
                return denial
        match verdict.kind:  # ("ok" first: most paths are)
            case "ok":
                if access == "read" or access == "argument":
                    return None
                if access == "write" and verdict.path in _OUTPUTS and program not in _REPLACERS:
                    # `curl -o /dev/null`, `sort -o /dev/stdout`: written into, no file is made (where
                    # stdout goes is judged with its redirection; the parse refuses `1< file`, and
                    # /dev/stdin or /dev/fd/3 are not writable: bot.shell.paths.resolve). `mv`, `ln`,
                    # `cp`, `install` could replace the device: they stay as they were.
                    return None
                if access in ("write", "delete", "purge"):
                    self.writes.append(verdict.path)
                # find -delete's purge is approved through its inner `rm`; -fprint's write is an edit.
                if (
                    access in ("write", "delete", "purge")
                    and program not in WRITER_PROGRAMS
                    and not (program == "find" and access == "purge")
                ):
                    return "edit"
            case "hard_deny":
                return Verdict("deny", verdict.reason, source="safety")
            case "network":
                return Verdict("ask", verdict.reason, check_id=10, source="safety")
            case "protected":
                return Verdict("deny", verdict.reason, source="safety")
            case "outside":
                scan.explicit.setdefault(layer.start + use.pos, verdict.reason)
        return None

    def _glob_matches(self, use: PathUse, cwd: str, base: str) -> list[str] | Verdict:
        """The matches of a glob worth checking one by one: those reached through a symbolic link,
        in a protected directory, or ``.``/``..`` (the others are plain entries of its directory,
        which is checked itself)."""
        if self.created or self.created_trees:
            base_path = expand(base, cwd, self.options.paths.home)
            for path in (*self.created, *self.created_trees):
                if (
                    path == base_path
                    or path.startswith(base_path.rstrip("/") + "/")
                    or base_path.startswith(path.rstrip("/") + "/")
                ):
                    return Verdict(
                        "ask",
                        f"the glob {use.word.text!r} may match {path}, which an earlier part of "
                        "this command creates (run the commands separately)",
                    )
        matches = expand_glob(expand(use.value, cwd, self.options.paths.home), cwd)
        if matches is None:
            return Verdict("ask", f"the glob {use.word.text!r} matches too many files to check them")
        every = self.options.denied_path is not None  # each match may be one a deny rule covers
        out = [m.path for m in matches if not m.partial and (every or m.through_link or _special(m.path))]
        for m in matches:
            # A wildcard component reaching through a link out, or into .git for a write, is
            # refused even when the rest of the pattern finds nothing now (it may later).
            if m.partial and (m.through_link or (use.access != "read" and _special(m.path))):
                out.append(m.path)
        return out

    def _recursive_denial(self, uses: list[PathUse], layer: Layer) -> Verdict | None:
        """``grep -r x .`` reads ``.env`` without naming it: a directory read file by file must
        hold nothing a Read deny rule covers."""
        assert self.options.denied_path is not None and layer.cwd is not None
        reads = [u.value for u in uses if u.access in ("read", "argument") and DYN not in u.value]
        if packs_working_directory(layer.values):
            reads.append(".")  # a directory argument is checked too; the working directory is the default
        for value in reads or ["."]:
            place = check_path(value, layer.cwd, "read", self.options.paths, self.seen).path
            if not os.path.isdir(place):
                continue
            rule = denied_below(place, self.options.denied_path, hidden=not skips_hidden(layer.values))
            if rule == "too many":
                return Verdict(
                    "ask",
                    f"{layer.program} reads {value} file by file, and there are too many files "
                    "to check against the policy's Read deny rules (use the Grep tool)",
                )
            if rule is not None:
                return Verdict(
                    "ask",
                    f"{layer.program} reads {value} file by file, including files the deny rule "
                    f"`{rule}` covers (use the Grep tool, which leaves them out)",
                    source="rule",
                )
        return None

    def _git_object_paths(self, words: tuple[Word, ...], cwd: str) -> Verdict | None:
        """``git show HEAD:.env``, ``git cat-file -p :secrets/k``: a file's content from the
        repository, under the Read deny rules that cover the file."""
        # `HEAD:.env` is from the top of the repository, `HEAD:./x` and `HEAD:../x` from where git
        # runs (`-C dir` included): every one of these places is checked.
        home = self.options.paths.home
        bases = [cwd]
        for k, word in enumerate(words[1:-1], start=1):
            if word.value == "-C":
                bases.append(join(words[k + 1].value, cwd, home))
        bases.extend(root for root in self.options.paths.roots if cwd == root or cwd.startswith(root + "/"))
        for word in words[1:]:
            value = word.value
            if ":" not in value or "://" in value or value.startswith("-"):
                continue
            path = value.split(":", 1)[1]
            if value.startswith(":") and path[:1].isdigit() and path[1:2] == ":":
                path = path[2:]  # `:0:.env`, `:2:.env`: a stage of the index
            path = path.lstrip("/")
            if not path:
                continue
            for base in dict.fromkeys(bases):
                denial = self._denied(path, base, expand(path, base, home), "read")
                if denial is not None:
                    return denial
        return None

    def _denied(self, value: str, cwd: str, resolved: str, access: Access) -> Verdict | None:
        """A ``Read(...)``/``Edit(...)`` deny rule of the policy covering the path."""
        assert self.options.denied_path is not None
        rule = self.options.denied_path(expand(value, cwd, self.options.paths.home), resolved, access)
        if rule is None:
            return None
        return Verdict("deny", f"the deny rule `{rule}` covers {value}", source="rule")

    def _created_on_the_way(self, value: str, cwd: str, trees: bool = True) -> Verdict | None:
        """A path that goes through one an earlier command of the compound creates (``ln -s /etc x
        && cat x/passwd``): that one may be a symbolic link the check cannot see yet."""
        if not self.created and not self.created_trees:
            return None
        created = set(self.created)
        current = ""
        # Component by component, before `..` is applied: `h/..` goes through `h`.
        for part in join(value, cwd, self.options.paths.home).split("/"):
            if part in ("", "."):
                continue
            current = current.rsplit("/", 1)[0] if part == ".." else f"{current}/{part}"
            if current in created:
                return Verdict(
                    "ask",
                    f"{value} goes through {current}, which an earlier part of this command "
                    "creates and which may be a symbolic link (run the commands separately)",
                )
            for tree in self.created_trees if trees else ():
                if current.startswith(tree.rstrip("/") + "/"):
                    return Verdict(
                        "ask",
                        f"{value} is below {tree}, where an earlier part of this command writes "
                        "files that may be symbolic links (run the commands separately)",
                    )
        return None

    def _git_location(self, dirs: Sequence[PathUse], layer: Layer) -> Verdict | None:
        """git run from another directory than a workspace root could pick up a repository the model
        wrote (a bare repository's config or a nested ``.git``) whose ``core.fsmonitor`` runs code."""
        roots = self.options.paths.roots
        where = layer.cwd
        for use in dirs:
            if where is None or DYN in use.value:
                where = None
                break
            where = check_path(use.value, where, "read", self.options.paths, self.seen).path
        if where is not None and where in roots:
            return None
        if where is not None and self._workspace_git(where):
            return None
        shown = where if where is not None else "an unknown directory"
        hint = f" (run it from the workspace root: cd {roots[0]} && git ...)" if roots else ""
        return Verdict(
            "ask",
            f"git would run in {shown}, not at a workspace root, where a repository "
            f"the model wrote could run code through its config{hint}",
        )

    def _workspace_git(self, where: str) -> bool:
        """git run in a subdirectory of a workspace root finds the workspace's own repository: no
        directory between them holds a ``.git`` or a ``HEAD`` (a nested or bare repository git
        would stop at) now, and nothing earlier in the command, or alongside it, can make one."""
        if self.concurrent or self.wrote_before:
            return False
        root = next((r for r in self.options.paths.roots if where.startswith(r.rstrip("/") + "/")), None)
        if root is None:
            return False
        current = where
        while current != root and current.startswith(root.rstrip("/") + "/"):
            if os.path.lexists(os.path.join(current, ".git")) or os.path.lexists(os.path.join(current, "HEAD")):
                return False
            current = os.path.dirname(current)
        return current == root

    def redirects(self, redirects: tuple[Redirect, ...], state: State) -> Verdict | None:
        for redirect in redirects:
            if redirect.target is None or redirect.is_fd_dup:
                continue
            target = redirect.target.value
            access: Access = "write" if redirect.writes_file else "read"
            cwds = (state.cwd,) if target.startswith(("/", "~")) else state.all_cwds()
            for cwd in cwds:
                verdict = self._redirect_from(target, cwd, access)
                if verdict is not None:
                    return verdict
        return None

    def _redirect_from(self, target: str, cwd: str | None, access: Access) -> Verdict | None:
        policy = self.options.paths
        if cwd is None and not target.startswith(("/", "~")):
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        created = self._created_on_the_way(target, cwd or "/")
        if created is not None:
            return created
        verdict = check_path(target, cwd or "/", access, policy, self.seen)
        if self.options.denied_path is not None and verdict.kind in ("ok", "outside"):
            denial = self._denied(target, cwd or "/", verdict.path, access)
            if denial is not None:
                return denial
        if verdict.kind == "network":
            return Verdict("ask", verdict.reason, check_id=10, source="safety")
        if verdict.kind == "protected":
            return Verdict("deny", f"output redirection to {target}: {verdict.reason}", source="safety")
        if verdict.kind == "outside":
            check = 10 if access == "write" else 9
            return Verdict("ask", f"redirection to {target}: {verdict.reason}", check_id=check)
        if access == "write" and not verdict.path.startswith("/dev/") and not self.options.edits_allowed:
            return Verdict(
                "ask",
                f"the command writes {target} and the policy does not allow edits "
                "(add an Edit rule or use acceptEdits mode)",
            )
        return None

    def cd(self, argv: tuple[Word, ...], state: State) -> Verdict | None:
        """Follow a ``cd``: bash's ``$PWD`` is logical (``cd link/..`` is where it started, unless
        ``-P``/``set -P``), file paths resolve physically. A ``cd`` that may not run or may fail
        (anything but an ``&&`` chain) leaves the shell in either place: both are kept."""
        program = argv[0].value
        if program == "popd" or (len(argv) > 1 and argv[1].value == "-"):
            state.cwd = state.pwd = None
            state.others = ()
            return ALLOW_NEUTRAL
        uses = path_uses(argv)
        if not uses:
            return ALLOW_NEUTRAL
        use = uses[0]
        if use.word.dynamic or DYN in use.value or use.word.glob:
            return Verdict("ask", f"cd to {use.word.text!r}, a directory only known at run time")
        physical = state.physical or _cd_physical(argv)
        candidates = ((state.cwd, state.logical), *state.others)
        moved: list[tuple[str | None, str | None]] = []
        for cwd, pwd in candidates:
            if (cwd is None or pwd is None) and not use.value.startswith(("/", "~")):
                if len(candidates) == 1:
                    return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
                moved.append((None, None))
                continue
            target = self._cd_target(use.value, cwd or "/", pwd or "/", physical)
            if isinstance(target, Verdict):
                return target
            moved.append(target)
        (state.cwd, state.pwd), *rest = moved
        if self.chained:
            state.others = tuple(rest)
        else:
            kept = [c for c in (*rest, *candidates) if c != (state.cwd, state.pwd)]
            state.others = tuple(dict.fromkeys(kept))[: MAX_CWD_CANDIDATES - 1]
            if len(kept) >= MAX_CWD_CANDIDATES:
                state.cwd = state.pwd = None
        return ALLOW_NEUTRAL

    def _cd_target(self, value: str, cwd: str, pwd: str, physical: bool) -> tuple[str, str] | Verdict:
        """``(physical, logical)`` directory after ``cd value``, or why it is not allowed."""
        created = self._created_on_the_way(value, cwd)
        if created is not None:
            return created
        result = self.change_directory(value, cwd, pwd, physical)
        if result.verdict.kind != "ok":
            return Verdict("ask", f"cd {value}: {result.verdict.reason}")
        return result.cwd, result.pwd


def _extraction_into_repository(uses: list[PathUse], layer: Layer) -> str | None:
    """The directory an archive is extracted into, when it holds ``.git`` or ``.github`` (a member
    named ``.git/hooks/pre-commit`` would land there)."""
    targets = [u.value for u in uses if u.access == "write" and DYN not in u.value]
    cwd = layer.cwd
    if cwd is None:
        return None
    for target in targets or ["."]:
        place = target if target.startswith("/") else os.path.normpath(f"{cwd}/{target}")
        if os.path.lexists(f"{place}/.git") or os.path.lexists(f"{place}/.github"):
            return place
    return None


#: Directories the shell may be in after ``cd``s that may or may not have run; past this, unknown.
MAX_CWD_CANDIDATES = 8


def _cd_physical(argv: tuple[Word, ...]) -> bool:
    """``cd -P``, ``cd -LP`` (the last of -L/-P wins), before the operand."""
    physical = False
    for word in argv[1:]:
        value = word.value
        if value == "--" or not value.startswith("-") or value == "-":
            break
        for letter in value[1:]:
            if letter in "LP":
                physical = letter == "P"
    return physical


#: Programs that read a plain word as a setting (``make NAME=v``, ``env NAME=v``, ``dd of=x``).
_PLAIN_WORD_SETTINGS = frozenset({"make", "gmake", "env", "dd"})


def _may_expand_to_option(value: str, program: str, offset: int) -> bool:
    """Whether a glob's matches could start like an option: not when the text before the first
    wildcard has a ``/`` (every match starts with that directory) or starts with a character
    other than ``-`` (``coverage[toml]``, ``src*``) — except for programs that read plain words
    as settings, and tar's first word (``tar xzf`` style)."""
    cut = min((i for i, c in enumerate(value) if c in "*?["), default=len(value))
    head = value[:cut]
    if program in _PLAIN_WORD_SETTINGS or (program in ("tar", "gtar", "bsdtar") and offset == 1):
        return True
    return not ("/" in head or (head and head[0] != "-"))


def _special(path: str) -> bool:
    """A glob match worth its own check: in ``.git``/``.github``, or ``.``/``..``."""
    parts = path.split("/")
    return ".git" in parts or ".github" in parts or "." in parts or ".." in parts


def _dynamic_argument(program: str, word: Word, is_path: bool) -> Verdict | None:
    if program in OUTPUT_ONLY:
        return None
    if word.text == "<stdin>":
        return Verdict(
            "ask", f"xargs appends arguments read from stdin to {program}, so its arguments are only known at run time"
        )
    if word.splits:
        return Verdict("ask", f"the unquoted {word.text!r} is split into words and globbed at run time")
    if word.value.startswith("\ue000"):
        return Verdict(
            "ask", f"the argument {word.text!r} starts with a value only known at run time (it could be a flag)"
        )
    if is_path:
        return Verdict("ask", f"the argument {word.text!r} of {program} is only known at run time")
    return None
