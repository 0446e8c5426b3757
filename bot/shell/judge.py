"""Judging one simple command against the policy (seeds 4.6.2 steps 3–5, 4.6.5, plus wrappers).

For one simple command, in order:

1. its deny and ask rules — on every layer of wrappers (``sudo timeout 5 rm -rf x`` is matched as
   ``rm -rf x`` too, as ``/bin/rm`` by its base name, ``git -C x push`` as ``git push``);
2. the word-level security checks (obfuscated flags, jq, zsh builtins);
3. paths: hard denials (``rm -rf /``, ``~``, the workspace), protected writes, network devices;
   then arguments only known at run time (``$VAR``, globs that could expand into a flag);
4. commands it launches: ``find -exec``/``xargs`` inner commands and ``sh -c`` scripts are judged as
   commands of their own;
5. state: an earlier ``export`` of an unsafe variable, ``git`` outside the repository root, writes
   when the policy allows no edits, ``cd`` out of the workspace;
6. allow rules, from the outermost layer inwards: a rule approves only the words its literal spells
   out when they carry a capability (an inner program, ``git -c``, a path outside the workspace).
   Past a transparent wrapper (``timeout``, ``env``, ``npx``) the inner command may be approved by a
   rule of its own; past a privilege wrapper (``sudo``) it may not.

The result is a :class:`~bot.shell.verdict.Verdict`; :mod:`bot.shell.decide` aggregates them over a
compound command (:func:`~bot.shell.verdict.combine`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.shell.assignments import is_safe_env_var
from bot.shell.command_kinds import GLOB_SENSITIVE, NEUTRAL_COMMANDS, OUTPUT_ONLY, WRITER_PROGRAMS
from bot.shell.path_args import PathUse, has_extractor, path_like_arguments, path_uses, symlink_targets
from bot.shell.path_check import Access, PathPolicy, check_path, glob_base
from bot.shell.prefixes import exact_suggestion, suggestion_for
from bot.shell.program_flags import NO_FACTS, git_subcommand_position, program_facts
from bot.shell.rule_match import CompiledRule, RuleIndex, RuleSet, canonical, covers
from bot.shell.security_checks import argv_findings
from bot.shell.syntax import DYN, Assignment, Redirect, SimpleCommand, Word
from bot.shell.verdict import ALLOW_NEUTRAL, State, Verdict, combine
from bot.shell.wrappers import InnerKind, unwrap

#: Nested scripts (``sh -c "sh -c '...'"``) deeper than this are too complex.
MAX_NESTING = 3
#: Subcommands per command, nested scripts and inner commands included (seeds
#: ``MAX_SUBCOMMANDS_FOR_SECURITY_CHECK``). Above it the command is denied, not asked.
MAX_SUBCOMMANDS = 50


@dataclass(frozen=True, slots=True)
class Options:
    rules: RuleSet
    paths: PathPolicy
    edits_allowed: bool
    install_scripts: bool = True


class _Layer:
    """One program of a wrapper chain (``timeout 5 env X=1 make`` has three), with its canonical text."""

    __slots__ = ("_ends", "cwd", "kind", "program", "start", "text", "unsafe_env", "values", "words")

    def __init__(self, start: int, words: tuple[Word, ...], kind: InnerKind | None, cwd: str | None,
                 unsafe_env: bool = False) -> None:
        self.start = start
        self.words = words
        self.kind = kind
        self.cwd = cwd
        self.unsafe_env = unsafe_env
        values = [w[0] for w in words]
        self.values = values
        self.text = " ".join(values)
        #: The program's base name (``/usr/bin/git`` → ``git``).
        self.program = values[0].rsplit("/", 1)[-1] if values else ""
        self._ends: list[int] | None = None

    @property
    def ends(self) -> list[int]:
        """The end offset of each word in :attr:`text` (computed when a rule needs it)."""
        if self._ends is None:
            self._ends = canonical(self.values)[1]
        return self._ends


class _Scan:
    """Everything found about one command before the allow rules are consulted."""

    __slots__ = ("boundaries", "exact_only", "exec_inners", "explicit", "layers", "opaque_starts", "scripts")

    def __init__(self, layers: list[_Layer]) -> None:
        self.layers = layers
        self.explicit: dict[int, str] = {}
        self.boundaries: list[int] = []
        self.exec_inners: list[tuple[int, tuple[Word, ...], str | None]] = []
        #: ``(index, script, kind, same_shell)``: ``eval`` runs in the current shell (its ``cd`` counts).
        self.scripts: list[tuple[int, str, InnerKind, bool]] = []
        self.opaque_starts: list[int] = []
        #: Commands read from stdin (``curl x | sh``): only an exact rule approves.
        self.exact_only = False


ScriptDecider = Callable[[str, State, int], Verdict]


class Judge:
    """Judges simple commands for one decision; counts them against :data:`MAX_SUBCOMMANDS`."""

    def __init__(self, options: Options, decide_script: ScriptDecider, depth: int = 0) -> None:
        self.options = options
        self.decide_script = decide_script
        self.depth = depth
        self.count = 0
        #: ``lstat`` results of this decision (see :func:`~bot.shell.path_check.resolve_below_root`).
        self.seen: dict[str, int] = {}

    # ----- entry --------------------------------------------------------------------------------

    def command(self, cmd: SimpleCommand, state: State) -> Verdict:
        self.count += 1
        if self.count > MAX_SUBCOMMANDS:
            return Verdict("deny", f"the command has more than {MAX_SUBCOMMANDS} subcommands", source="safety")
        if cmd.redirects:
            redirect_verdict = self._redirects(cmd.redirects, state)
            if redirect_verdict is not None:
                return redirect_verdict
        if cmd.kind != "command" or not cmd.argv:
            return self._state_only(cmd, state)
        return self._program(cmd.argv, cmd.assignments, state)

    # ----- statements without a program -----------------------------------------------------------

    def _state_only(self, cmd: SimpleCommand, state: State) -> Verdict:
        for assignment in cmd.assignments:
            if _may_change_programs(assignment.name):
                state.tainted = f"the variable {assignment.name} set earlier in the command is not known to be safe"
        if cmd.argv:
            deny = self._rule_match(self.options.rules.deny, cmd.values) if self.options.rules.deny.rules else None
            if deny is not None:
                return Verdict("deny", f"a deny rule forbids `{cmd.text}`", deny.rule.ref, source="rule")
            facts = program_facts(cmd.argv)
            if facts.explicit:
                return Verdict("ask", facts.explicit[0][1], suggestions=exact_suggestion(cmd.values))
        return ALLOW_NEUTRAL

    # ----- programs -----------------------------------------------------------------------------

    def _program(self, argv: tuple[Word, ...], assigns: tuple[Assignment, ...], state: State) -> Verdict:
        options = self.options
        scan = self._scan(argv, state)
        # 1. deny and ask rules, every layer
        rules = options.rules
        if rules.deny.rules or rules.ask.rules:
            for values in self._rule_views(scan, argv):
                for index, behaviour in ((rules.deny, "deny"), (rules.ask, "ask")):
                    found = self._rule_match(index, values) if index.rules else None
                    if found is not None:
                        text = " ".join(values)
                        if behaviour == "deny":
                            return Verdict("deny", f"a deny rule forbids `{text}`", found.rule.ref, source="rule")
                        return Verdict("ask", f"an ask rule requires approval for `{text}`", found.rule.ref,
                                       source="rule")
        # 2. word-level security checks
        for layer in scan.layers:
            finding = argv_findings(layer.words)
            if finding is not None:
                return Verdict("ask", finding.message, check_id=finding.check_id, source="safety")
        # 3. paths and run-time arguments
        verdict = self._paths_and_arguments(scan, argv)
        if verdict is not None:
            return verdict
        # 4. launched commands
        inner_verdicts = self._inners(scan, state) if scan.exec_inners or scan.scripts else []
        if inner_verdicts and any(v.kind == "deny" for v in inner_verdicts):
            return combine(inner_verdicts)
        # 5. state
        if state.tainted:
            return Verdict("ask", state.tainted)
        unsafe = [a for a in assigns if not is_safe_env_var(a.name)] if assigns else []
        program = argv[0].value
        single = len(scan.layers) == 1
        if not single and any(layer.values[0] in ("cd", "pushd", "popd") for layer in scan.layers[1:]):
            return Verdict("ask", "cd through a wrapper changes the directory in a way the analysis does not follow")
        if single and program in ("cd", "pushd", "popd"):
            verdict = self._cd(argv, state)
            if verdict is not None:
                return verdict
        if single and program in ("read", "mapfile", "readarray"):
            # `read PATH < file` would set the environment of what follows from a file.
            names = [w.value for w in argv[1:] if not w.value.startswith("-")]
            if any(_may_change_programs(n) for n in names):
                state.tainted = f"{program} sets a variable that is not known to be safe"
        if single and program in NEUTRAL_COMMANDS and not unsafe and not scan.explicit:
            return combine([ALLOW_NEUTRAL, *inner_verdicts]) if inner_verdicts else ALLOW_NEUTRAL
        # 6. allow rules
        allowed = self._allow(scan, argv, unsafe)
        if allowed is not None:
            rule, covered = allowed
            verdict = Verdict("allow", rule=rule.rule.ref)
            if not inner_verdicts:
                return verdict
            approved = [self._inner_verdict(v, i, covered, rule) for v, i in zip(inner_verdicts,
                                                                                self._inner_indices(scan),
                                                                                strict=True)]
            return combine([verdict, *approved])
        if self._launcher_only(scan) and not unsafe:
            return combine([ALLOW_NEUTRAL, *inner_verdicts])
        return combine([self._unmatched(scan, argv, unsafe), *inner_verdicts])

    def _rule_views(self, scan: _Scan, argv: tuple[Word, ...]) -> list[list[str]]:
        """What deny and ask rules are matched against: every layer, and behind an opaque launcher
        every suffix that starts with a non-option word (``strace -f rm -rf x`` → ``rm -rf x``)."""
        views = [layer.values for layer in scan.layers]
        for start in scan.opaque_starts:
            views.extend([w.value for w in argv[j:]] for j in range(start, len(argv))
                         if not argv[j].value.startswith("-"))
        return views

    def _launcher_only(self, scan: _Scan) -> bool:
        """A shell or ``eval`` (behind transparent wrappers) whose script is judged on its own."""
        innermost = scan.layers[-1]
        return (bool(scan.scripts) and not scan.explicit and not scan.exec_inners
                and all(layer.kind == "transparent" and not layer.unsafe_env for layer in scan.layers[1:])
                and all(kind == "transparent" and start > innermost.start for start, _, kind, _ in scan.scripts))

    def _scan(self, argv: tuple[Word, ...], state: State) -> _Scan:
        layers = [_Layer(0, argv, None, state.cwd)]
        scan = _Scan(layers)
        while len(layers) < 8:
            current = layers[-1]
            inners = unwrap(current.words)
            following: _Layer | None = None
            for inner in inners:
                start = current.start + inner.start
                if inner.script is not None:
                    same_shell = current.words[0].value == "eval"
                    scan.scripts.append((start, inner.script, inner.kind, same_shell))
                    if inner.kind == "privilege":
                        scan.boundaries.append(start)
                elif inner.kind == "opaque":
                    scan.explicit.setdefault(max(len(argv) - 1, 0), inner.reason or "an opaque launcher")
                    scan.opaque_starts.append(start)
                    scan.exact_only = scan.exact_only or inner.from_stdin
                elif inner.kind == "exec_each" and inner.argv is not None:
                    scan.exec_inners.append((start, inner.argv, None))
                elif inner.argv is not None and following is None:
                    cwd = current.cwd
                    if inner.chdir is not None:
                        cwd = None if inner.chdir.dynamic or cwd is None else _join(cwd, inner.chdir.value)
                    unsafe = current.unsafe_env or any(not is_safe_env_var(a.name) for a in inner.assignments)
                    following = _Layer(start, inner.argv, inner.kind, cwd, unsafe)
                    scan.boundaries.append(start)
            if following is None:
                break
            layers.append(following)
        return scan

    @staticmethod
    def _inner_indices(scan: _Scan) -> list[int]:
        return [start for start, _, _ in scan.exec_inners] + [start for start, _, _, _ in scan.scripts]

    def _inner_verdict(self, verdict: Verdict, index: int, covered: int, rule: CompiledRule) -> Verdict:
        """An inner command the outer rule spells out is approved by that rule (its deny rules and
        checks were already applied)."""
        if verdict.kind == "nomatch" and index <= covered:
            return Verdict("allow", rule=rule.rule.ref)
        return verdict

    # ----- rules --------------------------------------------------------------------------------

    def _rule_match(self, index: RuleIndex, values: Sequence[str]) -> CompiledRule | None:
        found = index.first(" ".join(values), values[0])
        if found is not None:
            return found
        base = values[0].rsplit("/", 1)[-1]
        if base != values[0]:
            found = index.first(" ".join([base, *values[1:]]), base)
            if found is not None:
                return found
        if base == "git" and len(values) > 1 and values[1].startswith("-"):
            sub = git_subcommand_position(values)
            if sub is not None and sub > 1:
                return index.first(" ".join(["git", *values[sub:]]), "git")
        return None

    def _allow(self, scan: _Scan, argv: tuple[Word, ...], unsafe: list[Assignment]) -> tuple[CompiledRule, int] | None:
        allow = self.options.rules.allow
        if not allow.rules:
            return None
        explicit = sorted(scan.explicit) if scan.explicit else []
        boundaries = scan.boundaries
        if boundaries and scan.scripts:
            starts = {layer.start for layer in scan.layers[1:]}
            boundaries = [b for b in boundaries if b in starts
                          or any(b == start and kind == "privilege" for start, _, kind, _ in scan.scripts)]
        for k, layer in enumerate(scan.layers):
            if k > 0 and (layer.kind != "transparent" or layer.unsafe_env or any(i < layer.start for i in explicit)):
                break
            ends: list[int] | _Layer
            if k == 0 and unsafe:
                prefix = [f"{a.name}={a.value.value}" for a in unsafe]
                values = prefix + layer.values
                text, ends = canonical(values)
            else:
                prefix = []
                values, text, ends = layer.values, layer.text, layer
            offset = len(prefix) - layer.start
            needed = [i for i in explicit if i >= layer.start] + [b for b in boundaries if b > layer.start] \
                if explicit or boundaries else []
            found = self._first_covering(scan, argv, text, ends, values[0], offset, needed, len(prefix))
            if found is not None:
                return found
            if values[0] == "git" and not prefix:
                # `git -C . -c user.name=x commit` matches Bash(git commit:*) (Claude Code 2.1.0): the
                # global options are skipped, provided none of them needs spelling out.
                sub = git_subcommand_position(values)
                if sub is not None and sub > 1 and not any(layer.start < i < layer.start + sub for i in explicit):
                    view = ["git", *values[sub:]]
                    view_text, view_ends = canonical(view)
                    shift = 1 - sub - layer.start
                    view_needed = [i for i in needed if i >= layer.start + sub]
                    found = self._first_covering(scan, argv, view_text, view_ends, "git", shift, view_needed, 0)
                    if found is not None:
                        return found
        return None

    def _first_covering(self, scan: _Scan, argv: tuple[Word, ...], text: str, ends: list[int] | _Layer,
                        program: str, offset: int, needed: list[int],
                        prefix_len: int) -> tuple[CompiledRule, int] | None:
        """The first allow rule matching ``text`` whose literal spells out every ``needed`` word
        (indices in ``argv``; ``offset`` maps them into ``ends``, a layer's when it is one)."""
        for compiled in self.options.rules.allow.candidates(program):
            pattern = compiled.pattern
            if not pattern.matches(text):
                continue
            if scan.exact_only and pattern.kind != "exact":
                continue
            if not (prefix_len or needed or scan.exec_inners or scan.scripts):
                return compiled, -1
            if isinstance(ends, _Layer):
                ends = ends.ends
            if prefix_len and not covers(pattern, ends[prefix_len - 1]):
                continue
            # A needed word past the end (``git -c`` with its value missing) cannot be spelled out.
            if not needed or all(0 <= i + offset < len(ends) and covers(pattern, ends[i + offset]) for i in needed):
                if not (scan.exec_inners or scan.scripts):
                    return compiled, -1
                covered = max((i for i in range(len(argv)) if 0 <= i + offset < len(ends)
                               and covers(pattern, ends[i + offset])), default=-1)
                return compiled, covered
        return None

    def _unmatched(self, scan: _Scan, argv: tuple[Word, ...], unsafe: list[Assignment]) -> Verdict:
        innermost = scan.layers[-1]
        if scan.explicit:
            index = min(scan.explicit)
            reason = (f"{scan.explicit[index]}; only a rule that spells out "
                      f"`{' '.join(w.value for w in argv[:index + 1])}` allows it")
            return Verdict("nomatch", reason, suggestions=exact_suggestion([w.value for w in argv]))
        if unsafe:
            names = ", ".join(a.name for a in unsafe)
            return Verdict("nomatch", f"the command sets {names}, which can change what it runs",
                           suggestions=exact_suggestion([f"{a.name}={a.value.value}" for a in unsafe] +
                                                        [w.value for w in argv]))
        words = [w.value for w in innermost.words]
        privileged = next((layer for layer in scan.layers if layer.kind == "privilege"), None)
        suggestion = suggestion_for(words)
        if privileged is not None:
            # `sudo apt-get install x` → Bash(sudo apt-get install:*): the wrapper must be spelled out.
            outer = " ".join(w.value for w in argv[:privileged.start])
            inner = suggestion[len("Bash("):-1] if suggestion else None
            suggestion = f"Bash({outer} {inner})" if inner else None
        text = " ".join(w.value for w in argv)
        return Verdict("nomatch", f"no allow rule covers `{text}`", suggestions=(suggestion,) if suggestion else ())

    # ----- paths and arguments ------------------------------------------------------------------

    def _paths_and_arguments(self, scan: _Scan, argv: tuple[Word, ...]) -> Verdict | None:
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
                    scan.exact_only = True
            uses = path_uses(words)
            if facts.in_place:
                uses = [PathUse(u.pos, u.value, "write", u.word) for u in uses]
                needs_edit = True
            if facts.paths:
                uses.extend(facts.paths)
            if program == "ln":
                uses = symlink_targets(words, uses)
            if program not in OUTPUT_ONLY and not has_extractor(program):
                # (a cheap test on the whole text first: most commands name no such place)
                text = layer.text
                if "/" in text or "~" in text or ".." in text:
                    uses.extend(path_like_arguments(words, {u.pos for u in uses}))
            for word in words:
                if word.dynamic or word.glob:
                    verdict = self._run_time_words(program, words, uses, argv)
                    if verdict is not None:
                        return verdict
                    break
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
            return Verdict("ask", "the command writes files and the policy does not allow edits "
                                  "(add an Edit rule or use acceptEdits mode)")
        return None

    @staticmethod
    def _run_time_words(program: str, words: tuple[Word, ...], uses: list[PathUse],
                        argv: tuple[Word, ...]) -> Verdict | None:
        """Arguments only known at run time (``$VAR``), and globs that could expand into a flag."""
        path_positions = {u.pos for u in uses}
        for offset, word in enumerate(words[1:], start=1):
            if word.dynamic:
                verdict = _dynamic_argument(program, word, offset in path_positions or has_extractor(program))
                if verdict is not None:
                    return verdict
            if word.glob and program in GLOB_SENSITIVE:
                return Verdict("ask", f"the glob {word.text!r} could expand to a file named like a "
                                      f"{program} option",
                               suggestions=exact_suggestion([w.value for w in argv]))
        return None

    def _path(self, use: PathUse, layer: _Layer, program: str, scan: _Scan) -> Verdict | Literal["edit"] | None:
        value = use.value
        if DYN in value:
            return Verdict("ask", f"the path {use.word.text!r} is only known at run time")
        access = use.access
        if use.word.glob:
            base = glob_base(value)
            if base is None:
                return Verdict("ask", f"the glob {use.word.text!r} can climb out of its directory")
            value = base
            access = "purge" if access in ("delete", "purge") else access
        if layer.cwd is None and not value.startswith(("/", "~")):
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        verdict = check_path(value, layer.cwd or "/", access, self.options.paths, self.seen)
        match verdict.kind:
            case "hard_deny":
                return Verdict("deny", verdict.reason, source="safety")
            case "network":
                return Verdict("ask", verdict.reason, check_id=10, source="safety")
            case "protected":
                return Verdict("deny", verdict.reason, source="safety")
            case "outside":
                scan.explicit.setdefault(layer.start + use.pos, verdict.reason)
            case "ok":
                # find -delete's purge is approved through its inner `rm`; -fprint's write is an edit.
                if access in ("write", "delete", "purge") and program not in WRITER_PROGRAMS and \
                        not (program == "find" and access == "purge"):
                    return "edit"
        return None

    def _git_location(self, dirs: Sequence[PathUse], layer: _Layer) -> Verdict | None:
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
        shown = where if where is not None else "an unknown directory"
        hint = f" (run it from the workspace root: cd {roots[0]} && git ...)" if roots else ""
        return Verdict("ask", f"git would run in {shown}, not at a workspace root, where a repository "
                              f"the model wrote could run code through its config{hint}")

    def _redirects(self, redirects: tuple[Redirect, ...], state: State) -> Verdict | None:
        policy = self.options.paths
        for redirect in redirects:
            if redirect.target is None or redirect.is_fd_dup:
                continue
            target = redirect.target.value
            if state.cwd is None and not target.startswith(("/", "~")):
                return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
            access: Access = "write" if redirect.writes_file else "read"
            verdict = check_path(target, state.cwd or "/", access, policy, self.seen)
            if verdict.kind == "network":
                return Verdict("ask", verdict.reason, check_id=10, source="safety")
            if verdict.kind == "protected":
                return Verdict("deny", f"output redirection to {target}: {verdict.reason}", source="safety")
            if verdict.kind == "outside":
                check = 10 if access == "write" else 9
                return Verdict("ask", f"redirection to {target}: {verdict.reason}", check_id=check)
            if access == "write" and not verdict.path.startswith("/dev/") and not self.options.edits_allowed:
                return Verdict("ask", f"the command writes {target} and the policy does not allow edits "
                                      "(add an Edit rule or use acceptEdits mode)")
        return None

    def _cd(self, argv: tuple[Word, ...], state: State) -> Verdict | None:
        program = argv[0].value
        if program == "popd" or (len(argv) > 1 and argv[1].value == "-"):
            state.cwd = None
            return ALLOW_NEUTRAL
        uses = path_uses(argv)
        if not uses:
            return ALLOW_NEUTRAL
        use = uses[0]
        if use.word.dynamic or DYN in use.value or use.word.glob:
            return Verdict("ask", f"cd to {use.word.text!r}, a directory only known at run time")
        if state.cwd is None and not use.value.startswith(("/", "~")):
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        verdict = check_path(use.value, state.cwd or "/", "cd", self.options.paths, self.seen)
        if verdict.kind != "ok":
            return Verdict("ask", f"cd {use.value}: {verdict.reason}")
        state.cwd = verdict.path
        return ALLOW_NEUTRAL

    # ----- launched commands --------------------------------------------------------------------

    def _inners(self, scan: _Scan, state: State) -> list[Verdict]:
        verdicts: list[Verdict] = []
        for _start, inner_argv, _ in scan.exec_inners:
            inner = SimpleCommand(inner_argv, (), (), " ".join(w.value for w in inner_argv))
            verdicts.append(self.command(inner, state.copy()))
        for _start, script, _kind, same_shell in scan.scripts:
            if "\n" in script and any(line.lstrip().startswith("#") for line in script.split("\n")[1:]):
                verdicts.append(Verdict("ask", "a quoted newline followed by a comment line in a script",
                                        check_id=23, source="safety"))
                continue
            if self.depth + 1 > MAX_NESTING:
                verdicts.append(Verdict("ask", f"scripts nested more than {MAX_NESTING} deep"))
                continue
            verdicts.append(self.decide_script(script, state if same_shell else state.copy(), self.depth + 1))
        return verdicts


def _dynamic_argument(program: str, word: Word, is_path: bool) -> Verdict | None:
    if program in OUTPUT_ONLY:
        return None
    if word.text == "<stdin>":
        return Verdict("ask", f"xargs appends arguments read from stdin to {program}, so its arguments are only "
                              "known at run time")
    if word.splits:
        return Verdict("ask", f"the unquoted {word.text!r} is split into words and globbed at run time")
    if word.value.startswith("\ue000"):
        return Verdict("ask", f"the argument {word.text!r} starts with a value only known at run time "
                              "(it could be a flag)")
    if is_path:
        return Verdict("ask", f"the argument {word.text!r} of {program} is only known at run time")
    return None


_PROXY_VARS = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})


def _may_change_programs(name: str) -> bool:
    """Programs read upper-case environment variables (and the proxy settings); a lower-case shell
    variable such as ``x=1`` changes nothing they run."""
    if is_safe_env_var(name):
        return False
    return not name.islower() or name in _PROXY_VARS


def _join(cwd: str, value: str) -> str | None:
    if value.startswith("/"):
        return value
    if value.startswith("~"):
        return None
    return f"{cwd.rstrip('/')}/{value}"
